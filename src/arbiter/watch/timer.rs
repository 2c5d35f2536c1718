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
/// since it last rang.
pub(super) struct Timer(Pin<Box<Sleep>>);

/// Further than any deadline a watcher asks for.
const UNSET: Duration = Duration::from_secs(365 * 24 * 3600);

impl Timer {
    pub(super) fn new() -> Self {
        Self(Box::pin(tokio::time::sleep(UNSET)))
    }

    /// Rings no later than `deadline`.
    pub(super) fn set(&mut self, deadline: Instant) {
        if self.0.is_elapsed() || self.0.deadline() > deadline {
            self.0.as_mut().reset(deadline);
        }
    }

    /// Waits for the timer to ring.
    pub(super) async fn rung(&mut self) {
        self.0.as_mut().await;
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
        timer.rung().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(5));
        // An earlier one does.
        timer.set(start + Duration::from_secs(20));
        timer.set(start + Duration::from_secs(7));
        timer.rung().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(7));
        // Once rung, any deadline sets it again.
        timer.set(start + Duration::from_secs(30));
        timer.rung().await;
        assert_eq!(Instant::now() - start, Duration::from_secs(30));
    }
}
