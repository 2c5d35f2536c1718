//! The broadcast delay: how long after it happens the public sees each of
//! a game's events (top events delay the transmission of moves so that
//! nobody can relay help to a player).

use serde::{Deserialize, Serialize};

use crate::domain::{FieldError, Timestamp};

/// How long the public waits for a game's events, in milliseconds; zero
/// (the default) is live. Fixed when the game is created.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct BroadcastDelay(u32);

impl BroadcastDelay {
    /// No delay: the public sees every event as it happens.
    pub const LIVE: Self = Self(0);

    /// The longest delay accepted: three hours, longer than any broadcast
    /// needs, short enough that a game's public view stays a recent one.
    pub const MAX_MILLIS: u32 = 3 * 60 * 60 * 1000;

    /// A delay of `millis`, as a request gives it, refused with the reason
    /// when negative or above [`BroadcastDelay::MAX_MILLIS`].
    pub fn parse(field: &'static str, millis: i64) -> Result<Self, FieldError> {
        if millis < 0 {
            return Err(FieldError::new(field, "must not be negative"));
        }
        match u32::try_from(millis) {
            Ok(millis) if millis <= Self::MAX_MILLIS => Ok(Self(millis)),
            _ => Err(FieldError::new(
                field,
                format!("must be at most {} (3 hours)", Self::MAX_MILLIS),
            )),
        }
    }

    /// The delay in milliseconds.
    pub fn millis(self) -> u64 {
        u64::from(self.0)
    }

    /// Whether there is no delay.
    pub fn is_live(&self) -> bool {
        self.0 == 0
    }

    /// The latest instant the public may see at `now`: `now` less the
    /// delay.
    pub fn cutoff(self, now: Timestamp) -> Timestamp {
        Timestamp::from_unix_millis(now.unix_millis().saturating_sub(self.millis()))
    }

    /// When the public may see something that happened `at`: `at` plus the
    /// delay.
    pub fn release(self, at: Timestamp) -> Timestamp {
        at.plus_millis(self.millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_up_to_three_hours_are_accepted() {
        assert_eq!(BroadcastDelay::parse("d", 0), Ok(BroadcastDelay::LIVE));
        let delay = BroadcastDelay::parse("d", 900_000).expect("15 minutes");
        assert_eq!(delay.millis(), 900_000);
        assert!(!delay.is_live());
        assert!(BroadcastDelay::parse("d", 10_800_000).is_ok());
    }

    #[test]
    fn negative_and_long_delays_are_refused_with_the_reason() {
        for (millis, reason) in [
            (-1, "must not be negative"),
            (i64::MIN, "must not be negative"),
            (10_800_001, "must be at most 10800000 (3 hours)"),
            (i64::MAX, "must be at most 10800000 (3 hours)"),
        ] {
            let err = BroadcastDelay::parse("broadcast_delay_millis", millis).unwrap_err();
            assert_eq!(err.field, "broadcast_delay_millis");
            assert_eq!(err.reason, reason, "{millis}");
        }
    }

    #[test]
    fn the_cutoff_and_the_release_are_the_delay_either_way() {
        let delay = BroadcastDelay::parse("d", 2_000).expect("2 s");
        let now = Timestamp::from_unix_millis(10_000);
        assert_eq!(delay.cutoff(now), Timestamp::from_unix_millis(8_000));
        assert_eq!(delay.release(now), Timestamp::from_unix_millis(12_000));
        assert_eq!(
            delay.cutoff(Timestamp::from_unix_millis(1)),
            Timestamp::from_unix_millis(0)
        );
        assert_eq!(BroadcastDelay::LIVE.cutoff(now), now);
    }
}
