//! A change of a credential, as the audit log records it: its creation or
//! its revocation, with the request it was made by and the credential as
//! it stood after the change (who, when and why are on the credential).

use serde::{Deserialize, Serialize};

use crate::domain::{AuditKind, Timestamp, access::Credential};

/// What changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The credential was created.
    Created,
    /// It was revoked.
    Revoked,
}

/// One change of a credential.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialChange {
    /// What changed.
    pub kind: ChangeKind,
    /// The request id it was made with, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// The credential after the change.
    pub credential: Credential,
}

impl CredentialChange {
    /// The audit log's kind of the change.
    pub fn audit_kind(&self) -> AuditKind {
        match self.kind {
            ChangeKind::Created => AuditKind::CredentialCreated,
            ChangeKind::Revoked => AuditKind::CredentialRevoked,
        }
    }

    /// Who made the change.
    pub fn by(&self) -> &str {
        match (self.kind, &self.credential.revoked) {
            (ChangeKind::Revoked, Some(revocation)) => &revocation.by,
            _ => &self.credential.created_by,
        }
    }

    /// When.
    pub fn at(&self) -> Timestamp {
        match (self.kind, &self.credential.revoked) {
            (ChangeKind::Revoked, Some(revocation)) => revocation.at,
            _ => self.credential.created_at,
        }
    }

    /// Why, for a revocation.
    pub fn reason(&self) -> Option<&str> {
        match (self.kind, &self.credential.revoked) {
            (ChangeKind::Revoked, Some(revocation)) => Some(&revocation.reason),
            _ => None,
        }
    }
}
