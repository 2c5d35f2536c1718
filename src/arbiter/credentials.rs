//! Named credentials: created by the platform for a principal with a
//! role, an event and an expiry, listed without their secrets, revoked at
//! once on every replica (each use reads the record); and the check of a
//! presented token, which yields the principal it names.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use rand::Rng;

use super::{Arbiter, ArbiterError, CredentialRefusal, codec::corrupt};
use crate::{
    domain::{
        ArbiterReason, EventId, RequestId, Timestamp,
        access::{
            Action, ChangeKind, Credential, CredentialChange, CredentialId, CredentialState,
            CredentialToken, MAX_CREDENTIALS, Principal, PrincipalName, Revocation, Role,
        },
        stored::credential_record,
    },
    store::{CredentialAdded, CredentialLogEntry},
};

/// What a credential is to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewCredential {
    /// Its holder's name.
    pub name: PrincipalName,
    /// Its role.
    pub role: Role,
    /// The event it is confined to (already checked against the role's
    /// rule).
    pub event: Option<EventId>,
    /// When it stops being accepted.
    pub expires_at: Option<Timestamp>,
}

/// A page of credentials.
#[derive(Clone, Debug)]
pub struct CredentialPage {
    /// The credentials, in the order of their ids.
    pub credentials: Vec<Credential>,
    /// As of when (for `active`).
    pub as_of: Timestamp,
    /// Where the next page starts, if there is one.
    pub next: Option<CredentialId>,
}

impl Arbiter {
    /// Creates a credential for `new`, by `by` (who must be allowed to
    /// manage credentials): its record and the token, returned once. With
    /// a `request_id`, the id and secret derive from it, so a repeat
    /// returns the same credential and token; a different request with
    /// the same key is refused.
    pub async fn create_credential(
        &self,
        request_id: Option<&RequestId>,
        new: NewCredential,
        by: &Principal,
    ) -> Result<(Credential, String, Timestamp), ArbiterError> {
        by.authorize(Action::ManageCredentials, new.event.as_ref())?;
        let now = self.store.now().await?;
        if let Some(at) = new.expires_at
            && at <= now
        {
            return Err(ArbiterError::invalid_field(crate::domain::FieldError::new(
                "expire_time",
                "must be in the future",
            )));
        }
        if let Some(event) = &new.event
            && self.store.event_games(event, None, 1).await?.is_empty()
        {
            return Err(ArbiterError::EventNotFound(event.clone()));
        }
        let token = match request_id {
            Some(key) => {
                let id = self.seats.derive("credential-id", key.as_str());
                let secret = self.seats.derive("credential-secret", key.as_str());
                CredentialToken::new(id_of(&id), URL_SAFE_NO_PAD.encode(secret))
            }
            None => {
                let id: [u8; 32] = rand::rng().random();
                let secret: [u8; 32] = rand::rng().random();
                CredentialToken::new(id_of(&id), URL_SAFE_NO_PAD.encode(secret))
            }
        };
        let credential = Credential {
            id: token.id.clone(),
            name: new.name,
            role: new.role,
            event: new.event,
            digest: token.digest(),
            created_at: now,
            created_by: by.name.clone(),
            expires_at: new.expires_at,
            revoked: None,
        };
        let record = credential_record::encode_credential(&credential).map_err(corrupt)?;
        let change = credential_record::encode_change(&CredentialChange {
            kind: ChangeKind::Created,
            request: request_id.map(|key| key.as_str().to_owned()),
            credential: credential.clone(),
        })
        .map_err(corrupt)?;
        let logged = CredentialLogEntry {
            event: credential.event.as_ref(),
            entry: &change,
        };
        match self
            .store
            .add_credential(&credential.id, &record, MAX_CREDENTIALS, logged)
            .await?
        {
            CredentialAdded::Added => {
                tracing::info!(
                    credential_id = %credential.id,
                    role = credential.role.name(),
                    by = %by.name,
                    "credential created"
                );
                Ok((credential, token.reveal(), now))
            }
            CredentialAdded::Exists(stored) => {
                let stored = credential_record::decode_credential(&stored).map_err(corrupt)?;
                match request_id {
                    Some(_) if stored.same_grant(&credential) => Ok((stored, token.reveal(), now)),
                    Some(key) => Err(ArbiterError::RequestIdReused {
                        request_id: key.as_str().to_owned(),
                        what: "credential",
                    }),
                    // 80 random bits collided: vanishingly rare, and refused
                    // rather than overwriting anything.
                    None => Err(ArbiterError::Contention),
                }
            }
            CredentialAdded::Full => Err(ArbiterError::TooManyCredentials {
                max: MAX_CREDENTIALS,
            }),
        }
    }

    /// Revokes credential `id`, by `by`, for `reason`: refused from the
    /// next use on, on every replica. A revoked credential stays as it was
    /// first revoked.
    pub async fn revoke_credential(
        &self,
        id: &CredentialId,
        reason: &ArbiterReason,
        by: &Principal,
    ) -> Result<(Credential, Timestamp), ArbiterError> {
        by.authorize(Action::ManageCredentials, None)?;
        // A compare-and-set of the record: of two racing revocations one is
        // written (and logged), and the other finds it revoked.
        for _ in 0..3 {
            let (stored, now) = self.store.credential(id).await?;
            let stored = stored.ok_or_else(|| ArbiterError::CredentialNotFound(id.clone()))?;
            let mut credential = credential_record::decode_credential(&stored).map_err(corrupt)?;
            if credential.revoked.is_some() {
                return Ok((credential, now));
            }
            credential.revoked = Some(Revocation {
                at: now,
                by: by.name.clone(),
                reason: reason.as_str().to_owned(),
            });
            let record = credential_record::encode_credential(&credential).map_err(corrupt)?;
            let change = credential_record::encode_change(&CredentialChange {
                kind: ChangeKind::Revoked,
                request: None,
                credential: credential.clone(),
            })
            .map_err(corrupt)?;
            let logged = CredentialLogEntry {
                event: credential.event.as_ref(),
                entry: &change,
            };
            if self
                .store
                .replace_credential(id, (&stored, &record), logged)
                .await?
            {
                tracing::info!(credential_id = %id, by = %by.name, "credential revoked");
                return Ok((credential, now));
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Up to `limit` credentials after `after`, for `by` (who must be
    /// allowed to read them).
    pub async fn list_credentials(
        &self,
        after: Option<&CredentialId>,
        limit: usize,
        by: &Principal,
    ) -> Result<CredentialPage, ArbiterError> {
        by.authorize(Action::ReadCredentials, None)?;
        let now = self.store.now().await?;
        let records = self.store.credentials(after, limit + 1).await?;
        let mut credentials = records
            .iter()
            .map(|(_, record)| credential_record::decode_credential(record).map_err(corrupt))
            .collect::<Result<Vec<_>, _>>()?;
        let next = if credentials.len() > limit {
            credentials.truncate(limit);
            credentials.last().map(|credential| credential.id.clone())
        } else {
            None
        };
        Ok(CredentialPage {
            credentials,
            as_of: now,
            next,
        })
    }

    /// The principal a presented credential token names, if the
    /// credential exists, the token carries its secret (compared in
    /// constant time), and it is neither expired nor revoked.
    pub async fn authenticate(&self, token: &CredentialToken) -> Result<Principal, ArbiterError> {
        let (stored, now) = self.store.credential(&token.id).await?;
        let refused = |why| Err(ArbiterError::CredentialRefused(why));
        let Some(stored) = stored else {
            return refused(CredentialRefusal::Invalid);
        };
        let credential = credential_record::decode_credential(&stored).map_err(corrupt)?;
        if !credential.proves(token) {
            return refused(CredentialRefusal::Invalid);
        }
        match credential.state(now) {
            CredentialState::Active => Ok(credential.principal()),
            CredentialState::Expired { at } => refused(CredentialRefusal::Expired {
                id: credential.id,
                at,
            }),
            CredentialState::Revoked { .. } => {
                refused(CredentialRefusal::Revoked { id: credential.id })
            }
        }
    }
}

/// A credential id from the first bytes of `bytes`.
fn id_of(bytes: &[u8; 32]) -> CredentialId {
    let mut first = [0u8; CredentialId::LEN / 2];
    first.copy_from_slice(&bytes[..CredentialId::LEN / 2]);
    CredentialId::from_bytes(&first)
}
