//! The watch hub: a replica follows a game's log at most once, however
//! many of its streams watch the game, and fans each event out to them in
//! order.
//!
//! A follower task per watched game reads the log when the store announces
//! a commit of that game (and, as a safety net for announcements lost while
//! a subscription was broken, every few seconds), decodes each event once
//! and broadcasts it. The log stays the truth: a watcher catches up from the
//! store itself, skips what it already has and fills any gap from the store,
//! so announcements only make delivery prompt. Each watcher has a bounded
//! buffer: one that falls further behind is ended, and resumes. The server's
//! shutdown reaches the watchers the same way, as the last item.
//!
//! Redis connections per replica stay constant: the shared connection for
//! reads and one subscription for announcements, whatever the number of
//! games and watchers. The hub only fans out: the subscription is the
//! replica's [`Announcements`], and the store's time and heartbeats are
//! kept elsewhere. `events` holds the followers of tournament events;
//! `retry`: a failed read is retried for a while before the watchers that
//! wait on it are ended.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use tokio::sync::{Notify, broadcast};

mod events;
mod retry;

pub(super) use self::events::EventItem;
pub(in crate::arbiter) use self::events::FeedItem;
use super::{SharedEvent, StoreReads};
use crate::{
    arbiter::announcements::{Announcements, Listener},
    domain::{EventId, GameId},
    store::{Change, FeedPosition, StoreError},
};

/// Events a watcher may fall behind its game's follower before it is
/// ended, unless configured otherwise.
pub(in crate::arbiter) const WATCHER_BUFFER: usize = 256;

/// How often a followed game's log is read without an announcement: the
/// longest an event waits when its announcement was lost.
const SAFETY_READ: Duration = Duration::from_secs(2);

/// What a game's follower broadcasts: each watcher's copy is one count of
/// a shared reference more (an event's ten thousand watchers on two cores
/// contend for each count they take).
#[derive(Clone, Debug)]
pub(super) enum HubItem {
    /// The next event of the log, as every watcher shares it.
    Event(Arc<SharedEvent>),
    /// The log could not be read: watchers end with this error, and the
    /// follower stops (the next watcher starts another).
    Failed(Arc<StoreError>),
    /// The server is shutting down: watchers end.
    ShuttingDown,
}

/// A followed game.
struct Followed {
    sender: broadcast::Sender<HubItem>,
    /// Woken by an announcement of a commit of the game.
    wake: Notify,
}

struct HubInner {
    reads: StoreReads,
    announcements: Announcements,
    /// Each watcher's buffer, in events.
    buffer: usize,
    games: Mutex<HashMap<GameId, Arc<Followed>>>,
    events: events::FollowedEvents,
    /// Turns to read a catch-up: many watchers catching up at once take
    /// turns rather than flood the store's connection (and the moves on it).
    catch_ups: tokio::sync::Semaphore,
    /// Set once the server shuts down ([`WatchHub::shut_down`]).
    shutting_down: AtomicBool,
}

/// Catch-up reads a replica makes at once.
const CATCH_UPS: usize = 4;

/// The replica's followers of watched games.
#[derive(Clone)]
pub(in crate::arbiter) struct WatchHub {
    inner: Arc<HubInner>,
}

impl WatchHub {
    /// A hub reading through `reads`, woken by `announcements`, whose
    /// watchers may each fall `buffer` events behind.
    pub(in crate::arbiter) fn new(
        reads: StoreReads,
        announcements: &Announcements,
        buffer: usize,
    ) -> Self {
        let inner = Arc::new(HubInner {
            reads,
            announcements: announcements.clone(),
            buffer: buffer.max(1),
            games: Mutex::default(),
            events: Mutex::default(),
            catch_ups: tokio::sync::Semaphore::new(CATCH_UPS),
            shutting_down: AtomicBool::new(false),
        });
        let listener: Arc<dyn Listener> = inner.clone();
        announcements.listen(Arc::downgrade(&listener));
        Self { inner }
    }

    /// The events of game `id` from its follower, started (reading after
    /// version `after`) when none runs yet. Subscribe before reading the
    /// game's catch-up from the store, so that nothing falls between.
    pub(super) fn subscribe(&self, id: &GameId, after: u64) -> broadcast::Receiver<HubItem> {
        self.inner.announcements.start();
        let mut games = self.inner.lock_games();
        if let Some(followed) = games.get(id) {
            return followed.sender.subscribe();
        }
        let (sender, receiver) = broadcast::channel(self.inner.buffer);
        let followed = Arc::new(Followed {
            sender,
            wake: Notify::new(),
        });
        games.insert(id.clone(), followed.clone());
        tokio::spawn(follow(
            Arc::downgrade(&self.inner),
            id.clone(),
            followed,
            after,
        ));
        receiver
    }

    /// The entries of event `event_id`'s feed from its follower, started
    /// (reading after `cursor`) when none runs yet. Subscribe once caught
    /// up, then read the feed once more, so that nothing falls between.
    pub(super) fn subscribe_event(
        &self,
        event_id: &EventId,
        cursor: &BTreeMap<u32, FeedPosition>,
    ) -> broadcast::Receiver<Arc<EventItem>> {
        self.inner.announcements.start();
        let mut followed_events = self.inner.lock_events();
        if let Some(followed) = followed_events.get(event_id) {
            return followed.sender.subscribe();
        }
        let (followed, receiver) = events::FollowedEvent::new(self.inner.buffer);
        followed_events.insert(event_id.clone(), followed.clone());
        tokio::spawn(events::follow(
            Arc::downgrade(&self.inner),
            event_id.clone(),
            followed,
            cursor.clone(),
        ));
        receiver
    }

    /// Ends every game watcher: each followed game's watchers are sent
    /// [`HubItem::ShuttingDown`], and a watcher that subscribes after sees
    /// [`shutting_down`](Self::shutting_down) before it waits. A watcher
    /// that waits on its game's events so needs no shutdown signal of its
    /// own (polling one with each event was a sixth of a fan-out's cost).
    pub(in crate::arbiter) fn shut_down(&self) {
        self.inner.shutting_down.store(true, Ordering::SeqCst);
        let games = self.inner.lock_games();
        for followed in games.values() {
            let _ = followed.sender.send(HubItem::ShuttingDown);
        }
    }

    /// Whether the server is shutting down.
    pub(super) fn shutting_down(&self) -> bool {
        self.inner.shutting_down.load(Ordering::SeqCst)
    }

    /// Ends every game watcher once `shutdown` fires (see
    /// [`shut_down`](Self::shut_down)); the task holds the hub only weakly.
    pub(in crate::arbiter) fn shut_down_on(&self, shutdown: tokio_util::sync::CancellationToken) {
        let hub = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            shutdown.cancelled().await;
            if let Some(inner) = hub.upgrade() {
                WatchHub { inner }.shut_down();
            }
        });
    }

    /// A turn to read a catch-up from the store.
    pub(super) async fn catch_up_turn(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        // The semaphore is never closed; were it, reads would go untimed.
        self.inner.catch_ups.acquire().await.ok()
    }

    /// Each watcher's buffer, in events.
    pub(super) fn buffer(&self) -> usize {
        self.inner.buffer
    }

    /// How many games this replica follows.
    #[cfg(test)]
    pub(in crate::arbiter) fn followed(&self) -> usize {
        self.inner.lock_games().len()
    }
}

impl HubInner {
    fn lock_games(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, Arc<Followed>>> {
        self.games
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Forgets `followed` as the follower of `id`: when it has no watcher
    /// left, or `always` (it stops).
    fn forget(&self, id: &GameId, followed: &Arc<Followed>, always: bool) -> bool {
        let mut games = self.lock_games();
        let current = games
            .get(id)
            .is_some_and(|known| Arc::ptr_eq(known, followed));
        if current && (always || followed.sender.receiver_count() == 0) {
            games.remove(id);
            return true;
        }
        !current
    }

    fn lock_events(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<EventId, Arc<events::FollowedEvent>>> {
        self.events
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Forgets `followed` as the follower of event `id`: when it has no
    /// watcher left, or `always` (it stops).
    fn forget_event(
        &self,
        id: &EventId,
        followed: &Arc<events::FollowedEvent>,
        always: bool,
    ) -> bool {
        let mut followed_events = self.lock_events();
        let current = followed_events
            .get(id)
            .is_some_and(|known| Arc::ptr_eq(known, followed));
        if current && (always || followed.sender.receiver_count() == 0) {
            followed_events.remove(id);
            return true;
        }
        !current
    }
}

impl Listener for HubInner {
    /// Wakes the followers of the announced commit's game and event.
    fn announced(&self, change: &Change) {
        if let Some(followed) = self.lock_games().get(&change.game) {
            followed.wake.notify_one();
        }
        if let Some(event_id) = &change.event
            && let Some(followed) = self.lock_events().get(event_id)
        {
            followed.announce(self.reads.partition(&change.game));
        }
    }

    /// Wakes every follower (after announcements may have been missed).
    fn missed(&self) {
        for followed in self.lock_games().values() {
            followed.wake.notify_one();
        }
        let partitions = self.reads.partitions();
        for followed in self.lock_events().values() {
            followed.announce_all(partitions);
        }
    }
}

/// Follows game `id`'s log after version `cursor`, broadcasting each event,
/// until the game's final event, a failure, or no watcher is left.
async fn follow(hub: Weak<HubInner>, id: GameId, followed: Arc<Followed>, mut cursor: u64) {
    let mut backoff = retry::Backoff::new();
    loop {
        let Some(inner) = hub.upgrade() else {
            return;
        };
        match inner.reads.read_after(&id, cursor).await {
            Ok(events) => {
                backoff = retry::Backoff::new();
                for (event, token) in events {
                    cursor = event.version;
                    let last = event.is_final();
                    let _ = followed
                        .sender
                        .send(HubItem::Event(Arc::new(SharedEvent::new(event, token))));
                    if last {
                        // Nothing follows a final event: watchers end with
                        // it, and a finished game costs nothing more.
                        inner.forget(&id, &followed, true);
                        return;
                    }
                }
            }
            Err(err) => {
                if let Some(pause) = backoff.after(&err) {
                    tracing::debug!(game_id = %id, error = %err, ?pause, "log read failed; retrying");
                    if inner.forget(&id, &followed, false) {
                        return;
                    }
                    drop(inner);
                    tokio::time::sleep(pause).await;
                    continue;
                }
                tracing::warn!(game_id = %id, error = %err, "log read failed; ending its watchers");
                inner.forget(&id, &followed, true);
                let _ = followed.sender.send(HubItem::Failed(Arc::new(err)));
                return;
            }
        }
        if inner.forget(&id, &followed, false) {
            return;
        }
        drop(inner);
        let _ = tokio::time::timeout(SAFETY_READ, followed.wake.notified()).await;
    }
}
