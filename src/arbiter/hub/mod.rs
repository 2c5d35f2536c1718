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
//! buffer: one that falls further behind is ended, and resumes.
//!
//! Redis connections per replica stay constant: the shared connection for
//! reads and one subscription for announcements, whatever the number of
//! games and watchers.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{Arc, Mutex, Weak},
    time::Duration,
};

use tokio::sync::{Notify, broadcast};

mod events;

pub(super) use self::events::{EventItem, FeedItem, read_feed};
use super::{ResumeToken, codec};
use crate::{
    domain::{EventId, GameEvent, GameId, Timestamp},
    store::{Change, FeedPosition, GameStore, StoreError},
};

/// Events a watcher may fall behind its game's follower before it is
/// ended, unless configured otherwise.
pub(super) const WATCHER_BUFFER: usize = 256;

/// How often a followed game's log is read without an announcement: the
/// longest an event waits when its announcement was lost.
const SAFETY_READ: Duration = Duration::from_secs(2);

/// Events read from a log per request.
const PAGE: usize = 64;

/// How long the announcement subscription waits before it is renewed
/// after failing.
const RESUBSCRIBE: Duration = Duration::from_millis(500);

/// What a game's follower broadcasts.
#[derive(Debug)]
pub(super) enum HubItem {
    /// The next event of the log, decoded, with its resume token.
    Event(Arc<GameEvent>, ResumeToken),
    /// The log could not be read: watchers end with this error, and the
    /// follower stops (the next watcher starts another).
    Failed(StoreError),
}

/// A followed game.
struct Followed {
    sender: broadcast::Sender<Arc<HubItem>>,
    /// Woken by an announcement of a commit of the game.
    wake: Notify,
}

struct HubInner {
    store: Arc<dyn GameStore>,
    /// Each watcher's buffer, in events.
    buffer: usize,
    games: Mutex<HashMap<GameId, Arc<Followed>>>,
    events: events::FollowedEvents,
    /// Whether the announcement dispatcher runs.
    dispatching: std::sync::atomic::AtomicBool,
    /// The store's time as last read, and when: heartbeats tell the time
    /// from it rather than each asking the store.
    clock: Mutex<Option<(std::time::Instant, Timestamp)>>,
    /// Turns to read a catch-up: many watchers catching up at once take
    /// turns rather than flood the store's connection (and the moves on it).
    catch_ups: tokio::sync::Semaphore,
    /// The earliest deadline announced since the sweeper last looked, and
    /// its wake-up.
    deadlines: Mutex<Option<Timestamp>>,
    deadline_announced: Notify,
}

/// Catch-up reads a replica makes at once.
const CATCH_UPS: usize = 4;

/// The replica's followers of watched games.
#[derive(Clone)]
pub(super) struct WatchHub {
    inner: Arc<HubInner>,
}

impl WatchHub {
    pub(super) fn new(store: Arc<dyn GameStore>, buffer: usize) -> Self {
        Self {
            inner: Arc::new(HubInner {
                store,
                buffer: buffer.max(1),
                games: Mutex::default(),
                events: Mutex::default(),
                dispatching: std::sync::atomic::AtomicBool::new(false),
                clock: Mutex::default(),
                catch_ups: tokio::sync::Semaphore::new(CATCH_UPS),
                deadlines: Mutex::default(),
                deadline_announced: Notify::new(),
            }),
        }
    }

    /// The events of game `id` from its follower, started (reading after
    /// version `after`) when none runs yet. Subscribe before reading the
    /// game's catch-up from the store, so that nothing falls between.
    pub(super) fn subscribe(&self, id: &GameId, after: u64) -> broadcast::Receiver<Arc<HubItem>> {
        self.start_dispatching();
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
        self.start_dispatching();
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

    /// Waits for a commit to announce a deadline, and returns the earliest
    /// announced since the last call (starting the announcements if need
    /// be): how the sweeper learns of a deadline earlier than it planned.
    pub(super) async fn announced_deadline(&self) -> Option<Timestamp> {
        self.start_dispatching();
        loop {
            let announced = self
                .inner
                .deadlines
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take();
            if announced.is_some() {
                return announced;
            }
            self.inner.deadline_announced.notified().await;
        }
    }

    /// A turn to read a catch-up from the store.
    pub(super) async fn catch_up_turn(&self) -> Option<tokio::sync::SemaphorePermit<'_>> {
        // The semaphore is never closed; were it, reads would go untimed.
        self.inner.catch_ups.acquire().await.ok()
    }

    /// The store's time, read at most once a second for all watchers.
    pub(super) async fn now(&self) -> Result<Timestamp, StoreError> {
        let cached = *self
            .inner
            .clock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((read, at)) = cached
            && read.elapsed() < Duration::from_secs(1)
        {
            let since = u64::try_from(read.elapsed().as_millis()).unwrap_or(0);
            return Ok(Timestamp::from_unix_millis(at.unix_millis() + since));
        }
        let at = self.inner.store.now().await?;
        *self
            .inner
            .clock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) =
            Some((std::time::Instant::now(), at));
        Ok(at)
    }

    /// Each watcher's buffer, in events.
    pub(super) fn buffer(&self) -> usize {
        self.inner.buffer
    }

    /// How many games this replica follows.
    #[cfg(test)]
    pub(super) fn followed(&self) -> usize {
        self.inner.lock_games().len()
    }

    /// Starts the task that routes announcements to followers, once.
    fn start_dispatching(&self) {
        if !self
            .inner
            .dispatching
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            tokio::spawn(dispatch(Arc::downgrade(&self.inner)));
        }
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

    /// Routes an announcement to the followers of its game and event, and
    /// its deadline to the sweeper.
    fn route(&self, change: &Change) {
        if let Some(deadline) = change.deadline {
            let mut earliest = self
                .deadlines
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if earliest.is_none_or(|known| deadline < known) {
                *earliest = Some(deadline);
                self.deadline_announced.notify_one();
            }
        }
        if let Some(followed) = self.lock_games().get(&change.game) {
            followed.wake.notify_one();
        }
        if let Some(event_id) = &change.event
            && let Some(followed) = self.lock_events().get(event_id)
        {
            followed.announce(self.store.feed_partition(&change.game));
        }
    }

    /// Wakes every follower (after announcements may have been missed).
    fn wake_all(&self) {
        for followed in self.lock_games().values() {
            followed.wake.notify_one();
        }
        let partitions = self.store.feed_partitions();
        for followed in self.lock_events().values() {
            followed.announce_all(partitions);
        }
    }
}

/// Routes announcements to the followers of their games, renewing the
/// subscription when it breaks; ends when the hub is gone.
async fn dispatch(hub: Weak<HubInner>) {
    loop {
        let Some(store) = hub.upgrade().map(|inner| inner.store.clone()) else {
            return;
        };
        match store.changes().await {
            Ok(mut feed) => {
                // Whatever was announced while there was no subscription.
                if let Some(inner) = hub.upgrade() {
                    inner.wake_all();
                }
                loop {
                    let change = feed.next().await;
                    let Some(inner) = hub.upgrade() else {
                        return;
                    };
                    match change {
                        Ok(change) => inner.route(&change),
                        Err(err) => {
                            tracing::warn!(error = %err, "commit announcements interrupted");
                            inner.wake_all();
                            break;
                        }
                    }
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "cannot subscribe to commit announcements");
            }
        }
        drop(store);
        tokio::time::sleep(RESUBSCRIBE).await;
    }
}

/// Follows game `id`'s log after version `cursor`, broadcasting each event,
/// until the game's final event, a failure, or no watcher is left.
async fn follow(hub: Weak<HubInner>, id: GameId, followed: Arc<Followed>, mut cursor: u64) {
    loop {
        let Some(inner) = hub.upgrade() else {
            return;
        };
        match read_after(inner.store.as_ref(), &id, cursor).await {
            Ok(events) => {
                for (event, token) in events {
                    cursor = event.version;
                    let last = event.is_final();
                    let _ = followed.sender.send(Arc::new(HubItem::Event(event, token)));
                    if last {
                        // Nothing follows a final event: watchers end with
                        // it, and a finished game costs nothing more.
                        inner.forget(&id, &followed, true);
                        return;
                    }
                }
            }
            Err(err) => {
                inner.forget(&id, &followed, true);
                let _ = followed.sender.send(Arc::new(HubItem::Failed(err)));
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

/// Every event of game `id` after version `after`, decoded, with its token.
pub(super) async fn read_after(
    store: &dyn GameStore,
    id: &GameId,
    mut after: u64,
) -> Result<Vec<(Arc<GameEvent>, ResumeToken)>, StoreError> {
    let mut events = Vec::new();
    loop {
        let read = store.events_page(id, after, PAGE).await?;
        let page = codec::decode_log(id, after, PAGE, &read)?;
        let full = page.len() == PAGE;
        for event in page {
            after = event.version;
            let token = ResumeToken::of(id, &event);
            events.push((Arc::new(event), token));
        }
        if !full {
            return Ok(events);
        }
    }
}
