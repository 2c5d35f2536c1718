//! Reading credentials from request metadata: the admin token, the
//! credentials the platform creates (checked against their records), and
//! seat tokens for reads. Which principal may do what is decided by
//! [`Principal::authorize`] alone.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tonic::{Request, Status};

use super::{
    ArbiterApi,
    status::{self, permission_denied, unauthenticated},
};
use crate::{
    arbiter::{Arbiter, ArbiterError, Reader},
    domain::{
        TokenHash,
        access::{Action, CredentialToken, Principal},
    },
    proto::ErrorReason,
};

/// The bearer token of a request, if any.
pub fn bearer<T>(request: &Request<T>) -> Result<String, Status> {
    let Some(value) = request.metadata().get("authorization") else {
        return Err(unauthenticated(
            "missing 'authorization: Bearer <token>' metadata",
        ));
    };
    let value = value
        .to_str()
        .map_err(|_| unauthenticated("the authorization metadata is not readable text"))?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .map(str::trim)
        .filter(|token| !token.is_empty())
        .ok_or_else(|| unauthenticated("authorization metadata must be 'Bearer <token>'"))?;
    Ok(token.to_owned())
}

/// The platform's admin token; `None` runs the server in open mode.
#[derive(Clone)]
pub struct AdminToken {
    /// The digest of the token; `None` in open mode.
    expected: Option<[u8; 32]>,
    /// In open mode, whether the arbiter's interventions are open too.
    open_interventions: bool,
}

impl AdminToken {
    /// Admin checks against `token`; with `None` (open mode) anyone may
    /// create games, and nobody may intervene as the arbiter.
    pub fn new(token: Option<&str>) -> Self {
        Self {
            expected: token.map(|t| Sha256::digest(t.as_bytes()).into()),
            open_interventions: false,
        }
    }

    /// In open mode, opens the arbiter's interventions to anyone too (a
    /// development setup); no effect with a token.
    pub fn with_open_interventions(mut self, open: bool) -> Self {
        self.open_interventions = open;
        self
    }

    /// Whether admin calls are open to anyone.
    pub fn is_open(&self) -> bool {
        self.expected.is_none()
    }

    /// The principal of a call that presents `token` (not a credential
    /// token) for `action`: the admin, when it is the admin token
    /// (compared in constant time); on an open server, anyone, for
    /// creating games and rounds (and for everything when the
    /// development setup opened interventions).
    fn principal_of(&self, token: Option<&str>, action: Action) -> Result<Principal, Status> {
        match &self.expected {
            Some(expected) => {
                let token = token.ok_or_else(|| {
                    unauthenticated("missing 'authorization: Bearer <token>' metadata")
                })?;
                let presented: [u8; 32] = Sha256::digest(token.as_bytes()).into();
                if bool::from(presented.ct_eq(expected)) {
                    Ok(Principal::admin())
                } else {
                    Err(permission_denied(
                        ErrorReason::NotAdmin,
                        "this call needs the platform's admin token or a credential",
                    ))
                }
            }
            None if self.open_interventions
                || matches!(action, Action::Organise | Action::ReadRounds) =>
            {
                Ok(Principal::open_mode())
            }
            None => Err(permission_denied(
                ErrorReason::AdminTokenNotSet,
                "this server has no admin token (ARBITER_ADMIN_TOKEN): the arbiter's \
                 interventions are closed to everyone but credentials (--dev-insecure opens \
                 them)",
            )),
        }
    }

    /// Whether `token` is the admin token (compared in constant time);
    /// never in open mode.
    fn is_admin(&self, token: &str) -> bool {
        let Some(expected) = &self.expected else {
            return false;
        };
        let presented: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        bool::from(presented.ct_eq(expected))
    }
}

/// The bearer token of an HTTP `Authorization` value, if it has one.
pub fn bearer_value(value: &str) -> Option<&str> {
    value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .map(str::trim)
        .filter(|token| !token.is_empty())
}

/// The bearer token of a request, if it has readable one; `Err` only for
/// a value that is there but malformed.
fn optional_bearer<T>(request: &Request<T>) -> Result<Option<String>, Status> {
    if request.metadata().get("authorization").is_none() {
        return Ok(None);
    }
    bearer(request).map(Some)
}

/// The principal a credential token names, or why it is refused.
async fn credential_principal(arbiter: &Arbiter, token: &str) -> Result<Principal, Status> {
    let Some(token) = CredentialToken::parse(token) else {
        return Err(
            ArbiterError::CredentialRefused(crate::arbiter::CredentialRefusal::Invalid).into(),
        );
    };
    Ok(arbiter.authenticate(&token).await?)
}

/// Who reads, from an HTTP `Authorization` value (the broadcast feed), for
/// reads of `event`: the admin token and credentials that read `event`
/// live see it live; anyone else as the public. A credential that is not
/// accepted is an error, so that its holder learns why.
pub async fn feed_reader(
    admin: &AdminToken,
    arbiter: &Arbiter,
    authorization: Option<&str>,
) -> Result<Reader, ArbiterError> {
    let Some(token) = authorization.and_then(bearer_value) else {
        return Ok(Reader::PUBLIC);
    };
    if admin.is_admin(token) {
        return Ok(Reader::ADMIN);
    }
    if !CredentialToken::is_credential(token) {
        return Ok(Reader::PUBLIC);
    }
    let parsed = CredentialToken::parse(token).ok_or(ArbiterError::CredentialRefused(
        crate::arbiter::CredentialRefusal::Invalid,
    ))?;
    let principal = arbiter.authenticate(&parsed).await?;
    Ok(live_reader(&principal))
}

/// The reader a principal is: live on the events its role reads live.
fn live_reader(principal: &Principal) -> Reader {
    match principal.authorize(Action::ReadLive, principal.event.as_ref()) {
        Ok(()) => Reader::Live(principal.event.clone()),
        Err(_) => Reader::PUBLIC,
    }
}

impl ArbiterApi {
    /// The principal of an `AdminService` call that takes `action`, once
    /// its role is known to allow the action at all (on which event is
    /// checked where the event is known: by the call once it has read the
    /// event from the request, or by the arbiter once it has read the
    /// game).
    pub(super) async fn principal<T>(
        &self,
        request: &Request<T>,
        action: Action,
    ) -> Result<Principal, Status> {
        let token = optional_bearer(request)?;
        let principal = match token.as_deref() {
            Some(token) if CredentialToken::is_credential(token) => {
                credential_principal(&self.arbiter, token).await?
            }
            token => self.admin.principal_of(token, action)?,
        };
        principal
            .authorize(action, principal.event.as_ref())
            .map_err(|denial| status::denied(&denial))?;
        Ok(principal)
    }

    /// Who a read comes from, for the broadcast delay: the admin token and
    /// credentials read live what their role and event allow; anyone else
    /// is the public, with the hash of the bearer token presented (a seat
    /// reads its own game live). A credential token that is not accepted
    /// is refused, so that its holder learns why rather than reading
    /// delayed games unawares.
    pub(super) async fn reader<T>(&self, request: &Request<T>) -> Result<Reader, Status> {
        let Ok(token) = bearer(request) else {
            return Ok(Reader::PUBLIC);
        };
        if self.admin.is_admin(&token) {
            return Ok(Reader::ADMIN);
        }
        if CredentialToken::is_credential(&token) {
            let principal = credential_principal(&self.arbiter, &token).await?;
            return Ok(live_reader(&principal));
        }
        Ok(Reader::Token(Some(TokenHash::of(&token))))
    }
}
