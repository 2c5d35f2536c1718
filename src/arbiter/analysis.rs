//! Dead-position analysis (FIDE 5.2.2) off the async workers.
//!
//! A move's path runs chasolver's fast test on the position the move led
//! to: at once where it is bounded (a queen, rook or knight on the board),
//! otherwise on threads of its own, waiting for it at most the analysis
//! budget. It costs microseconds on almost every position, and when it
//! proves the position dead the move ends the game in the same commit. The
//! fast test is incomplete, and on a few positions it takes a second or
//! more, so every position it leaves open goes to a background analyst:
//! the fast test (again, when the budget cut it short) and then the full
//! helpmate search for each side. When that proves the position dead, the
//! arbiter ends the game by an ordinary commit.
//!
//! A fast test on the pool's threads that overruns the budget
//! cannot be interrupted, so its thread is handed to the lowest scheduling
//! priority to finish (taking only the CPU that requests leave) and leaves
//! the pool when it does, a fresh thread taking its place at once: a
//! position chosen to be slow costs a request its budget of waiting and
//! the server no CPU it needs.
//!
//! The background queue holds one position per game, the latest: a dead
//! position stays dead whatever is played from it, so analysing a game's
//! latest position finds every dead position an earlier one would have.
//! Its workers run at the lowest scheduling priority, so under load they
//! take only the CPU that moves leave, and the queue is bounded (the
//! oldest game's entry gives way, counted).

use std::{
    collections::{HashMap, VecDeque},
    sync::{
        Arc, Condvar, Mutex, PoisonError,
        atomic::{AtomicI32, AtomicU8, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use shakmaty::Chess;

use super::{Arbiter, MAX_ATTEMPTS};
use crate::{
    domain::{DeadProof, Deadness, Decision, Game, GameId, GameStatus, Ply, game::dead_position},
    metrics::Metrics,
};

/// How the arbiter analyses positions for dead positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalysisConfig {
    /// How long a move waits for the fast test before it is committed
    /// without its answer (the background analysis then follows up).
    pub budget: Duration,
    /// Threads that run the move path's fast tests (a test waits for one
    /// within its budget).
    pub concurrent: usize,
    /// Background analysis threads.
    pub workers: usize,
    /// Games whose latest position may wait for the background analysis.
    pub queue: usize,
    /// How long a game's latest position waits before the background
    /// analyses it (so a game played fast is analysed a few times a
    /// second at most, on its latest position).
    pub settle: Duration,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            budget: Duration::from_millis(20),
            concurrent: std::thread::available_parallelism().map_or(2, usize::from),
            workers: 1,
            queue: 10_000,
            settle: Duration::from_millis(250),
        }
    }
}

/// What the fast test said within the budget.
#[derive(Clone, Debug)]
pub enum FastVerdict {
    /// The position is dead.
    Dead(DeadProof),
    /// The fast test did not prove it dead (it may still be).
    NotProven,
    /// The budget ran out first (or too many earlier tests still overrun
    /// theirs).
    OverBudget,
}

/// What the background does with a proof: commit the game's ending.
pub type OnDead = Box<dyn FnOnce(DeadProof) + Send>;

struct Job {
    position: Chess,
    ply: Ply,
    on_dead: OnDead,
}

#[derive(Default)]
struct Pending {
    /// Games in the order their positions became due.
    order: VecDeque<(Instant, GameId)>,
    jobs: HashMap<GameId, Job>,
    closed: bool,
}

struct Queue {
    pending: Mutex<Pending>,
    ready: Condvar,
    capacity: usize,
    /// How long a game's position waits before it is analysed: a game
    /// played fast is analysed at most once per this (its latest position
    /// then), which bounds the background's work per game.
    settle: Duration,
    metrics: Arc<Metrics>,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        // A worker that panicked mid-analysis held no lock: the queue is
        // consistent whatever a poisoned guard says.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn push(&self, game: GameId, job: Job) {
        let mut pending = self.lock();
        if pending.closed {
            return;
        }
        // A worker waits for the first due position, which a new one (due
        // later) does not change: only an empty queue's worker needs waking.
        let was_empty = pending.order.is_empty();
        if pending.jobs.insert(game.clone(), job).is_none() {
            pending
                .order
                .push_back((Instant::now() + self.settle, game));
            while pending.order.len() > self.capacity {
                if let Some((_, oldest)) = pending.order.pop_front() {
                    pending.jobs.remove(&oldest);
                    self.metrics.analysis_dropped.inc();
                }
            }
        }
        drop(pending);
        if was_empty {
            self.ready.notify_one();
        }
    }

    /// The next job once it is due, waiting for one; `None` once the
    /// analyst is gone.
    fn pop(&self) -> Option<(GameId, Job)> {
        let mut pending = self.lock();
        loop {
            if pending.closed {
                return None;
            }
            let wait = match pending.order.front() {
                Some((due, _)) => due.checked_duration_since(Instant::now()),
                None => {
                    pending = self
                        .ready
                        .wait(pending)
                        .unwrap_or_else(PoisonError::into_inner);
                    continue;
                }
            };
            if let Some(wait) = wait.filter(|wait| !wait.is_zero()) {
                pending = self
                    .ready
                    .wait_timeout(pending, wait)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
                continue;
            }
            if let Some((_, game)) = pending.order.pop_front()
                && let Some(job) = pending.jobs.remove(&game)
            {
                return Some((game, job));
            }
        }
    }

    fn close(&self) {
        let mut pending = self.lock();
        pending.closed = true;
        pending.jobs.clear();
        pending.order.clear();
        drop(pending);
        self.ready.notify_all();
    }
}

/// Closes the queue and the pool when the last clone of the analyst goes,
/// so that their threads end.
struct Closer(Arc<Queue>, Arc<FastPool>);

impl Drop for Closer {
    fn drop(&mut self) {
        self.0.close();
        self.1.close();
    }
}

/// Fast tests that overran their budget and still run, at the lowest
/// priority, at most: past it a move does not wait for the fast test.
const MAX_OVERRUNNING: usize = 64;

/// Where a fast test is.
const QUEUED: u8 = 0;
const RUNNING: u8 = 1;
const DONE: u8 = 2;
const CANCELLED: u8 = 3;
const OVERRAN: u8 = 4;

/// One fast test for the move path.
struct FastJob {
    position: Chess,
    ply: Ply,
    state: Arc<AtomicU8>,
    /// The thread running it (Linux thread id), once it runs.
    thread: Arc<AtomicI32>,
    reply: tokio::sync::oneshot::Sender<Option<DeadProof>>,
}

#[derive(Default)]
struct FastJobs {
    waiting: VecDeque<FastJob>,
    closed: bool,
}

/// The threads that run the move path's fast tests.
struct FastPool {
    jobs: Mutex<FastJobs>,
    ready: Condvar,
    overrunning: AtomicUsize,
    metrics: Arc<Metrics>,
}

impl FastPool {
    fn lock(&self) -> std::sync::MutexGuard<'_, FastJobs> {
        self.jobs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn spawn_worker(pool: &Arc<Self>) {
        let worker = pool.clone();
        let spawned = std::thread::Builder::new()
            .name("dead-position-fast".to_owned())
            .spawn(move || worker.work());
        if let Err(err) = spawned {
            tracing::error!(%err, "could not start a dead-position test thread");
        }
    }

    fn work(&self) {
        loop {
            let job = {
                let mut jobs = self.lock();
                loop {
                    if jobs.closed {
                        return;
                    }
                    if let Some(job) = jobs.waiting.pop_front() {
                        break job;
                    }
                    jobs = self
                        .ready
                        .wait(jobs)
                        .unwrap_or_else(PoisonError::into_inner);
                }
            };
            job.thread.store(current_thread_id(), Ordering::SeqCst);
            if job
                .state
                .compare_exchange(QUEUED, RUNNING, Ordering::SeqCst, Ordering::SeqCst)
                .is_err()
            {
                // Cancelled while it waited: its move went on without it.
                continue;
            }
            let started = Instant::now();
            let proof = std::panic::catch_unwind(|| DeadProof::fast(&job.position, job.ply))
                .unwrap_or_default();
            self.metrics
                .analysis_seconds
                .get_or_create(&crate::metrics::AnalysisLabel { kind: "fast" })
                .observe(started.elapsed().as_secs_f64());
            let _ = job.reply.send(proof);
            if job.state.swap(DONE, Ordering::SeqCst) == OVERRAN {
                // This thread runs at the lowest priority now: it leaves the
                // pool, which has already replaced it.
                self.overrunning.fetch_sub(1, Ordering::SeqCst);
                return;
            }
        }
    }

    fn close(&self) {
        let mut jobs = self.lock();
        jobs.closed = true;
        jobs.waiting.clear();
        drop(jobs);
        self.ready.notify_all();
    }
}

/// Runs dead-position analyses: the fast test within a budget for the
/// move path, the exhaustive analysis in the background.
#[derive(Clone)]
pub struct Analyst {
    config: AnalysisConfig,
    pool: Arc<FastPool>,
    queue: Arc<Queue>,
    _closer: Arc<Closer>,
}

impl Analyst {
    /// An analyst with `config`, recording into `metrics`; its background
    /// workers start now and end with the last clone.
    pub fn new(config: AnalysisConfig, metrics: Arc<Metrics>) -> Self {
        let queue = Arc::new(Queue {
            pending: Mutex::default(),
            ready: Condvar::new(),
            capacity: config.queue.max(1),
            settle: config.settle,
            metrics,
        });
        for index in 0..config.workers.max(1) {
            let queue = queue.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("dead-position-{index}"))
                .spawn(move || work(&queue));
            if let Err(err) = spawned {
                tracing::error!(%err, "could not start a dead-position analysis thread");
            }
        }
        let pool = Arc::new(FastPool {
            jobs: Mutex::default(),
            ready: Condvar::new(),
            overrunning: AtomicUsize::new(0),
            metrics: queue.metrics.clone(),
        });
        for _ in 0..config.concurrent.max(1) {
            FastPool::spawn_worker(&pool);
        }
        Self {
            config,
            _closer: Arc::new(Closer(queue.clone(), pool.clone())),
            pool,
            queue,
        }
    }

    /// The configuration.
    pub fn config(&self) -> AnalysisConfig {
        self.config
    }

    /// chasolver's fast test on `position`, the position at `ply`, on one
    /// of the pool's threads, waited for at most the budget. A test still
    /// waiting for a thread then is dropped; one running goes on at the
    /// lowest priority, its answer dropped, and a fresh thread takes its
    /// place in the pool.
    ///
    /// A position with a queen, rook or knight is tested at once, here: the
    /// test is bounded to a fraction of a millisecond there (see
    /// [`dead_position::fast_test_is_quick`]), less than handing it to
    /// another thread would cost.
    pub async fn fast(&self, position: &Chess, ply: Ply) -> FastVerdict {
        if dead_position::fast_test_is_quick(position) {
            return match DeadProof::fast(position, ply) {
                Some(proof) => FastVerdict::Dead(proof),
                None => FastVerdict::NotProven,
            };
        }
        let deadline = tokio::time::Instant::now() + self.config.budget;
        if self.pool.overrunning.load(Ordering::SeqCst) >= MAX_OVERRUNNING {
            self.queue.metrics.analysis_over_budget.inc();
            return FastVerdict::OverBudget;
        }
        let (reply, mut answer) = tokio::sync::oneshot::channel();
        let state = Arc::new(AtomicU8::new(QUEUED));
        let thread = Arc::new(AtomicI32::new(0));
        {
            let mut jobs = self.pool.lock();
            jobs.waiting.push_back(FastJob {
                position: position.clone(),
                ply,
                state: state.clone(),
                thread: thread.clone(),
                reply,
            });
        }
        self.pool.ready.notify_one();
        let answered = match tokio::time::timeout_at(deadline, &mut answer).await {
            Ok(answered) => answered,
            Err(_) => match self.overran(&state, &thread, &mut answer) {
                Some(answered) => Ok(answered),
                None => {
                    self.queue.metrics.analysis_over_budget.inc();
                    return FastVerdict::OverBudget;
                }
            },
        };
        match answered {
            Ok(Some(proof)) => FastVerdict::Dead(proof),
            Ok(None) => FastVerdict::NotProven,
            // The test panicked (or never ran): the background tries again.
            Err(_) => FastVerdict::NotProven,
        }
    }

    /// The budget ran out: the test is cancelled if it has not started, or
    /// handed to the lowest priority if it runs (`None` either way); if it
    /// has just finished, its answer.
    fn overran(
        &self,
        state: &AtomicU8,
        thread: &AtomicI32,
        answer: &mut tokio::sync::oneshot::Receiver<Option<DeadProof>>,
    ) -> Option<Option<DeadProof>> {
        if state
            .compare_exchange(QUEUED, CANCELLED, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            return None;
        }
        if state
            .compare_exchange(RUNNING, OVERRAN, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
        {
            self.pool.overrunning.fetch_add(1, Ordering::SeqCst);
            lower_priority_of(thread.load(Ordering::SeqCst));
            FastPool::spawn_worker(&self.pool);
            return None;
        }
        // Done just now: its answer is there.
        answer.try_recv().ok()
    }

    /// Leaves `game`'s position at `ply` to the background analysis, in
    /// place of any earlier one of the same game still waiting; `on_dead`
    /// receives the proof if it is dead.
    pub fn follow_up(&self, game: GameId, position: &Chess, ply: Ply, on_dead: OnDead) {
        self.queue.push(
            game,
            Job {
                position: position.clone(),
                ply,
                on_dead,
            },
        );
    }
}

/// A background worker: the exhaustive analysis of each game's latest
/// waiting position, at the lowest scheduling priority.
fn work(queue: &Queue) {
    lower_priority();
    while let Some((game, job)) = queue.pop() {
        let started = Instant::now();
        let verdict = std::panic::catch_unwind(|| dead_position::analyse(&job.position, job.ply));
        queue
            .metrics
            .analysis_seconds
            .get_or_create(&crate::metrics::AnalysisLabel { kind: "full" })
            .observe(started.elapsed().as_secs_f64());
        match verdict {
            Ok(Deadness::Dead(proof)) => {
                tracing::info!(game_id = %game, ply = job.ply.count(), "position proven dead");
                (job.on_dead)(proof);
            }
            Ok(Deadness::Alive) => {}
            Ok(Deadness::Undecided) => {
                queue.metrics.analysis_undecided.inc();
                tracing::info!(
                    game_id = %game,
                    ply = job.ply.count(),
                    "dead-position analysis undecided"
                );
            }
            Err(_) => {
                queue.metrics.analysis_undecided.inc();
                tracing::error!(game_id = %game, "dead-position analysis panicked");
            }
        }
    }
}

/// Gives the calling thread the lowest scheduling priority (Linux applies
/// a nice value per thread), so that background analysis takes only the
/// CPU that requests leave.
fn lower_priority() {
    lower_priority_of(0);
}

/// Gives thread `thread` (a Linux thread id; 0: the calling thread) the
/// lowest scheduling priority. Lowering a priority needs no privilege.
fn lower_priority_of(thread: i32) {
    #[cfg(target_os = "linux")]
    {
        let Ok(who) = libc::id_t::try_from(thread) else {
            return;
        };
        // SAFETY: setpriority takes plain integers and touches no memory;
        // on Linux, PRIO_PROCESS applies to one thread.
        let result = unsafe { libc::setpriority(libc::PRIO_PROCESS, who, 19) };
        if result != 0 {
            tracing::debug!(thread, "could not lower an analysis thread's priority");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = thread;
}

/// The calling thread's id, as [`lower_priority_of`] takes it.
fn current_thread_id() -> i32 {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid takes nothing and cannot fail.
        unsafe { libc::gettid() }
    }
    #[cfg(not(target_os = "linux"))]
    0
}

impl Arbiter {
    /// The fast test on the position a decision's move led to, within the
    /// budget; `None` when the decision played no move or ended the game.
    pub(super) async fn analyse_move(
        &self,
        game: &Game,
        decision: &Decision,
    ) -> Option<FastVerdict> {
        let Decision::Changed { game: next, .. } = decision else {
            return None;
        };
        if next.status() != GameStatus::Active || next.ply() == game.ply() {
            return None;
        }
        Some(self.analyst.fast(next.position(), next.ply()).await)
    }

    /// The fast test on a new game's starting position, within the budget.
    pub(super) async fn analyse_start(&self, game: &Game) -> FastVerdict {
        self.analyst.fast(game.position(), game.ply()).await
    }

    /// Leaves `game`'s position to the background analysis, which ends the
    /// game if it proves the position dead.
    pub(super) fn follow_up_analysis(&self, game: &Game) {
        if game.status() != GameStatus::Active {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let arbiter = self.clone();
        let id = game.id().clone();
        self.analyst.follow_up(
            id.clone(),
            game.position(),
            game.ply(),
            Box::new(move |proof| {
                runtime.spawn(async move { arbiter.conclude_dead_position(&id, &proof).await });
            }),
        );
    }

    /// Ends a game as drawn on a proof, found in the background, that its
    /// position at some ply was dead (see [`Game::rule_dead_position`]).
    async fn conclude_dead_position(&self, id: &GameId, proof: &DeadProof) {
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = match self.load_current(id).await {
                Ok(loaded) => loaded,
                Err(err) => {
                    tracing::warn!(game_id = %id, %err, "could not end a dead position");
                    return;
                }
            };
            let decision = game.rule_dead_position(proof, now);
            if matches!(decision, Decision::Unchanged) {
                return;
            }
            match self.commit(game, decision).await {
                Ok(Some(_)) => {
                    tracing::info!(game_id = %id, "game ended in a dead position");
                    return;
                }
                Ok(None) => {}
                Err(err) => {
                    tracing::warn!(game_id = %id, %err, "could not end a dead position");
                    return;
                }
            }
        }
        tracing::warn!(game_id = %id, "could not end a dead position: contention");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analyst(budget_ms: u64) -> Analyst {
        Analyst::new(
            AnalysisConfig {
                budget: Duration::from_millis(budget_ms),
                concurrent: 2,
                workers: 1,
                queue: 2,
                settle: Duration::ZERO,
            },
            Metrics::new(),
        )
    }

    fn position(fen: &str) -> Chess {
        dead_position::position(fen).expect("legal FEN")
    }

    /// Dead (a test vector of the Chess Unwinnability Analyzer's), but
    /// only the full search proves it.
    const FAST_TEST_MISSES: &str = "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - - 0 1";

    #[tokio::test]
    async fn the_fast_test_proves_a_locked_wall_dead_within_the_budget() {
        let analyst = analyst(10_000);
        let wall = position("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 w - - 0 1");
        assert!(matches!(
            analyst.fast(&wall, Ply::new(7)).await,
            FastVerdict::Dead(proof) if proof.proves(&wall, Ply::new(7))
        ));
        let open = position("8/8/4k3/8/8/3KNN2/8/8 w - - 0 1");
        assert!(matches!(
            analyst.fast(&open, Ply::START).await,
            FastVerdict::NotProven
        ));
    }

    #[tokio::test]
    async fn a_slow_fast_test_is_cut_short_and_its_thread_replaced() {
        let analyst = Analyst::new(
            AnalysisConfig {
                budget: Duration::from_millis(50),
                concurrent: 1,
                workers: 1,
                queue: 2,
                settle: Duration::ZERO,
            },
            Metrics::new(),
        );
        let slow = position("Bk6/1P3p1p/1P6/8/8/8/5P1P/6K1 w - - 0 1");
        let verdict = analyst.fast(&slow, Ply::START).await;
        assert!(matches!(verdict, FastVerdict::OverBudget), "{verdict:?}");
        // The only thread is still busy with it, at the lowest priority:
        // a fresh one answers the next test.
        assert_eq!(analyst.pool.overrunning.load(Ordering::SeqCst), 1);
        let wall = position("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 w - - 0 1");
        let mut answered = false;
        for _ in 0..50 {
            if let FastVerdict::Dead(_) = analyst.fast(&wall, Ply::START).await {
                answered = true;
                break;
            }
        }
        assert!(answered, "no thread answered");
    }

    #[tokio::test]
    async fn the_background_proves_what_the_fast_test_cannot() {
        // Dead (Chess Unwinnability Analyzer test vector) but not proven by
        // the fast test: only the full search shows it.
        let analyst = analyst(10_000);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let pos = position(FAST_TEST_MISSES);
        assert!(!dead_position::is_dead(&pos));
        analyst.follow_up(
            GameId::parse("g").expect("id"),
            &pos,
            Ply::new(3),
            Box::new(move |proof| {
                let _ = tx.send(proof);
            }),
        );
        let proof = rx.await.expect("a proof");
        assert!(proof.proves(&pos, Ply::new(3)));
    }

    #[test]
    fn the_queue_keeps_each_games_latest_position_and_is_bounded() {
        let metrics = Metrics::new();
        let queue = Queue {
            pending: Mutex::default(),
            ready: Condvar::new(),
            capacity: 2,
            settle: Duration::ZERO,
            metrics: metrics.clone(),
        };
        let job = |ply| Job {
            position: Chess::default(),
            ply: Ply::new(ply),
            on_dead: Box::new(|_| {}),
        };
        let id = |s: &str| GameId::parse(s).expect("id");
        queue.push(id("a"), job(1));
        queue.push(id("b"), job(1));
        queue.push(id("a"), job(2));
        let (game, first) = queue.pop().expect("a job");
        assert_eq!((game, first.ply), (id("a"), Ply::new(2)));
        queue.push(id("c"), job(1));
        queue.push(id("d"), job(1));
        assert_eq!(metrics.analysis_dropped.get(), 1);
        assert_eq!(queue.pop().map(|(g, _)| g), Some(id("c")));
        assert_eq!(queue.pop().map(|(g, _)| g), Some(id("d")));
        queue.close();
        assert!(queue.pop().is_none());
    }
}
