//! An event's audit log: every administrative act on its games (creation,
//! starts, clock adjustments, pauses, results and forfeits, connection
//! reports) and every change of the credentials confined to it, each with
//! who did it, the request, the time and the reason.
//!
//! The acts are the games' own events, recorded in the event's audit log
//! by the same atomic commit that writes them to the game (see
//! [`EventLog::Audit`]), so the log never misses an act nor holds one
//! the game does not; a credential's change is logged by the write of
//! its record, likewise. The log is read in bounded pages from a cursor
//! of one position per partition, like an event's watch stream, with one
//! more for the credentials' log. The platform's own log (no event) holds
//! the changes of the credentials for every event.

use std::{collections::BTreeSet, sync::Arc};

use super::{Arbiter, ArbiterError, codec::corrupt, watch};
use crate::{
    domain::{
        AuditKind, EventId, GameEvent, GameId, Timestamp,
        access::CredentialChange,
        stored::{credential_record, encoding},
    },
    store::{EventLog, FeedPosition},
};

/// The most entries read from one partition (or the credentials' log)
/// for one page.
const READ_PER_PARTITION: usize = 64;

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
    fn keeps_change(&self, change: &CredentialChange) -> bool {
        self.game.is_none()
            && self
                .principal
                .as_deref()
                .is_none_or(|name| name == change.by())
            && (self.kinds.is_empty() || self.kinds.contains(&change.audit_kind()))
    }

    /// Whether the filter can keep a credential's change at all.
    fn reads_changes(&self) -> bool {
        self.game.is_none()
            && (self.kinds.is_empty() || self.kinds.iter().any(|kind| kind.is_credential_change()))
    }

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

/// One entry of the audit log.
#[derive(Clone, Debug)]
pub enum AuditEntry {
    /// An act on a game.
    Act {
        /// The game.
        game: GameId,
        /// The game's event that records the act (see [`GameEvent::audit`]).
        event: Arc<GameEvent>,
    },
    /// A change of a credential.
    Credential(Box<CredentialChange>),
}

impl AuditEntry {
    /// The entry as one line of JSON (no line break), as the log's export
    /// writes it: `time`, `kind`, `principal`, `request_id`, `reason`, and
    /// either `game_id`, `version` and `event` (the game's event in its
    /// stored form's terms, see docs/storage.md) or `credential` (without
    /// its secret's digest).
    pub fn json_line(&self) -> String {
        let line = match self {
            AuditEntry::Act { game, event } => {
                let facts = event.audit();
                let stored: serde_json::Value =
                    serde_json::from_str(&encoding::readable_event(event)).unwrap_or_default();
                serde_json::json!({
                    "time": event.at.rfc3339(),
                    "kind": facts.map(|facts| facts.kind.name()),
                    "principal": facts.and_then(|facts| facts.by),
                    "request_id": event.request,
                    "reason": facts.and_then(|facts| facts.reason),
                    "game_id": game.as_str(),
                    "version": event.version,
                    "event": stored,
                })
            }
            AuditEntry::Credential(change) => {
                let credential = &change.credential;
                let revoked = credential.revoked.as_ref();
                serde_json::json!({
                    "time": change.at().rfc3339(),
                    "kind": change.audit_kind().name(),
                    "principal": change.by(),
                    "request_id": change.request,
                    "reason": change.reason(),
                    "credential": {
                        "credential_id": credential.id.to_string(),
                        "name": credential.name.as_str(),
                        "role": credential.role.name(),
                        "event_id": credential.event.as_ref().map(ToString::to_string),
                        "created_at": credential.created_at.rfc3339(),
                        "created_by": credential.created_by,
                        "expires_at": credential.expires_at.map(Timestamp::rfc3339),
                        "revoked_at": revoked.map(|r| r.at.rfc3339()),
                        "revoked_by": revoked.map(|r| r.by.as_str()),
                        "revoke_reason": revoked.map(|r| r.reason.as_str()),
                    },
                })
            }
        };
        line.to_string()
    }
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
    /// Up to `size` entries of event `event_id`'s audit log (`None`: the
    /// platform's) that `filter` keeps, after `cursor` (from the start
    /// when empty).
    pub async fn audit_log(
        &self,
        event_id: Option<&EventId>,
        filter: &AuditFilter,
        cursor: &str,
        size: usize,
    ) -> Result<AuditPage, ArbiterError> {
        let reads = watch::StoreReads::new(self.store.clone());
        // The credentials' log is the partition after the games' last.
        let changes_at = reads.partitions();
        let mut at = watch::decode_cursor_in(cursor, changes_at + 1, "page_token")?;
        let mut items: Vec<(FeedPosition, u32, AuditEntry)> = Vec::new();
        let mut full: Vec<FeedPosition> = Vec::new();
        if let Some(event_id) = event_id {
            let partitions: Vec<u32> = match &filter.game {
                Some(game) => vec![reads.partition(game)],
                None => (0..reads.partitions()).collect(),
            };
            let pages = reads
                .read_page(event_id, EventLog::Audit, &at, partitions)
                .await?;
            for (_, page, is_full) in pages {
                if is_full && let Some(last) = page.last() {
                    full.push(last.position);
                }
                items.extend(page.into_iter().map(|item| {
                    let entry = AuditEntry::Act {
                        game: item.game,
                        event: item.event,
                    };
                    (item.position, item.partition, entry)
                }));
            }
        }
        if filter.reads_changes() {
            let after = at.get(&changes_at).copied().unwrap_or_default();
            let changes = self
                .store
                .credential_log(event_id, after, READ_PER_PARTITION)
                .await?;
            if changes.len() == READ_PER_PARTITION
                && let Some((last, _)) = changes.last()
            {
                full.push(*last);
            }
            for (position, bytes) in changes {
                let change = credential_record::decode_change(&bytes).map_err(corrupt)?;
                items.push((
                    position,
                    changes_at,
                    AuditEntry::Credential(Box::new(change)),
                ));
            }
        }
        // Past the last entry read of a partition that holds more, entries
        // of other partitions may have been committed after ones not read
        // yet: the page stops there.
        let boundary = full.into_iter().min();
        items.retain(|(position, _, _)| boundary.is_none_or(|last| *position <= last));
        items.sort_by_key(|(position, partition, _)| (*position, *partition));
        let mut entries = Vec::new();
        let mut more = boundary.is_some();
        for (position, partition, entry) in items {
            if entries.len() == size {
                more = true;
                break;
            }
            at.insert(partition, position);
            let kept = match &entry {
                AuditEntry::Act { game, event } => filter.keeps(game, event),
                AuditEntry::Credential(change) => filter.keeps_change(change),
            };
            if kept {
                entries.push(entry);
            }
        }
        Ok(AuditPage {
            entries,
            next: more.then(|| watch::encode_cursor(&at)),
        })
    }
}
