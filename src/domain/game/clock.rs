//! The chess clock (FIDE Art. 6): two players' remaining times, periods,
//! increments and delays, driven by the server's "now".

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::domain::{
    DelayMode, LagCompensation, Period, ReportedLag, TimeControl, Timestamp, game::serde_chess,
};

/// One player's side of the clock.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct SideClock {
    control: TimeControl,
    /// Time left at the start of the current turn (or now, when not
    /// running), in milliseconds. Signed so that an arbiter's deduction can
    /// take it below zero.
    remaining_ms: i64,
    /// Periods completed.
    periods_done: usize,
    /// Moves made in the current period.
    moves_in_period: u32,
    /// What is left of the lag-compensation quota (see [`crate::domain::game::lag`]).
    /// Left out of the stored form while zero, so states of games without
    /// compensation keep their exact bytes.
    #[serde(default, skip_serializing_if = "is_zero")]
    lag_quota_ms: u64,
}

impl SideClock {
    fn new(control: TimeControl) -> Self {
        let remaining_ms = ms(control.period(0).time_ms);
        Self {
            control,
            remaining_ms,
            periods_done: 0,
            moves_in_period: 0,
            lag_quota_ms: 0,
        }
    }

    fn period(&self) -> &Period {
        self.control.period(self.periods_done)
    }

    /// Time the clock charges for `elapsed` milliseconds of thinking.
    fn charged(&self, elapsed: u64) -> u64 {
        match self.control.delay_mode() {
            DelayMode::Simple => elapsed.saturating_sub(self.period().delay_ms),
            DelayMode::Bronstein => elapsed,
        }
    }

    /// How long the player may still think in the current turn before the
    /// flag falls, counted from the turn's start.
    fn allowance(&self) -> i64 {
        match self.control.delay_mode() {
            DelayMode::Simple => self.remaining_ms.saturating_add(ms(self.period().delay_ms)),
            DelayMode::Bronstein => self.remaining_ms,
        }
    }
}

fn ms(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// What the clock recorded for one completed move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveTime {
    /// Thinking time the move took.
    pub spent_ms: u64,
    /// The mover's remaining time after the move (increment and lag
    /// compensation included).
    pub remaining_ms: i64,
    /// The network lag credited back to the mover (lag compensation), at
    /// most `spent_ms`. Left out of the stored form while zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lag_credit_ms: u64,
}

/// What a client needs to show the clocks at one instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// The instant this view describes.
    pub at: Timestamp,
    /// White's remaining time at that instant.
    pub white_ms: i64,
    /// Black's remaining time at that instant.
    pub black_ms: i64,
    /// Whose clock runs, if any.
    #[serde(with = "serde_chess::opt_color")]
    pub running: Option<Color>,
    /// Whether an arbiter paused the clocks.
    pub paused: bool,
    /// White's current period (0-based).
    pub white_period: u32,
    /// Black's current period (0-based).
    pub black_period: u32,
    /// Moves White must still make in the period (0 = rest of the game).
    pub white_moves_left: u32,
    /// Moves Black must still make in the period (0 = rest of the game).
    pub black_moves_left: u32,
    /// Delay still to elapse before the running clock counts down.
    pub delay_left_ms: u64,
}

impl ClockView {
    /// The view with nobody's time running: how the clocks of a game that
    /// has ended are shown.
    pub fn stopped(self) -> Self {
        Self {
            running: None,
            ..self
        }
    }
}

/// Both players' clocks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    white: SideClock,
    black: SideClock,
    /// Whose time runs; `None` until the clock starts.
    #[serde(with = "serde_chess::opt_color")]
    running: Option<Color>,
    /// When the running side's turn started counting.
    turn_started: Timestamp,
    /// When an arbiter paused the clock, if paused.
    paused_at: Option<Timestamp>,
    /// How long the clock has been paused in all (the part of each pause
    /// after turns started counting): a default time is extended by it.
    /// Left out of the stored form while zero, so states without a pause
    /// keep their exact bytes.
    #[serde(default, skip_serializing_if = "is_zero")]
    paused_ms: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl Clock {
    /// A clock for the two controls. With `running`, that side's time runs
    /// from `starts_at` (which may lie in the future); otherwise the clock
    /// waits to be started.
    pub fn new(
        white: TimeControl,
        black: TimeControl,
        running: Option<Color>,
        starts_at: Timestamp,
    ) -> Self {
        Self {
            white: SideClock::new(white),
            black: SideClock::new(black),
            running,
            turn_started: starts_at,
            paused_at: None,
            paused_ms: 0,
        }
    }

    /// Gives each player `quota_ms` of lag-compensation quota.
    pub fn with_lag_quota(mut self, quota_ms: u64) -> Self {
        self.white.lag_quota_ms = quota_ms;
        self.black.lag_quota_ms = quota_ms;
        self
    }

    /// What is left of a player's lag-compensation quota.
    pub fn lag_quota(&self, color: Color) -> u64 {
        self.side(color).lag_quota_ms
    }

    fn side(&self, color: Color) -> &SideClock {
        color.fold_wb(&self.white, &self.black)
    }

    fn side_mut(&mut self, color: Color) -> &mut SideClock {
        color.fold_wb(&mut self.white, &mut self.black)
    }

    /// A player's control.
    pub fn control(&self, color: Color) -> &TimeControl {
        &self.side(color).control
    }

    /// Whose time runs.
    pub fn running(&self) -> Option<Color> {
        self.running
    }

    /// Whether an arbiter paused the clock.
    pub fn is_paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// Thinking time of the current turn at `now`.
    fn elapsed(&self, now: Timestamp) -> u64 {
        let until = self.paused_at.unwrap_or(now);
        until.millis_since(self.turn_started)
    }

    /// A player's remaining time at `now`.
    pub fn remaining(&self, color: Color, now: Timestamp) -> i64 {
        let side = self.side(color);
        if self.running == Some(color) {
            side.remaining_ms
                .saturating_sub(ms(side.charged(self.elapsed(now))))
        } else {
            side.remaining_ms
        }
    }

    /// When the running side's flag falls if it does not move, or `None`
    /// while the clock is stopped or paused.
    pub fn flag_time(&self) -> Option<Timestamp> {
        if self.paused_at.is_some() {
            return None;
        }
        let side = self.side(self.running?);
        let allowance = u64::try_from(side.allowance()).unwrap_or(0);
        Some(self.turn_started.plus_millis(allowance))
    }

    /// The side whose flag has fallen at `now`: its time is used up.
    pub fn flagged(&self, now: Timestamp) -> Option<Color> {
        let running = self.running?;
        if self.paused_at.is_some() {
            return None;
        }
        let side = self.side(running);
        (ms(self.elapsed(now)) >= side.allowance()).then_some(running)
    }

    /// Completes `mover`'s move at `now` (its flag must not have fallen):
    /// charges the thinking time, gives back a Bronstein delay, credits the
    /// increment, moves to the next period when its move count is reached,
    /// and starts the opponent's time. With `start`, a clock that is not yet
    /// running starts with the opponent's turn.
    ///
    /// With `lag` (the game's policy and the lag reported with the move), a
    /// timed move settles its lag compensation: the credit, at most what
    /// the move cost the clock (its thinking time less any delay), is given
    /// back and the mover's quota debited and regained
    /// ([`LagCompensation::settle`]). An untimed move settles nothing.
    pub fn complete_move(
        &mut self,
        mover: Color,
        now: Timestamp,
        start: bool,
        lag: Option<(LagCompensation, ReportedLag)>,
    ) -> MoveTime {
        let timed = self.running == Some(mover);
        let elapsed = if timed { self.elapsed(now) } else { 0 };
        let side = self.side_mut(mover);
        let mut lag_credit_ms = 0;
        if timed {
            let delay = side.period().delay_ms;
            // Either delay mode costs the clock the time beyond the delay.
            let cost = elapsed.saturating_sub(delay);
            if let Some((policy, lag)) = lag {
                let settled = policy.settle(side.lag_quota_ms, lag, cost);
                side.lag_quota_ms = settled.quota_ms;
                lag_credit_ms = settled.credit_ms;
            }
            side.remaining_ms = side.remaining_ms.saturating_sub(ms(side.charged(elapsed)));
            if side.control.delay_mode() == DelayMode::Bronstein {
                side.remaining_ms = side.remaining_ms.saturating_add(ms(elapsed.min(delay)));
            }
            side.remaining_ms = side
                .remaining_ms
                .saturating_add(ms(lag_credit_ms))
                .saturating_add(ms(side.period().increment_ms));
        }
        side.moves_in_period += 1;
        let period_moves = side.period().moves;
        if period_moves > 0 && side.moves_in_period >= period_moves {
            side.periods_done += 1;
            side.moves_in_period = 0;
            // Time saved carries into the next period (FIDE 6.3.2).
            let added = side.period().time_ms;
            side.remaining_ms = side.remaining_ms.saturating_add(ms(added));
        }
        let remaining_ms = side.remaining_ms;
        if self.running.is_some() || start {
            self.running = Some(!mover);
            self.turn_started = now;
        }
        MoveTime {
            spent_ms: elapsed,
            remaining_ms,
            lag_credit_ms,
        }
    }

    /// Starts the clock at `at`: `running`'s time counts from then (nobody's
    /// when `None`: the clocks start with the first moves). A pause in
    /// force stays, counted from the start.
    pub fn start(&mut self, running: Option<Color>, at: Timestamp) {
        self.running = running;
        self.turn_started = at;
        if let Some(paused_at) = &mut self.paused_at {
            *paused_at = (*paused_at).max(at);
        }
    }

    /// Adds `delta_ms` (negative to deduct) to a player's time.
    pub fn adjust(&mut self, color: Color, delta_ms: i64) {
        let side = self.side_mut(color);
        side.remaining_ms = side.remaining_ms.saturating_add(delta_ms);
    }

    /// Stops both clocks at `now` until [`Clock::resume`].
    pub fn pause(&mut self, now: Timestamp) {
        if self.paused_at.is_none() {
            self.paused_at = Some(now);
        }
    }

    /// Restarts the clock paused by [`Clock::pause`]; the pause does not
    /// count as thinking time. Only the part of the pause after the turn
    /// started counting (e.g. after a scheduled start) is made up for.
    pub fn resume(&mut self, now: Timestamp) {
        if let Some(paused_at) = self.paused_at.take() {
            let pause = now.millis_since(paused_at.max(self.turn_started));
            self.turn_started = self.turn_started.plus_millis(pause);
            self.paused_ms = self.paused_ms.saturating_add(pause);
        }
    }

    /// How long the clock has been paused in all, pauses over (a pause in
    /// progress is not counted until it ends).
    pub fn paused_ms(&self) -> u64 {
        self.paused_ms
    }

    /// The clocks as of `now`.
    pub fn view(&self, now: Timestamp) -> ClockView {
        let moves_left = |side: &SideClock| {
            let period = side.period().moves;
            period.saturating_sub(side.moves_in_period)
        };
        let delay_left_ms = match self.running {
            Some(color) if self.side(color).control.delay_mode() == DelayMode::Simple => self
                .side(color)
                .period()
                .delay_ms
                .saturating_sub(self.elapsed(now)),
            _ => 0,
        };
        ClockView {
            at: now,
            white_ms: self.remaining(Color::White, now),
            black_ms: self.remaining(Color::Black, now),
            // Nobody's time runs while paused or before a scheduled start.
            running: if self.paused_at.is_some() || now < self.turn_started {
                None
            } else {
                self.running
            },
            paused: self.paused_at.is_some(),
            white_period: u32::try_from(self.white.periods_done).unwrap_or(u32::MAX),
            black_period: u32::try_from(self.black.periods_done).unwrap_or(u32::MAX),
            white_moves_left: moves_left(&self.white),
            black_moves_left: moves_left(&self.black),
            delay_left_ms,
        }
    }
}

#[cfg(test)]
#[path = "clock_tests.rs"]
mod tests;
