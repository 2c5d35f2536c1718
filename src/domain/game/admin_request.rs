//! Idempotency of the arbiter's commands: a command repeated with the same
//! request id is applied once.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::domain::RequestId;

/// How many of its latest arbiter requests a game remembers. An arbiter's
/// retry comes within seconds, and a game sees few arbiter commands, so a
/// short memory is enough and keeps the state bounded.
pub const REMEMBERED_REQUESTS: usize = 16;

/// An arbiter's command with its idempotency key and a digest of what it
/// asks for, so that a key reused for a different command is told apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdminRequest {
    pub(in crate::domain) id: String,
    pub(in crate::domain) digest: String,
}

impl AdminRequest {
    /// The request `id` for the command described by `parts` (its name and
    /// every argument, in a fixed order).
    pub fn new(id: &RequestId, parts: &[&str]) -> Self {
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        let digest = hasher.finalize()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        Self {
            id: id.as_str().to_owned(),
            digest,
        }
    }
}
