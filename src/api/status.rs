//! Turning arbiter errors into gRPC statuses with machine-readable details.
//!
//! Every status carries an `ErrorInfo` whose `reason` names the exact cause
//! (e.g. `ILLEGAL_MOVE`, `NOT_YOUR_TURN`), so clients can branch on it
//! without parsing messages; field problems also carry a `BadRequest`.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::{
    arbiter::{ArbiterError, CredentialRefusal, GameContext},
    domain::{Rejection, TieBreakRefusal, VictoryClaimRefusal, access::Denial},
    proto::ErrorReason,
    store::StoreError,
};

/// The `ErrorInfo.domain` of every status this service returns.
pub const ERROR_DOMAIN: &str = "chessarbiter.v1";

/// The `ErrorInfo.reason` of `reason`: its name in the proto's
/// `ErrorReason` enum without the `ERROR_REASON_` prefix, so the reasons
/// sent and the enum clients generate cannot drift apart.
pub fn reason_code(reason: ErrorReason) -> &'static str {
    let name = reason.as_str_name();
    name.strip_prefix("ERROR_REASON_").unwrap_or(name)
}

fn status(code: Code, reason: ErrorReason, message: String, details: ErrorDetails) -> Status {
    status_in(code, reason, message, details, HashMap::new())
}

/// A status whose `ErrorInfo` carries `metadata` about the game.
fn status_in(
    code: Code,
    reason: ErrorReason,
    message: String,
    mut details: ErrorDetails,
    metadata: HashMap<String, String>,
) -> Status {
    details.set_error_info(reason_code(reason), ERROR_DOMAIN, metadata);
    Status::with_error_details(code, message, details)
}

/// What a refused command's `ErrorInfo.metadata` says about the game.
fn game_metadata(context: Option<&GameContext>) -> HashMap<String, String> {
    let mut metadata = HashMap::new();
    if let Some(context) = context {
        metadata.insert("ply".to_owned(), context.ply.to_string());
        metadata.insert(
            "side_to_move".to_owned(),
            context.side_to_move.fold_wb("white", "black").to_owned(),
        );
        if let Some(start) = context.start_time {
            let at = super::convert::timestamp(start);
            metadata.insert("start_time".to_owned(), rfc3339(&at));
        }
    }
    metadata
}

/// A timestamp in RFC 3339 (UTC, milliseconds).
fn rfc3339(at: &prost_types::Timestamp) -> String {
    // prost_types formats timestamps in RFC 3339.
    at.to_string()
}

/// The status of a call its principal may not make: its role, or its
/// event, with the role or the scope in the metadata.
pub fn denied(denial: &Denial) -> Status {
    let (reason, metadata) = match denial {
        Denial::RoleNotPermitted { role, .. } => (
            ErrorReason::RoleNotPermitted,
            HashMap::from([("role".to_owned(), (*role).to_owned())]),
        ),
        Denial::OutOfScope { scope, .. } => (
            ErrorReason::OutOfScope,
            HashMap::from([("scope".to_owned(), scope.to_string())]),
        ),
    };
    status_in(
        Code::PermissionDenied,
        reason,
        denial.to_string(),
        ErrorDetails::new(),
        metadata,
    )
}

/// The status of a call whose metadata (headers) is over `limit` bytes.
pub fn metadata_too_large(size: usize, limit: usize) -> Status {
    status_in(
        Code::ResourceExhausted,
        ErrorReason::MetadataTooLarge,
        format!(
            "the request's metadata is {size} bytes (names and values, and 32 bytes a header), \
             over the limit of {limit}; send a shorter token and fewer headers"
        ),
        ErrorDetails::new(),
        HashMap::from([
            ("size".to_owned(), size.to_string()),
            ("limit".to_owned(), limit.to_string()),
        ]),
    )
}

/// The status of a refused match tie-break game.
fn tie_break_refused(refusal: &TieBreakRefusal, message: String) -> Status {
    match refusal {
        TieBreakRefusal::NoMatch { .. } => status(
            Code::NotFound,
            ErrorReason::MatchNotFound,
            message,
            ErrorDetails::with_bad_request_violation("table", "names no match of the round"),
        ),
        TieBreakRefusal::Forfeited { .. }
        | TieBreakRefusal::Undecided { .. }
        | TieBreakRefusal::NotDrawn { .. } => status(
            Code::FailedPrecondition,
            ErrorReason::MatchNotDrawn,
            message.clone(),
            ErrorDetails::with_precondition_failure_violation(
                reason_code(ErrorReason::MatchNotDrawn),
                "match",
                message,
            ),
        ),
        TieBreakRefusal::Field { field, reason } => bad_request(
            ErrorReason::InvalidField,
            field,
            format!("{field} {reason}"),
        ),
        TieBreakRefusal::Exists { game, .. } => status_in(
            Code::AlreadyExists,
            ErrorReason::TieBreakExists,
            message,
            ErrorDetails::new(),
            HashMap::from([("game_id".to_owned(), game.to_string())]),
        ),
    }
}

fn bad_request(reason: ErrorReason, field: &str, message: String) -> Status {
    let details = ErrorDetails::with_bad_request_violation(field, message.clone());
    status(Code::InvalidArgument, reason, message, details)
}

/// The status of a command the rules refused, with what the client needs
/// to know about the game in `metadata`.
fn refused(rejection: &Rejection, message: String, metadata: HashMap<String, String>) -> Status {
    let bad_request = |reason: ErrorReason, field: &str, message: String| {
        let details = ErrorDetails::with_bad_request_violation(field, message.clone());
        status_in(
            Code::InvalidArgument,
            reason,
            message,
            details,
            metadata.clone(),
        )
    };
    let precondition = |reason: ErrorReason, subject: &str, message: String| {
        let details = ErrorDetails::with_precondition_failure_violation(
            reason_code(reason),
            subject,
            message.clone(),
        );
        status_in(
            Code::FailedPrecondition,
            reason,
            message,
            details,
            metadata.clone(),
        )
    };
    match rejection {
        Rejection::InvalidField(field) => {
            bad_request(ErrorReason::InvalidField, field.field, message)
        }
        Rejection::UnparsableMove { .. } => {
            bad_request(ErrorReason::UnparsableMove, "move", message)
        }
        Rejection::IllegalMove { .. } => bad_request(ErrorReason::IllegalMove, "move", message),
        Rejection::NotYourTurn { .. } => precondition(ErrorReason::NotYourTurn, "game", message),
        Rejection::GameOver => precondition(ErrorReason::GameOver, "game", message),
        Rejection::GameAborted => precondition(ErrorReason::GameAborted, "game", message),
        Rejection::AbortTooLate => precondition(ErrorReason::AbortTooLate, "game", message),
        Rejection::DrawOfferNotAllowed { .. } => {
            precondition(ErrorReason::DrawOfferNotAllowed, "rules", message)
        }
        Rejection::NoDrawOffer => precondition(ErrorReason::NoDrawOffer, "draw_offer", message),
        Rejection::DrawRequestLimit { .. } => {
            precondition(ErrorReason::DrawRequestLimit, "draw_requests", message)
        }
        Rejection::ClockPaused => precondition(ErrorReason::ClockPaused, "clock", message),
        Rejection::NotStarted { .. } => {
            precondition(ErrorReason::NotStarted, "scheduled_start_time", message)
        }
        Rejection::AwaitingStart => precondition(ErrorReason::NotStarted, "start", message),
        Rejection::AbortNotAllowed => {
            precondition(ErrorReason::AbortNotAllowed, "rules.no_abort", message)
        }
        Rejection::GiveTimeNotAllowed => precondition(
            ErrorReason::GiveTimeNotAllowed,
            "rules.no_give_time",
            message,
        ),
        Rejection::VictoryClaimRefused { reason } => {
            let (code, subject) = match reason {
                VictoryClaimRefusal::NotAllowed => (
                    ErrorReason::VictoryClaimNotAllowed,
                    "rules.claim_after_opponent_left_millis",
                ),
                VictoryClaimRefusal::BeforeBothMoved => {
                    (ErrorReason::VictoryClaimBeforeMoves, "ply")
                }
                VictoryClaimRefusal::OpponentConnected => {
                    (ErrorReason::OpponentConnected, "opponent_left_time")
                }
                VictoryClaimRefusal::TooSoon { .. } => {
                    (ErrorReason::OpponentLeftTooRecently, "opponent_left_time")
                }
            };
            let mut metadata = metadata.clone();
            if let VictoryClaimRefusal::TooSoon { claimable_at } = reason {
                let at = super::convert::timestamp(*claimable_at);
                metadata.insert("claimable_at".to_owned(), rfc3339(&at));
            }
            let details = ErrorDetails::with_precondition_failure_violation(
                reason_code(code),
                subject,
                message.clone(),
            );
            status_in(Code::FailedPrecondition, code, message, details, metadata)
        }
        Rejection::ClockNotPaused => precondition(ErrorReason::ClockNotPaused, "clock", message),
        Rejection::Untimed => precondition(ErrorReason::Untimed, "clock", message),
        Rejection::RequestIdReused { .. } => status_in(
            Code::AlreadyExists,
            ErrorReason::RequestIdReused,
            message,
            ErrorDetails::new(),
            metadata.clone(),
        ),
        Rejection::FairPlayNotRecorded => precondition(
            ErrorReason::FairPlayNotRecorded,
            "record_fair_play",
            message,
        ),
        Rejection::FairPlayRecordFull { limit } => {
            let mut metadata = metadata.clone();
            metadata.insert("limit".to_owned(), limit.to_string());
            status_in(
                Code::ResourceExhausted,
                ErrorReason::FairPlayRecordFull,
                message,
                ErrorDetails::new(),
                metadata,
            )
        }
        Rejection::StalePly { .. } => status_in(
            Code::Aborted,
            ErrorReason::StalePly,
            message,
            ErrorDetails::new(),
            metadata.clone(),
        ),
    }
}

/// The status for a request field that failed validation.
pub fn invalid_field(err: &crate::domain::FieldError) -> Status {
    bad_request(ErrorReason::InvalidField, err.field, err.to_string())
}

/// A request body that is not a valid protobuf message of its method.
pub fn malformed_request(detail: &str) -> Status {
    status(
        Code::InvalidArgument,
        ErrorReason::MalformedRequest,
        format!("the request is not a valid message of this method: {detail}"),
        ErrorDetails::new(),
    )
}

/// A request without credentials.
pub fn unauthenticated(message: &str) -> Status {
    status(
        Code::Unauthenticated,
        ErrorReason::MissingToken,
        message.to_owned(),
        ErrorDetails::new(),
    )
}

/// A new watch stream past a limit (see [`super::limits`]).
pub fn resource_exhausted(message: String) -> Status {
    status(
        Code::ResourceExhausted,
        ErrorReason::TooManyStreams,
        message,
        ErrorDetails::with_retry_info(Some(std::time::Duration::from_secs(1))),
    )
}

/// A request refused because the replica already serves `max` requests.
pub fn overloaded(max: usize) -> Status {
    status(
        Code::ResourceExhausted,
        ErrorReason::Overloaded,
        format!("this server already serves its limit of {max} requests at once; retry shortly"),
        ErrorDetails::with_retry_info(Some(std::time::Duration::from_millis(100))),
    )
}

/// A write refused because `whose` writes exceed their rate; `wait` says
/// when the next one is admitted.
pub fn rate_limited(whose: &str, wait: std::time::Duration) -> Status {
    status(
        Code::ResourceExhausted,
        ErrorReason::RateLimited,
        format!(
            "{whose} makes writes faster than this server admits; retry in {} ms",
            wait.as_millis().max(1)
        ),
        ErrorDetails::with_retry_info(Some(wait.max(std::time::Duration::from_millis(1)))),
    )
}

/// A request whose credentials do not grant the action.
pub fn permission_denied(reason: ErrorReason, message: &str) -> Status {
    status(
        Code::PermissionDenied,
        reason,
        message.to_owned(),
        ErrorDetails::new(),
    )
}

impl From<ArbiterError> for Status {
    fn from(err: ArbiterError) -> Self {
        let message = err.to_string();
        match err {
            ArbiterError::Rejected { rejection, context } => {
                refused(&rejection, message, game_metadata(context.as_ref()))
            }
            ArbiterError::NotFound(_) => status(
                Code::NotFound,
                ErrorReason::GameNotFound,
                message,
                ErrorDetails::new(),
            ),
            ArbiterError::NotASeat => permission_denied(ErrorReason::NotASeat, &message),
            ArbiterError::RequestIdReused { .. } => status(
                Code::AlreadyExists,
                ErrorReason::RequestIdReused,
                message,
                ErrorDetails::new(),
            ),
            ArbiterError::TokensNotReissuable { .. } => {
                let details = ErrorDetails::with_precondition_failure_violation(
                    reason_code(ErrorReason::TokensNotReissuable),
                    "request_id",
                    message.clone(),
                );
                status(
                    Code::FailedPrecondition,
                    ErrorReason::TokensNotReissuable,
                    message,
                    details,
                )
            }
            ArbiterError::VersionAhead { .. } => status(
                Code::OutOfRange,
                ErrorReason::VersionAhead,
                message,
                ErrorDetails::with_bad_request_violation("after_version", "is ahead of the game"),
            ),
            ArbiterError::HistoryRewritten { .. } => {
                let details = ErrorDetails::with_precondition_failure_violation(
                    reason_code(ErrorReason::HistoryRewritten),
                    "resume_token",
                    message.clone(),
                );
                status(
                    Code::FailedPrecondition,
                    ErrorReason::HistoryRewritten,
                    message,
                    details,
                )
            }
            ArbiterError::WatcherTooSlow { .. } | ArbiterError::EventWatcherTooSlow { .. } => {
                status(
                    Code::ResourceExhausted,
                    ErrorReason::WatcherTooSlow,
                    message,
                    ErrorDetails::new(),
                )
            }
            ArbiterError::EventFull { .. } => {
                let details = ErrorDetails::with_precondition_failure_violation(
                    reason_code(ErrorReason::EventFull),
                    "pairing.event_id",
                    message.clone(),
                );
                status(
                    Code::FailedPrecondition,
                    ErrorReason::EventFull,
                    message,
                    details,
                )
            }
            ArbiterError::RoundRefused(violations) | ArbiterError::TeamsRefused(violations) => {
                let violations = violations
                    .into_iter()
                    .map(|v| tonic_types::FieldViolation::new(v.field, v.reason))
                    .collect::<Vec<_>>();
                let details = ErrorDetails::with_bad_request(violations);
                status(
                    Code::InvalidArgument,
                    ErrorReason::InvalidField,
                    message,
                    details,
                )
            }
            ArbiterError::RoundExists { event_id, number } => status_in(
                Code::AlreadyExists,
                ErrorReason::RoundExists,
                message,
                ErrorDetails::new(),
                HashMap::from([
                    ("event_id".to_owned(), event_id.to_string()),
                    ("round".to_owned(), number.to_string()),
                ]),
            ),
            ArbiterError::TieBreakRefused(refusal) => tie_break_refused(&refusal, message),
            ArbiterError::RoundNotFound { .. } => status(
                Code::NotFound,
                ErrorReason::RoundNotFound,
                message,
                ErrorDetails::new(),
            ),
            ArbiterError::ReplyTooLarge { size, limit, .. } => status_in(
                Code::ResourceExhausted,
                ErrorReason::ReplyTooLarge,
                message,
                ErrorDetails::new(),
                HashMap::from([
                    ("size".to_owned(), size.to_string()),
                    ("limit".to_owned(), limit.to_string()),
                ]),
            ),
            ArbiterError::Denied(denial) => denied(&denial),
            ArbiterError::CredentialRefused(refusal) => {
                let (reason, id) = match &refusal {
                    CredentialRefusal::Invalid => (ErrorReason::CredentialInvalid, None),
                    CredentialRefusal::Expired { id, .. } => {
                        (ErrorReason::CredentialExpired, Some(id))
                    }
                    CredentialRefusal::Revoked { id } => (ErrorReason::CredentialRevoked, Some(id)),
                };
                let metadata = id
                    .map(|id| HashMap::from([("credential_id".to_owned(), id.to_string())]))
                    .unwrap_or_default();
                status_in(
                    Code::Unauthenticated,
                    reason,
                    message,
                    ErrorDetails::new(),
                    metadata,
                )
            }
            ArbiterError::CredentialNotFound(_) => status(
                Code::NotFound,
                ErrorReason::CredentialNotFound,
                message,
                ErrorDetails::new(),
            ),
            ArbiterError::TooManyCredentials { .. } => status(
                Code::ResourceExhausted,
                ErrorReason::TooManyCredentials,
                message,
                ErrorDetails::new(),
            ),
            ArbiterError::TeamPairing(_) => status(
                Code::FailedPrecondition,
                ErrorReason::TeamPairingInvalid,
                message.clone(),
                ErrorDetails::with_precondition_failure_violation(
                    reason_code(ErrorReason::TeamPairingInvalid),
                    "games",
                    message,
                ),
            ),
            ArbiterError::TeamsNotFound(_) => status(
                Code::NotFound,
                ErrorReason::TeamsNotFound,
                message,
                ErrorDetails::with_bad_request_violation("event_id", "has no registered teams"),
            ),
            ArbiterError::TeamsChanged { .. } => status(
                Code::Aborted,
                ErrorReason::TeamsChanged,
                message,
                ErrorDetails::with_bad_request_violation(
                    "expected_version",
                    "is not the registration's version",
                ),
            ),
            ArbiterError::EventNotFound(_) => status(
                Code::NotFound,
                ErrorReason::EventNotFound,
                message,
                ErrorDetails::with_bad_request_violation("event_id", "names no known event"),
            ),
            ArbiterError::Contention => status(
                Code::Aborted,
                ErrorReason::Contention,
                message,
                ErrorDetails::with_retry_info(Some(std::time::Duration::from_millis(50))),
            ),
            ArbiterError::ShuttingDown => status(
                Code::Unavailable,
                ErrorReason::ShuttingDown,
                format!("{message}; reconnect and resume from the last version received"),
                ErrorDetails::new(),
            ),
            ArbiterError::Store(StoreError::Unavailable(_)) => {
                // The cause (an address, a certificate, MOVED host:port) goes
                // to the log only.
                tracing::warn!(error = %message, "storage unavailable");
                status(
                    Code::Unavailable,
                    ErrorReason::StorageUnavailable,
                    "storage unavailable; retry shortly".to_owned(),
                    ErrorDetails::with_retry_info(Some(std::time::Duration::from_secs(1))),
                )
            }
            ArbiterError::Store(StoreError::NotReplicated { .. }) => {
                tracing::warn!(error = %message, "a commit is not replicated yet");
                status(
                    Code::Unavailable,
                    ErrorReason::StorageUnavailable,
                    message,
                    ErrorDetails::with_retry_info(Some(std::time::Duration::from_secs(1))),
                )
            }
            ArbiterError::Store(StoreError::Corrupt(_)) => {
                tracing::error!(error = %message, "corrupt stored data");
                status(
                    Code::Internal,
                    ErrorReason::CorruptData,
                    message,
                    ErrorDetails::new(),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value of the proto's enum but the unspecified one, by number.
    fn reasons() -> Vec<ErrorReason> {
        (1..1000)
            .filter_map(|n| ErrorReason::try_from(n).ok())
            .collect()
    }

    #[test]
    fn a_reason_code_is_the_enum_value_name_without_its_prefix() {
        assert_eq!(reason_code(ErrorReason::IllegalMove), "ILLEGAL_MOVE");
        assert_eq!(reason_code(ErrorReason::NotYourTurn), "NOT_YOUR_TURN");
        for reason in reasons() {
            let code = reason_code(reason);
            assert_eq!(
                ErrorReason::from_str_name(&format!("ERROR_REASON_{code}")),
                Some(reason),
                "{code}"
            );
        }
    }

    #[test]
    fn every_reason_of_the_proto_is_sent_by_the_service() {
        // The service builds every status here or in the token checks;
        // a value no code sends is either dead or missing its sender.
        let sources = [include_str!("status.rs"), include_str!("auth.rs")]
            .map(|source| source.split("#[cfg(test)]").next().unwrap_or(source));
        let unsent: Vec<_> = reasons()
            .into_iter()
            .filter(|reason| {
                let use_site = format!("ErrorReason::{reason:?}");
                !sources.iter().any(|source| {
                    source
                        .lines()
                        .filter(|line| !line.trim_start().starts_with("//"))
                        .any(|line| line.contains(&use_site))
                })
            })
            .collect();
        assert!(
            reasons().len() >= 36,
            "the enum was read: {}",
            reasons().len()
        );
        assert!(unsent.is_empty(), "reasons no status carries: {unsent:?}");
    }
}
