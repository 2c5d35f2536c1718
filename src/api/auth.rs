//! Reading credentials from request metadata.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tonic::{Request, Status};

use super::status::{permission_denied, unauthenticated};
use crate::proto::ErrorReason;
use crate::{arbiter::Reader, domain::TokenHash};

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

    /// Checks that a request to create a game carries the admin token (in
    /// constant time); in open mode anyone may.
    pub fn check<T>(&self, request: &Request<T>) -> Result<(), Status> {
        let Some(expected) = &self.expected else {
            return Ok(());
        };
        Self::matches(expected, request)
    }

    /// Who a checked admin request acts as, for the events that name it:
    /// the holder of the admin token, or anyone on an open server.
    pub fn actor(&self) -> &'static str {
        if self.expected.is_some() {
            "admin"
        } else {
            "anyone (open mode)"
        }
    }

    /// Checks that an arbiter's intervention (a result, a clock) carries
    /// the admin token; in open mode nobody may intervene unless the
    /// development setup opened interventions.
    pub fn check_intervention<T>(&self, request: &Request<T>) -> Result<(), Status> {
        match &self.expected {
            Some(expected) => Self::matches(expected, request),
            None if self.open_interventions => Ok(()),
            None => Err(permission_denied(
                ErrorReason::AdminTokenNotSet,
                "this server has no admin token (ARBITER_ADMIN_TOKEN): the arbiter's \
                 interventions are closed to everyone (--dev-insecure opens them)",
            )),
        }
    }

    /// Who a read comes from, for the broadcast delay: the admin (the
    /// admin token, compared in constant time, when one is configured), or
    /// anyone else with the hash of the bearer token presented, if any (a
    /// seat of the game reads it live). Never fails: a read without
    /// credentials is public. In open mode there is no admin to recognise.
    pub fn reader<T>(&self, request: &Request<T>) -> Reader {
        if let Some(expected) = &self.expected
            && Self::matches(expected, request).is_ok()
        {
            return Reader::Admin;
        }
        Reader::Token(bearer(request).ok().map(|token| TokenHash::of(&token)))
    }

    /// Whether an HTTP `Authorization` value is `Bearer <the admin token>`
    /// (compared in constant time); never in open mode.
    pub fn admits_authorization(&self, authorization: Option<&str>) -> bool {
        let (Some(expected), Some(value)) = (&self.expected, authorization) else {
            return false;
        };
        let Some(token) = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))
            .map(str::trim)
        else {
            return false;
        };
        let presented: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        bool::from(presented.ct_eq(expected))
    }

    fn matches<T>(expected: &[u8; 32], request: &Request<T>) -> Result<(), Status> {
        let presented: [u8; 32] = Sha256::digest(bearer(request)?.as_bytes()).into();
        if bool::from(presented.ct_eq(expected)) {
            Ok(())
        } else {
            Err(permission_denied(
                ErrorReason::NotAdmin,
                "this call needs the platform's admin token",
            ))
        }
    }
}
