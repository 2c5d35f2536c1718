//! A watcher's timer for its next heartbeat or release.
//!
//! A watcher waits for its next event or its next heartbeat, whichever
//! comes first. A timer made for each wait is registered with the runtime's
//! timer wheel and taken off again for every event, on every stream; a
//! [`Timer`] is set once and moved only when it must ring sooner, or after
//! it has rung. It may ring early: the watcher checks the time itself.
//!
//! Nor is the timer polled with every wait: a timer whose last poll left it
//! waiting for the stream's task, and not yet due, wakes that task when it
//! rings, so a wait before then leaves it be (its memory is one more line
//! for each of ten thousand streams to fetch with every event; the time is
//! read from the clock the process keeps).

use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll, Waker},
    time::Duration,
};

use tokio::time::{Instant, Sleep};

/// A timer that rings no later than the earliest deadline asked of it
/// since it last rang. Its deadline is kept beside the timer itself, which
/// is touched only to move it or to wait.
pub(super) struct Timer {
    sleep: Pin<Box<Sleep>>,
    deadline: Instant,
    rung: bool,
    /// The waker the timer was last polled with, since it was last set.
    waits_for: Option<Waker>,
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
            waits_for: None,
        }
    }

    /// Rings no later than `deadline`.
    pub(super) fn set(&mut self, deadline: Instant) {
        if self.rung || self.deadline > deadline {
            self.sleep.as_mut().reset(deadline);
            self.deadline = deadline;
            self.rung = false;
            // Moved: it waits for no one until it is polled again.
            self.waits_for = None;
        }
    }

    /// Waits for the timer to ring.
    pub(super) async fn rung(&mut self) {
        std::future::poll_fn(|cx| self.poll_rung(cx)).await;
    }

    /// Polls for the timer to ring: `Ready` once it has.
    pub(super) fn poll_rung(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let waits_for_this = self
            .waits_for
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()));
        if waits_for_this && !self.rung && Instant::now() < self.deadline {
            // Not yet rung: when it does, it wakes this task, whose wait
            // then (past the deadline) polls it.
            return Poll::Pending;
        }
        // A task out of its runtime budget is told to yield: the timer then
        // waits for no one, and is polled again with the next wait.
        let registers = tokio::task::coop::has_budget_remaining();
        match self.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => {
                self.rung = true;
                self.waits_for = None;
                Poll::Ready(())
            }
            Poll::Pending => {
                if !registers {
                    self.waits_for = None;
                } else if !waits_for_this {
                    self.waits_for = Some(cx.waker().clone());
                }
                Poll::Pending
            }
        }
    }

    /// Whether the timer has rung since it was last set. Until it has been
    /// seen to, any deadline asked of it since is still ahead or is about
    /// to be seen passed by the next wait.
    pub(super) fn has_rung(&self) -> bool {
        self.rung
    }
}

#[cfg(test)]
mod tests {
    use std::{
        sync::{
            Arc,
            atomic::{AtomicUsize, Ordering},
        },
        task::Wake,
    };

    use super::*;

    /// A waker that counts its wake-ups.
    #[derive(Default)]
    struct Counted(AtomicUsize);

    impl Wake for Counted {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_timer_is_left_be_until_due_and_still_wakes_its_task() {
        let counted = Arc::new(Counted::default());
        let waker = Waker::from(counted.clone());
        let mut cx = Context::from_waker(&waker);
        let mut timer = Timer::new();
        let start = Instant::now();
        timer.set(start + Duration::from_secs(5));
        assert!(timer.poll_rung(&mut cx).is_pending(), "registered");
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(timer.poll_rung(&mut cx).is_pending(), "not yet due");
        tokio::time::advance(Duration::from_secs(4)).await;
        assert_eq!(counted.0.load(Ordering::SeqCst), 1, "woken when it rings");
        assert!(timer.poll_rung(&mut cx).is_ready());
        assert!(timer.has_rung());

        // Moved, it waits for the task only once polled again.
        timer.set(Instant::now() + Duration::from_secs(2));
        assert!(timer.poll_rung(&mut cx).is_pending());
        // Polled for another task, it is polled again for this one.
        let other = Arc::new(Counted::default());
        let other_waker = Waker::from(other.clone());
        assert!(
            timer
                .poll_rung(&mut Context::from_waker(&other_waker))
                .is_pending()
        );
        assert!(timer.poll_rung(&mut cx).is_pending());
        tokio::time::advance(Duration::from_secs(2)).await;
        assert_eq!(counted.0.load(Ordering::SeqCst), 2, "this task is woken");
        assert_eq!(other.0.load(Ordering::SeqCst), 0);
        assert!(timer.poll_rung(&mut cx).is_ready());
    }

    /// A poll out of the task's budget leaves the timer waiting for no one:
    /// the next wait polls it again, and it rings.
    #[tokio::test(start_paused = true)]
    async fn a_poll_out_of_budget_does_not_leave_the_timer_be() {
        let mut timer = Timer::new();
        let start = Instant::now();
        timer.set(start + Duration::from_secs(5));
        std::future::poll_fn(|cx| {
            while Box::pin(tokio::task::coop::consume_budget())
                .as_mut()
                .poll(cx)
                .is_ready()
            {}
            assert!(!tokio::task::coop::has_budget_remaining());
            assert!(timer.poll_rung(cx).is_pending());
            Poll::Ready(())
        })
        .await;
        let rung = tokio::time::timeout(Duration::from_secs(60), timer.rung()).await;
        assert!(rung.is_ok(), "the timer rang");
        assert_eq!(
            Instant::now() - start,
            Duration::from_secs(5),
            "at its deadline"
        );
    }

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
