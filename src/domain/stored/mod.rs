//! The stored form of games and events, which the store keeps as opaque
//! bytes: `encoding` (the versioned schemas, JSON in an envelope, and how
//! older schemas are read), `packed` (the binary record of a move, the
//! record a game writes most) and `archive` (the log of a game that has
//! ended, in one compact record); `record_error` says why a binary record
//! cannot be read or written; `round_record`: a round's record and summary, and an event's team
//! registration;
//! `credential_record`: a credential's record; `signal_record`: a
//! fair-play signal's entry.

pub mod archive;
pub mod credential_record;
pub mod encoding;
pub mod packed;
pub mod record_error;
pub mod round_record;
pub mod signal_record;
