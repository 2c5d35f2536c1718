//! An event's audit log: every administrative act on its games (creation,
//! starts, clock adjustments, pauses, results and forfeits, connection
//! reports), each with who did it, the request, the time and the reason.
//!
//! The acts are the games' own events, recorded in the event's audit log
//! by the same atomic commit that writes them to the game (see
//! [`EventLog::Audit`]), so the log never misses an act nor holds one
//! the game does not. It is read in bounded pages from a cursor of one
//! position per partition, like an event's watch stream.

use std::{collections::BTreeSet, sync::Arc};

use super::{Arbiter, ArbiterError, watch};
use crate::{
    domain::{AuditKind, EventId, GameEvent, GameId},
    store::{EventLog, FeedPosition},
};

/// Which acts a read of the audit log keeps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// Only this game's.
    pub game: Option<GameId>,
    /// Only those done by this principal (by name).
    pub principal: Option<String>,
    /// Only these kinds; every kind when empty.
    pub kinds: BTreeSet<AuditKind>,
}

impl AuditFilter {
    fn keeps(&self, game: &GameId, event: &GameEvent) -> bool {
        let Some(facts) = event.audit() else {
            return false;
        };
        self.game.as_ref().is_none_or(|only| only == game)
            && self
                .principal
                .as_deref()
                .is_none_or(|name| facts.by == Some(name))
            && (self.kinds.is_empty() || self.kinds.contains(&facts.kind))
    }
}

/// One act of the audit log.
#[derive(Clone, Debug)]
pub struct AuditEntry {
    /// The game.
    pub game: GameId,
    /// The game's event that records the act (see [`GameEvent::audit`]).
    pub event: Arc<GameEvent>,
}

/// A page of the audit log.
#[derive(Clone, Debug)]
pub struct AuditPage {
    /// The acts, in the order they were committed (each game's in version
    /// order).
    pub entries: Vec<AuditEntry>,
    /// The cursor to read on from; `None` when the log has been read to
    /// its end. A page may hold fewer acts than asked for (none, under a
    /// narrow filter) while there are more.
    pub next: Option<String>,
}

impl Arbiter {
    /// Up to `size` acts of event `event_id`'s audit log that `filter`
    /// keeps, after `cursor` (from the start when empty).
    pub async fn audit_log(
        &self,
        event_id: &EventId,
        filter: &AuditFilter,
        cursor: &str,
        size: usize,
    ) -> Result<AuditPage, ArbiterError> {
        let reads = watch::StoreReads::new(self.store.clone());
        let mut at = watch::decode_cursor_in(cursor, reads.partitions(), "page_token")?;
        let partitions: Vec<u32> = match &filter.game {
            Some(game) => vec![reads.partition(game)],
            None => (0..reads.partitions()).collect(),
        };
        let pages = reads
            .read_page(event_id, EventLog::Audit, &at, partitions)
            .await?;
        // Past the last entry read of a partition that holds more, entries
        // of other partitions may have been committed after ones not read
        // yet: the page stops there.
        let boundary: Option<FeedPosition> = pages
            .iter()
            .filter(|(_, _, full)| *full)
            .filter_map(|(_, items, _)| items.last().map(|item| item.position))
            .min();
        let mut items: Vec<_> = pages
            .into_iter()
            .flat_map(|(_, items, _)| items)
            .filter(|item| boundary.is_none_or(|last| item.position <= last))
            .collect();
        items.sort_by_key(|item| (item.position, item.partition));
        let mut entries = Vec::new();
        let mut more = boundary.is_some();
        for item in items {
            if entries.len() == size {
                more = true;
                break;
            }
            at.insert(item.partition, item.position);
            if filter.keeps(&item.game, &item.event) {
                entries.push(AuditEntry {
                    game: item.game,
                    event: item.event,
                });
            }
        }
        Ok(AuditPage {
            entries,
            next: more.then(|| watch::encode_cursor(&at)),
        })
    }
}
