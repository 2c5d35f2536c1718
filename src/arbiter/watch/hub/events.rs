//! Followers of tournament events: a replica reads an event's feed at most
//! once, however many of its streams watch the event, and only the
//! partition a commit was announced in, so a move costs the same whatever
//! the number of games in the event and of its watchers, and an idle event
//! costs no reads but a slow safety pass.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::{Arc, Mutex, Weak},
    time::Duration,
};

use tokio::sync::{Notify, broadcast};

use super::{super::Encoded, HubInner};
use crate::{
    domain::{EventId, GameEvent, GameId},
    store::{EventLog, FeedPosition, StoreError},
};

/// How often every partition of a followed event's feed is read without an
/// announcement: the longest an event waits when its announcement was lost.
const SAFETY_READ: Duration = Duration::from_secs(10);

/// An event of one game of a tournament event, where it is in the feed.
#[derive(Debug)]
pub(in crate::arbiter) struct FeedItem {
    /// The feed partition it is in.
    pub partition: u32,
    /// Its position there.
    pub position: FeedPosition,
    /// The game.
    pub game: GameId,
    /// The game's event.
    pub event: Arc<GameEvent>,
    /// The event's bytes, shared by every stream that sends this entry.
    pub encoded: Arc<Encoded>,
    /// Whether it came as it happened (from the event's follower), not
    /// from a catch-up read.
    pub live: bool,
}

/// What an event's follower broadcasts.
#[derive(Debug)]
pub(in crate::arbiter) enum EventItem {
    /// The next entry of the feed.
    Entry(FeedItem),
    /// The feed could not be read: watchers end with this error, and the
    /// follower stops (the next watcher starts another).
    Failed(StoreError),
}

/// A followed tournament event.
pub(super) struct FollowedEvent {
    pub(super) sender: broadcast::Sender<Arc<EventItem>>,
    /// Partitions announced since the follower last read.
    announced: Mutex<BTreeSet<u32>>,
    wake: Notify,
}

impl FollowedEvent {
    pub(super) fn new(buffer: usize) -> (Arc<Self>, broadcast::Receiver<Arc<EventItem>>) {
        let (sender, receiver) = broadcast::channel(buffer);
        let followed = Arc::new(Self {
            sender,
            announced: Mutex::default(),
            wake: Notify::new(),
        });
        (followed, receiver)
    }

    /// Notes a commit in `partition` and wakes the follower.
    pub(super) fn announce(&self, partition: u32) {
        self.announced
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(partition);
        self.wake.notify_one();
    }

    /// Notes that any partition may have changed.
    pub(super) fn announce_all(&self, partitions: u32) {
        self.announced
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .extend(0..partitions);
        self.wake.notify_one();
    }

    fn take_announced(&self) -> BTreeSet<u32> {
        std::mem::take(
            &mut *self
                .announced
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }
}

/// Follows event `event_id`'s feed after `cursor`, broadcasting each entry,
/// until a failure or no watcher is left.
pub(super) async fn follow(
    hub: Weak<HubInner>,
    event_id: EventId,
    followed: Arc<FollowedEvent>,
    mut cursor: BTreeMap<u32, FeedPosition>,
) {
    let mut backoff = super::retry::Backoff::new();
    loop {
        let Some(inner) = hub.upgrade() else {
            return;
        };
        let partitions = followed.take_announced();
        if !partitions.is_empty() {
            match inner
                .reads
                .read_feed(
                    &event_id,
                    EventLog::Feed,
                    &cursor,
                    partitions.iter().copied(),
                    usize::MAX,
                )
                .await
            {
                Ok((items, _)) => {
                    backoff = super::retry::Backoff::new();
                    for item in items {
                        cursor.insert(item.partition, item.position);
                        let _ = followed.sender.send(Arc::new(EventItem::Entry(item)));
                    }
                }
                Err(err) => {
                    if let Some(pause) = backoff.after(&err) {
                        tracing::debug!(event_id = %event_id, error = %err, ?pause, "feed read failed; retrying");
                        // Read again, later, what was announced.
                        for partition in partitions {
                            followed.announce(partition);
                        }
                        if inner.forget_event(&event_id, &followed, false) {
                            return;
                        }
                        drop(inner);
                        tokio::time::sleep(pause).await;
                        continue;
                    }
                    tracing::warn!(event_id = %event_id, error = %err, "feed read failed; ending its watchers");
                    inner.forget_event(&event_id, &followed, true);
                    let _ = followed.sender.send(Arc::new(EventItem::Failed(err)));
                    return;
                }
            }
        }
        if inner.forget_event(&event_id, &followed, false) {
            return;
        }
        let partitions = inner.reads.partitions();
        drop(inner);
        if tokio::time::timeout(SAFETY_READ, followed.wake.notified())
            .await
            .is_err()
        {
            followed.announce_all(partitions);
        }
    }
}

/// The followed events of a hub.
pub(super) type FollowedEvents = Mutex<HashMap<EventId, Arc<FollowedEvent>>>;
