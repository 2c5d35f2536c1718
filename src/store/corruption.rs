//! Stored data that is not in the shape it must have: each variant names
//! one cause, with what identifies the record.

use thiserror::Error;

use crate::domain::{
    EventId, GameId, Ply, ReplayError,
    stored::{encoding::DecodeError, record_error::RecordError},
};

/// Why stored data cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Corruption {
    /// A reply of Redis is not of the type the read expects.
    #[error("{what}: an unexpected reply: {detail}")]
    Reply {
        /// What was read.
        what: &'static str,
        /// What the client library found.
        detail: String,
    },
    /// A command sent to every node of a cluster did not get one reply per
    /// node.
    #[error("a reply from every node expected, got {reply}")]
    NotEveryNode {
        /// The reply, as the client library shows it.
        reply: String,
    },
    /// A game's version and state are not both there.
    #[error("game {game} has a version without a state or a state without a version")]
    HalfAState {
        /// The game.
        game: GameId,
    },
    /// A game's state and log disagree: the log reaches another version.
    #[error("game {game}: state and log disagree (the log reaches version {logged})")]
    StateAndLogDisagree {
        /// The game.
        game: GameId,
        /// The version the log reaches: the last one archived, plus the
        /// entries it holds.
        logged: i64,
    },
    /// A log entry's id is not `0-<version>`.
    #[error("unexpected log entry id {id}")]
    LogEntryId {
        /// The id.
        id: String,
    },
    /// A log entry holds no event.
    #[error("log entry {id} has no event")]
    LogEntryEmpty {
        /// The entry's id.
        id: String,
    },
    /// An event feed's entry id is not a stream id.
    #[error("feed entry id {id}")]
    FeedEntryId {
        /// The id.
        id: String,
    },
    /// An event feed's entry lacks a field.
    #[error("feed entry {id} has no {field}")]
    FeedEntryField {
        /// The entry's id.
        id: String,
        /// The field.
        field: &'static str,
    },
    /// The feed names an event its game's log lacks.
    #[error("the event feed names version {version} of game {game}, which its log lacks")]
    FeedNamesMissingEvent {
        /// The game.
        game: GameId,
        /// The version named.
        version: u64,
    },
    /// A member of an event's list of games is not `<round><board><id>`.
    #[error("event list member '{member}'")]
    EventListMember {
        /// The member.
        member: String,
    },
    /// A commit whose events do not number the versions it claims: refused
    /// before anything is written.
    #[error("refusing a commit from version {expected} to {to} with events {events:?}")]
    CommitNotContiguous {
        /// The version the commit expects.
        expected: u64,
        /// The state's new version.
        to: u64,
        /// The events' versions.
        events: Vec<u64>,
    },
    /// A round write whose record does not carry the version after the
    /// one it expects: refused before anything is written.
    #[error(
        "refusing a round write at version {version} over version {expected}: it must be one more"
    )]
    RoundVersionNotNext {
        /// The version the write expects.
        expected: u64,
        /// The version the record carries.
        version: u64,
    },
    /// A round's record, version and summary are not all there.
    #[error("event {event}: round {number} lacks its record, version or summary")]
    HalfARound {
        /// The event.
        event: EventId,
        /// The round.
        number: u32,
    },
    /// A round's stored version is not a version.
    #[error("event {event}: round {number} is stored at version '{version}'")]
    RoundVersion {
        /// The event.
        event: EventId,
        /// The round.
        number: u32,
        /// What is stored as its version.
        version: String,
    },
    /// A field of an event's round records is not `<n>`, `<n>:v` or
    /// `<n>:s` for a round number `n`.
    #[error("event {event}: round records field '{field}'")]
    RoundField {
        /// The event.
        event: EventId,
        /// The field.
        field: String,
    },
    /// A stored state or event cannot be decoded.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// A state's version is not the one it is stored at.
    #[error("game {game} is stored at version {stored} but its state says {state}")]
    StateVersion {
        /// The game.
        game: GameId,
        /// The version stored beside it.
        stored: u64,
        /// The version the state holds.
        state: u64,
    },
    /// A log entry holds an event of another version.
    #[error("log entry {entry} holds an event of version {event}")]
    EventVersion {
        /// The entry's version.
        entry: u64,
        /// The event's version.
        event: u64,
    },
    /// A log skips a version.
    #[error("game {game} log jumps from version {from} to {to}")]
    LogGap {
        /// The game.
        game: GameId,
        /// The version before the gap.
        from: u64,
        /// The version after it.
        to: u64,
    },
    /// A game has no event at a version it has reached.
    #[error("game {game} has no event at version {version}")]
    MissingEvent {
        /// The game.
        game: GameId,
        /// The version.
        version: u64,
    },
    /// A game's archive cannot be read.
    #[error("game {game}: archive: {source}")]
    Archive {
        /// The game.
        game: GameId,
        /// Why.
        source: RecordError,
    },
    /// A game's fair-play signal cannot be read.
    #[error("game {game}: a fair-play signal: {source}")]
    Signal {
        /// The game.
        game: GameId,
        /// Why.
        source: RecordError,
    },
    /// A game's archive holds another number of events than it says.
    #[error("game {game}: the archive through version {through} holds {events} events")]
    ArchiveLength {
        /// The game.
        game: GameId,
        /// The last version it says it holds.
        through: u64,
        /// The events it holds.
        events: usize,
    },
    /// A game's log cannot be archived.
    #[error("game {game} cannot be archived: {source}")]
    Unarchivable {
        /// The game.
        game: GameId,
        /// Why.
        source: RecordError,
    },
    /// A game's log does not replay to a game.
    #[error("game {game}'s log does not replay: {source}")]
    DoesNotReplay {
        /// The game.
        game: GameId,
        /// Why.
        source: ReplayError,
    },
    /// A game's log holds fewer moves than its state has played.
    #[error("game {game} is at ply {ply} but its log holds {moves} moves")]
    MovesMissing {
        /// The game.
        game: GameId,
        /// The state's ply.
        ply: Ply,
        /// The moves the log holds.
        moves: usize,
    },
}
