//! The server's runtime: tokio's multi-threaded scheduler, whose workers give
//! freed memory back to the system when they go idle, and say that they do
//! ([`idle`](super::idle)) to the connections that wait for it.
//!
//! The server's allocator (mimalloc, chosen in `main.rs`) keeps the memory a
//! thread frees, and the blocks other threads free, in that thread's heap until
//! the thread allocates again. A worker that served 10,000 watch streams and
//! then has nothing to do would hold their memory for as long as the server is
//! idle: measured, the streams' 110 MB stayed resident after they had all
//! closed. So a worker about to park collects its heap first, returning what is
//! free to the system, at most once every [`COLLECT_INTERVAL`]: under load a
//! worker parks thousands of times a second, and a collection walks the
//! thread's pages and gives back pages that the next requests fault in again.
//!
//! A worker whose park came too soon after its last collection owes one. A
//! thread of the runtime's own wakes the workers once an interval while one is
//! owed: each then parks again, and collects.

use std::{
    cell::Cell,
    io,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

/// The least time between two collections on a worker.
pub const COLLECT_INTERVAL: Duration = Duration::from_secs(1);

/// Whether a worker parked without collecting since the waker last looked.
static OWED: AtomicBool = AtomicBool::new(false);

/// The server's runtime, on all the machine's cores; its waker thread ends
/// when it is dropped.
pub struct Runtime {
    runtime: tokio::runtime::Runtime,
    _alive: Arc<()>,
}

impl Runtime {
    /// Runs `future` to its end on the runtime.
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.block_on(future)
    }
}

/// Builds the server's runtime and starts its waker.
pub fn build() -> io::Result<Runtime> {
    let runtime = builder().build()?;
    let alive = Arc::new(());
    let watched = Arc::downgrade(&alive);
    let handle = runtime.handle().clone();
    std::thread::Builder::new()
        .name("arbiter-memory".to_owned())
        .spawn(move || {
            loop {
                std::thread::sleep(COLLECT_INTERVAL);
                if watched.strong_count() == 0 {
                    return;
                }
                if OWED.swap(false, Ordering::Relaxed) {
                    // An empty task: the worker woken for it (and the
                    // sibling it wakes to look for more) parks again.
                    drop(handle.spawn(async {}));
                }
            }
        })?;
    Ok(Runtime {
        runtime,
        _alive: alive,
    })
}

/// A runtime on a thread of its own, named `name`, that runs what is spawned
/// on its handle until `shutdown`, then drops it: for work that should not
/// share the workers' sockets (the commit announcements' subscription).
pub fn side_thread(
    name: &str,
    shutdown: tokio_util::sync::CancellationToken,
) -> io::Result<tokio::runtime::Handle> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let handle = runtime.handle().clone();
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || runtime.block_on(shutdown.cancelled_owned()))?;
    Ok(handle)
}

/// The server's runtime as configured, to be built: its workers collect
/// their heaps as they park, and signal their parks ([`idle`](super::idle)).
pub(super) fn builder() -> tokio::runtime::Builder {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder
        .enable_all()
        .on_thread_start(super::idle::signalled_here)
        .on_thread_park(|| {
            super::idle::parked();
            collect_when_due();
        });
    builder
}

thread_local! {
    /// When this thread last collected its heap.
    static LAST_COLLECTED: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Collects the calling thread's heap when it has not for
/// [`COLLECT_INTERVAL`]; otherwise the thread owes a collection.
fn collect_when_due() {
    if due(Instant::now()) {
        // SAFETY: `mi_collect` has no preconditions: any thread may call it at
        // any time, and it only frees what no allocation holds. Where mimalloc
        // is not the global allocator (the library's tests) its heap is empty.
        unsafe { libmimalloc_sys::mi_collect(true) };
    } else {
        OWED.store(true, Ordering::Relaxed);
    }
}

/// Whether this thread is due to collect at `now`; if so, `now` is its last
/// collection.
fn due(now: Instant) -> bool {
    LAST_COLLECTED.with(|last| {
        let due = last
            .get()
            .is_none_or(|at| now.saturating_duration_since(at) >= COLLECT_INTERVAL);
        if due {
            last.set(Some(now));
        }
        due
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_collects_at_its_first_park_then_once_an_interval() {
        std::thread::spawn(|| {
            let start = Instant::now();
            assert!(due(start), "the first park collects");
            assert!(!due(start + COLLECT_INTERVAL / 2));
            assert!(!due(start + COLLECT_INTERVAL - Duration::from_nanos(1)));
            assert!(due(start + COLLECT_INTERVAL));
            assert!(!due(start + COLLECT_INTERVAL), "just collected");
            assert!(due(start + COLLECT_INTERVAL * 3));
        })
        .join()
        .expect("the test thread");
    }

    #[test]
    fn each_thread_keeps_its_own_interval() {
        let start = Instant::now();
        assert!(due(start));
        std::thread::spawn(move || assert!(due(start), "another thread's heap"))
            .join()
            .expect("the other thread");
        assert!(!due(start));
    }

    #[test]
    fn the_runtime_runs_and_its_workers_collect_as_they_park() {
        let runtime = build().expect("runtime");
        let sum = runtime.block_on(async {
            let tasks: Vec<_> = (0..64u64)
                .map(|n| {
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(n % 4)).await;
                        vec![n; 1024].iter().sum::<u64>()
                    })
                })
                .collect();
            let mut sum = 0;
            for task in tasks {
                sum += task.await.expect("task");
            }
            sum
        });
        assert_eq!(sum, (0..64u64).map(|n| n * 1024).sum::<u64>());
    }
}
