//! The moment the server's runtime has run out of work: one of its workers
//! is about to park.
//!
//! A connection that holds frames for many streams, all woken by the same
//! event, sends best once every one of them has added its frame, and that
//! is known for sure only when nothing is left to run. A [`Coalesced`]
//! connection whose flush gained by its first yield (others added to what
//! it holds: a fan-out, not a lone reply) waits for that moment here, and
//! for no longer than its own bound.
//!
//! The runtime's workers say so from their park hook ([`parked`]); a
//! thread that is not one of them (a test's runtime) has no such moment,
//! and its connections go on yielding instead ([`available`]).
//!
//! [`Coalesced`]: super::coalesce::Coalesced

use std::{
    cell::Cell,
    sync::{
        Mutex,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    task::Waker,
};

/// The wakers waiting for the next park.
static WAITING: Mutex<Vec<Waker>> = Mutex::new(Vec::new());

/// How many wakers wait: a park with none looks at nothing else.
static WAITERS: AtomicUsize = AtomicUsize::new(0);

/// How many parks have woken their waiters.
static PARKS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// Whether this thread is a worker whose parks are signalled.
    static SIGNALLED: Cell<bool> = const { Cell::new(false) };
}

/// A place among the waiters: which park it waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(u64);

/// Marks the calling thread as a worker that calls [`parked`] as it parks.
pub fn signalled_here() {
    SIGNALLED.with(|signalled| signalled.set(true));
}

/// Whether the calling thread's parks are signalled.
pub fn available() -> bool {
    SIGNALLED.with(Cell::get)
}

/// Wakes `waker` at the next park of a worker.
pub fn wait(waker: &Waker) -> Ticket {
    let mut waiting = WAITING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    waiting.push(waker.clone());
    WAITERS.fetch_add(1, Ordering::Relaxed);
    // Read with the list held: a park takes the list and counts itself
    // together.
    Ticket(PARKS.load(Ordering::Relaxed))
}

/// Whether a worker has parked since `ticket` was taken (its waker was
/// woken, or is about to be).
pub fn passed(ticket: Ticket) -> bool {
    PARKS.load(Ordering::Acquire) != ticket.0
}

/// Called by a worker about to park: wakes whoever waits for it.
pub fn parked() {
    if WAITERS.load(Ordering::Relaxed) == 0 {
        return;
    }
    let woken = {
        let mut waiting = WAITING
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        PARKS.fetch_add(1, Ordering::Release);
        WAITERS.store(0, Ordering::Relaxed);
        std::mem::take(&mut *waiting)
    };
    for waker in woken {
        waker.wake();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    };

    use super::*;

    struct Flag(AtomicBool);

    impl std::task::Wake for Flag {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_waiter_is_woken_by_the_next_park_and_sees_it_passed() {
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let waker = Waker::from(flag.clone());
        let ticket = wait(&waker);
        assert!(!passed(ticket) || flag.0.load(Ordering::SeqCst));
        parked();
        assert!(flag.0.load(Ordering::SeqCst), "woken");
        assert!(passed(ticket));
    }

    #[test]
    fn only_marked_threads_are_signalled() {
        assert!(!available());
        std::thread::spawn(|| {
            signalled_here();
            assert!(available());
        })
        .join()
        .expect("the marked thread");
        assert!(!available(), "this thread was not marked");
    }
}
