//! A watcher's timer for its next heartbeat or release.
//!
//! A watcher waits for its next event or its next heartbeat, whichever
//! comes first. A timer made for each wait is registered with the runtime's
//! timer wheel and taken off again for every event, on every stream; a
//! [`Timer`] is set once and moved only when it must ring sooner, or after
//! it has rung. It may ring early: the watcher checks the time itself.

use std::{pin::Pin, time::Duration};

use tokio::time::{Instant, Sleep};

/// A timer that rings no later than the earliest deadline asked of it
/// since it last rang. Its deadline is kept beside the timer itself, which
/// is touched only to move it or to wait.
pub(super) struct Timer {
    sleep: Pin<Box<Sleep>>,
    deadline: Instant,
    rung: bool,
}

/// Further than any deadline a watcher asks for.
const UNSET: Duration = Duration::from_secs(365 * 24 * 3600);

impl Timer {
    pub(super) fn new() -> Self {
        let sleep = Box::pin(tokio::time::sleep(UNSET));
        Self {
            deadline: sleep.deadline(),
            sleep,
            rung: false,
        }
    }

    /// Rings no later than `deadline`.
    pub(super) fn set(&mut self, deadline: Instant) {
        if self.rung || self.deadline > deadline {
            self.sleep.as_mut().reset(deadline);
            self.deadline = deadline;
            self.rung = false;
        }
    }

    /// Waits for the timer to ring.
    pub(super) async fn rung(&mut self) {
        self.sleep.as_mut().await;
        self.rung = true;
    }

    /// Whether the timer has rung since it was last set: until it has, the
    /// time is before every deadline asked of it since.
    pub(super) fn has_rung(&self) -> bool {
        self.rung
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn it_rings_by_the_earliest_deadline_and_is_set_again_after() {
        let mut timer = Timer::new();
        let start = Instant::now();
        timer.set(start + Duration::from_secs(5));
        // A later deadline does not move it.
        timer.set(start + Duration::from_secs(9));
        assert!(!timer.has_rung());
        timer.rung().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(5));
        assert!(timer.has_rung());
        // An earlier one does.
        timer.set(start + Duration::from_secs(20));
        assert!(!timer.has_rung(), "set again once rung");
        timer.set(start + Duration::from_secs(7));
        timer.rung().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(7));
        // Once rung, any deadline sets it again.
        timer.set(start + Duration::from_secs(30));
        timer.rung().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(30));
    }
}
