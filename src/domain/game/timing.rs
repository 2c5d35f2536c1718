//! A game against the clock: time controls, the scheduled start and default
//! time (FIDE 6.6, 6.7), flag-fall (6.9), and the arbiter's clock controls.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::domain::{FieldError, Outcome, Termination, TimeControl, Timestamp};

/// The time controls of a timed game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    /// White's control.
    pub white: TimeControl,
    /// Black's control (the same as White's unless the game has time odds).
    pub black: TimeControl,
    /// The online convention: each player's first move is untimed, and the
    /// clock starts once both have made one.
    pub clock_starts_after_first_moves: bool,
}

/// When the game is due to start, and how late a player may make the first
/// move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// The scheduled start (FIDE 6.6): White's clock starts then, not at
    /// creation.
    pub scheduled_start: Option<Timestamp>,
    /// With a start: a player who has not arrived at the board (checked
    /// in or moved) this long after it loses by forfeit, and both do when
    /// neither has (FIDE 6.7.1).
    pub default_time_ms: Option<u64>,
    /// Whether the game waits for an arbiter to start it (a round's games
    /// do, unless scheduled): until then nothing may be played and no
    /// clock runs; the start may also come before a scheduled time. Left
    /// out of the stored form while false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaits_start: bool,
}

impl Timing {
    /// The timing a request asks for: untimed without White's control;
    /// Black's control is White's unless given. A control for Black alone,
    /// or the first-moves convention without a control, is refused.
    pub fn requested(
        white: Option<TimeControl>,
        black: Option<TimeControl>,
        clock_starts_after_first_moves: bool,
    ) -> Result<Option<Self>, FieldError> {
        let Some(white) = white else {
            if black.is_some() {
                return Err(FieldError::new(
                    "black_time_control",
                    "needs time_control for White as well",
                ));
            }
            if clock_starts_after_first_moves {
                return Err(FieldError::new(
                    "clock_starts_after_first_moves",
                    "needs a time_control",
                ));
            }
            return Ok(None);
        };
        Ok(Some(Self {
            black: black.unwrap_or_else(|| white.clone()),
            white,
            clock_starts_after_first_moves,
        }))
    }
}

impl Schedule {
    /// A schedule; a default time counts from a scheduled start (FIDE 6.7),
    /// so it is refused without one.
    pub fn new(
        scheduled_start: Option<Timestamp>,
        default_time_ms: Option<u64>,
    ) -> Result<Self, FieldError> {
        if default_time_ms.is_some() && scheduled_start.is_none() {
            return Err(FieldError::new(
                "default_time_millis",
                "needs a scheduled_start_time",
            ));
        }
        Ok(Self {
            scheduled_start,
            default_time_ms,
            awaits_start: false,
        })
    }

    /// A schedule whose game an arbiter starts (see
    /// [`Schedule::awaits_start`]), at the scheduled time at the latest
    /// when one is given; a default time counts from the actual start.
    pub fn started_by_arbiter(
        scheduled_start: Option<Timestamp>,
        default_time_ms: Option<u64>,
    ) -> Self {
        Self {
            scheduled_start,
            default_time_ms,
            awaits_start: scheduled_start.is_none(),
        }
    }
}

/// What an arbiter rules a game's result to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ruling {
    /// A result as if played: who won (or a draw) and why.
    Played {
        /// The outcome.
        outcome: Outcome,
        /// The termination to record; `ArbiterDecision` when none is named.
        termination: Option<Termination>,
    },
    /// `loser` forfeits: the opponent wins, the game counts as unplayed.
    Forfeit {
        /// Who forfeits.
        loser: Color,
    },
    /// Both players forfeit: each scores a loss, the game is unplayed.
    DoubleForfeit,
}

impl Ruling {
    /// A result as if played, refused when the termination cannot end a
    /// game that way: an unplayed game (no-show, forfeit) is the forfeit
    /// ruling's; checkmate, resignation and a flag with mating material
    /// only end in a win; the drawing terminations (stalemate, agreement,
    /// repetition, the move counts, dead positions, a flag against bare
    /// material or with a pending offer) only in a draw; and no played
    /// game ends in a double forfeit. The arbiter's own decision (or none
    /// named) goes with any played outcome.
    pub fn played(outcome: Outcome, termination: Option<Termination>) -> Result<Self, FieldError> {
        use Termination as T;
        let refuse = |why: &str| Err(FieldError::new("played.termination", why));
        if outcome == Outcome::DoubleForfeit {
            return Err(FieldError::new(
                "played.outcome",
                "must be a win or a draw (use forfeit for forfeits)",
            ));
        }
        let draw = outcome == Outcome::Draw;
        match termination {
            None | Some(T::ArbiterDecision) => {}
            Some(T::NoShow | T::Forfeit) => {
                return refuse("an unplayed game is ruled with forfeit, not as played");
            }
            Some(T::Checkmate | T::Resignation | T::Timeout) if draw => {
                return refuse(
                    "checkmate, resignation and a flag with mating material end in a win, not a draw",
                );
            }
            Some(
                T::Stalemate
                | T::InsufficientMaterial
                | T::Agreement
                | T::ThreefoldRepetition
                | T::FiftyMoves
                | T::FivefoldRepetition
                | T::SeventyFiveMoves
                | T::DeadPosition
                | T::TimeoutVsInsufficientMaterial
                | T::TimeoutWithPendingDrawOffer,
            ) if !draw => {
                return refuse("this termination ends a game in a draw, not a win");
            }
            Some(_) => {}
        }
        Ok(Self::Played {
            outcome,
            termination,
        })
    }

    /// The ruling in stable words, for recognising a repeated request
    /// (independent of how the type prints for debugging).
    pub fn describe(&self) -> String {
        let side = |color: Color| color.fold_wb("white", "black");
        match self {
            Ruling::Played {
                outcome,
                termination,
            } => format!(
                "played {} {}",
                outcome.pgn(),
                termination.map_or("arbiter-decision", Termination::describe)
            ),
            Ruling::Forfeit { loser } => format!("forfeit {}", side(*loser)),
            Ruling::DoubleForfeit => "double-forfeit".to_owned(),
        }
    }
}

#[cfg(test)]
mod ruling_tests {
    use super::*;

    #[test]
    fn a_played_ruling_must_be_coherent() {
        use Termination as T;
        let ok = |outcome, termination| Ruling::played(outcome, termination).is_ok();
        // The arbiter's decision goes with any played outcome.
        for outcome in [Outcome::WhiteWins, Outcome::BlackWins, Outcome::Draw] {
            assert!(ok(outcome, None));
            assert!(ok(outcome, Some(T::ArbiterDecision)));
            // Unplayed games are forfeits.
            assert!(!ok(outcome, Some(T::NoShow)));
            assert!(!ok(outcome, Some(T::Forfeit)));
        }
        for win_only in [T::Checkmate, T::Resignation, T::Timeout] {
            assert!(ok(Outcome::WhiteWins, Some(win_only)));
            assert!(ok(Outcome::BlackWins, Some(win_only)));
            assert!(!ok(Outcome::Draw, Some(win_only)), "{win_only:?}");
        }
        for draw_only in [
            T::Stalemate,
            T::InsufficientMaterial,
            T::Agreement,
            T::ThreefoldRepetition,
            T::FiftyMoves,
            T::FivefoldRepetition,
            T::SeventyFiveMoves,
            T::DeadPosition,
            T::TimeoutVsInsufficientMaterial,
            T::TimeoutWithPendingDrawOffer,
        ] {
            assert!(ok(Outcome::Draw, Some(draw_only)));
            assert!(!ok(Outcome::WhiteWins, Some(draw_only)), "{draw_only:?}");
            assert!(!ok(Outcome::BlackWins, Some(draw_only)), "{draw_only:?}");
        }
        assert!(!ok(Outcome::DoubleForfeit, None));
    }
}
