//! The Redis store: production persistence shared by every replica.
//!
//! Key layout (every key of a game shares the hash tag `{<game_id>}`, so a
//! game lives in one slot of a Redis Cluster):
//!
//! - `<prefix>:{<game_id>}:state`: a hash with `v` (version) and `s` (state).
//! - `<prefix>:{<game_id>}:log`: a stream of events whose entry IDs are
//!   `0-<version>`, so "events after version v" is an exclusive range from
//!   `0-v` and a blocking `XREAD` from `0-v` wakes on the next event.
//!
//! A commit is one Lua script: compare the version, write the state, append
//! the events. "Now" is Redis `TIME`, read in the same round trip as the
//! state, so replicas with skewed clocks agree.

use std::{collections::HashMap, time::Duration};

use async_trait::async_trait;
use redis::{
    AsyncCommands, Client, RedisError, Script,
    aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection},
};

use super::{CommitOutcome, EventFollower, GameStore, StoreError, StoredEvent, StoredState};
use crate::domain::{EventId, GameId, Timestamp};

/// Compare-and-set of the version, state write and event append, atomically.
/// KEYS: state hash, log stream. ARGV: expected version, new version, state,
/// then (event version, event bytes) pairs. Returns {1, new}, {0, current} on a
/// version conflict, or {-1, logged} when the log does not end at the stored
/// version (state and log disagree: nothing is written).
/// Everything is checked before the first write, because Redis does not undo
/// a script's earlier writes when a later command fails.
const COMMIT_SCRIPT: &str = r"
local stored = redis.call('HGET', KEYS[1], 'v')
local current = 0
if stored then current = tonumber(stored) end
if current ~= tonumber(ARGV[1]) then return {0, current} end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local logged = 0
if #last > 0 then logged = tonumber(string.match(last[1][1], '^0%-(%d+)$')) or -1 end
if logged ~= current then
  return {-1, logged}
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
for i = 4, #ARGV, 2 do
  redis.call('XADD', KEYS[2], '0-' .. ARGV[i], 'e', ARGV[i + 1])
end
return {1, tonumber(ARGV[2])}
";

/// Versioned update of the deadline index. KEYS: the bucket's sorted set of
/// deadlines and its hash of versions (one hash slot). ARGV: game id,
/// version, deadline in ms or "" for none. Ignores versions older than the
/// one recorded.
const INDEX_SCRIPT: &str = r"
local recorded = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
if recorded > tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
return 1
";

/// The deadline index is split into this many buckets, each in its own hash
/// slot, so that it spreads over a Redis Cluster instead of pinning one
/// node.
const DEADLINE_BUCKETS: u32 = 16;

/// Upper bound for any single request to Redis, reconnection included, so
/// that an outage turns into a prompt UNAVAILABLE rather than a hang.
const REQUEST_DEADLINE: Duration = Duration::from_secs(3);

/// How to reach Redis.
#[derive(Clone, Debug)]
pub struct RedisConfig {
    /// A `redis://` or `rediss://` URL.
    pub url: String,
    /// The first part of every key, to share a Redis between deployments.
    pub key_prefix: String,
}

/// Games in Redis.
#[derive(Clone)]
pub struct RedisStore {
    client: Client,
    conn: ConnectionManager,
    commit: Script,
    index: Script,
    prefix: String,
}

impl RedisStore {
    /// Prepares a store; it connects lazily and reconnects by itself, so the
    /// server can start (and report not-ready) while Redis is down.
    pub fn new(config: &RedisConfig) -> Result<Self, StoreError> {
        let client = Client::open(config.url.as_str())
            .map_err(|err| StoreError::Unavailable(format!("invalid Redis URL: {err}")))?;
        let manager_config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(Duration::from_secs(2)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_millis(500));
        let conn = ConnectionManager::new_lazy_with_config(client.clone(), manager_config)
            .map_err(unavailable)?;
        Ok(Self {
            client,
            conn,
            commit: Script::new(COMMIT_SCRIPT),
            index: Script::new(INDEX_SCRIPT),
            prefix: config.key_prefix.clone(),
        })
    }

    fn state_key(&self, id: &GameId) -> String {
        format!("{}:{{{}}}:state", self.prefix, id)
    }

    fn log_key(&self, id: &GameId) -> String {
        format!("{}:{{{}}}:log", self.prefix, id)
    }

    /// The deadline bucket of a game (FNV-1a of its id).
    fn bucket(id: &GameId) -> u32 {
        let hash = id.as_str().bytes().fold(0x811c_9dc5_u32, |hash, byte| {
            (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
        });
        hash % DEADLINE_BUCKETS
    }

    /// The key of an event's game list. Event ids are free text, so the
    /// hash tag is a digest of the id rather than the id itself.
    fn event_key(&self, event_id: &EventId) -> String {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(event_id.as_str().as_bytes());
        let tag: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        format!("{}:event:{{event-{tag}}}:games", self.prefix)
    }

    fn deadline_keys(&self, bucket: u32) -> (String, String) {
        (
            format!("{}:deadlines:{{deadlines-{bucket}}}", self.prefix),
            format!("{}:deadline-versions:{{deadlines-{bucket}}}", self.prefix),
        )
    }
}

fn unavailable(err: RedisError) -> StoreError {
    StoreError::Unavailable(format!("Redis: {err}"))
}

async fn bounded<T>(future: impl Future<Output = Result<T, RedisError>>) -> Result<T, StoreError> {
    match tokio::time::timeout(REQUEST_DEADLINE, future).await {
        Ok(result) => result.map_err(unavailable),
        Err(_) => Err(StoreError::Unavailable(format!(
            "Redis did not answer within {} s",
            REQUEST_DEADLINE.as_secs()
        ))),
    }
}

fn timestamp_of((seconds, micros): (u64, u64)) -> Timestamp {
    Timestamp::from_unix_millis(seconds * 1000 + micros / 1000)
}

/// Entries of XRANGE: `(id, {field: value})`.
type RawEntries = Vec<(String, HashMap<String, Vec<u8>>)>;

fn decode_entries(entries: RawEntries) -> Result<Vec<StoredEvent>, StoreError> {
    entries
        .into_iter()
        .map(|(id, mut fields)| {
            let version = id
                .strip_prefix("0-")
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| StoreError::Corrupt(format!("unexpected log entry id {id}")))?;
            let bytes = fields
                .remove("e")
                .ok_or_else(|| StoreError::Corrupt(format!("log entry {id} has no event")))?;
            Ok(StoredEvent { version, bytes })
        })
        .collect()
}

#[async_trait]
impl GameStore for RedisStore {
    async fn now(&self) -> Result<Timestamp, StoreError> {
        let mut conn = self.conn.clone();
        let time: (u64, u64) = bounded(redis::cmd("TIME").query_async(&mut conn)).await?;
        Ok(timestamp_of(time))
    }

    async fn load(&self, id: &GameId) -> Result<(Option<StoredState>, Timestamp), StoreError> {
        let mut conn = self.conn.clone();
        let ((version, bytes), time): ((Option<u64>, Option<Vec<u8>>), (u64, u64)) = bounded(
            redis::pipe()
                .cmd("HMGET")
                .arg(self.state_key(id))
                .arg("v")
                .arg("s")
                .cmd("TIME")
                .query_async(&mut conn),
        )
        .await?;
        let state = match (version, bytes) {
            (Some(version), Some(bytes)) => Some(StoredState { version, bytes }),
            (None, None) => None,
            _ => {
                return Err(StoreError::Corrupt(format!(
                    "game {id} has a version without a state or a state without a version"
                )));
            }
        };
        Ok((state, timestamp_of(time)))
    }

    async fn commit(
        &self,
        id: &GameId,
        expected: u64,
        state: StoredState,
        events: Vec<StoredEvent>,
    ) -> Result<CommitOutcome, StoreError> {
        super::check_commit(expected, &state, &events)?;
        let mut conn = self.conn.clone();
        let mut invocation = self.commit.key(self.state_key(id));
        invocation
            .key(self.log_key(id))
            .arg(expected)
            .arg(state.version)
            .arg(state.bytes);
        for event in events {
            invocation.arg(event.version).arg(event.bytes);
        }
        let (status, version): (i8, i64) = bounded(invocation.invoke_async(&mut conn)).await?;
        Ok(match status {
            1 => CommitOutcome::Committed,
            0 => CommitOutcome::Conflict {
                current: u64::try_from(version).unwrap_or(0),
            },
            _ => {
                return Err(StoreError::Corrupt(format!(
                    "game {id}: state and log disagree (the log ends at version {version})"
                )));
            }
        })
    }

    async fn events_after(&self, id: &GameId, after: u64) -> Result<Vec<StoredEvent>, StoreError> {
        let mut conn = self.conn.clone();
        let entries: RawEntries =
            bounded(conn.xrange(self.log_key(id), format!("(0-{after}"), "+")).await?;
        decode_entries(entries)
    }

    async fn events_after_many(
        &self,
        cursors: &[(GameId, u64)],
    ) -> Result<Vec<Vec<StoredEvent>>, StoreError> {
        if cursors.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.conn.clone();
        let mut pipe = redis::pipe();
        for (id, after) in cursors {
            pipe.cmd("XRANGE")
                .arg(self.log_key(id))
                .arg(format!("(0-{after}"))
                .arg("+");
        }
        let replies: Vec<RawEntries> = bounded(pipe.query_async(&mut conn)).await?;
        replies.into_iter().map(decode_entries).collect()
    }

    async fn follow(&self, id: &GameId) -> Result<Box<dyn EventFollower>, StoreError> {
        Ok(Box::new(RedisFollower {
            client: self.client.clone(),
            conn: None,
            key: self.log_key(id),
        }))
    }

    async fn index_deadline(
        &self,
        id: &GameId,
        version: u64,
        deadline: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let (deadlines, versions) = self.deadline_keys(Self::bucket(id));
        let deadline = deadline.map_or(String::new(), |at| at.unix_millis().to_string());
        let _: u8 = bounded(
            self.index
                .key(deadlines)
                .key(versions)
                .arg(id.as_str())
                .arg(version)
                .arg(deadline)
                .invoke_async(&mut conn),
        )
        .await?;
        Ok(())
    }

    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<GameId>, StoreError> {
        let mut conn = self.conn.clone();
        let mut pipe = redis::pipe();
        for bucket in 0..DEADLINE_BUCKETS {
            pipe.cmd("ZRANGEBYSCORE")
                .arg(self.deadline_keys(bucket).0)
                .arg("-inf")
                .arg(now.unix_millis())
                .arg("LIMIT")
                .arg(0)
                .arg(limit);
        }
        let buckets: Vec<Vec<String>> = bounded(pipe.query_async(&mut conn)).await?;
        Ok(buckets
            .into_iter()
            .flatten()
            .filter_map(|id| GameId::parse(&id).ok())
            .take(limit)
            .collect())
    }

    async fn add_to_event(
        &self,
        event_id: &EventId,
        (round, board): (u32, u32),
        id: &GameId,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        // Exact in a double: rounds up to 2^21 before it stops being so.
        let score = f64::from(round) * 4_294_967_296.0 + f64::from(board);
        let _: i64 = bounded(
            redis::cmd("ZADD")
                .arg(self.event_key(event_id))
                .arg(score)
                .arg(id.as_str())
                .query_async(&mut conn),
        )
        .await?;
        Ok(())
    }

    async fn event_games(
        &self,
        event_id: &EventId,
        offset: usize,
        limit: usize,
    ) -> Result<Vec<GameId>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut conn = self.conn.clone();
        let ids: Vec<String> = bounded(
            redis::cmd("ZRANGE")
                .arg(self.event_key(event_id))
                .arg(offset)
                .arg(offset + limit - 1)
                .query_async(&mut conn),
        )
        .await?;
        ids.iter()
            .map(|id| {
                GameId::parse(id)
                    .map_err(|err| StoreError::Corrupt(format!("event lists game '{id}': {err}")))
            })
            .collect()
    }

    async fn ping(&self) -> Result<(), StoreError> {
        let mut conn = self.conn.clone();
        let _: String = bounded(redis::cmd("PING").query_async(&mut conn)).await?;
        Ok(())
    }
}

/// Follows a game's log with blocking `XREAD` on a connection of its own:
/// a blocking read on the shared connection would stall every other request
/// and trip its response timeout.
struct RedisFollower {
    client: Client,
    conn: Option<MultiplexedConnection>,
    key: String,
}

impl RedisFollower {
    async fn connection(&mut self, wait: Duration) -> Result<MultiplexedConnection, StoreError> {
        if let Some(conn) = &self.conn {
            return Ok(conn.clone());
        }
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(1)))
            .set_response_timeout(Some(wait + Duration::from_secs(2)));
        let conn = bounded(
            self.client
                .get_multiplexed_async_connection_with_config(&config),
        )
        .await?;
        self.conn = Some(conn.clone());
        Ok(conn)
    }
}

/// Reply of XREAD on one stream: `[(key, entries)]`, or nil on timeout.
type RawRead = Option<Vec<(String, RawEntries)>>;

#[async_trait]
impl EventFollower for RedisFollower {
    async fn next_batch(
        &mut self,
        after: u64,
        wait: Duration,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let mut conn = self.connection(wait).await?;
        let block_ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
        let reply: Result<RawRead, RedisError> = redis::cmd("XREAD")
            .arg("BLOCK")
            .arg(block_ms)
            .arg("STREAMS")
            .arg(&self.key)
            .arg(format!("0-{after}"))
            .query_async(&mut conn)
            .await;
        match reply {
            Ok(None) => Ok(Vec::new()),
            Ok(Some(streams)) => {
                let entries = streams
                    .into_iter()
                    .flat_map(|(_, entries)| entries)
                    .collect();
                decode_entries(entries)
            }
            Err(err) => {
                // Start afresh next time; the caller resumes from `after`.
                self.conn = None;
                Err(unavailable(err))
            }
        }
    }
}
