//! The credential messages: `CreateCredential`'s fields read into the
//! arbiter's terms, and a credential as the API shows it (never its
//! secret).

use tonic::Status;

use super::{convert, request, status};
use crate::{
    arbiter::{CredentialPage, NewCredential},
    domain::{
        EventId, RequestId, Timestamp,
        access::{Credential, CredentialId, CredentialState, PrincipalName, Role},
    },
    proto,
};

/// What a page token of `ListCredentials` is bound to.
const LIST_QUERY: &str = "credentials";

/// The request id and the credential a `CreateCredential` asks for.
pub fn new_credential(
    req: &proto::CreateCredentialRequest,
) -> Result<(Option<RequestId>, NewCredential), Status> {
    let request_id = request::request_id(&req.request_id)?;
    let name = PrincipalName::parse(&req.name).map_err(|err| status::invalid_field(&err))?;
    let role = role(req.role())?;
    let event =
        EventId::parse_optional(&req.event_id).map_err(|err| status::invalid_field(&err))?;
    Credential::check_scope(role, event.as_ref()).map_err(|err| status::invalid_field(&err))?;
    let expires_at = req
        .expire_time
        .as_ref()
        .map(|at| request::timestamp("expire_time", at))
        .transpose()?;
    Ok((
        request_id,
        NewCredential {
            name,
            role,
            event,
            expires_at,
        },
    ))
}

/// A role from the contract's enum.
fn role(role: proto::Role) -> Result<Role, Status> {
    match role {
        proto::Role::Platform => Ok(Role::Platform),
        proto::Role::Arbiter => Ok(Role::Arbiter),
        proto::Role::FeedReader => Ok(Role::FeedReader),
        proto::Role::Auditor => Ok(Role::Auditor),
        proto::Role::Unspecified => Err(request::invalid(
            "role",
            "is required: ROLE_PLATFORM, ROLE_ARBITER, ROLE_FEED_READER or ROLE_AUDITOR",
        )),
    }
}

/// A credential id a client sent.
pub fn credential_id(raw: &str) -> Result<CredentialId, Status> {
    CredentialId::parse(raw).map_err(|err| status::invalid_field(&err))
}

/// Where a `ListCredentials` page starts, from its token (empty: the
/// first).
pub fn page_start(page_token: &str) -> Result<Option<CredentialId>, Status> {
    if page_token.is_empty() {
        return Ok(None);
    }
    let position = request::read_token(LIST_QUERY, page_token)?;
    CredentialId::parse(&position).map(Some).map_err(|_| {
        request::invalid(
            "page_token",
            "is not a token this server issued for this query",
        )
    })
}

/// A page of credentials as the API shows it.
pub fn page(page: &CredentialPage) -> proto::ListCredentialsResponse {
    proto::ListCredentialsResponse {
        credentials: page
            .credentials
            .iter()
            .map(|c| credential(c, page.as_of))
            .collect(),
        next_page_token: page
            .next
            .as_ref()
            .map(|id| request::token(LIST_QUERY, id.as_str()))
            .unwrap_or_default(),
    }
}

/// A credential as the API shows it at `now`.
pub fn credential(credential: &Credential, now: Timestamp) -> proto::Credential {
    let role = match credential.role {
        Role::Platform => proto::Role::Platform,
        Role::Arbiter => proto::Role::Arbiter,
        Role::FeedReader => proto::Role::FeedReader,
        Role::Auditor => proto::Role::Auditor,
    };
    let revoked = credential.revoked.as_ref();
    proto::Credential {
        credential_id: credential.id.to_string(),
        name: credential.name.as_str().to_owned(),
        role: role.into(),
        event_id: credential
            .event
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        create_time: Some(convert::timestamp(credential.created_at)),
        created_by: credential.created_by.clone(),
        expire_time: credential.expires_at.map(convert::timestamp),
        revoke_time: revoked.map(|r| convert::timestamp(r.at)),
        revoked_by: revoked.map(|r| r.by.clone()).unwrap_or_default(),
        revoke_reason: revoked.map(|r| r.reason.clone()).unwrap_or_default(),
        active: credential.state(now) == CredentialState::Active,
    }
}
