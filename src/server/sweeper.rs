//! The flag sweeper: ends games whose flag falls (or whose default time
//! runs out) while nobody reads or writes them.
//!
//! Every replica runs one. They all read the store's deadline index and
//! commit endings through the store's compare-and-set, so each game ends
//! exactly once however many replicas race for it.

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::{
    arbiter::{Alarm, Arbiter},
    domain::Timestamp,
};

/// The shortest pause between sweeps: after a sweep that handled games, or
/// while a deadline is due but its game is set aside.
const INTERVAL: Duration = Duration::from_millis(50);

/// The longest pause: the index is read at least this often, so an entry
/// whose commit was not announced (another replica's repair, an
/// announcement lost without the subscription noticing) is still found.
/// Deadlines come from the commit announcements the replica receives
/// anyway, and a broken subscription has the index read at once, so an idle
/// replica reads the index only this often.
const LONGEST_PAUSE: Duration = Duration::from_secs(30);

/// Games handled per sweep; a full batch is followed at once by another.
const BATCH: usize = 200;

/// Sweeps until `shutdown`. Between sweeps it sleeps until the earliest
/// deadline it knows of (from the index, or announced by a commit since),
/// at most [`LONGEST_PAUSE`], and sweeps at once when announcements may
/// have been missed: a flag falls on time without the index being read
/// while nothing is due.
pub async fn run(arbiter: Arbiter, shutdown: CancellationToken) {
    let mut failing = false;
    loop {
        let mut pause = INTERVAL;
        let mut seen = None;
        match arbiter.sweep_pass(BATCH).await {
            Ok(pass) => {
                if failing {
                    tracing::info!("flag sweeper working again");
                    failing = false;
                }
                if pass.handled >= BATCH {
                    continue;
                }
                if pass.handled == 0 {
                    pause = until(pass.now, pass.next);
                }
                seen = Some((Instant::now(), pass.now));
            }
            Err(err) => {
                if !failing {
                    tracing::warn!(error = %err, "flag sweeper cannot read the deadline index");
                    failing = true;
                }
            }
        }
        let mut wake = Instant::now() + pause;
        if let Some(seen) = seen {
            arbiter.sweep_planned(store_time(seen, wake));
        }
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep_until(wake) => break,
                announced = arbiter.announced_deadline() => match (announced, seen) {
                    // A commit set a deadline: wake for it if it is earlier.
                    (Alarm::Deadline(deadline), Some(seen)) => {
                        let now = store_time(seen, Instant::now());
                        let earlier = Instant::now() + until(now, Some(deadline));
                        if earlier < wake {
                            wake = earlier;
                            arbiter.sweep_planned(store_time(seen, wake));
                        }
                    }
                    // The last pass failed: its retry comes soon anyway.
                    (Alarm::Deadline(_), None) => {}
                    // What was missed is in the index: read it now.
                    (Alarm::Missed, _) => break,
                }
            }
        }
    }
}

/// The store's time at `instant`, from a reading of it (`seen`: the store's
/// time `now` read at the local `at`), to the millisecond below.
fn store_time((at, now): (Instant, Timestamp), instant: Instant) -> Timestamp {
    let elapsed = u64::try_from(instant.saturating_duration_since(at).as_millis()).unwrap_or(0);
    Timestamp::from_unix_millis(now.unix_millis().saturating_add(elapsed))
}

/// How long to wait at `now` for the deadline `next`: until it comes, at
/// least [`INTERVAL`] when it has already passed (its game was set aside),
/// at most [`LONGEST_PAUSE`].
fn until(now: Timestamp, next: Option<Timestamp>) -> Duration {
    match next {
        None => LONGEST_PAUSE,
        Some(next) if next <= now => INTERVAL,
        Some(next) => {
            Duration::from_millis(next.unix_millis() - now.unix_millis()).min(LONGEST_PAUSE)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweeper_waits_for_the_next_deadline_within_bounds() {
        let at = |millis| Timestamp::from_unix_millis(millis);
        assert_eq!(until(at(1_000), None), LONGEST_PAUSE);
        assert_eq!(
            until(at(1_000), Some(at(1_250))),
            Duration::from_millis(250)
        );
        assert_eq!(
            until(at(1_000), Some(at(9_000))),
            Duration::from_millis(8_000)
        );
        assert_eq!(until(at(1_000), Some(at(61_000))), LONGEST_PAUSE);
        assert_eq!(until(at(1_000), Some(at(1_000))), INTERVAL);
        assert_eq!(until(at(1_000), Some(at(400))), INTERVAL);
        assert_eq!(until(at(1_000), Some(at(1_001))), Duration::from_millis(1));
    }
}
