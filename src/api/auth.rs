//! Reading credentials from request metadata.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tonic::{Request, Status};

use super::status::{permission_denied, unauthenticated};

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
pub struct AdminToken(Option<[u8; 32]>);

impl AdminToken {
    /// Admin checks against `token`, or none at all when `None`.
    pub fn new(token: Option<&str>) -> Self {
        Self(token.map(|t| Sha256::digest(t.as_bytes()).into()))
    }

    /// Whether admin calls are open to anyone.
    pub fn is_open(&self) -> bool {
        self.0.is_none()
    }

    /// Checks that a request carries the admin token (in constant time).
    pub fn check<T>(&self, request: &Request<T>) -> Result<(), Status> {
        let Some(expected) = &self.0 else {
            return Ok(());
        };
        let presented: [u8; 32] = Sha256::digest(bearer(request)?.as_bytes()).into();
        if bool::from(presented.ct_eq(expected)) {
            Ok(())
        } else {
            Err(permission_denied(
                "NOT_ADMIN",
                "this call needs the platform's admin token",
            ))
        }
    }
}
