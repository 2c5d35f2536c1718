//! Dead-position analysis (FIDE 5.2.2) off the async workers.
//!
//! A move's path runs chasolver's fast test on the position the move led
//! to, on a blocking thread, and waits for it at most the analysis budget:
//! it costs microseconds on almost every position, and when it proves the
//! position dead the move ends the game in the same commit. The fast test
//! is incomplete, and on a few positions it takes a second or more, so
//! every position it leaves open goes to a background analyst: the fast
//! test (again, when the budget cut it short) and then the full helpmate
//! search for each side. When that proves the position dead, the arbiter
//! ends the game by an ordinary commit.
//!
//! The background queue holds one position per game, the latest: a dead
//! position stays dead whatever is played from it, so analysing a game's
//! latest position finds every dead position an earlier one would have.
//! Its workers run at the lowest scheduling priority, so under load they
//! take only the CPU that moves leave, and the queue is bounded (the
//! oldest game's entry gives way, counted).

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Condvar, Mutex, PoisonError},
    time::{Duration, Instant},
};

use shakmaty::Chess;
use tokio::sync::Semaphore;

use super::{Arbiter, MAX_ATTEMPTS};
use crate::{
    domain::{DeadProof, Deadness, Decision, Game, GameId, GameStatus, Ply, dead_position},
    metrics::Metrics,
};

/// How the arbiter analyses positions for dead positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalysisConfig {
    /// How long a move waits for the fast test before it is committed
    /// without its answer (the background analysis then follows up).
    pub budget: Duration,
    /// How many fast tests may run at once on the move path; a move that
    /// finds them all busy leaves its position to the background.
    pub concurrent: usize,
    /// Background analysis threads.
    pub workers: usize,
    /// Games whose latest position may wait for the background analysis.
    pub queue: usize,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            budget: Duration::from_millis(20),
            concurrent: std::thread::available_parallelism().map_or(2, usize::from),
            workers: 1,
            queue: 10_000,
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
    /// The budget ran out first (or every slot was busy).
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
    order: VecDeque<GameId>,
    jobs: HashMap<GameId, Job>,
    closed: bool,
}

struct Queue {
    pending: Mutex<Pending>,
    ready: Condvar,
    capacity: usize,
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
        if pending.jobs.insert(game.clone(), job).is_none() {
            pending.order.push_back(game);
            while pending.order.len() > self.capacity {
                if let Some(oldest) = pending.order.pop_front() {
                    pending.jobs.remove(&oldest);
                    self.metrics.analysis_dropped.inc();
                }
            }
        }
        drop(pending);
        self.ready.notify_one();
    }

    /// The next job, waiting for one; `None` once the analyst is gone.
    fn pop(&self) -> Option<(GameId, Job)> {
        let mut pending = self.lock();
        loop {
            if pending.closed {
                return None;
            }
            while let Some(game) = pending.order.pop_front() {
                if let Some(job) = pending.jobs.remove(&game) {
                    return Some((game, job));
                }
            }
            pending = self
                .ready
                .wait(pending)
                .unwrap_or_else(PoisonError::into_inner);
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

/// Closes the queue when the last clone of the analyst goes, so that its
/// workers end.
struct Closer(Arc<Queue>);

impl Drop for Closer {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Runs dead-position analyses: the fast test within a budget for the
/// move path, the exhaustive analysis in the background.
#[derive(Clone)]
pub struct Analyst {
    config: AnalysisConfig,
    slots: Arc<Semaphore>,
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
        Self {
            config,
            slots: Arc::new(Semaphore::new(config.concurrent.max(1))),
            _closer: Arc::new(Closer(queue.clone())),
            queue,
        }
    }

    /// The configuration.
    pub fn config(&self) -> AnalysisConfig {
        self.config
    }

    /// chasolver's fast test on `position`, the position at `ply`, on a
    /// blocking thread, waited for at most the budget. A test cut short
    /// runs on to its end in the background (it cannot be interrupted),
    /// holding its slot, and its answer is dropped.
    pub async fn fast(&self, position: &Chess, ply: Ply) -> FastVerdict {
        let deadline = tokio::time::Instant::now() + self.config.budget;
        let Ok(Ok(slot)) =
            tokio::time::timeout_at(deadline, self.slots.clone().acquire_owned()).await
        else {
            self.queue.metrics.analysis_over_budget.inc();
            return FastVerdict::OverBudget;
        };
        let position = position.clone();
        let metrics = self.queue.metrics.clone();
        let task = tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            let proof = DeadProof::fast(&position, ply);
            metrics
                .analysis_seconds
                .get_or_create(&crate::metrics::AnalysisLabel { kind: "fast" })
                .observe(started.elapsed().as_secs_f64());
            drop(slot);
            proof
        });
        match tokio::time::timeout_at(deadline, task).await {
            Ok(Ok(Some(proof))) => FastVerdict::Dead(proof),
            Ok(Ok(None)) => FastVerdict::NotProven,
            // A panic in the analysis: the position stays open, for the
            // background to try again.
            Ok(Err(_)) => FastVerdict::NotProven,
            Err(_) => {
                self.queue.metrics.analysis_over_budget.inc();
                FastVerdict::OverBudget
            }
        }
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
    #[cfg(target_os = "linux")]
    {
        // SAFETY: setpriority takes plain integers and touches no memory;
        // on Linux, PRIO_PROCESS with who = 0 applies to the calling thread.
        let result = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, 19) };
        if result != 0 {
            tracing::debug!("could not lower the analysis thread's priority");
        }
    }
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
    async fn a_slow_fast_test_is_cut_short_by_the_budget() {
        let analyst = analyst(1);
        let slow = position("Bk6/1P3p1p/1P6/8/8/8/5P1P/6K1 w - - 0 1");
        assert!(matches!(
            analyst.fast(&slow, Ply::START).await,
            FastVerdict::OverBudget
        ));
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
