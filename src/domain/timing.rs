//! A game against the clock: time controls, the scheduled start and default
//! time (FIDE 6.6, 6.7), flag-fall (6.9), and the arbiter's clock controls.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use super::{
    AdjudicationNote, ClockView, Decision, EventKind, FieldError, Game, GameResult, GameStatus,
    Outcome, Pace, Rejection, Termination, TimeControl, Timestamp, on_flag,
};

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
    /// With a scheduled start: a player who has not arrived at the board
    /// (checked in or moved) this long after it loses by forfeit, and both
    /// do when neither has (FIDE 6.7.1).
    pub default_time_ms: Option<u64>,
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
        })
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

impl Game {
    /// Ends the game if time decided it by `now`: when the default time
    /// runs out, a player who has not arrived at the board (neither checked
    /// in nor moved) loses by forfeit, and both do when neither has (FIDE
    /// 6.7.1, see [`super::Presence::default_time_result`]); a player whose
    /// flag has fallen loses, or draws when the opponent cannot checkmate.
    /// Every command runs this first and commits its decision before
    /// anything else. The returned note, if any, explains an adjudication that rests
    /// on an undecided analysis: the result records it too, awaiting an
    /// arbiter's review.
    pub fn check_time(&self, now: Timestamp) -> Option<(Decision, Option<AdjudicationNote>)> {
        if self.status() != GameStatus::Active {
            return None;
        }
        // Whichever came first decides, however late it is checked: a flag
        // that fell before the default time ended is a loss on time.
        let flag_first = self.clock().and_then(super::Clock::flag_time);
        let no_show_due = self
            .no_show_deadline()
            .is_some_and(|d| now >= d && flag_first.is_none_or(|flag| d <= flag));
        let no_show = no_show_due
            .then(|| self.present().default_time_result())
            .flatten();
        let (result, note) = if let Some(result) = no_show {
            (result, None)
        } else {
            let flagger = self.clock()?.flagged(now)?;
            if self.rules().pending_offer_draws_on_flag && self.draw_offer() == Some(!flagger) {
                let result = GameResult {
                    outcome: Outcome::Draw,
                    termination: Termination::TimeoutWithPendingDrawOffer,
                };
                (result, None)
            } else {
                let ruling = on_flag(self.position(), flagger, self.rules().profile);
                (ruling.result, ruling.note)
            }
        };
        let mut next = self.clone();
        let mut kinds = Vec::new();
        next.finish_for_review(result, note, &mut kinds);
        // The game ended when the flag fell or the default time ran out,
        // however late that was noticed.
        let ended = if no_show.is_some() {
            self.no_show_deadline()
        } else {
            flag_first
        };
        next.set_ended_at(ended.map_or(now, |at| at.min(now)));
        Some((next.commit(kinds, now), note))
    }

    /// The default-time deadline (FIDE 6.7.1) while a player has not
    /// arrived at the board (checked in or moved). The default time stands
    /// still while an arbiter has the clock paused (no deadline then), and
    /// is extended by every pause.
    fn no_show_deadline(&self) -> Option<Timestamp> {
        if self.present().is_complete() {
            return None;
        }
        if self.clock().is_some_and(super::Clock::is_paused) {
            return None;
        }
        let schedule = self.schedule();
        let paused = self.clock().map_or(0, super::Clock::paused_ms);
        Some(
            schedule
                .scheduled_start?
                .plus_millis(schedule.default_time_ms?)
                .plus_millis(paused),
        )
    }

    /// The next instant at which time alone can end the game (a flag or a
    /// default time), for the sweeper's index; `None` when nothing is due.
    pub fn deadline(&self) -> Option<Timestamp> {
        if self.status() != GameStatus::Active {
            return None;
        }
        let flag = self.clock().and_then(super::Clock::flag_time);
        match (flag, self.no_show_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The game's pace (FIDE A.1, B.1), by White's control; `None` when
    /// untimed.
    pub fn pace(&self) -> Option<Pace> {
        self.clock().map(|clock| clock.control(Color::White).pace())
    }

    /// The schedule.
    pub fn schedule(&self) -> Schedule {
        self.setup().schedule()
    }

    /// The clocks as shown at `now`, in a timed game. Once the game is over
    /// they stay as they were when it ended, with nobody's time running.
    pub fn clock_view(&self, now: Timestamp) -> Option<ClockView> {
        let clock = self.clock()?;
        Some(match self.status() {
            GameStatus::Active | GameStatus::Pending => clock.view(now),
            GameStatus::Finished | GameStatus::Aborted => clock
                .view(self.ended_at().unwrap_or(self.updated_at()))
                .stopped(),
        })
    }

    /// An arbiter adds `delta_ms` (negative: deducts) to `color`'s time.
    pub fn adjust_clock(
        &self,
        color: Color,
        delta_ms: i64,
        reason: &str,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        let mut next = self.clone();
        next.clock_mut()
            .ok_or(Rejection::Untimed)?
            .adjust(color, delta_ms);
        let kinds = vec![EventKind::ClockAdjusted {
            color,
            delta_ms,
            reason: reason.to_owned(),
        }];
        Ok(next.commit(kinds, now))
    }

    /// An arbiter decides the result (of a game in progress) or corrects it
    /// (of a finished or aborted game). The ruling is final and recorded with
    /// its reason.
    pub fn set_result(
        &self,
        ruling: Ruling,
        reason: &str,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        let result = match ruling {
            Ruling::Played {
                outcome,
                termination,
            } => {
                if outcome == Outcome::DoubleForfeit {
                    return Err(Rejection::InvalidField(FieldError::new(
                        "outcome",
                        "a double forfeit is given with forfeit FORFEIT_BOTH",
                    )));
                }
                GameResult {
                    outcome,
                    termination: termination.unwrap_or(Termination::ArbiterDecision),
                }
            }
            Ruling::Forfeit { loser } => GameResult {
                outcome: Outcome::win_for(!loser),
                termination: Termination::Forfeit,
            },
            Ruling::DoubleForfeit => GameResult {
                outcome: Outcome::DoubleForfeit,
                termination: Termination::Forfeit,
            },
        };
        let mut next = self.clone();
        next.impose_result(result);
        let kinds = vec![EventKind::ResultSet {
            result,
            score: self.scoring().score(result),
            reason: reason.to_owned(),
        }];
        Ok(next.commit(kinds, now))
    }

    /// An arbiter stops the clocks (e.g. to settle a dispute at the board).
    pub fn pause_clock(&self, reason: &str, now: Timestamp) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        let mut next = self.clone();
        let clock = next.clock_mut().ok_or(Rejection::Untimed)?;
        if clock.is_paused() {
            return Err(Rejection::ClockPaused);
        }
        clock.pause(now);
        let kinds = vec![EventKind::ClockPaused {
            reason: reason.to_owned(),
        }];
        Ok(next.commit(kinds, now))
    }

    /// An arbiter restarts paused clocks.
    pub fn resume_clock(&self, reason: &str, now: Timestamp) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        let mut next = self.clone();
        let clock = next.clock_mut().ok_or(Rejection::Untimed)?;
        if !clock.is_paused() {
            return Err(Rejection::ClockNotPaused);
        }
        clock.resume(now);
        let kinds = vec![EventKind::ClockResumed {
            reason: reason.to_owned(),
        }];
        Ok(next.commit(kinds, now))
    }

    /// The time an incorrect claim costs (FIDE 9.5.3, A.5.5): two minutes
    /// added to the opponent's clock in standard play, one in rapid and
    /// blitz; nothing in an untimed game.
    pub(super) fn claim_penalty_ms(&self) -> Option<i64> {
        Some(match self.pace()? {
            Pace::Standard => 120_000,
            Pace::Rapid | Pace::Blitz => 60_000,
        })
    }

    /// Refuses a move or claim before the scheduled start, while the clock
    /// is paused, or after the flag has fallen (which the caller must have
    /// committed first).
    pub(super) fn ensure_clock_allows(&self, now: Timestamp) -> Result<(), Rejection> {
        if let Some(start) = self.schedule().scheduled_start
            && now < start
        {
            return Err(Rejection::NotStarted {
                starts_at_ms: start.unix_millis(),
            });
        }
        match self.clock() {
            Some(clock) if clock.is_paused() => Err(Rejection::ClockPaused),
            Some(clock) if clock.flagged(now).is_some() => Err(Rejection::GameOver),
            _ if self.no_show_deadline().is_some_and(|d| now >= d) => Err(Rejection::GameOver),
            _ => Ok(()),
        }
    }

    /// Charges the mover's clock for the move completed at `now`, and
    /// compensates its reported `lag` when the game's policy says so.
    pub(super) fn clock_move(
        &mut self,
        lag: super::ReportedLag,
        now: Timestamp,
    ) -> Option<super::MoveTime> {
        let mover = self.side_to_move();
        let starts = self.ply().count() + 1 == 2;
        let compensation = self.setup().lag_compensation().map(|policy| (policy, lag));
        self.clock_mut()
            .map(|clock| clock.complete_move(mover, now, starts, compensation))
    }
}

#[cfg(test)]
#[path = "timing_tests.rs"]
mod tests;

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
