//! The replica's one subscription to the store's commit announcements,
//! routed to whoever listens: the watch hub (whose followers to wake) and
//! the sweeper's [`DeadlineAlarm`] (a deadline earlier than it planned).
//!
//! The subscription starts with its first user and is renewed when it
//! breaks; listeners are told when announcements may have been missed, so
//! that they read the store again.

use std::{
    sync::{
        Arc, Mutex, Weak,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use tokio::sync::Notify;

use crate::{
    domain::Timestamp,
    store::{Change, ChangeFeeds},
};

/// How long the announcement subscription waits before it is renewed
/// after failing.
const RESUBSCRIBE: Duration = Duration::from_millis(500);

/// What an announcement reaches.
pub(super) trait Listener: Send + Sync {
    /// A commit was announced.
    fn announced(&self, change: &Change);
    /// Announcements may have been missed: the subscription broke, or has
    /// just been (re)made.
    fn missed(&self);
}

/// The replica's subscription to commit announcements.
#[derive(Clone)]
pub(super) struct Announcements {
    inner: Arc<Inner>,
}

struct Inner {
    feeds: Arc<dyn ChangeFeeds>,
    listeners: Mutex<Vec<Weak<dyn Listener>>>,
    /// Whether the dispatcher runs.
    started: AtomicBool,
}

impl Inner {
    /// The listeners still alive (forgetting the others).
    fn listeners(&self) -> Vec<Arc<dyn Listener>> {
        let mut listeners = self
            .listeners
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        listeners.retain(|listener| listener.strong_count() > 0);
        listeners.iter().filter_map(Weak::upgrade).collect()
    }
}

impl Announcements {
    pub(super) fn new(feeds: Arc<dyn ChangeFeeds>) -> Self {
        Self {
            inner: Arc::new(Inner {
                feeds,
                listeners: Mutex::default(),
                started: AtomicBool::new(false),
            }),
        }
    }

    /// Routes every announcement to `listener` while it lives.
    pub(super) fn listen(&self, listener: Weak<dyn Listener>) {
        self.inner
            .listeners
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(listener);
    }

    /// Starts the subscription, once.
    pub(super) fn start(&self) {
        if !self.inner.started.swap(true, Ordering::AcqRel) {
            tokio::spawn(dispatch(Arc::downgrade(&self.inner)));
        }
    }
}

/// Routes announcements to the listeners, renewing the subscription when
/// it breaks; ends when the replica's announcements are gone.
async fn dispatch(announcements: Weak<Inner>) {
    loop {
        let Some(feeds) = announcements.upgrade().map(|inner| inner.feeds.clone()) else {
            return;
        };
        match feeds.changes().await {
            Ok(mut feed) => {
                // Whatever was announced while there was no subscription.
                if let Some(inner) = announcements.upgrade() {
                    inner.listeners().iter().for_each(|l| l.missed());
                }
                loop {
                    let change = feed.next().await;
                    let Some(inner) = announcements.upgrade() else {
                        return;
                    };
                    match change {
                        Ok(change) => inner.listeners().iter().for_each(|l| l.announced(&change)),
                        Err(err) => {
                            tracing::warn!(error = %err, "commit announcements interrupted");
                            inner.listeners().iter().for_each(|l| l.missed());
                            break;
                        }
                    }
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "cannot subscribe to commit announcements");
            }
        }
        drop(feeds);
        tokio::time::sleep(RESUBSCRIBE).await;
    }
}

/// The sweeper's wake-up: the earliest deadline commits announced since it
/// last looked.
#[derive(Clone)]
pub(super) struct DeadlineAlarm {
    inner: Arc<Alarm>,
    announcements: Announcements,
}

#[derive(Default)]
struct Alarm {
    earliest: Mutex<Option<Timestamp>>,
    announced: Notify,
}

impl Listener for Alarm {
    fn announced(&self, change: &Change) {
        let Some(deadline) = change.deadline else {
            return;
        };
        let mut earliest = self
            .earliest
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if earliest.is_none_or(|known| deadline < known) {
            *earliest = Some(deadline);
            self.announced.notify_one();
        }
    }

    // The sweeper reads the deadline index on its own schedule: a missed
    // announcement only delays it until then.
    fn missed(&self) {}
}

impl DeadlineAlarm {
    pub(super) fn new(announcements: &Announcements) -> Self {
        let inner = Arc::new(Alarm::default());
        let listener: Arc<dyn Listener> = inner.clone();
        announcements.listen(Arc::downgrade(&listener));
        Self {
            inner,
            announcements: announcements.clone(),
        }
    }

    /// Waits for a commit to announce a deadline, and returns the earliest
    /// announced since the last call (starting the announcements if need
    /// be): how the sweeper learns of a deadline earlier than it planned.
    pub(super) async fn next(&self) -> Option<Timestamp> {
        self.announcements.start();
        loop {
            let announced = self
                .inner
                .earliest
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take();
            if announced.is_some() {
                return announced;
            }
            self.inner.announced.notified().await;
        }
    }
}
