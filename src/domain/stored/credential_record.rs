//! The stored form of a credential: JSON in an envelope that names its
//! schema, `{"schema":1,"credential":{…}}`, readable with `redis-cli`
//! (the secret only as its SHA-256 digest). A newer schema than this
//! release knows is refused rather than misread.

use serde::{Deserialize, Serialize};

use crate::domain::{
    access::{Credential, CredentialChange},
    stored::encoding::DecodeError,
};

/// The schema this release writes.
pub const CREDENTIAL_SCHEMA: u32 = 1;

#[derive(Serialize)]
struct EnvelopeOut<'a> {
    schema: u32,
    credential: &'a Credential,
}

#[derive(Deserialize)]
struct Envelope {
    credential: Credential,
}

#[derive(Deserialize)]
struct SchemaOnly {
    schema: u32,
}

fn malformed(err: &serde_json::Error) -> DecodeError {
    DecodeError::Malformed {
        what: "credential",
        detail: err.to_string(),
    }
}

/// A credential's record as stored.
pub fn encode_credential(credential: &Credential) -> Result<Vec<u8>, DecodeError> {
    serde_json::to_vec(&EnvelopeOut {
        schema: CREDENTIAL_SCHEMA,
        credential,
    })
    .map_err(|err| malformed(&err))
}

/// A credential from its stored record.
pub fn decode_credential(bytes: &[u8]) -> Result<Credential, DecodeError> {
    let SchemaOnly { schema } = serde_json::from_slice(bytes).map_err(|err| malformed(&err))?;
    if schema > CREDENTIAL_SCHEMA {
        return Err(DecodeError::NewerSchema {
            what: "credential",
            schema,
        });
    }
    let envelope: Envelope = serde_json::from_slice(bytes).map_err(|err| malformed(&err))?;
    Ok(envelope.credential)
}

#[derive(Serialize)]
struct ChangeOut<'a> {
    schema: u32,
    #[serde(flatten)]
    change: &'a CredentialChange,
}

/// A credential's change as its log stores it: `{"schema":1,"kind":…,
/// "credential":{…}}`.
pub fn encode_change(change: &CredentialChange) -> Result<Vec<u8>, DecodeError> {
    serde_json::to_vec(&ChangeOut {
        schema: CREDENTIAL_SCHEMA,
        change,
    })
    .map_err(|err| malformed(&err))
}

/// A credential's change from its stored form.
pub fn decode_change(bytes: &[u8]) -> Result<CredentialChange, DecodeError> {
    let SchemaOnly { schema } = serde_json::from_slice(bytes).map_err(|err| malformed(&err))?;
    if schema > CREDENTIAL_SCHEMA {
        return Err(DecodeError::NewerSchema {
            what: "credential change",
            schema,
        });
    }
    serde_json::from_slice(bytes).map_err(|err| malformed(&err))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        EventId, Timestamp,
        access::{ChangeKind, CredentialId, CredentialToken, PrincipalName, Revocation, Role},
    };

    #[test]
    fn a_record_reads_back_and_holds_no_secret() {
        let token = CredentialToken::new(CredentialId::from_bytes(&[7; 10]), "hunter2-x".into());
        let credential = Credential {
            id: token.id.clone(),
            name: PrincipalName::parse("Chief arbiter").unwrap(),
            role: Role::Arbiter,
            event: Some(EventId::parse("open-2026").unwrap()),
            digest: token.digest(),
            created_at: Timestamp::from_unix_millis(1_700_000_000_000),
            created_by: "admin".into(),
            expires_at: None,
            revoked: None,
        };
        let bytes = encode_credential(&credential).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with("{\"schema\":1,\"credential\":{"), "{text}");
        assert!(!text.contains("hunter2"), "{text}");
        assert_eq!(decode_credential(&bytes).unwrap(), credential);
        assert!(matches!(
            decode_credential(br#"{"schema":2,"credential":{}}"#),
            Err(DecodeError::NewerSchema { schema: 2, .. })
        ));
        assert!(decode_credential(b"{}").is_err());
        let change = CredentialChange {
            kind: ChangeKind::Revoked,
            request: Some("revoke-1".into()),
            credential: Credential {
                revoked: Some(Revocation {
                    at: Timestamp::from_unix_millis(1_700_000_001_000),
                    by: "Platform".into(),
                    reason: "the event ended".into(),
                }),
                ..credential
            },
        };
        let bytes = encode_change(&change).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(
            text.starts_with("{\"schema\":1,\"kind\":\"revoked\""),
            "{text}"
        );
        assert!(!text.contains("hunter2"), "{text}");
        assert_eq!(decode_change(&bytes).unwrap(), change);
        assert_eq!(change.by(), "Platform");
        assert_eq!(change.reason(), Some("the event ended"));
        assert!(matches!(
            decode_change(br#"{"schema":2}"#),
            Err(DecodeError::NewerSchema { schema: 2, .. })
        ));
    }
}
