//! Lag compensation for online play: the network's transit time credited
//! back to a player's clock, within a quota.
//!
//! The platform owns the connection to each player and measures the lag of
//! every move; it reports that lag with the move. A game created with a
//! [`LagCompensation`] policy gives the mover back
//! `min(lag, quota, max_move_credit, time the move cost the clock)` after
//! the move; the quota is debited by that credit and regains
//! `quota_gain` per timed move, up to `max_quota`. A game without a policy
//! (over-the-board play, the default) ignores reported lag.
//!
//! The credit never moves a flag: a move that reaches the server after
//! the mover's flag fell is void whatever lag it reports, so the flag
//! sweeper and every replica decide a game's end from its state alone.
//!
//! ```
//! use arbiter::domain::{LagCompensation, ReportedLag};
//!
//! let policy = LagCompensation::ONLINE;
//! let lag = ReportedLag::parse("lag_millis", 500).unwrap();
//! // 500 ms of lag on a move that cost the clock 4 s: all of it is credited.
//! let settled = policy.settle(policy.initial_quota_ms(), lag, 4_000);
//! assert_eq!(settled.credit_ms, 500);
//! assert_eq!(settled.quota_ms, 3_000 - 500 + 1_000);
//! ```

use serde::{Deserialize, Serialize};

use crate::domain::FieldError;

/// The largest lag a move may report: a minute. More than that is no
/// network's transit time but a broken measurement, and is refused.
pub const MAX_REPORTED_LAG_MS: u64 = 60_000;

/// The largest quota a policy may set: a minute.
pub const MAX_LAG_QUOTA_MS: u64 = 60_000;

/// A game's lag-compensation policy, fixed when the game is created.
/// Every value is in milliseconds, and none exceeds `max_quota_ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LagCompensation {
    initial_quota_ms: u64,
    max_quota_ms: u64,
    quota_gain_ms: u64,
    max_move_credit_ms: u64,
}

/// What one move's lag settles to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LagSettlement {
    /// The time given back to the mover's clock.
    pub credit_ms: u64,
    /// The mover's quota after the move.
    pub quota_ms: u64,
}

impl LagCompensation {
    /// The defaults for online play, modelled on lichess (scalachess's
    /// `LagTracker`: a quota of three times the gain to start with, seven
    /// times at most, a gain of at most one second per move; an earlier
    /// version also capped one move's credit at 3 s): 3 s to start with,
    /// 1 s regained per move, 7 s at most, and at most 3 s credited for one
    /// move.
    pub const ONLINE: Self = Self {
        initial_quota_ms: 3_000,
        max_quota_ms: 7_000,
        quota_gain_ms: 1_000,
        max_move_credit_ms: 3_000,
    };

    /// The policy a request asks for; each value left at 0 takes
    /// [`LagCompensation::ONLINE`]'s. Refused when the maximum quota
    /// exceeds [`MAX_LAG_QUOTA_MS`], or the initial quota, the gain per
    /// move or the credit per move exceeds the maximum quota.
    pub fn requested(
        initial_quota_ms: u64,
        max_quota_ms: u64,
        quota_gain_ms: u64,
        max_move_credit_ms: u64,
    ) -> Result<Self, FieldError> {
        let or_default = |value: u64, default: u64| if value == 0 { default } else { value };
        let online = Self::ONLINE;
        let policy = Self {
            initial_quota_ms: or_default(initial_quota_ms, online.initial_quota_ms),
            max_quota_ms: or_default(max_quota_ms, online.max_quota_ms),
            quota_gain_ms: or_default(quota_gain_ms, online.quota_gain_ms),
            max_move_credit_ms: or_default(max_move_credit_ms, online.max_move_credit_ms),
        };
        if policy.max_quota_ms > MAX_LAG_QUOTA_MS {
            return Err(FieldError::new(
                "lag_compensation.max_quota_millis",
                format!("must not exceed {MAX_LAG_QUOTA_MS} ms"),
            ));
        }
        let within_max = [
            (
                "lag_compensation.initial_quota_millis",
                policy.initial_quota_ms,
            ),
            ("lag_compensation.quota_gain_millis", policy.quota_gain_ms),
            (
                "lag_compensation.max_move_credit_millis",
                policy.max_move_credit_ms,
            ),
        ];
        for (field, value) in within_max {
            if value > policy.max_quota_ms {
                return Err(FieldError::new(
                    field,
                    format!(
                        "must not exceed max_quota_millis ({} ms)",
                        policy.max_quota_ms
                    ),
                ));
            }
        }
        Ok(policy)
    }

    /// Each player's quota when the game starts.
    pub fn initial_quota_ms(&self) -> u64 {
        self.initial_quota_ms
    }
    /// The most a quota can hold.
    pub fn max_quota_ms(&self) -> u64 {
        self.max_quota_ms
    }
    /// What a quota regains with every timed move.
    pub fn quota_gain_ms(&self) -> u64 {
        self.quota_gain_ms
    }
    /// The most credited for one move.
    pub fn max_move_credit_ms(&self) -> u64 {
        self.max_move_credit_ms
    }

    /// Settles one timed move: `quota_ms` is the mover's quota before it,
    /// `lag` what the platform measured, `cost_ms` the time the move cost
    /// the clock (thinking time less any delay, before the increment). The
    /// credit is the least of the lag, the quota, the most per move and the
    /// cost, so it never gives back more than the move took; the quota
    /// loses the credit, then regains its gain up to the maximum.
    pub fn settle(&self, quota_ms: u64, lag: ReportedLag, cost_ms: u64) -> LagSettlement {
        let credit_ms = lag
            .millis()
            .min(quota_ms)
            .min(self.max_move_credit_ms)
            .min(cost_ms);
        let quota_ms = quota_ms
            .saturating_sub(credit_ms)
            .saturating_add(self.quota_gain_ms)
            .min(self.max_quota_ms);
        LagSettlement {
            credit_ms,
            quota_ms,
        }
    }
}

/// The network lag the platform measured for one move: 0 to
/// [`MAX_REPORTED_LAG_MS`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ReportedLag(u64);

impl ReportedLag {
    /// No lag reported.
    pub const NONE: Self = Self(0);

    /// A lag as sent in `field`, refused when negative or above
    /// [`MAX_REPORTED_LAG_MS`].
    pub fn parse(field: &'static str, millis: i64) -> Result<Self, FieldError> {
        let millis =
            u64::try_from(millis).map_err(|_| FieldError::new(field, "must not be negative"))?;
        if millis > MAX_REPORTED_LAG_MS {
            return Err(FieldError::new(
                field,
                format!("must not exceed {MAX_REPORTED_LAG_MS} ms"),
            ));
        }
        Ok(Self(millis))
    }

    /// The lag that, reported again for a move replayed from its record,
    /// is credited exactly as the record's `credit_ms` was: the credit
    /// never exceeded the quota, the per-move cap or the time used, which
    /// the replay reaches in the same state.
    pub(in crate::domain) fn replaying(credit_ms: u64) -> Self {
        Self(credit_ms)
    }

    /// The lag in milliseconds.
    pub fn millis(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
#[path = "lag_tests.rs"]
mod tests;
