//! The audit log's messages: `ListAuditEntries`'s filter read into the
//! arbiter's terms, its page tokens, and an act as the API shows it.

use std::collections::BTreeSet;

use tonic::Status;

use super::{convert, request, status};
use crate::{
    arbiter::{AuditEntry, AuditFilter, AuditPage},
    domain::{AuditKind, EventId, access::PrincipalName},
    proto,
};

/// The filter a `ListAuditEntries` asks for.
pub fn filter(req: &proto::ListAuditEntriesRequest) -> Result<AuditFilter, Status> {
    let game = match req.game_id.as_str() {
        "" => None,
        raw => Some(request::game_id(raw)?),
    };
    let principal = match req.principal.as_str() {
        "" => None,
        raw => Some(
            PrincipalName::parse(raw)
                .map_err(|mut err| {
                    err.field = "principal";
                    status::invalid_field(&err)
                })?
                .as_str()
                .to_owned(),
        ),
    };
    let kinds = req
        .kinds
        .iter()
        .map(|raw| {
            proto::AuditKind::try_from(*raw)
                .ok()
                .and_then(domain_kind)
                .ok_or_else(|| {
                    request::invalid("kinds", &format!("holds {raw}, which is not an audit kind"))
                })
        })
        .collect::<Result<BTreeSet<_>, _>>()?;
    Ok(AuditFilter {
        game,
        principal,
        kinds,
    })
}

/// What a page token of `ListAuditEntries` is bound to: the event and
/// the filter, so that a token is refused with another query.
pub fn query(event_id: Option<&EventId>, filter: &AuditFilter) -> String {
    let kinds: Vec<&str> = filter.kinds.iter().map(|kind| kind_name(*kind)).collect();
    format!(
        "audit\n{}\n{}\n{}\n{}",
        event_id.map_or("", |event| event.as_str()),
        filter.game.as_ref().map_or("", |game| game.as_str()),
        filter.principal.as_deref().unwrap_or(""),
        kinds.join(",")
    )
}

/// Where a page starts, from its token (empty: the log's start).
pub fn page_start(query: &str, page_token: &str) -> Result<String, Status> {
    if page_token.is_empty() {
        return Ok(String::new());
    }
    request::read_token(query, page_token)
}

/// A page as the API shows it.
pub fn page(query: &str, page: &AuditPage) -> proto::ListAuditEntriesResponse {
    proto::ListAuditEntriesResponse {
        entries: page.entries.iter().filter_map(entry).collect(),
        next_page_token: page
            .next
            .as_deref()
            .map(|cursor| request::token(query, cursor))
            .unwrap_or_default(),
    }
}

/// One entry as the API shows it (`None` for an event that is not an act,
/// which the arbiter never lists).
fn entry(entry: &AuditEntry) -> Option<proto::AuditEntry> {
    let (game, event) = match entry {
        AuditEntry::Act { game, event } => (game, event),
        AuditEntry::Credential(change) => {
            return Some(proto::AuditEntry {
                game_id: String::new(),
                version: 0,
                time: Some(convert::timestamp(change.at())),
                kind: proto_kind(change.audit_kind()).into(),
                principal: change.by().to_owned(),
                request_id: change.request.clone().unwrap_or_default(),
                reason: change.reason().unwrap_or_default().to_owned(),
                event: None,
                // As it stood right after the change.
                credential: Some(super::credentials::credential(
                    &change.credential,
                    change.at(),
                )),
            });
        }
    };
    let facts = event.audit()?;
    Some(proto::AuditEntry {
        credential: None,
        game_id: game.as_str().to_owned(),
        version: i32::try_from(event.version).unwrap_or(i32::MAX),
        time: Some(convert::timestamp(event.at)),
        kind: proto_kind(facts.kind).into(),
        principal: facts.by.unwrap_or_default().to_owned(),
        request_id: event.request.clone().unwrap_or_default(),
        reason: facts.reason.unwrap_or_default().to_owned(),
        event: Some(convert::game_event(game.as_str(), event)),
    })
}

/// The kind a contract value names; `None` for the unspecified one.
fn domain_kind(kind: proto::AuditKind) -> Option<AuditKind> {
    AuditKind::ALL
        .into_iter()
        .find(|candidate| proto_kind(*candidate) == kind)
}

fn proto_kind(kind: AuditKind) -> proto::AuditKind {
    match kind {
        AuditKind::GameCreated => proto::AuditKind::GameCreated,
        AuditKind::GameStarted => proto::AuditKind::GameStarted,
        AuditKind::ClockAdjusted => proto::AuditKind::ClockAdjusted,
        AuditKind::ClockPaused => proto::AuditKind::ClockPaused,
        AuditKind::ClockResumed => proto::AuditKind::ClockResumed,
        AuditKind::ResultSet => proto::AuditKind::ResultSet,
        AuditKind::ConnectionReported => proto::AuditKind::ConnectionReported,
        AuditKind::CredentialCreated => proto::AuditKind::CredentialCreated,
        AuditKind::CredentialRevoked => proto::AuditKind::CredentialRevoked,
    }
}

fn kind_name(kind: AuditKind) -> &'static str {
    proto_kind(kind).as_str_name()
}
