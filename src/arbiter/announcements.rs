//! The replica's one subscription to the store's commit announcements,
//! routed to whoever listens: the watch hub (whose followers to wake) and
//! the sweeper's [`DeadlineAlarm`] (a deadline earlier than it planned).
//!
//! The subscription starts with its first user and is renewed when it
//! breaks; listeners are told when announcements may have been missed, so
//! that they read the store again.

use std::{
    sync::{
        Arc, Mutex, OnceLock, Weak,
        atomic::{AtomicBool, AtomicU64, Ordering},
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
    /// Where the dispatcher runs, if not on the runtime that starts it.
    runtime: OnceLock<tokio::runtime::Handle>,
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
                runtime: OnceLock::new(),
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

    /// Has the subscription (its connection, and the routing) run on
    /// `runtime` once started. A server gives it a thread of its own: an
    /// announcement of the replica's own commit arrives together with the
    /// commit's reply, and two sockets ready at once on one worker have
    /// the scheduler wake the other worker, which takes the reply's task
    /// while the first reads the announcement (measured with one caller:
    /// both workers woken, switching 2.4 times a move each).
    pub(super) fn run_on(&self, runtime: tokio::runtime::Handle) {
        let _ = self.inner.runtime.set(runtime);
    }

    /// Starts the subscription, once.
    pub(super) fn start(&self) {
        if !self.inner.started.swap(true, Ordering::AcqRel) {
            let dispatcher = dispatch(Arc::downgrade(&self.inner));
            match self.inner.runtime.get() {
                Some(runtime) => drop(runtime.spawn(dispatcher)),
                None => drop(tokio::spawn(dispatcher)),
            }
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

/// What the sweeper's alarm says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alarm {
    /// The earliest deadline commits announced since the sweeper last
    /// looked.
    Deadline(Timestamp),
    /// Announcements may have been missed (the subscription broke or was
    /// renewed): the deadline index is to be read again.
    Missed,
}

/// The sweeper's wake-up: the earliest deadline commits announced since it
/// last looked, or word that announcements may have been missed.
#[derive(Clone)]
pub(super) struct DeadlineAlarm {
    inner: Arc<AlarmState>,
    announcements: Announcements,
}

struct AlarmState {
    earliest: Mutex<Option<Timestamp>>,
    /// Announcements may have been missed since the sweeper last looked.
    missed: AtomicBool,
    /// The store's time (Unix milliseconds) by which the sweeper reads the
    /// index anyway: a deadline announced at or after it is news to no
    /// one, so it does not wake the sweeper (`u64::MAX` while the sweeper
    /// has no such plan: every deadline is news).
    planned: AtomicU64,
    announced: Notify,
}

impl Default for AlarmState {
    fn default() -> Self {
        Self {
            earliest: Mutex::default(),
            missed: AtomicBool::new(false),
            planned: AtomicU64::new(u64::MAX),
            announced: Notify::new(),
        }
    }
}

impl AlarmState {
    /// What the alarm has to say since it was last asked, if anything:
    /// missed announcements first (the index read they call for finds
    /// every deadline too).
    fn take(&self) -> Option<Alarm> {
        if self.missed.swap(false, Ordering::AcqRel) {
            self.earliest
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .take();
            return Some(Alarm::Missed);
        }
        self.earliest
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
            .map(Alarm::Deadline)
    }
}

impl Listener for AlarmState {
    fn announced(&self, change: &Change) {
        let Some(deadline) = change.deadline else {
            return;
        };
        if deadline.unix_millis() >= self.planned.load(Ordering::Acquire) {
            return;
        }
        let mut earliest = self
            .earliest
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if earliest.is_none_or(|known| deadline < known) {
            *earliest = Some(deadline);
            self.announced.notify_one();
        }
    }

    fn missed(&self) {
        self.missed.store(true, Ordering::Release);
        self.announced.notify_one();
    }
}

impl DeadlineAlarm {
    pub(super) fn new(announcements: &Announcements) -> Self {
        let inner = Arc::new(AlarmState::default());
        let listener: Arc<dyn Listener> = inner.clone();
        announcements.listen(Arc::downgrade(&listener));
        Self {
            inner,
            announcements: announcements.clone(),
        }
    }

    /// Every deadline announced from now on is news to the sweeper: it is
    /// about to read the index, and a commit may set a deadline the read
    /// does not see.
    pub(super) fn unplanned(&self) {
        self.inner.planned.store(u64::MAX, Ordering::Release);
    }

    /// The sweeper reads the index again by the store's time `by` whatever
    /// is announced: deadlines announced at or after it do not wake it (one
    /// wake-up a commit fewer, as a game's next deadline is seldom its
    /// event's earliest).
    pub(super) fn planned(&self, by: Timestamp) {
        self.inner
            .planned
            .store(by.unix_millis(), Ordering::Release);
    }

    /// Waits for a commit to announce a deadline, and returns the earliest
    /// announced since the last call (starting the announcements if need
    /// be), or that announcements may have been missed: how the sweeper
    /// learns of a deadline earlier than it planned without reading the
    /// index.
    pub(super) async fn next(&self) -> Alarm {
        self.announcements.start();
        loop {
            if let Some(alarm) = self.inner.take() {
                return alarm;
            }
            self.inner.announced.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::GameId;

    fn change(deadline: Option<u64>) -> Change {
        Change {
            game: GameId::parse("g-1").expect("an id"),
            version: 2,
            event: None,
            deadline: deadline.map(Timestamp::from_unix_millis),
        }
    }

    #[test]
    fn the_alarm_keeps_the_earliest_deadline_and_says_when_announcements_were_missed() {
        let alarm = AlarmState::default();
        assert_eq!(alarm.take(), None);
        alarm.announced(&change(None));
        assert_eq!(alarm.take(), None, "a commit without a deadline");
        alarm.announced(&change(Some(9_000)));
        alarm.announced(&change(Some(5_000)));
        alarm.announced(&change(Some(7_000)));
        assert_eq!(
            alarm.take(),
            Some(Alarm::Deadline(Timestamp::from_unix_millis(5_000)))
        );
        assert_eq!(alarm.take(), None, "told once");
        alarm.announced(&change(Some(4_000)));
        alarm.missed();
        assert_eq!(alarm.take(), Some(Alarm::Missed));
        assert_eq!(
            alarm.take(),
            None,
            "the index read finds what was announced"
        );
    }

    #[test]
    fn a_deadline_after_the_sweepers_plan_does_not_wake_it() {
        let alarm = AlarmState::default();
        alarm.planned.store(6_000, Ordering::Release);
        alarm.announced(&change(Some(6_000)));
        alarm.announced(&change(Some(9_000)));
        assert_eq!(alarm.take(), None, "the planned read finds both");
        alarm.announced(&change(Some(5_999)));
        assert_eq!(
            alarm.take(),
            Some(Alarm::Deadline(Timestamp::from_unix_millis(5_999)))
        );
        alarm.missed();
        assert_eq!(alarm.take(), Some(Alarm::Missed), "missed is always told");
        alarm.planned.store(u64::MAX, Ordering::Release);
        alarm.announced(&change(Some(9_000)));
        assert_eq!(
            alarm.take(),
            Some(Alarm::Deadline(Timestamp::from_unix_millis(9_000))),
            "without a plan every deadline is news"
        );
    }
}
