//! Retrying a follower's failed read: a store that stalls for a few seconds
//! costs the watchers of a game a late delivery, not their streams.

use std::time::Duration;

use crate::store::StoreError;

/// The pause before the first retry; each next one doubles, up to
/// [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(50);

/// The longest pause between two attempts.
const LONGEST_PAUSE: Duration = Duration::from_secs(1);

/// How long a follower keeps retrying before its watchers are ended with
/// the error (and reconnect, each at its own pace).
const BUDGET: Duration = Duration::from_secs(10);

/// The pauses of one run of retries.
#[derive(Debug)]
pub(super) struct Backoff {
    next: Duration,
    spent: Duration,
}

impl Backoff {
    pub(super) fn new() -> Self {
        Self {
            next: FIRST_PAUSE,
            spent: Duration::ZERO,
        }
    }

    /// The pause before retrying after `err`; `None` when the error is not
    /// one a retry can cure (stored data that is corrupt stays so) or the
    /// budget is spent.
    pub(super) fn after(&mut self, err: &StoreError) -> Option<Duration> {
        let transient = matches!(
            err,
            StoreError::Unavailable(_) | StoreError::NotReplicated { .. }
        );
        if !transient || self.spent >= BUDGET {
            return None;
        }
        let pause = self.next.min(BUDGET - self.spent);
        self.spent += pause;
        self.next = (self.next * 2).min(LONGEST_PAUSE);
        Some(pause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Corruption;

    #[test]
    fn a_stall_is_retried_for_ten_seconds_and_corruption_not_at_all() {
        let stall = StoreError::Unavailable("timed out".to_owned());
        let mut backoff = Backoff::new();
        let pauses: Vec<Duration> = std::iter::from_fn(|| backoff.after(&stall)).collect();
        assert_eq!(
            pauses[..5],
            [50, 100, 200, 400, 800].map(Duration::from_millis)
        );
        assert!(pauses[5..].iter().all(|pause| *pause <= LONGEST_PAUSE));
        assert_eq!(pauses.iter().sum::<Duration>(), BUDGET);
        let corrupt = StoreError::Corrupt(Corruption::LogEntryId { id: "x".to_owned() });
        assert_eq!(Backoff::new().after(&corrupt), None);
    }
}
