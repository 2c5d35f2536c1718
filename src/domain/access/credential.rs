//! A credential: a named principal's role, scope and expiry, and the
//! digest of its secret; the token that presents it.
//!
//! A token is `cred.<id>.<secret>`: the id finds the record (one read),
//! the secret's SHA-256 digest is compared with the record's in constant
//! time. The record never holds the secret, so it cannot be read back;
//! seat tokens (URL-safe base64) never contain a dot, so the two are never
//! confused.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::domain::{
    EventId, FieldError, Timestamp, TokenHash,
    access::{Principal, Role},
};

/// The most credentials a server holds, revoked ones included: far above
/// any real deployment (every arbiter and reader of thousands of events),
/// far below what a listing or the store should hold.
pub const MAX_CREDENTIALS: usize = 100_000;

/// The prefix of every credential token.
const TOKEN_PREFIX: &str = "cred.";

/// A credential's identifier: 20 lowercase hexadecimal digits, public
/// (listed, named in revocations), never enough to use the credential.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CredentialId(String);

impl CredentialId {
    /// The length of an identifier.
    pub const LEN: usize = 20;

    /// Parses an identifier a client sent.
    pub fn parse(text: &str) -> Result<Self, FieldError> {
        if text.is_empty() {
            return Err(FieldError::new("credential_id", "is required"));
        }
        if text.len() != Self::LEN || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        {
            return Err(FieldError::new(
                "credential_id",
                format!("must be {} lowercase hexadecimal digits", Self::LEN),
            ));
        }
        Ok(Self(text.to_owned()))
    }

    /// The identifier made of the first bytes of `bytes`.
    pub fn from_bytes(bytes: &[u8; Self::LEN / 2]) -> Self {
        use fmt::Write;
        let mut text = String::with_capacity(Self::LEN);
        for byte in bytes {
            let _ = write!(text, "{byte:02x}");
        }
        Self(text)
    }

    /// The identifier as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for CredentialId {
    type Error = FieldError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<CredentialId> for String {
    fn from(id: CredentialId) -> Self {
        id.0
    }
}

impl fmt::Display for CredentialId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A presented credential token, split into the identifier that finds its
/// record and the secret that proves it. Its `Debug` never shows the
/// secret.
#[derive(Clone, PartialEq, Eq)]
pub struct CredentialToken {
    /// The credential it claims to be.
    pub id: CredentialId,
    secret: String,
}

impl fmt::Debug for CredentialToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CredentialToken({}, <secret>)", self.id)
    }
}

impl CredentialToken {
    /// A token of credential `id` with `secret`.
    pub fn new(id: CredentialId, secret: String) -> Self {
        Self { id, secret }
    }

    /// Whether a bearer token is meant as a credential (it has the
    /// prefix), well-formed or not.
    pub fn is_credential(token: &str) -> bool {
        token.starts_with(TOKEN_PREFIX)
    }

    /// Reads a bearer token of the credential form; `None` when it is not
    /// one (a seat token, the admin token, garbage).
    pub fn parse(token: &str) -> Option<Self> {
        let rest = token.strip_prefix(TOKEN_PREFIX)?;
        let (id, secret) = rest.split_once('.')?;
        let id = CredentialId::parse(id).ok()?;
        if secret.is_empty() || secret.len() > 128 {
            return None;
        }
        Some(Self {
            id,
            secret: secret.to_owned(),
        })
    }

    /// The digest the credential's record keeps of the secret.
    pub fn digest(&self) -> TokenHash {
        TokenHash::of(&self.secret)
    }

    /// The token as the holder presents it.
    pub fn reveal(&self) -> String {
        format!("{TOKEN_PREFIX}{}.{}", self.id, self.secret)
    }
}

/// The name of a credential's holder, which every record of its actions
/// carries: 1 to [`PrincipalName::MAX_LEN`] characters without control
/// characters, trimmed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct PrincipalName(String);

impl PrincipalName {
    /// Longest accepted name, in characters.
    pub const MAX_LEN: usize = 100;

    /// Parses the name a request gives.
    pub fn parse(text: &str) -> Result<Self, FieldError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(FieldError::new("name", "is required"));
        }
        if text.chars().count() > Self::MAX_LEN || text.chars().any(char::is_control) {
            return Err(FieldError::new(
                "name",
                format!(
                    "must be at most {} characters without control characters",
                    Self::MAX_LEN
                ),
            ));
        }
        Ok(Self(text.to_owned()))
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for PrincipalName {
    type Error = FieldError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<PrincipalName> for String {
    fn from(name: PrincipalName) -> Self {
        name.0
    }
}

/// A credential's revocation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revocation {
    /// When.
    pub at: Timestamp,
    /// By whom (a principal's name).
    pub by: String,
    /// Why.
    pub reason: String,
}

/// A credential as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    /// Its identifier.
    pub id: CredentialId,
    /// Its holder's name.
    pub name: PrincipalName,
    /// What it allows.
    pub role: Role,
    /// The event it is confined to; `None` for every event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<EventId>,
    /// The digest of its secret.
    pub digest: TokenHash,
    /// When it was created.
    pub created_at: Timestamp,
    /// Who created it.
    pub created_by: String,
    /// When it stops being accepted, if ever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
    /// Its revocation, once revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked: Option<Revocation>,
}

/// Whether a credential is accepted at a given time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CredentialState {
    /// Accepted.
    Active,
    /// Past its expiry.
    Expired {
        /// Since when.
        at: Timestamp,
    },
    /// Revoked.
    Revoked {
        /// Since when.
        at: Timestamp,
    },
}

impl Credential {
    /// Checks a role's scope rule: an arbiter and a feed reader name one
    /// event, the platform none, an auditor may.
    pub fn check_scope(role: Role, event: Option<&EventId>) -> Result<(), FieldError> {
        use super::ScopeRule;
        match (role.scope(), event) {
            (ScopeRule::Required, None) => Err(FieldError::new(
                "event_id",
                format!(
                    "is required: a {} credential is confined to one event",
                    role.name()
                ),
            )),
            (ScopeRule::Never, Some(_)) => Err(FieldError::new(
                "event_id",
                "must be empty: a platform credential covers every event",
            )),
            _ => Ok(()),
        }
    }

    /// Whether it is accepted at `now`.
    pub fn state(&self, now: Timestamp) -> CredentialState {
        if let Some(revoked) = &self.revoked {
            return CredentialState::Revoked { at: revoked.at };
        }
        match self.expires_at {
            Some(at) if at <= now => CredentialState::Expired { at },
            _ => CredentialState::Active,
        }
    }

    /// Whether `token` carries this credential's secret (compared in
    /// constant time).
    pub fn proves(&self, token: &CredentialToken) -> bool {
        token.id == self.id && self.digest.matches(&token.digest())
    }

    /// The principal it names.
    pub fn principal(&self) -> Principal {
        Principal {
            name: self.name.as_str().to_owned(),
            role: self.role,
            event: self.event.clone(),
        }
    }

    /// Whether a repeat of the request that created it asks for the same
    /// credential.
    pub fn same_grant(&self, other: &Credential) -> bool {
        self.id == other.id
            && self.name == other.name
            && self.role == other.role
            && self.event == other.event
            && self.expires_at == other.expires_at
            && self.digest == other.digest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> CredentialToken {
        CredentialToken::new(
            CredentialId::from_bytes(&[0xab; 10]),
            "s3cr3t-Value_1".to_owned(),
        )
    }

    fn credential(expires_at: Option<u64>) -> Credential {
        let token = token();
        Credential {
            id: token.id.clone(),
            name: PrincipalName::parse("  Jane Doe ").unwrap(),
            role: Role::Arbiter,
            event: Some(EventId::parse("open-2026").unwrap()),
            digest: token.digest(),
            created_at: Timestamp::from_unix_millis(1_000),
            created_by: "admin".to_owned(),
            expires_at: expires_at.map(Timestamp::from_unix_millis),
            revoked: None,
        }
    }

    #[test]
    fn a_token_is_read_back_from_what_it_reveals() {
        let token = token();
        let text = token.reveal();
        assert_eq!(text, "cred.abababababababababab.s3cr3t-Value_1");
        assert_eq!(CredentialToken::parse(&text), Some(token.clone()));
        assert!(!format!("{token:?}").contains("s3cr3t"));
        for not_one in [
            "",
            "cred.",
            "cred.abababababababababab",
            "cred.abababababababababab.",
            "cred.ABABABABABABABABABAB.x",
            "cred.abab.x",
            "Zm9vYmFy_-seat-token",
        ] {
            assert_eq!(CredentialToken::parse(not_one), None, "{not_one:?}");
        }
        assert!(CredentialToken::is_credential("cred.garbage"));
        assert!(!CredentialToken::is_credential("Zm9vYmFy"));
    }

    #[test]
    fn a_credential_proves_only_its_own_secret() {
        let credential = credential(None);
        assert!(credential.proves(&token()));
        let forged = CredentialToken::new(token().id, "s3cr3t-Value_2".to_owned());
        assert!(!credential.proves(&forged));
        assert_eq!(credential.name.as_str(), "Jane Doe");
        assert_eq!(credential.principal().role, Role::Arbiter);
    }

    #[test]
    fn expiry_and_revocation_end_it() {
        let now = Timestamp::from_unix_millis(5_000);
        assert_eq!(credential(None).state(now), CredentialState::Active);
        assert_eq!(credential(Some(5_001)).state(now), CredentialState::Active);
        assert_eq!(
            credential(Some(5_000)).state(now),
            CredentialState::Expired {
                at: Timestamp::from_unix_millis(5_000)
            }
        );
        let mut revoked = credential(Some(9_000));
        revoked.revoked = Some(Revocation {
            at: Timestamp::from_unix_millis(4_000),
            by: "admin".to_owned(),
            reason: "left the event".to_owned(),
        });
        assert!(matches!(
            revoked.state(now),
            CredentialState::Revoked { .. }
        ));
    }

    #[test]
    fn each_role_names_an_event_as_its_rule_says() {
        let event = EventId::parse("open-2026").unwrap();
        assert!(Credential::check_scope(Role::Arbiter, None).is_err());
        assert!(Credential::check_scope(Role::FeedReader, None).is_err());
        assert!(Credential::check_scope(Role::Platform, Some(&event)).is_err());
        assert!(Credential::check_scope(Role::Auditor, None).is_ok());
        assert!(Credential::check_scope(Role::Auditor, Some(&event)).is_ok());
        assert!(Credential::check_scope(Role::Arbiter, Some(&event)).is_ok());
        assert!(Credential::check_scope(Role::Platform, None).is_ok());
    }

    #[test]
    fn names_and_ids_are_checked() {
        assert!(PrincipalName::parse(" ").is_err());
        assert!(PrincipalName::parse("a\nb").is_err());
        assert!(PrincipalName::parse(&"x".repeat(101)).is_err());
        assert!(CredentialId::parse("").is_err());
        assert!(CredentialId::parse("0123456789abcdef0123").is_ok());
        assert!(CredentialId::parse("0123456789abcdef012").is_err());
    }
}
