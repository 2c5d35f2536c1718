//! The key layout. Games are spread over [`BUCKETS`] buckets by a hash of
//! their id; every key of a bucket carries the hash tag `{g<bucket>}`, so a
//! game and its bucket's deadline index live in one slot of a Redis Cluster
//! and one script can write them together. Every key starts with the
//! configured prefix:
//!
//! | key | type | holds | written by |
//! |---|---|---|---|
//! | `<prefix>:{g<n>}:<game_id>:state` | hash | `v` (version), `s` (state); `a`, `x` once archived (the version the archive runs through, the archive) | `commit.lua`, `archive.lua` |
//! | `<prefix>:{g<n>}:<game_id>:log` | stream | the game's events, entry IDs `0-<version>`, so "events after version v" is an exclusive range from `0-v` | `commit.lua`; emptied by `archive.lua` |
//! | `<prefix>:{g<n>}:<game_id>:signals` | list | the game's fair-play signals in the order received (at most 1000), each `<color> <kind> <client ms or -> <server ms>` | `add_signal.lua` |
//! | `<prefix>:{g<n>}:deadlines` | sorted set | the bucket's games by the instant they next need the flag sweeper | `commit.lua`, `repair.lua`, `archive.lua` |
//! | `<prefix>:{g<n>}:sweeping:<game_id>` | string, expiring | a replica's claim on sweeping the game | `Deadlines::claim_sweep` |
//! | `<prefix>:{g<n>}:feed:<event digest>` | stream | a tournament event's feed in the bucket: `g <game id> v <version>` in commit order | `commit.lua` |
//! | `<prefix>:{g<n>}:audit:<event digest>` | stream | the event's audit log in the bucket: the administrative acts among the feed's entries, `g <game id> v <version>` in commit order | `commit.lua` |
//! | `<prefix>:{e<event digest>}:games` | sorted set | an event's games, members `<round><board><game_id>` (round and board as ten digits) of one score, so that their lexical order is the list's order | `list_in_event.lua`, `open_round.lua` |
//! | `<prefix>:{e<event digest>}:rounds` | hash | an event's round records: for each round number `N`, `N` (the record), `N:v` (its version, in decimal) and `N:s` (its summary), written together; in the slot of the event's games | `open_round.lua`, `put_round.lua` |
//! | `<prefix>:{e<event digest>}:teams` | hash | an event's team registration: `r` (the record, JSON) and `v` (its version, in decimal), written together | `put_teams.lua`; read by `open_round.lua` |
//! | `<prefix>:{e<event digest>}:rounds-in-creation` | set | the numbers of the event's rounds opened and not yet marked created, which the event's lists leave out | `open_round.lua`; emptied by `Rounds::round_created` |
//! | `<prefix>:{e<event digest>}:round-summaries` | hash | each round's summary again (`N` → summary), so that standings and exports read the summaries without the records | `open_round.lua`, `put_round.lua` |
//! | `<prefix>:{g<n>}:confirm`, `<prefix>:{g<n>}:readiness` | string, expiring | a write of the replica's own, so that `WAIT` counts the replicas that have the bucket's latest commit | `GameLog::confirm_durable`, `GameLog::ping` |
//! | `<prefix>:{credentials}:records` | hash | each credential's record by its id (the secret only as a digest) | `add_credential.lua`, `replace_credential.lua` |
//! | `<prefix>:{credentials}:ids` | sorted set | the credentials' ids, of one score, so that they list in lexical order | `add_credential.lua` |
//! | `<prefix>:{credentials}:log:<event digest>`, `<prefix>:{credentials}:log` | stream | the changes (creation, revocation) of the credentials confined to the event, or of those for every event: `c <change>`, in the order made | `add_credential.lua`, `replace_credential.lua` |
//! | `<prefix>:changes` | pub/sub channel | `<game id> <version> <deadline in ms or -> [<event id>]` after each commit | `commit.lua` |
//!
//! An event's id is free text, so its keys carry a digest of the id rather
//! than the id itself.

use crate::{
    domain::{EventId, GameId},
    store::{Corruption, EventLog, EventPosition, FeedPosition, StoreError},
};

/// Games are spread over this many buckets, each in its own hash slot. The
/// number is part of the key layout: changing it moves every game.
pub(super) const BUCKETS: u32 = 64;

/// The keys of one store, under its prefix.
#[derive(Clone, Debug)]
pub(super) struct Keys {
    prefix: String,
    changes_channel: String,
}

impl Keys {
    pub(super) fn new(prefix: &str) -> Self {
        Self {
            prefix: prefix.to_owned(),
            changes_channel: format!("{prefix}:changes"),
        }
    }

    /// The pub/sub channel of commit announcements.
    pub(super) fn changes_channel(&self) -> &str {
        &self.changes_channel
    }

    /// The key a durability confirmation of game `id`'s bucket writes.
    pub(super) fn confirm_key(&self, id: &GameId) -> String {
        format!("{}:{}:confirm", self.prefix, Self::bucket_tag(id))
    }

    /// The key a readiness check writes in the bucket with hash tag `tag`.
    pub(super) fn readiness_key(&self, tag: &str) -> String {
        format!("{}:{tag}:readiness", self.prefix)
    }

    /// The key of the credentials' records.
    pub(super) fn credentials_key(&self) -> String {
        format!("{}:{{credentials}}:records", self.prefix)
    }

    /// The key of the log of credential changes of `event` (`None`: of
    /// the credentials for every event), in the slot of the records.
    pub(super) fn credential_log_key(&self, event: Option<&EventId>) -> String {
        match event {
            Some(event) => format!(
                "{}:{{credentials}}:log:{}",
                self.prefix,
                event_digest(event)
            ),
            None => format!("{}:{{credentials}}:log", self.prefix),
        }
    }

    /// The key of the credentials' ids, in the slot of their records.
    pub(super) fn credential_ids_key(&self) -> String {
        format!("{}:{{credentials}}:ids", self.prefix)
    }

    /// The hash tag of a game's bucket (FNV-1a of its id).
    pub(super) fn bucket_tag(id: &GameId) -> String {
        format!("{{g{}}}", Self::bucket(id))
    }

    pub(super) fn state_key(&self, id: &GameId) -> String {
        format!("{}:{{g{}}}:{}:state", self.prefix, Self::bucket(id), id)
    }

    /// The key of game `id`'s fair-play signals, beside its state.
    pub(super) fn signals_key(&self, id: &GameId) -> String {
        format!("{}:{{g{}}}:{}:signals", self.prefix, Self::bucket(id), id)
    }

    pub(super) fn log_key(&self, id: &GameId) -> String {
        format!("{}:{{g{}}}:{}:log", self.prefix, Self::bucket(id), id)
    }

    /// The key of a replica's claim on sweeping game `id`.
    pub(super) fn sweep_claim_key(&self, id: &GameId) -> String {
        format!("{}:{}:sweeping:{}", self.prefix, Self::bucket_tag(id), id)
    }

    pub(super) fn deadlines_key(&self, tag: &str) -> String {
        format!("{}:{}:deadlines", self.prefix, tag)
    }

    /// The key of an event's game list. Event ids are free text, so the
    /// hash tag is a digest of the id rather than the id itself.
    pub(super) fn event_key(&self, event_id: &EventId) -> String {
        format!("{}:{{e{}}}:games", self.prefix, event_digest(event_id))
    }

    /// The key of an event's round records, under the hash tag of its
    /// game list.
    pub(super) fn rounds_key(&self, event_id: &EventId) -> String {
        format!("{}:{{e{}}}:rounds", self.prefix, event_digest(event_id))
    }

    /// The key of an event's team registration, beside its round records.
    pub(super) fn teams_key(&self, event_id: &EventId) -> String {
        format!("{}:{{e{}}}:teams", self.prefix, event_digest(event_id))
    }

    /// The key of an event's rounds in creation, beside its records.
    pub(super) fn rounds_in_creation_key(&self, event_id: &EventId) -> String {
        format!(
            "{}:{{e{}}}:rounds-in-creation",
            self.prefix,
            event_digest(event_id)
        )
    }

    /// The key of an event's round summaries, beside its records.
    pub(super) fn round_summaries_key(&self, event_id: &EventId) -> String {
        format!(
            "{}:{{e{}}}:round-summaries",
            self.prefix,
            event_digest(event_id)
        )
    }

    /// The key of an event's feed in the bucket with hash tag `tag`: the
    /// events of the event's games of that bucket, as `g <game id> v
    /// <version>` entries in commit order.
    pub(super) fn feed_key(&self, event_id: &EventId, log: EventLog, tag: &str) -> String {
        let name = match log {
            EventLog::Feed => "feed",
            EventLog::Audit => "audit",
        };
        format!("{}:{tag}:{name}:{}", self.prefix, event_digest(event_id))
    }

    /// The bucket of a game: its feed partition.
    pub(super) fn bucket(id: &GameId) -> u32 {
        id.as_str().bytes().fold(0x811c_9dc5_u32, |hash, byte| {
            (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
        }) % BUCKETS
    }
}

/// A digest of a (free-text) event id, for keys.
pub(super) fn event_digest(event_id: &EventId) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(event_id.as_str().as_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// A feed position as a stream entry id.
pub(super) fn stream_id(position: FeedPosition) -> String {
    format!("{}-{}", position.major, position.minor)
}

/// A stream entry id as a feed position.
pub(super) fn feed_position(id: &str) -> Result<FeedPosition, StoreError> {
    id.split_once('-')
        .and_then(|(major, minor)| {
            Some(FeedPosition {
                major: major.parse().ok()?,
                minor: minor.parse().ok()?,
            })
        })
        .ok_or_else(|| StoreError::Corrupt(Corruption::FeedEntryId { id: id.to_owned() }))
}

/// The member of an event list that sorts (lexically) in list order.
pub(super) fn event_member(position: &EventPosition) -> String {
    format!(
        "{:010}{:010}{}",
        position.round, position.board, position.game
    )
}

pub(super) fn event_position(member: &str) -> Result<EventPosition, StoreError> {
    let corrupt = || {
        StoreError::Corrupt(Corruption::EventListMember {
            member: member.to_owned(),
        })
    };
    let number = |range: std::ops::Range<usize>| {
        member
            .get(range)
            .and_then(|digits| digits.parse::<u32>().ok())
            .ok_or_else(corrupt)
    };
    Ok(EventPosition {
        round: number(0..10)?,
        board: number(10..20)?,
        game: member
            .get(20..)
            .and_then(|id| GameId::parse(id).ok())
            .ok_or_else(corrupt)?,
    })
}
