//! The arbiter's rules: pure functions of a game, a command and "now".
//!
//! Nothing here performs I/O or reads a clock. A command applied to a
//! [`Game`] yields either a [`Rejection`] naming the exact cause, or the new
//! game together with the [`GameEvent`]s it produced.
//!
//! - `game`: the game's state, moves, resignation, abort; `setup`: what is
//!   fixed when a game is created; `board`: position, ply and repetition
//!   history; `encoding`: the versioned stored form of games and events.
//! - `draws`: offers and claims (FIDE 9.1–9.5); `repetition`: position
//!   identity (9.2.3); `endings`: what the board decides by itself (5.1,
//!   5.2, 9.6); `dead_position`: chasolver's unwinnability checks.
//! - `clock`, `time_control`, `timing`: clocks, controls, scheduled start,
//!   default time, arbiter clock commands and rulings; `adjudication`: who
//!   wins on time (FIDE 6.9, USCF 14E).
//! - `scoring`, `standings`: points and tie-breaks; `pgn`, `trf`: exports.
//! - `chess_move`, `variant`, `rules`, `ids`, `player`, `ply`, `time`,
//!   `outcome`, `event`, `arbiter_reason`, `error`: the vocabulary the rest
//!   is written in.

mod adjudication;
mod arbiter_reason;
mod board;
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
mod outcome;
pub mod pgn;
mod player;
mod ply;
mod repetition;
mod rules;
mod scoring;
mod serde_chess;
mod setup;
mod standings;
mod time;
mod time_control;
mod timing;
pub mod trf;
mod variant;

pub use adjudication::{AdjudicationNote, FlagRuling, RulesProfile, on_flag};
pub use arbiter_reason::ArbiterReason;
pub use board::Board;
pub use chess_move::{IllegalMoveReason, MoveRecord, parse_move};
pub use clock::{Clock, ClockView, MoveTime};
pub use draws::{ClaimReason, ClaimRefusal, ClaimVerdict};
pub use endings::automatic_ending;
pub use error::{FieldError, Rejection};
pub use event::{EventKind, GameEvent};
pub use game::{Decision, Game, GameStatus, Pairing, SeatHashes, TokenHash};
pub use ids::{EventId, GameId, RequestId};
pub use outcome::{GameResult, Outcome, Termination};
pub use player::Player;
pub use ply::Ply;
pub use repetition::Repetition;
pub use rules::{DrawOfferRefusal, GameRules};
pub use scoring::{PointTable, Points, Score, ScoringSystem};
pub use setup::{NewGame, StartPosition};
pub use shakmaty::Color;
pub use standings::{GameRecordForStandings, Standing, standings};
pub use time::Timestamp;
pub use time_control::{DelayMode, Pace, Period, TimeControl};
pub use timing::{Ruling, Schedule, Timing};
pub use trf::TrfGame;
pub use variant::{CHESS960_POSITIONS, Variant, chess960_fen, chess960_position_for};
