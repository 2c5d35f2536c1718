//! The arbiter's rules: pure functions of a game, a command and "now".
//!
//! Nothing here performs I/O or reads a clock. A command applied to a
//! [`Game`] yields either a [`Rejection`] naming the exact cause, or the new
//! game together with the [`GameEvent`]s it produced.
//!
//! # Where each rule lives
//!
//! | rule | FIDE Laws (USCF) | file |
//! |---|---|---|
//! | legal moves, castling, en passant, promotion; UCI and SAN | 3, 4, C | `chess_move` (on shakmaty) |
//! | Chess960 start positions and castling | Guidelines II | `variant` |
//! | checkmate, resignation (and against a side that cannot mate) | 5.1 | `endings`, `game`, `dead_position` |
//! | stalemate, insufficient material, dead positions | 5.2 | `endings`, `dead_position` (chasolver) |
//! | clocks, periods, increment and delay, pace | 6.1–6.5, A.1, B.1 | `clock`, `time_control` |
//! | scheduled start and default time, presence (check-in) | 6.6, 6.7 | `timing`, `presence` |
//! | lag compensation for online play | (platform rule, after lichess) | `lag`, `clock` |
//! | flag-fall and its adjudication | 6.9 (USCF 14E) | `timing`, `adjudication` |
//! | draw offers, Sofia rules | 9.1 | `draws`, `rules` |
//! | draw claims: threefold, fifty moves, penalties | 9.2, 9.3, 9.5 | `draws`, `repetition` |
//! | position identity | 9.2.3 | `repetition` |
//! | fivefold repetition, 75 moves | 9.6 | `endings` |
//! | aborting before both have moved | (platform rule) | `game` |
//! | arbiter's clock controls and rulings, forfeits | 12 | `timing` |
//! | points, Armageddon | 10 | `scoring` |
//! | standings and tie-breaks, byes | (FIDE Tie-Break Regulations 2023, C.07) | `standings`, `tie_break`, `bye` |
//! | PGN and TRF exports | (PGN standard, TRF-16) | `pgn`, `trf` |
//! | broadcast delay: the public's view as of a cut-off | (platform rule) | `broadcast_delay`, `public_view` |
//!
//! # Layout
//!
//! - `game`: a game's state and the commands that change it; `setup`: what
//!   is fixed when a game is created; `board`: position, ply and repetition
//!   history; `pairing`, `seat_hashes`: where a game belongs and who may
//!   act in it; `presence`: who has arrived at the board;
//!   `broadcast_delay`: how long the public waits for a game's events, and
//!   `public_view`: the game as the public sees it then; `encoding`: the
//!   versioned stored form of games and events, `packed`: its binary
//!   records, `archive`: the log of a game that has ended, in one compact
//!   record.
//! - `chess_move`, `variant`, `rules`, `ids`, `player`, `ply`, `time`,
//!   `outcome`, `event`, `arbiter_reason`, `error`: the vocabulary the rest
//!   is written in.

mod adjudication;
mod admin_request;
mod arbiter_reason;
pub mod archive;
mod board;
mod broadcast_delay;
mod bye;
mod chess_move;
mod clock;
pub mod dead_position;
mod draws;
pub mod encoding;
mod endings;
mod error;
mod event;
mod game;
mod ids;
mod lag;
mod outcome;
pub mod packed;
mod pairing;
pub mod pgn;
mod player;
mod ply;
mod presence;
mod public_view;
mod repetition;
mod rules;
mod scoring;
mod seat_hashes;
mod serde_chess;
mod setup;
mod standings;
mod tie_break;
mod time;
mod time_control;
mod timing;
pub mod trf;
mod variant;

#[cfg(test)]
mod test_support;

pub use adjudication::{AdjudicationNote, FlagRuling, RulesProfile, on_flag};
pub use admin_request::AdminRequest;
pub use arbiter_reason::ArbiterReason;
pub use board::Board;
pub use broadcast_delay::BroadcastDelay;
pub use bye::{Bye, ByeKind};
pub use chess_move::{IllegalMoveReason, MoveRecord, parse_move};
pub use clock::{Clock, ClockView, MoveTime};
pub use dead_position::{DeadProof, Deadness};
pub use draws::{
    ClaimReason, ClaimRefusal, ClaimVerdict, DrawRequests, LastClaim, MAX_DRAW_OFFERS,
    MAX_REFUSED_CLAIMS,
};
pub use endings::automatic_ending;
pub use error::{FieldError, Rejection};
pub use event::{EventKind, GameEvent};
pub use game::{Decision, Game, GameStatus};
pub use ids::{EventId, GameId, RequestId};
pub use lag::{LagCompensation, LagSettlement, MAX_LAG_QUOTA_MS, MAX_REPORTED_LAG_MS, ReportedLag};
pub use outcome::{GameResult, Outcome, Termination};
pub use pairing::Pairing;
pub use player::Player;
pub use ply::Ply;
pub use presence::Presence;
pub use public_view::{Replay, ReplayError, public_view};
pub use repetition::Repetition;
pub use rules::{DrawOfferRefusal, GameRules};
pub use scoring::{PointTable, Points, Score, ScoringSystem};
pub use seat_hashes::{SeatHashes, TokenHash};
pub use setup::{NewGame, StartPosition};
pub use shakmaty::Color;
pub use standings::{GameRecordForStandings, Standing, StandingsRules, standings};
pub use tie_break::{Cut, TieBreak, TieBreakOrder};
pub use time::{Timestamp, TimestampError};
pub use time_control::{DelayMode, Pace, Period, TimeControl};
pub use timing::{Ruling, Schedule, Timing};
pub use trf::TrfEvent;
pub use variant::{CHESS960_POSITIONS, Variant, chess960_fen, chess960_position_for};
