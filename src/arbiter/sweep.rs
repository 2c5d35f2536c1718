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

use super::{Arbiter, ArbiterError};
use crate::domain::GameId;

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

impl Arbiter {
    /// Ends, by time, up to `limit` games whose flag or default time is due
    /// by now, committing each ending exactly once whatever the number of
    /// replicas sweeping (the store's compare-and-set decides). Returns how
    /// many due games it handled (games set aside are not counted, so a
    /// sweep that only meets those lets the sweeper rest).
    pub async fn sweep(&self, limit: usize) -> Result<usize, ArbiterError> {
        let now = self.store.now().await?;
        let aside = self.set_aside.count();
        let due = self.store.due(now, limit + aside).await?;
        let mut handled = 0;
        for id in due.iter().filter(|id| !self.set_aside.is_set_aside(id)) {
            if handled == limit {
                break;
            }
            handled += 1;
            match self.load_current(id).await {
                // Time ended the game (its commit cleared its deadline), or
                // the entry was early: put back the game's own deadline,
                // unless the game has changed since.
                Ok((game, _)) => {
                    self.set_aside.succeed(id);
                    self.store
                        .repair_deadline(id, game.version(), game.deadline())
                        .await?;
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
                    let backoff = self.set_aside.fail(id);
                    tracing::warn!(
                        game_id = %id,
                        error = %err,
                        retry_in_seconds = backoff.as_secs(),
                        "a due game cannot be swept; set aside"
                    );
                }
            }
        }
        Ok(handled)
    }
}
