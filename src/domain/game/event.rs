//! What happens in a game: the events the arbiter commits and streams.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::domain::{
    AdjudicationNote, ClaimReason, ClockView, GameResult, MoveRecord, NewGame, Ply, Score,
    Timestamp, game::serde_chess,
};

/// One committed event. Versions of a game's events are 1, 2, 3, … with no
/// gap; the game's version is that of its latest event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameEvent {
    /// The game version this event produced.
    pub version: u64,
    /// The server time of the request that produced it.
    pub at: Timestamp,
    /// What happened.
    pub kind: EventKind,
    /// The clocks as of `at`, in a timed game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ClockView>,
    /// The request id of the administrative request (a creation or an
    /// arbiter's command) that produced it, when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
}

/// The kinds of event a game produces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// The game was created (always version 1), with everything needed to
    /// follow it from its events alone.
    GameCreated {
        /// The game's setup.
        setup: Box<NewGame>,
        /// Who created it: the name of the credential; `None` in events
        /// recorded before names were.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// A move was played.
    MoveMade {
        /// The move.
        record: MoveRecord,
        /// The side to move after it.
        #[serde(with = "serde_chess::color")]
        side_to_move: Color,
        /// Half-moves played after it.
        ply: Ply,
        /// Whether the side to move is in check after it.
        in_check: bool,
    },
    /// A player offered a draw; it stands until answered, declined by a
    /// move of the opponent, or the game ends.
    DrawOffered {
        /// Who offered.
        #[serde(with = "serde_chess::color")]
        by: Color,
    },
    /// A player declined the opponent's draw offer (explicitly, or by
    /// moving).
    DrawDeclined {
        /// Who declined.
        #[serde(with = "serde_chess::color")]
        by: Color,
    },
    /// A draw claim was found incorrect; the game goes on.
    DrawClaimRefused {
        /// Who claimed.
        #[serde(with = "serde_chess::color")]
        by: Color,
        /// What was claimed.
        reason: ClaimReason,
        /// Why the claim does not hold.
        explanation: String,
    },
    /// The game ended; only an arbiter's ruling (`ResultSet`) may follow.
    GameEnded {
        /// The result.
        result: GameResult,
        /// Both players' points under the game's scoring system.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        score: Option<Score>,
        /// Why the result awaits an arbiter's review, if it does (a flag
        /// ruled on an undecided helpmate search).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        review: Option<AdjudicationNote>,
    },
    /// An arbiter decided or corrected the result; final like `GameEnded`.
    ResultSet {
        /// The result now in force.
        result: GameResult,
        /// Both players' points under the game's scoring system.
        score: Score,
        /// The arbiter's stated reason.
        reason: String,
        /// Who: the name of the arbiter's credential; `None` when the
        /// rules did it, and in events recorded before names were.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// An arbiter added time to (or took time from) a player's clock.
    ClockAdjusted {
        /// Whose clock.
        #[serde(with = "serde_chess::color")]
        color: Color,
        /// Milliseconds added (negative: deducted).
        delta_ms: i64,
        /// Why.
        reason: String,
        /// Who: the name of the arbiter's credential; `None` when the
        /// rules did it, and in events recorded before names were.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// An arbiter stopped the clocks.
    ClockPaused {
        /// Why.
        reason: String,
        /// Who: the name of the arbiter's credential; `None` when the
        /// rules did it, and in events recorded before names were.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// An arbiter restarted the clocks.
    ClockResumed {
        /// Why.
        reason: String,
        /// Who: the name of the arbiter's credential; `None` when the
        /// rules did it, and in events recorded before names were.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// An arbiter started the game (with its round): the clock runs, and a
    /// default time counts, from this event's time.
    GameStarted {
        /// Who started it.
        by: String,
    },
    /// A player checked in: declared presence at the board (FIDE 6.7.1),
    /// which the default time counts as arriving.
    PlayerCheckedIn {
        /// Who checked in.
        #[serde(with = "serde_chess::color")]
        color: Color,
    },
    /// The platform reported a player's connection: gone (since this
    /// event's time), or connected again.
    ConnectionReported {
        /// Whose connection.
        #[serde(with = "serde_chess::color")]
        color: Color,
        /// Connected again (`false`: gone).
        connected: bool,
        /// Who reported it.
        by: String,
    },
    /// The game was called off before both players had moved: no result.
    /// It ends the game; only an arbiter's ruling (`ResultSet`) may follow.
    GameAborted {
        /// Who aborted it.
        #[serde(with = "serde_chess::color")]
        by: Color,
    },
}

impl EventKind {
    /// The `GameEnded` event of a classically scored game (for tests).
    #[cfg(test)]
    pub(crate) fn ended_classic(result: GameResult) -> Self {
        EventKind::GameEnded {
            result,
            score: Some(crate::domain::ScoringSystem::default().score(result)),
            review: None,
        }
    }
}

impl GameEvent {
    /// The move this event records, if it is a move.
    pub fn move_record(&self) -> Option<&MoveRecord> {
        match &self.kind {
            EventKind::MoveMade { record, .. } => Some(record),
            _ => None,
        }
    }

    /// The clocks as shown with this event: as recorded, but with nobody's
    /// time running once the event ends the game.
    pub fn clock_view(&self) -> Option<ClockView> {
        if self.is_final() {
            self.clock.map(ClockView::stopped)
        } else {
            self.clock
        }
    }

    /// Whether this event ends the game.
    pub fn is_final(&self) -> bool {
        matches!(
            self.kind,
            EventKind::GameEnded { .. }
                | EventKind::GameAborted { .. }
                | EventKind::ResultSet { .. }
        )
    }
}
