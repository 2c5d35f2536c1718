//! Why an arbiter request failed.

use thiserror::Error;

use crate::{
    domain::{
        Color, EventId, FieldError, Game, GameId, Rejection, RoundViolation, Timestamp,
        access::{CredentialId, Denial},
    },
    store::StoreError,
};

/// Where the game stood when a command was refused, for the client to
/// decide what to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameContext {
    /// Half-moves played.
    pub ply: u32,
    /// The side to move.
    pub side_to_move: Color,
    /// The scheduled start, when the game has one.
    pub start_time: Option<crate::domain::Timestamp>,
}

/// A failed arbiter request. Nothing was changed.
#[derive(Debug, Error)]
pub enum ArbiterError {
    /// The rules refused the command.
    #[error("{rejection}")]
    Rejected {
        /// Why.
        rejection: Rejection,
        /// The game the command was decided on, when it was read.
        context: Option<GameContext>,
    },
    /// No game has this identifier.
    #[error("no game with id '{0}'")]
    NotFound(GameId),
    /// The presented token belongs to neither seat of the game.
    #[error("the token does not belong to a seat of this game")]
    NotASeat,
    /// A `request_id` was used before for a game with different contents.
    #[error("request_id '{request_id}' was already used to create a different {what}")]
    RequestIdReused {
        /// The reused key.
        request_id: String,
        /// What it created: a game, a round, a credential.
        what: &'static str,
    },
    /// The principal may not take the action (its role, or its event).
    #[error("{0}")]
    Denied(#[from] Denial),
    /// A credential token that is not accepted.
    #[error("{0}")]
    CredentialRefused(CredentialRefusal),
    /// No credential has this identifier.
    #[error("no credential with id '{0}'")]
    CredentialNotFound(CredentialId),
    /// The store holds as many credentials as it may.
    #[error(
        "the server holds {max} credentials, revoked ones included, as many as it may; \
         nothing was created"
    )]
    TooManyCredentials {
        /// The most credentials a server holds.
        max: usize,
    },
    /// The event's games are not those of a team event.
    #[error("the event's games make no team event: {0}")]
    TeamPairing(crate::domain::TeamPairingError),
    /// A team registration refused whole: every offence, nothing changed.
    #[error("the teams are refused, nothing was changed: {}", describe(.0))]
    TeamsRefused(Vec<RoundViolation>),
    /// The event has no registered teams.
    #[error("event '{0}' has no registered teams: RegisterTeams first")]
    TeamsNotFound(EventId),
    /// The team registration is not at the version the request expected.
    #[error(
        "the teams of event '{event_id}' are at version {current}, not {expected}; nothing was \
         changed: read them again"
    )]
    TeamsChanged {
        /// The event.
        event_id: EventId,
        /// The version the request expected.
        expected: u64,
        /// The registration's version.
        current: u64,
    },
    /// A match's tie-break game refused: nothing created.
    #[error("the match's tie-break game is refused, nothing was created: {0}")]
    TieBreakRefused(crate::domain::TieBreakRefusal),
    /// A credential's scope names an event the server does not know.
    #[error(
        "event '{0}' has no games and no rounds: create its first round or game before \
         credentials confined to it"
    )]
    EventNotFound(EventId),
    /// The game exists but its tokens were issued under another secret.
    #[error(
        "game {game_id} exists, but its seat tokens were issued under a different token secret \
         and cannot be issued again; configure the same ARBITER_TOKEN_SECRET on every replica"
    )]
    TokensNotReissuable {
        /// The game.
        game_id: GameId,
    },
    /// A watcher asked to resume from a version the game has not reached.
    #[error("after_version {requested} is ahead of the game's version {current}")]
    VersionAhead {
        /// The version asked for.
        requested: u64,
        /// The game's version.
        current: u64,
    },
    /// A watcher resumes after an event that is not in the game's history:
    /// it was lost (a storage failover) and its version reused, or the
    /// token belongs to another game.
    #[error(
        "the event at version {version} that the resume token names is not in game {game_id}'s \
         history (lost in a storage failover, or a token of another game); watch again from \
         version 0"
    )]
    HistoryRewritten {
        /// The game.
        game_id: GameId,
        /// The version of the event the token names.
        version: u64,
    },
    /// A watcher fell too far behind its game's events (it does not read
    /// its stream fast enough) and was ended; it resumes after `version`.
    #[error(
        "the watcher of game {game_id} fell more than {buffer} events behind; resume after \
         version {version}"
    )]
    WatcherTooSlow {
        /// The game.
        game_id: GameId,
        /// The events a watcher may fall behind.
        buffer: usize,
        /// The last version the watcher was sent.
        version: u64,
    },
    /// An event's watcher fell too far behind (it does not read its stream
    /// fast enough) and was ended; it resumes from its last cursor.
    #[error(
        "the watcher of event '{event_id}' fell more than {buffer} events behind; resume from \
         the last cursor received"
    )]
    EventWatcherTooSlow {
        /// The event.
        event_id: EventId,
        /// The events a watcher may fall behind.
        buffer: usize,
    },
    /// The event lists as many games as an event may hold: nothing was
    /// created.
    #[error(
        "event '{event_id}' already lists {max_games} games, as many as an event may hold; \
         nothing was created"
    )]
    EventFull {
        /// The event.
        event_id: EventId,
        /// The most games an event may list.
        max_games: usize,
    },
    /// A round request refused whole: every offence, and nothing created.
    #[error("the round is refused, nothing was created: {}", describe(.0))]
    RoundRefused(Vec<RoundViolation>),
    /// The round was created by another request, with other boards.
    #[error(
        "round {number} of event '{event_id}' already exists, created as a round with boards and \
         byes of its own; nothing was created"
    )]
    RoundExists {
        /// The event.
        event_id: EventId,
        /// The round.
        number: u32,
    },
    /// The event has no such round.
    #[error("event '{event_id}' has no round {number}")]
    RoundNotFound {
        /// The event.
        event_id: EventId,
        /// The round.
        number: u32,
    },
    /// What a read would return is larger than a reply may be.
    #[error("{what} would be {size} {unit}, over the limit of {limit}")]
    ReplyTooLarge {
        /// What would be too large.
        what: &'static str,
        /// How large it would be.
        size: u64,
        /// The largest it may be.
        limit: u64,
        /// What `size` and `limit` count.
        unit: &'static str,
    },
    /// Too many concurrent writers on one game; the request may be retried.
    #[error("the game is changing too fast to apply the request; retry")]
    Contention,
    /// The server is shutting down.
    #[error("the server is shutting down")]
    ShuttingDown,
    /// The store could not serve the request.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a presented credential token is not accepted. The token itself is
/// never part of the message.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CredentialRefusal {
    /// The token has the credential form, but names no credential or does
    /// not carry its secret (forged, mistyped, or of another server).
    #[error("the credential token is not valid (unknown or forged)")]
    Invalid,
    /// The credential's expiry has passed.
    #[error("credential {id} expired at {} ms since the epoch", at.unix_millis())]
    Expired {
        /// The credential.
        id: CredentialId,
        /// Its expiry.
        at: Timestamp,
    },
    /// The credential was revoked.
    #[error("credential {id} was revoked")]
    Revoked {
        /// The credential.
        id: CredentialId,
    },
}

/// A round's offences in one line: the first few, and how many more.
fn describe(violations: &[RoundViolation]) -> String {
    const SHOWN: usize = 3;
    let mut text = violations
        .iter()
        .take(SHOWN)
        .map(|v| format!("{} {}", v.field, v.reason))
        .collect::<Vec<_>>()
        .join("; ");
    if violations.len() > SHOWN {
        text.push_str(&format!(
            " (and {} more, listed in the BadRequest)",
            violations.len() - SHOWN
        ));
    }
    text
}

impl ArbiterError {
    /// A request field refused outside any game (a query's arguments).
    pub fn invalid_field(error: FieldError) -> Self {
        Self::Rejected {
            rejection: Rejection::InvalidField(error),
            context: None,
        }
    }

    /// The rules refused a command decided on `game`.
    pub fn refused(rejection: Rejection, game: &Game) -> Self {
        Self::Rejected {
            rejection,
            context: Some(GameContext {
                ply: game.ply().count(),
                side_to_move: game.side_to_move(),
                start_time: game.schedule().scheduled_start,
            }),
        }
    }
}

impl From<Rejection> for ArbiterError {
    fn from(rejection: Rejection) -> Self {
        Self::Rejected {
            rejection,
            context: None,
        }
    }
}
