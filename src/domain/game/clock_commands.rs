//! What time decides in a game: the default time (FIDE 6.7), flag-fall
//! (6.9), and the arbiter's clock controls (12).

use crate::domain::{
    AdjudicationNote, ClockView, Decision, EventKind, FieldError, Game, GameResult, GameStatus,
    Outcome, Pace, Rejection, Ruling, Schedule, Termination, Timestamp, on_flag,
};
use shakmaty::Color;

impl Game {
    /// Ends the game if time decided it by `now`: when the default time
    /// runs out, a player who has not arrived at the board (neither checked
    /// in nor moved) loses by forfeit, and both do when neither has (FIDE
    /// 6.7.1, see [`crate::domain::Presence::default_time_result`]); a player whose
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
        let flag_first = self.clock().and_then(crate::domain::Clock::flag_time);
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
        if self.clock().is_some_and(crate::domain::Clock::is_paused) {
            return None;
        }
        let paused = self.clock().map_or(0, crate::domain::Clock::paused_ms);
        Some(
            self.start_time()?
                .plus_millis(self.schedule().default_time_ms?)
                .plus_millis(paused),
        )
    }

    /// The next instant at which time alone can end the game (a flag or a
    /// default time), for the sweeper's index; `None` when nothing is due.
    pub fn deadline(&self) -> Option<Timestamp> {
        if self.status() != GameStatus::Active {
            return None;
        }
        let flag = self.clock().and_then(crate::domain::Clock::flag_time);
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

    /// An arbiter (named `by`) adds `delta_ms` (negative: deducts) to
    /// `color`'s time.
    pub fn adjust_clock(
        &self,
        color: Color,
        delta_ms: i64,
        reason: &str,
        by: &str,
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
            by: Some(by.to_owned()),
        }];
        Ok(next.commit(kinds, now))
    }

    /// A player gives the opponent (`color`) `delta_ms` of time, through
    /// the platform: an adjustment like the arbiter's, refused where the
    /// game's rules forbid it, and only ever an addition; `by` names who
    /// relayed it.
    pub fn give_time(
        &self,
        color: Color,
        delta_ms: i64,
        reason: &str,
        by: &str,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        if self.rules().no_give_time {
            return Err(Rejection::GiveTimeNotAllowed);
        }
        if delta_ms <= 0 {
            return Err(FieldError::new(
                "delta_millis",
                "must be positive when a player gives time",
            )
            .into());
        }
        self.adjust_clock(color, delta_ms, reason, by, now)
    }

    /// An arbiter decides the result (of a game in progress) or corrects it
    /// (of a finished or aborted game). The ruling is final and recorded with
    /// its reason and the arbiter's name, `by`.
    pub fn set_result(
        &self,
        ruling: Ruling,
        reason: &str,
        by: &str,
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
            by: Some(by.to_owned()),
        }];
        Ok(next.commit(kinds, now))
    }

    /// An arbiter stops the clocks (e.g. to settle a dispute at the board).
    pub fn pause_clock(
        &self,
        reason: &str,
        by: &str,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        let mut next = self.clone();
        let clock = next.clock_mut().ok_or(Rejection::Untimed)?;
        if clock.is_paused() {
            return Err(Rejection::ClockPaused);
        }
        clock.pause(now);
        let kinds = vec![EventKind::ClockPaused {
            reason: reason.to_owned(),
            by: Some(by.to_owned()),
        }];
        Ok(next.commit(kinds, now))
    }

    /// An arbiter restarts paused clocks.
    pub fn resume_clock(
        &self,
        reason: &str,
        by: &str,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        let mut next = self.clone();
        let clock = next.clock_mut().ok_or(Rejection::Untimed)?;
        if !clock.is_paused() {
            return Err(Rejection::ClockNotPaused);
        }
        clock.resume(now);
        let kinds = vec![EventKind::ClockResumed {
            reason: reason.to_owned(),
            by: Some(by.to_owned()),
        }];
        Ok(next.commit(kinds, now))
    }

    /// The time an incorrect claim costs (FIDE 9.5.3, A.5.5): two minutes
    /// added to the opponent's clock in standard play, one in rapid and
    /// blitz; nothing in an untimed game.
    pub(in crate::domain) fn claim_penalty_ms(&self) -> Option<i64> {
        Some(match self.pace()? {
            Pace::Standard => 120_000,
            Pace::Rapid | Pace::Blitz => 60_000,
        })
    }

    /// Refuses a move or claim before the start (scheduled, or awaited
    /// from an arbiter), while the clock is paused, or after the flag has
    /// fallen (which the caller must have committed first).
    pub(in crate::domain) fn ensure_clock_allows(&self, now: Timestamp) -> Result<(), Rejection> {
        if self.awaits_start() {
            return Err(Rejection::AwaitingStart);
        }
        if let Some(start) = self.start_time()
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

    /// Starts the game at `now` for the arbiter (or platform) `by`: the
    /// clock of the side to move runs from now (unless the clocks start
    /// after the first moves), a default time counts from now (FIDE 6.7.1),
    /// and a scheduled start still ahead is brought forward. A game that
    /// has already started (by an arbiter, at its scheduled time, at
    /// creation, or by a move) is left as it is; one that is over refuses.
    pub fn start(&self, by: &str, now: Timestamp) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        let started = self.ply() != crate::domain::Ply::START
            || (!self.awaits_start() && self.start_time().is_none_or(|at| at <= now));
        if started {
            return Ok(Decision::Unchanged);
        }
        let mut next = self.clone();
        next.begin(now);
        Ok(next.commit(vec![EventKind::GameStarted { by: by.to_owned() }], now))
    }

    /// What a start does to the game (its event replayed too): it starts
    /// at `at`, and so does the clock of the side to move, unless the
    /// clocks start after the first moves.
    pub(in crate::domain) fn begin(&mut self, at: Timestamp) {
        self.set_started_at(at);
        let runs = self
            .setup()
            .timing()
            .is_some_and(|timing| !timing.clock_starts_after_first_moves);
        let first = self.side_to_move();
        if let Some(clock) = self.clock_mut() {
            clock.start(runs.then_some(first), at);
        }
    }

    /// Charges the mover's clock for the move completed at `now`, and
    /// compensates its reported `lag` when the game's policy says so.
    pub(in crate::domain) fn clock_move(
        &mut self,
        lag: crate::domain::ReportedLag,
        now: Timestamp,
    ) -> Option<crate::domain::MoveTime> {
        let mover = self.side_to_move();
        let starts = self.ply().count() + 1 == 2;
        let compensation = self.setup().lag_compensation().map(|policy| (policy, lag));
        self.clock_mut()
            .map(|clock| clock.complete_move(mover, now, starts, compensation))
    }
}

#[cfg(test)]
#[path = "clock_commands_tests.rs"]
mod tests;
