//! Who may do what: the principals that credentials name, and the one
//! policy every call is checked against.
//!
//! - `role`: the four roles ([`Role`]) and what each may do.
//! - `principal`: a caller once authenticated ([`Principal`]): a name, a
//!   role and the event its role is confined to.
//! - `permission`: the actions a call takes ([`Action`]) and
//!   [`Principal::authorize`], which allows one or names why not
//!   ([`Denial`]): the whole authorization matrix, in one place.
//! - `credential`: a credential's record ([`Credential`]), as stored
//!   (its secret only as a digest), its identifier and the token format;
//!   `credential_change`: its creation or revocation as the audit log
//!   records it ([`CredentialChange`]).

mod credential;
mod credential_change;
mod permission;
mod principal;
mod role;

pub use credential::{
    Credential, CredentialId, CredentialState, CredentialToken, MAX_CREDENTIALS, PrincipalName,
    Revocation,
};
pub use credential_change::{ChangeKind, CredentialChange};
pub use permission::{Action, Denial, Target};
pub use principal::Principal;
pub use role::{Role, ScopeRule};
