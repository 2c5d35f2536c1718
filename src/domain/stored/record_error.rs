//! Why a binary record (a packed move, an archive) cannot be read or
//! written: each variant names one cause.

use thiserror::Error;

/// Why a binary record cannot be read or written.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RecordError {
    /// The record ends in the middle of a value.
    #[error("truncated")]
    Truncated,
    /// A varint's value does not fit in 64 bits.
    #[error("a varint overflows 64 bits")]
    VarintOverflow,
    /// A varint runs on past the 10 bytes of any 64-bit value.
    #[error("a varint longer than 10 bytes")]
    VarintTooLong,
    /// A number or a length does not fit where it goes.
    #[error("{what} out of range")]
    OutOfRange {
        /// The number.
        what: &'static str,
    },
    /// A tag or a set of flags this release does not know.
    #[error("unknown {what} {value:#x}")]
    Unknown {
        /// What the value tags.
        what: &'static str,
        /// The value.
        value: u64,
    },
    /// A move's SAN is not UTF-8.
    #[error("the SAN is not UTF-8")]
    SanNotUtf8,
    /// The packed position cannot be unpacked.
    #[error("the packed position is unreadable: {detail}")]
    Position {
        /// What the chess library found wrong.
        detail: String,
    },
    /// Bytes follow the end of the record.
    #[error("trailing bytes after {after}")]
    Trailing {
        /// The last part read.
        after: &'static str,
    },
    /// The bytes are not an archive.
    #[error("not an archive")]
    NotAnArchive,
    /// An archive does not inflate (or inflates past its bound).
    #[error("the deflated archive does not inflate: {detail}")]
    Inflate {
        /// What the inflater found wrong.
        detail: String,
    },
    /// The log to archive has no events.
    #[error("an empty log")]
    EmptyLog,
    /// The log does not start with the game's creation.
    #[error("the log does not start with the game's creation")]
    NoCreation,
    /// A move entry comes before the game's creation.
    #[error("a move before the game's creation")]
    MoveBeforeCreation,
    /// A log's versions are not 1, 2, 3, … with no gap.
    #[error("the log jumps from version {from} to {to}")]
    LogGap {
        /// The version before the gap.
        from: u64,
        /// The version after it.
        to: u64,
    },
    /// An archive entry holds an event of another version.
    #[error("entry {entry} holds an event of version {event}")]
    EntryVersion {
        /// The entry's place (its version).
        entry: u64,
        /// The event's version.
        event: u64,
    },
    /// A move's UCI text cannot be read.
    #[error("version {version}: the move {uci} is unreadable")]
    UnreadableMove {
        /// The event's version.
        version: u64,
        /// The move as recorded.
        uci: String,
    },
    /// A move is not legal where the log reached.
    #[error("version {version}: the move {uci} is illegal")]
    IllegalMove {
        /// The event's version.
        version: u64,
        /// The move.
        uci: String,
    },
    /// An event the archive keeps whole cannot be encoded or decoded.
    #[error("version {version}: {detail}")]
    StoredEvent {
        /// The event's version (0 when it could not be read).
        version: u64,
        /// Why, as the encoding says.
        detail: String,
    },
    /// A fair-play signal's entry is not one.
    #[error("the signal entry '{entry}' is unreadable")]
    Signal {
        /// The entry (at most 64 characters of it).
        entry: String,
    },
    /// A new archive does not read back to the events it was made of.
    #[error("the archive does not read back to the same events")]
    NotReadBack,
}
