//! The board of a game in progress: the position, how many half-moves led
//! to it, and the positions that can still recur.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use shakmaty::{CastlingMode, Chess, Color, Move, Position};

use crate::domain::{
    MoveRecord, MoveReport, MoveTime, Ply, Repetition, Timestamp, game::serde_chess,
};

/// The position reached, the half-moves played, and the repetition history
/// (FIDE 9.2.3) since the last pawn move or capture.
///
/// Its size is bounded whatever the game's length: the moves themselves live
/// in the game's event log, and the repetition history holds at most the
/// 151 positions the 75-move rule allows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Board {
    #[serde(with = "serde_chess::position")]
    position: Chess,
    ply: Ply,
    repetition: Repetition,
    /// The last moves played, oldest first: enough to recognise a client's
    /// retry of its own latest move (the opponent may have answered since)
    /// and to show the last move, without reading the game's log. Shared
    /// by the game's copies (a move copies the game it plays on), stored
    /// as the records themselves.
    #[serde(default)]
    recent: Vec<Arc<MoveRecord>>,
}

/// How many of the latest moves a board keeps.
const RECENT_MOVES: usize = 2;

impl Board {
    /// A board set up at `start`, before any move.
    pub fn new(start: Chess) -> Self {
        Self::restore(Repetition::starting_at(&start), start, Ply::START)
    }

    /// A board as stored: `position` reached after `ply` half-moves, with the
    /// repetition history that led to it.
    pub(in crate::domain) fn restore(repetition: Repetition, position: Chess, ply: Ply) -> Self {
        Self {
            position,
            ply,
            repetition,
            recent: Vec::new(),
        }
    }

    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.position
    }

    /// Half-moves played.
    pub fn ply(&self) -> Ply {
        self.ply
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.position.turn()
    }

    /// The positions since the last pawn move or capture.
    pub fn repetition(&self) -> &Repetition {
        &self.repetition
    }

    /// The latest moves played (at most two), oldest first.
    pub fn recent_moves(&self) -> impl Iterator<Item = &MoveRecord> {
        self.recent.iter().map(|record| &**record)
    }

    /// The last move played, if any.
    pub fn last_move(&self) -> Option<&MoveRecord> {
        self.recent.last().map(|record| &**record)
    }

    /// Plays `m` (legal in the current position) at `now` with the clock's
    /// record of it, returning the move's record. `mode` is the variant's
    /// castling notation.
    pub fn play(
        &mut self,
        m: Move,
        mode: CastlingMode,
        now: Timestamp,
        time: Option<MoveTime>,
        report: Option<MoveReport>,
    ) -> MoveRecord {
        let (mut record, after) = MoveRecord::play(&self.position, m, mode, self.ply, now);
        record.time = time;
        record.report = report;
        self.position = after;
        self.ply = self.ply.next();
        self.repetition.record(&self.position);
        if self.recent.len() == RECENT_MOVES {
            self.recent.remove(0);
        }
        self.recent.push(Arc::new(record.clone()));
        record
    }
}
