//! The one path by which watchers and the hub read the store: a game's
//! log after a version, the resume token of a version, and a tournament
//! event's feed, each decoded once.

use std::{
    collections::{BTreeMap, HashMap},
    sync::Arc,
};

use super::{FeedItem, ResumeToken};
use crate::{
    arbiter::{ArbiterError, codec},
    domain::{EventId, GameEvent, GameId},
    store::{Corruption, EventLog, FeedEntry, FeedPosition, GameStore, StoreError},
};

/// Events read from a log per request.
const PAGE: usize = 64;

/// Feed entries read per partition and request.
const FEED_PAGE: usize = 64;

/// Reads of the store for watching.
#[derive(Clone)]
pub(in crate::arbiter) struct StoreReads {
    store: Arc<dyn GameStore>,
}

impl StoreReads {
    pub(in crate::arbiter) fn new(store: Arc<dyn GameStore>) -> Self {
        Self { store }
    }

    /// How many partitions every event's feed has.
    pub(in crate::arbiter) fn partitions(&self) -> u32 {
        self.store.feed_partitions()
    }

    /// The partition of an event's feed that game `id`'s events go to.
    pub(in crate::arbiter) fn partition(&self, id: &GameId) -> u32 {
        self.store.feed_partition(id)
    }

    /// Every event of game `id` after version `after`, decoded, with its token.
    pub(in crate::arbiter) async fn read_after(
        &self,
        id: &GameId,
        mut after: u64,
    ) -> Result<Vec<(Arc<GameEvent>, ResumeToken)>, StoreError> {
        let mut events = Vec::new();
        loop {
            let read = self.store.events_page(id, after, PAGE).await?;
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

    /// The resume token of `id`'s event at `version`, for a snapshot as of it.
    pub(in crate::arbiter) async fn token_at(
        &self,
        id: &GameId,
        version: u64,
    ) -> Result<ResumeToken, ArbiterError> {
        let after = version.saturating_sub(1);
        let read = self.store.events_page(id, after, 1).await?;
        let events = codec::decode_log(id, after, 1, &read)?;
        let event = events
            .first()
            .filter(|event| event.version == version)
            .ok_or_else(|| {
                StoreError::Corrupt(Corruption::MissingEvent {
                    game: id.clone(),
                    version,
                })
            })?;
        Ok(ResumeToken::of(id, event))
    }

    /// Reads the entries of the event's log `log` after `cursor` in
    /// `partitions`, up to `pages` pages of them, decoded; and whether that
    /// was all of them.
    pub(in crate::arbiter) async fn read_feed(
        &self,
        event_id: &EventId,
        log: EventLog,
        cursor: &BTreeMap<u32, FeedPosition>,
        partitions: impl IntoIterator<Item = u32>,
        pages: usize,
    ) -> Result<(Vec<FeedItem>, bool), StoreError> {
        let mut at = cursor.clone();
        let mut pending: Vec<u32> = partitions.into_iter().collect();
        let mut items = Vec::new();
        // The logs of archived games the feed names, read once each.
        let mut archived: HashMap<GameId, Vec<GameEvent>> = HashMap::new();
        for _ in 0..pages {
            if pending.is_empty() {
                return Ok((items, true));
            }
            let positions = positions(&at, pending);
            let mut more = Vec::new();
            for (partition, page, full) in
                self.page(event_id, log, &positions, &mut archived).await?
            {
                if let (true, Some(last)) = (full, page.last()) {
                    at.insert(partition, last.position);
                    more.push(partition);
                }
                items.extend(page);
            }
            pending = more;
        }
        Ok((items, pending.is_empty()))
    }

    /// One page of the entries of the event's log `log` after `cursor` in
    /// each of `partitions`, decoded: per partition, its entries and
    /// whether it may hold more after them.
    pub(in crate::arbiter) async fn read_page(
        &self,
        event_id: &EventId,
        log: EventLog,
        cursor: &BTreeMap<u32, FeedPosition>,
        partitions: impl IntoIterator<Item = u32>,
    ) -> Result<Vec<(u32, Vec<FeedItem>, bool)>, StoreError> {
        let positions = positions(cursor, partitions);
        self.page(event_id, log, &positions, &mut HashMap::new())
            .await
    }

    /// The entries after each of `positions`, one page of each partition,
    /// decoded (archived games' events from their logs, each read once
    /// into `archived`).
    async fn page(
        &self,
        event_id: &EventId,
        log: EventLog,
        positions: &[(u32, FeedPosition)],
        archived: &mut HashMap<GameId, Vec<GameEvent>>,
    ) -> Result<Vec<(u32, Vec<FeedItem>, bool)>, StoreError> {
        if positions.is_empty() {
            return Ok(Vec::new());
        }
        let read = self
            .store
            .event_feed(event_id, log, positions, FEED_PAGE)
            .await?;
        let mut pages = Vec::with_capacity(positions.len());
        for ((partition, _), entries) in positions.iter().zip(read) {
            let full = entries.len() == FEED_PAGE;
            let mut items = Vec::with_capacity(entries.len());
            for entry in entries {
                let event = match &entry.event {
                    Some(stored) => codec::decode_event(stored)?,
                    None => self.archived_event(archived, &entry).await?,
                };
                items.push(FeedItem {
                    partition: *partition,
                    position: entry.position,
                    event: Arc::new(event),
                    encoded: Arc::default(),
                    game: entry.game,
                    live: false,
                });
            }
            pages.push((*partition, items, full));
        }
        Ok(pages)
    }

    /// The event a feed entry names that is no longer among its game's log
    /// entries: read from the game's archive, each game's log once per read.
    async fn archived_event(
        &self,
        archived: &mut HashMap<GameId, Vec<GameEvent>>,
        entry: &FeedEntry,
    ) -> Result<GameEvent, StoreError> {
        let version = entry.version;
        if !archived.contains_key(&entry.game) {
            let read = self.store.events_after(&entry.game, 0).await?;
            let events = codec::decode_log(&entry.game, 0, usize::MAX, &read)?;
            archived.insert(entry.game.clone(), events);
        }
        archived
            .get(&entry.game)
            .and_then(|events| events.iter().find(|event| event.version == version))
            .cloned()
            .ok_or_else(|| {
                StoreError::Corrupt(Corruption::FeedNamesMissingEvent {
                    game: entry.game.clone(),
                    version,
                })
            })
    }
}

/// Each of `partitions` with its position in `cursor` (its start when it
/// has none).
fn positions(
    cursor: &BTreeMap<u32, FeedPosition>,
    partitions: impl IntoIterator<Item = u32>,
) -> Vec<(u32, FeedPosition)> {
    partitions
        .into_iter()
        .map(|partition| {
            (
                partition,
                cursor.get(&partition).copied().unwrap_or_default(),
            )
        })
        .collect()
}
