//! The arbiter's notion of time: a server timestamp passed into every rule.

use serde::{Deserialize, Serialize};

/// A point in time, in milliseconds since the Unix epoch.
///
/// The domain never reads a clock: every command receives "now" from the
/// store, which reads it once per request from the one source all replicas
/// share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Timestamp(u64);

impl Timestamp {
    /// A timestamp from milliseconds since the Unix epoch.
    pub const fn from_unix_millis(millis: u64) -> Self {
        Self(millis)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn unix_millis(self) -> u64 {
        self.0
    }

    /// This instant plus `millis`.
    pub const fn plus_millis(self, millis: u64) -> Self {
        Self(self.0.saturating_add(millis))
    }

    /// Milliseconds from `earlier` to this instant (0 if `earlier` is later).
    pub const fn millis_since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }
}
