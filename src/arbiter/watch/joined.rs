//! Reads that watchers starting together share: while one watcher's read
//! of a game is in flight, the others starting on the same game wait for
//! its answer instead of reading again. A hundred thousand watchers opening
//! on a thousand games read each game about once, not once each.
//!
//! A read joined was begun before the joiner came, so the game it returns
//! may be a commit behind the store. A watcher takes that in its stride:
//! what follows the version it starts from comes from the hub, and a gap is
//! read from the store (see [`Watcher`](super::Watcher)). A read is joined
//! only while it is in flight and for at most [`JOINABLE`]; one that failed
//! is not shared: each of its waiters reads for itself and gets its own
//! error.

use std::{
    collections::HashMap,
    future::Future,
    hash::Hash,
    sync::{Arc, Mutex},
    time::Duration,
};

use futures::{
    FutureExt,
    future::{BoxFuture, Shared},
};
use tokio::time::Instant;

use super::{ResumeToken, SharedSnapshot, WatchContext};
use crate::{arbiter::ArbiterError, domain::GameId};

/// How long after it began a read may still be joined.
const JOINABLE: Duration = Duration::from_secs(1);

/// A read in flight: when it began, and its answer (`None`: it failed).
type InFlight<V> = (Instant, Shared<BoxFuture<'static, Option<V>>>);

/// The reads in flight, by what they read.
pub(in crate::arbiter) struct Joined<K, V>(Arc<Mutex<HashMap<K, InFlight<V>>>>);

impl<K, V> Clone for Joined<K, V> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<K, V> Default for Joined<K, V> {
    fn default() -> Self {
        Self(Arc::default())
    }
}

impl<K, V> Joined<K, V>
where
    K: Eq + Hash + Clone,
    V: Clone + Send + Sync + 'static,
{
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, InFlight<V>>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `read`'s answer for `key`: the one in flight for it, if one began
    /// less than [`JOINABLE`] ago and has not yet answered, or a new one.
    pub(in crate::arbiter) async fn read<F, Fut, E>(&self, key: K, read: F) -> Result<V, E>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<V, E>> + Send + 'static,
    {
        let shared = {
            let mut inflight = self.lock();
            match inflight
                .get(&key)
                .filter(|(began, answer)| answer.peek().is_none() && began.elapsed() < JOINABLE)
            {
                Some((_, answer)) => answer.clone(),
                None => {
                    let first = read();
                    let answer = async move { first.await.ok() }.boxed().shared();
                    inflight.insert(key.clone(), (Instant::now(), answer.clone()));
                    answer
                }
            }
        };
        let answer = shared.clone().await;
        {
            let mut inflight = self.lock();
            if inflight
                .get(&key)
                .is_some_and(|(_, kept)| kept.ptr_eq(&shared))
            {
                inflight.remove(&key);
            }
        }
        match answer {
            Some(value) => Ok(value),
            // Boxed: inline, the read would make every waiter's future as
            // large as a store read's, though only a failed join takes it.
            None => Box::pin(read()).await,
        }
    }
}

/// The joinable reads of a replica's watchers as they start.
#[derive(Clone, Default)]
pub(in crate::arbiter) struct Joins {
    current: Joined<GameId, Arc<SharedSnapshot>>,
    tokens: Joined<(GameId, u64), ResumeToken>,
}

impl WatchContext {
    /// Game `id` as it stands (see [`super::Games::current`]), read once
    /// for the watchers starting on it together.
    pub(super) async fn joined_current(
        &self,
        id: &GameId,
    ) -> Result<Arc<SharedSnapshot>, ArbiterError> {
        let games = self.games.clone();
        let owned = id.clone();
        self.joins
            .current
            .read(id.clone(), move || {
                let games = games.clone();
                let id = owned.clone();
                async move {
                    let (game, now) = games.current(&id).await?;
                    Ok(Arc::new(SharedSnapshot::new(game, now)))
                }
            })
            .await
    }

    /// The resume token of game `id`'s event `version`, read once for the
    /// watchers starting on it together.
    pub(super) async fn joined_token(
        &self,
        id: &GameId,
        version: u64,
    ) -> Result<ResumeToken, ArbiterError> {
        let reads = self.reads.clone();
        let owned = id.clone();
        self.joins
            .tokens
            .read((id.clone(), version), move || {
                let reads = reads.clone();
                let id = owned.clone();
                async move { reads.token_at(&id, version).await }
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::store::StoreError;

    #[tokio::test]
    async fn readers_that_come_while_a_read_is_in_flight_share_it() {
        let joined = Joined::<u32, u64>::default();
        let reads = Arc::new(AtomicUsize::new(0));
        let (release, released) = tokio::sync::watch::channel(false);
        let read = {
            let reads = reads.clone();
            move || {
                let reads = reads.clone();
                let mut released = released.clone();
                async move {
                    reads.fetch_add(1, Ordering::SeqCst);
                    let _ = released.wait_for(|open| *open).await;
                    Ok::<u64, ArbiterError>(7)
                }
            }
        };
        let waiting: Vec<_> = (0..50)
            .map(|_| {
                let joined = joined.clone();
                let read = read.clone();
                tokio::spawn(async move { joined.read(1, read).await })
            })
            .collect();
        tokio::task::yield_now().await;
        // Another key is read on its own.
        let other = tokio::spawn({
            let joined = joined.clone();
            let read = read.clone();
            async move { joined.read(2, read).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        release.send(true).unwrap();
        for waiter in waiting {
            assert_eq!(waiter.await.unwrap().unwrap(), 7);
        }
        assert_eq!(other.await.unwrap().unwrap(), 7);
        assert_eq!(reads.load(Ordering::SeqCst), 2);
        // Once answered, a read is not joined: the next reads again.
        assert_eq!(joined.read(1, read).await.unwrap(), 7);
        assert_eq!(reads.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_failed_read_is_not_shared_each_reads_for_itself() {
        let joined = Joined::<u32, u64>::default();
        let reads = Arc::new(AtomicUsize::new(0));
        let read = || {
            let reads = reads.clone();
            async move {
                // The first read fails; the ones after it succeed.
                if reads.fetch_add(1, Ordering::SeqCst) == 0 {
                    Err(ArbiterError::Store(StoreError::Unavailable(
                        "stalled".to_owned(),
                    )))
                } else {
                    Ok(3)
                }
            }
        };
        assert_eq!(joined.read(1, read).await.unwrap(), 3);
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }
}
