//! Turning arbiter errors into gRPC statuses with machine-readable details.
//!
//! Every status carries an `ErrorInfo` whose `reason` names the exact cause
//! (e.g. `ILLEGAL_MOVE`, `NOT_YOUR_TURN`), so clients can branch on it
//! without parsing messages; field problems also carry a `BadRequest`.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use crate::{
    arbiter::{ArbiterError, GameContext},
    domain::Rejection,
    store::StoreError,
};

/// The `ErrorInfo.domain` of every status this service returns.
pub const ERROR_DOMAIN: &str = "chessarbiter.v1";

fn status(code: Code, reason: &str, message: String, details: ErrorDetails) -> Status {
    status_in(code, reason, message, details, HashMap::new())
}

/// A status whose `ErrorInfo` carries `metadata` about the game.
fn status_in(
    code: Code,
    reason: &str,
    message: String,
    mut details: ErrorDetails,
    metadata: HashMap<String, String>,
) -> Status {
    details.set_error_info(reason, ERROR_DOMAIN, metadata);
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

/// The status of a call whose metadata (headers) is over `limit` bytes.
pub fn metadata_too_large(size: usize, limit: usize) -> Status {
    status_in(
        Code::ResourceExhausted,
        "METADATA_TOO_LARGE",
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

fn bad_request(reason: &str, field: &str, message: String) -> Status {
    let details = ErrorDetails::with_bad_request_violation(field, message.clone());
    status(Code::InvalidArgument, reason, message, details)
}

/// The status of a command the rules refused, with what the client needs
/// to know about the game in `metadata`.
fn refused(rejection: &Rejection, message: String, metadata: HashMap<String, String>) -> Status {
    let bad_request = |reason: &str, field: &str, message: String| {
        let details = ErrorDetails::with_bad_request_violation(field, message.clone());
        status_in(
            Code::InvalidArgument,
            reason,
            message,
            details,
            metadata.clone(),
        )
    };
    let precondition = |reason: &str, subject: &str, message: String| {
        let details =
            ErrorDetails::with_precondition_failure_violation(reason, subject, message.clone());
        status_in(
            Code::FailedPrecondition,
            reason,
            message,
            details,
            metadata.clone(),
        )
    };
    match rejection {
        Rejection::InvalidField(field) => bad_request("INVALID_FIELD", field.field, message),
        Rejection::UnparsableMove { .. } => bad_request("UNPARSABLE_MOVE", "move", message),
        Rejection::IllegalMove { .. } => bad_request("ILLEGAL_MOVE", "move", message),
        Rejection::NotYourTurn { .. } => precondition("NOT_YOUR_TURN", "game", message),
        Rejection::GameOver => precondition("GAME_OVER", "game", message),
        Rejection::GameAborted => precondition("GAME_ABORTED", "game", message),
        Rejection::AbortTooLate => precondition("ABORT_TOO_LATE", "game", message),
        Rejection::DrawOfferNotAllowed { .. } => {
            precondition("DRAW_OFFER_NOT_ALLOWED", "rules", message)
        }
        Rejection::NoDrawOffer => precondition("NO_DRAW_OFFER", "draw_offer", message),
        Rejection::DrawRequestLimit { .. } => {
            precondition("DRAW_REQUEST_LIMIT", "draw_requests", message)
        }
        Rejection::ClockPaused => precondition("CLOCK_PAUSED", "clock", message),
        Rejection::NotStarted { .. } => {
            precondition("NOT_STARTED", "scheduled_start_time", message)
        }
        Rejection::ClockNotPaused => precondition("CLOCK_NOT_PAUSED", "clock", message),
        Rejection::Untimed => precondition("UNTIMED", "clock", message),
        Rejection::RequestIdReused { .. } => status_in(
            Code::AlreadyExists,
            "REQUEST_ID_REUSED",
            message,
            ErrorDetails::new(),
            metadata.clone(),
        ),
        Rejection::StalePly { .. } => status_in(
            Code::Aborted,
            "STALE_PLY",
            message,
            ErrorDetails::new(),
            metadata.clone(),
        ),
    }
}

/// The status for a request field that failed validation.
pub fn invalid_field(err: &crate::domain::FieldError) -> Status {
    bad_request("INVALID_FIELD", err.field, err.to_string())
}

/// A request body that is not a valid protobuf message of its method.
pub fn malformed_request(detail: &str) -> Status {
    status(
        Code::InvalidArgument,
        "MALFORMED_REQUEST",
        format!("the request is not a valid message of this method: {detail}"),
        ErrorDetails::new(),
    )
}

/// A request without credentials.
pub fn unauthenticated(message: &str) -> Status {
    status(
        Code::Unauthenticated,
        "MISSING_TOKEN",
        message.to_owned(),
        ErrorDetails::new(),
    )
}

/// A new watch stream past a limit (see [`super::limits`]).
pub fn resource_exhausted(message: String) -> Status {
    status(
        Code::ResourceExhausted,
        "TOO_MANY_STREAMS",
        message,
        ErrorDetails::with_retry_info(Some(std::time::Duration::from_secs(1))),
    )
}

/// A request refused because the replica already serves `max` requests.
pub fn overloaded(max: usize) -> Status {
    status(
        Code::ResourceExhausted,
        "OVERLOADED",
        format!("this server already serves its limit of {max} requests at once; retry shortly"),
        ErrorDetails::with_retry_info(Some(std::time::Duration::from_millis(100))),
    )
}

/// A write refused because `whose` writes exceed their rate; `wait` says
/// when the next one is admitted.
pub fn rate_limited(whose: &str, wait: std::time::Duration) -> Status {
    status(
        Code::ResourceExhausted,
        "RATE_LIMITED",
        format!(
            "{whose} makes writes faster than this server admits; retry in {} ms",
            wait.as_millis().max(1)
        ),
        ErrorDetails::with_retry_info(Some(wait.max(std::time::Duration::from_millis(1)))),
    )
}

/// A request whose credentials do not grant the action.
pub fn permission_denied(reason: &str, message: &str) -> Status {
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
                "GAME_NOT_FOUND",
                message,
                ErrorDetails::new(),
            ),
            ArbiterError::NotASeat => permission_denied("NOT_A_SEAT", &message),
            ArbiterError::RequestIdReused { .. } => status(
                Code::AlreadyExists,
                "REQUEST_ID_REUSED",
                message,
                ErrorDetails::new(),
            ),
            ArbiterError::TokensNotReissuable { .. } => {
                let details = ErrorDetails::with_precondition_failure_violation(
                    "TOKENS_NOT_REISSUABLE",
                    "request_id",
                    message.clone(),
                );
                status(
                    Code::FailedPrecondition,
                    "TOKENS_NOT_REISSUABLE",
                    message,
                    details,
                )
            }
            ArbiterError::VersionAhead { .. } => status(
                Code::OutOfRange,
                "VERSION_AHEAD",
                message,
                ErrorDetails::with_bad_request_violation("after_version", "is ahead of the game"),
            ),
            ArbiterError::HistoryRewritten { .. } => {
                let details = ErrorDetails::with_precondition_failure_violation(
                    "HISTORY_REWRITTEN",
                    "resume_token",
                    message.clone(),
                );
                status(
                    Code::FailedPrecondition,
                    "HISTORY_REWRITTEN",
                    message,
                    details,
                )
            }
            ArbiterError::WatcherTooSlow { .. } | ArbiterError::EventWatcherTooSlow { .. } => {
                status(
                    Code::ResourceExhausted,
                    "WATCHER_TOO_SLOW",
                    message,
                    ErrorDetails::new(),
                )
            }
            ArbiterError::EventFull { .. } => {
                let details = ErrorDetails::with_precondition_failure_violation(
                    "EVENT_FULL",
                    "pairing.event_id",
                    message.clone(),
                );
                status(Code::FailedPrecondition, "EVENT_FULL", message, details)
            }
            ArbiterError::ReplyTooLarge { size, limit, .. } => status_in(
                Code::ResourceExhausted,
                "REPLY_TOO_LARGE",
                message,
                ErrorDetails::new(),
                HashMap::from([
                    ("size".to_owned(), size.to_string()),
                    ("limit".to_owned(), limit.to_string()),
                ]),
            ),
            ArbiterError::Contention => status(
                Code::Aborted,
                "CONTENTION",
                message,
                ErrorDetails::with_retry_info(Some(std::time::Duration::from_millis(50))),
            ),
            ArbiterError::ShuttingDown => status(
                Code::Unavailable,
                "SHUTTING_DOWN",
                format!("{message}; reconnect and resume from the last version received"),
                ErrorDetails::new(),
            ),
            ArbiterError::Store(StoreError::Unavailable(_)) => {
                // The cause (an address, a certificate, MOVED host:port) goes
                // to the log only.
                tracing::warn!(error = %message, "storage unavailable");
                status(
                    Code::Unavailable,
                    "STORAGE_UNAVAILABLE",
                    "storage unavailable; retry shortly".to_owned(),
                    ErrorDetails::with_retry_info(Some(std::time::Duration::from_secs(1))),
                )
            }
            ArbiterError::Store(StoreError::NotReplicated { .. }) => {
                tracing::warn!(error = %message, "a commit is not replicated yet");
                status(
                    Code::Unavailable,
                    "STORAGE_UNAVAILABLE",
                    message,
                    ErrorDetails::with_retry_info(Some(std::time::Duration::from_secs(1))),
                )
            }
            ArbiterError::Store(StoreError::Corrupt(_)) => {
                tracing::error!(error = %message, "corrupt stored data");
                status(Code::Internal, "CORRUPT_DATA", message, ErrorDetails::new())
            }
        }
    }
}
