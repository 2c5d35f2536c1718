//! The sweep: ends games that time decided while nobody was looking.
//!
//! A due game that cannot be read (its stored data is corrupt, or of a
//! newer schema during a rolling upgrade) is set aside for a while, longer
//! each time it fails, so that it neither floods the log nor keeps the
//! sweeper from every other game.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::time::Instant;

use super::{Alarm, Arbiter, ArbiterError, codec};
use crate::domain::{Game, GameId, Timestamp};

/// How long a replica's claim on a due game keeps the others' sweepers
/// off it: long enough for a helpmate search, short enough that a game is
/// not held up for long by a replica that stopped mid-way. The claim is
/// released as soon as the game is handled.
const SWEEP_CLAIM_MS: u64 = 10_000;

/// How long a failing game is first set aside, and at most.
const FIRST_BACKOFF: Duration = Duration::from_secs(5);
const LONGEST_BACKOFF: Duration = Duration::from_secs(300);

/// Due games this replica's sweeper set aside: until when, and for how long
/// the next time.
#[derive(Clone, Default)]
pub(super) struct SetAside(Arc<Mutex<HashMap<GameId, (Instant, Duration)>>>);

impl SetAside {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, (Instant, Duration)>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How many games are set aside now (expired ones are forgotten).
    fn count(&self) -> usize {
        let now = Instant::now();
        let mut games = self.lock();
        games.retain(|_, (until, _)| *until > now);
        games.len()
    }

    fn is_set_aside(&self, id: &GameId) -> bool {
        self.lock()
            .get(id)
            .is_some_and(|(until, _)| *until > Instant::now())
    }

    /// Sets a failing game aside, for twice as long as last time.
    fn fail(&self, id: &GameId) -> Duration {
        let mut games = self.lock();
        let backoff = games
            .get(id)
            .map_or(FIRST_BACKOFF, |(_, last)| (*last * 2).min(LONGEST_BACKOFF));
        games.insert(id.clone(), (Instant::now() + backoff, backoff));
        backoff
    }

    fn succeed(&self, id: &GameId) {
        self.lock().remove(id);
    }
}

/// What a sweep did, and what it saw of the index.
#[derive(Clone, Copy, Debug)]
pub struct SweepPass {
    /// Due games handled (set-aside ones are not counted).
    pub handled: usize,
    /// The store's time the sweep was decided at.
    pub now: Timestamp,
    /// The earliest deadline in the index before the sweep.
    pub next: Option<Timestamp>,
}

impl Arbiter {
    /// Ends, by time, up to `limit` games whose flag or default time is due
    /// by now (see [`Arbiter::sweep_pass`]); returns how many it handled.
    pub async fn sweep(&self, limit: usize) -> Result<usize, ArbiterError> {
        Ok(self.sweep_pass(limit).await?.handled)
    }

    /// Handles one due game: commits the ending time decided, puts back
    /// the deadline of a game time has not ended, archives the log of a
    /// game over whose time to archive has come. Only a failing store is
    /// an error; a game that cannot be read is set aside.
    async fn sweep_one(&self, id: &GameId) -> Result<(), ArbiterError> {
        match self.load_current_by(id, super::SettledBy::Sweeper).await {
            Ok((game, now)) => {
                self.set_aside.succeed(id);
                let next = self.sweeper_deadline(&game);
                if game.is_over() && next.is_some_and(|at| at <= now) {
                    self.archive(&game).await?;
                } else {
                    // Time ended the game (its commit set the time to
                    // archive it), or the entry was early: put back the
                    // game's own, unless the game has changed since.
                    self.store.repair_deadline(id, game.version(), next).await?;
                }
            }
            Err(ArbiterError::NotFound(_)) => {
                self.store.repair_deadline(id, 0, None).await?;
            }
            Err(ArbiterError::Store(err))
                if !matches!(err, crate::store::StoreError::Corrupt(_)) =>
            {
                // Redis is failing: not this game's fault.
                return Err(ArbiterError::Store(err));
            }
            Err(err) => {
                self.metrics.set_aside.inc();
                let backoff = self.set_aside.fail(id);
                tracing::warn!(
                    game_id = %id,
                    error = %err,
                    retry_in_seconds = backoff.as_secs(),
                    "a due game cannot be swept; set aside"
                );
            }
        }
        Ok(())
    }

    /// Archives the log of `game`, which is over (see
    /// [`crate::domain::stored::archive`]), unless it has changed since it was
    /// read: its commit then set the next time to try. A log that cannot be
    /// archived stays as it is, and is not tried again until it changes.
    async fn archive(&self, game: &Game) -> Result<(), ArbiterError> {
        let id = game.id();
        let events = self.events_after(id, 0).await?;
        if events.last().map(|event| event.version) != Some(game.version()) {
            return Ok(());
        }
        // Packing replays the game twice (to write it, then to check it
        // reads back): a millisecond or two, off the async workers.
        let packing = id.clone();
        let packed =
            tokio::task::spawn_blocking(move || codec::encode_archive(&packing, &events)).await;
        let packed = match packed {
            Ok(packed) => packed,
            Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
            Err(_) => return Err(ArbiterError::ShuttingDown),
        };
        match packed {
            Ok(archive) => {
                if self.store.archive(id, archive).await? {
                    self.metrics.archives.inc();
                    tracing::debug!(game_id = %id, version = game.version(), "log archived");
                }
            }
            Err(err) => {
                tracing::warn!(game_id = %id, error = %err, "log left unarchived");
                self.store.repair_deadline(id, game.version(), None).await?;
            }
        }
        Ok(())
    }

    /// Waits for a commit to announce a deadline and returns the earliest
    /// announced since the last call, or that announcements may have been
    /// missed: the sweeper's cue that a game may be due sooner than it
    /// planned.
    pub async fn announced_deadline(&self) -> Alarm {
        self.deadline_alarm.next().await
    }

    /// The sweeper reads the index again by the store's time `by` whatever
    /// commits announce: [`Arbiter::announced_deadline`] then waits only for
    /// deadlines before it (until the next [`Arbiter::sweep_pass`], from
    /// whose start every announced deadline counts again).
    pub fn sweep_planned(&self, by: Timestamp) {
        self.deadline_alarm.planned(by);
    }

    /// Ends, by time, up to `limit` games whose flag or default time is due
    /// by now, committing each ending exactly once whatever the number of
    /// replicas sweeping (the store's compare-and-set decides). Says how
    /// many due games it handled (games set aside are not counted, so a
    /// sweep that only meets those lets the sweeper rest), the store's time
    /// and the earliest deadline it saw, for the sweeper to plan its next
    /// look. When nothing is due it reads only each bucket's earliest entry.
    pub async fn sweep_pass(&self, limit: usize) -> Result<SweepPass, ArbiterError> {
        // A deadline committed once the index has been read is news.
        self.deadline_alarm.unplanned();
        let now = self.store.now().await?;
        let next = self.store.next_deadline().await?;
        let mut pass = SweepPass {
            handled: 0,
            now,
            next,
        };
        let lag = next.map_or(0, |next| now.millis_since(next));
        self.metrics.sweeper_lag.set(lag as f64 / 1000.0);
        if next.is_none_or(|next| next > now) {
            // Nothing is due: one read of each bucket's earliest entry.
            return Ok(pass);
        }
        let aside = self.set_aside.count();
        let due = self.store.due(now, limit + aside).await?;
        let mut handled = 0;
        for id in due.iter().filter(|id| !self.set_aside.is_set_aside(id)) {
            if handled == limit {
                break;
            }
            // Another replica is on it: the claim lapses should it stop.
            if !self.store.claim_sweep(id, SWEEP_CLAIM_MS).await? {
                continue;
            }
            handled += 1;
            let swept = self.sweep_one(id).await;
            // Released at once, so that this replica's next pass (or
            // another's) may take the game up again when it is due again.
            let released = self.store.release_sweep(id).await;
            swept?;
            released?;
        }
        pass.handled = handled;
        Ok(pass)
    }
}
