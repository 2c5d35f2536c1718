//! The store's time for watchers, read at most once a second for all of
//! them: heartbeats and delayed releases tell the time from it rather than
//! each asking the store. Watchers that find the reading stale together (an
//! event's watchers, woken by the same entry) wait for one read.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use super::joined::Joined;
use crate::{
    domain::Timestamp,
    store::{GameLog, StoreError},
};

/// How long a reading of the store's time serves.
const REUSE: Duration = Duration::from_secs(1);

/// The store's time as last read, and when; and the read in flight.
#[derive(Clone)]
pub(in crate::arbiter) struct SharedClock {
    store: Arc<dyn GameLog>,
    read: Arc<Mutex<Option<(Instant, Timestamp)>>>,
    reading: Joined<(), Timestamp>,
}

impl SharedClock {
    pub(in crate::arbiter) fn new(store: Arc<dyn GameLog>) -> Self {
        Self {
            store,
            read: Arc::default(),
            reading: Joined::default(),
        }
    }

    /// The store's time: the last reading advanced by the time since, when
    /// it is less than a second old.
    pub(in crate::arbiter) async fn now(&self) -> Result<Timestamp, StoreError> {
        let cached = *self
            .read
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((read, at)) = cached
            && read.elapsed() < REUSE
        {
            let since = u64::try_from(read.elapsed().as_millis()).unwrap_or(0);
            return Ok(Timestamp::from_unix_millis(at.unix_millis() + since));
        }
        let store = self.store.clone();
        let read = self.read.clone();
        self.reading
            .read((), || {
                let store = store.clone();
                let read = read.clone();
                async move {
                    let at = store.now().await?;
                    *read.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) =
                        Some((Instant::now(), at));
                    Ok(at)
                }
            })
            .await
    }
}
