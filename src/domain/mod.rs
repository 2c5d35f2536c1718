//! The arbiter's rules: pure functions of a game, a command and "now".
//!
//! Nothing here performs I/O or reads a clock. A command applied to a
//! [`Game`] yields either a [`Rejection`] naming the exact cause, or the new
//! game together with the [`GameEvent`]s it produced.
//!
//! # Layout
//!
//! - [`access`]: who may do what: roles, principals, credentials and
//!   the one authorization matrix.
//! - [`game`]: the Laws of Chess for one game, with a table from each
//!   Article to the file that applies it.
//! - [`tournament`]: pairing, scoring, standings, tie-breaks, byes, and the
//!   PGN and TRF reports.
//! - [`stored`]: the versioned stored form of games and events, the binary
//!   move record and the archive of an ended game.
//! - `ids`, `player`, `time`, `error`: the vocabulary the rest is written
//!   in (identifiers, players, timestamps, and the rejections that name
//!   each exact cause).
//!
//! Everything the other layers use is re-exported here, so that a caller
//! writes `domain::Game`, not its path.
//!
//! The folders depend one way: `stored` reads `game`, `tournament` and
//! `access`; `access` reads only the vocabulary (and a seat token's
//! hash);
//! `tournament` reads `game`; `game` reads only the vocabulary and, for
//! the tournament a game belongs to, `tournament::pairing` and
//! `tournament::scoring`.

pub mod access;
pub mod game;
pub mod stored;
pub mod tournament;

mod error;
mod ids;
mod player;
mod time;

#[cfg(test)]
pub(crate) mod test_support;

pub use error::{FieldError, IllegalMoveReason, Rejection};
pub use game::adjudication::{AdjudicationNote, FlagRuling, RulesProfile, on_flag};
pub use game::admin_request::AdminRequest;
pub use game::arbiter_reason::ArbiterReason;
pub use game::audit::{AuditFacts, AuditKind};
pub use game::board::Board;
pub use game::broadcast_delay::BroadcastDelay;
pub use game::chess_move::{MoveRecord, parse_move};
pub use game::clock::{Clock, ClockView, MoveTime};
pub use game::dead_position::{DeadProof, Deadness};
pub use game::departures::{Departures, VictoryClaimRefusal};
pub use game::draws::{
    ClaimReason, ClaimRefusal, ClaimVerdict, DrawRequests, LastClaim, MAX_DRAW_OFFERS,
    MAX_REFUSED_CLAIMS,
};
pub use game::endings::automatic_ending;
pub use game::event::{EventKind, GameEvent};
pub use game::fair_play::{
    ClientSignal, MAX_CLIENT_CLOCK_SKEW_MS, MAX_CLIENT_MOVE_MS, MAX_SIGNALS_PER_GAME,
    MAX_SIGNALS_PER_SEAT, MoveReport, SignalKind,
};
pub use game::lag::{
    LagCompensation, LagSettlement, MAX_LAG_QUOTA_MS, MAX_REPORTED_LAG_MS, ReportedLag,
};
pub use game::outcome::{GameResult, Outcome, Termination};
pub use game::ply::Ply;
pub use game::presence::Presence;
pub use game::public_view::{Replay, ReplayError, public_view};
pub use game::repetition::Repetition;
pub use game::rules::{DrawOfferRefusal, GameRules};
pub use game::seat_hashes::{SeatHashes, TokenHash};
pub use game::setup::{NewGame, StartPosition};
pub use game::state::{Decision, EncodedSetup, Game, GameStatus};
pub use game::time_control::{DelayMode, Pace, Period, TimeControl};
pub use game::timing::{Ruling, Schedule, Timing};
pub use game::variant::{CHESS960_POSITIONS, Variant, chess960_fen, chess960_position_for};
pub use ids::{EventId, GameId, RequestId};
pub use player::{Player, PlayerDetails};
pub use shakmaty::Color;
pub use time::{Timestamp, TimestampError};
pub use tournament::bye::{Bye, ByeKind};
pub use tournament::engine_pairings::{
    AssignedPairings, EnginePair, EnginePairings, PairingsError, check_report,
};
pub use tournament::match_tie_break::{
    MatchTieBreak, RecordedTieBreak, TieBreakRefusal, TieBreakRequest, TieBreakState,
};
pub use tournament::pairing::Pairing;
pub use tournament::round::{
    Acceleration, BoardRequest, ExistingGame, ForbiddenPair, MAX_ROUND_BOARDS, PlannedBoard, Round,
    RoundBye, RoundRequest, RoundStart, RoundSummary, RoundViolation, counted_byes,
};
pub use tournament::scoring::{PointTable, Points, Score, ScoringSystem};
pub use tournament::standings::{GameRecordForStandings, Standing, StandingsRules, standings};
pub use tournament::team_matches::{
    BoardSeat, BoardStanding, MatchScore, TeamEvent, TeamPairingError, board_standings,
    match_score, registered_team_matches, team_matches,
};
pub use tournament::team_standings::{
    BoardResult, MatchOutcome, MatchPointTable, TeamBye, TeamMatch, TeamScore, TeamStanding,
    TeamTieBreak, team_standings,
};
pub use tournament::teams::{LineUp, MatchForfeit, MatchPlan, Team, TeamByePlan, TeamRegistration};
pub use tournament::tie_break::{Cut, TieBreak, TieBreakOrder};
pub use tournament::trf::TrfEvent;
