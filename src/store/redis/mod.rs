//! The Redis store: production persistence shared by every replica.
//!
//! The key layout is in [`keys`]; the Lua scripts that write them are in
//! [`scripts`], one file each. `config`: the URL, prefix, replicas and TLS
//! a store is made from; `endpoint`: a fixed address, a Sentinel-managed
//! primary or a Cluster, and `urls`: the URLs that name several servers.
//! This file holds the store and its game log; `event_index`, `deadlines`,
//! `feeds`, `rounds`, `credentials` and `signals` the other parts of
//! [`crate::store::GameStore`].
//!
//! A commit is one Lua script: compare the version, write the state, append
//! the events, and set the game's deadline. "Now" is Redis `TIME`, read in
//! the same round trip as the state, so replicas with skewed clocks agree.
//! A move therefore costs two round trips whatever the game's length.

mod config;
mod credentials;
mod deadlines;
mod endpoint;
mod event_index;
mod feeds;
mod keys;
mod rounds;
mod scripts;
mod signals;
mod urls;

use std::{collections::HashMap, sync::Arc, time::Duration};

use async_trait::async_trait;
use redis::{RedisError, Script};

pub use self::config::{RedisConfig, RedisTls, WaitForReplicas};
use self::{
    config::{client, cluster_client},
    endpoint::{Connection, Endpoint},
    keys::{BUCKETS, Keys},
    scripts::{
        ADD_CREDENTIAL_SCRIPT, ADD_SIGNAL_SCRIPT, ARCHIVE_SCRIPT, COMMIT_SCRIPT,
        LIST_CREDENTIALS_SCRIPT, LIST_IN_EVENT_SCRIPT, LOG_SCRIPT, OPEN_ROUND_SCRIPT,
        PUT_ROUND_SCRIPT, PUT_TEAMS_SCRIPT, REPAIR_SCRIPT, REPLACE_CREDENTIAL_SCRIPT,
    },
    urls::{ClusterUrl, SentinelUrl},
};
use super::{
    Commit, CommitOutcome, Corruption, EventLog, GameLog, LogRead, StoreError, StoredArchive,
    StoredEvent, StoredState,
};
use crate::domain::{EventId, GameId, Timestamp};

/// Upper bound for any single request to Redis, reconnection included, so
/// that an outage turns into a prompt UNAVAILABLE rather than a hang.
pub(super) const REQUEST_DEADLINE: Duration = Duration::from_secs(3);

/// Games in Redis.
#[derive(Clone)]
pub struct RedisStore {
    endpoint: Arc<Endpoint>,
    wait: Option<WaitForReplicas>,
    commit: Script,
    repair: Script,
    log: Script,
    archive: Script,
    list_in_event: Script,
    put_round: Script,
    open_round: Script,
    put_teams: Script,
    add_credential: Script,
    replace_credential: Script,
    list_credentials: Script,
    add_signal: Script,
    keys: Keys,
}

impl RedisStore {
    /// Prepares a store; it connects lazily and reconnects by itself, so the
    /// server can start (and report not-ready) while Redis is down.
    ///
    /// A `redis+sentinel://` URL names Sentinels instead of a primary, a
    /// `redis+cluster://` (or `rediss+cluster://`) URL the seed nodes of a
    /// Redis Cluster (see [`endpoint`]); TLS towards a Sentinel-managed
    /// primary is not supported yet.
    pub fn new(config: &RedisConfig) -> Result<Self, StoreError> {
        let endpoint = if ClusterUrl::is_cluster(&config.url) {
            let (cluster, seeds) = cluster_client(config)?;
            Endpoint::cluster(cluster, seeds)
        } else if config.url.starts_with(SentinelUrl::SCHEME) {
            if config.tls.is_set() {
                return Err(StoreError::Unavailable(
                    "TLS is not supported with redis+sentinel:// yet".to_owned(),
                ));
            }
            let url = SentinelUrl::parse(&config.url)
                .map_err(|err| StoreError::Unavailable(format!("invalid Sentinel URL: {err}")))?;
            Endpoint::sentinel(&url)?
        } else {
            Endpoint::fixed(client(config)?)?
        };
        Ok(Self {
            endpoint: Arc::new(endpoint),
            wait: config.wait,
            commit: Script::new(COMMIT_SCRIPT),
            repair: Script::new(REPAIR_SCRIPT),
            log: Script::new(LOG_SCRIPT),
            archive: Script::new(ARCHIVE_SCRIPT),
            list_in_event: Script::new(LIST_IN_EVENT_SCRIPT),
            put_round: Script::new(PUT_ROUND_SCRIPT),
            open_round: Script::new(OPEN_ROUND_SCRIPT),
            put_teams: Script::new(PUT_TEAMS_SCRIPT),
            add_credential: Script::new(ADD_CREDENTIAL_SCRIPT),
            replace_credential: Script::new(REPLACE_CREDENTIAL_SCRIPT),
            list_credentials: Script::new(LIST_CREDENTIALS_SCRIPT),
            add_signal: Script::new(ADD_SIGNAL_SCRIPT),
            keys: Keys::new(&config.key_prefix),
        })
    }

    /// Runs the commit script and `WAIT` in one round trip (a pipeline on
    /// one connection, so `WAIT` counts the replicas that have the
    /// commit). A commit that fewer replicas confirm in time is reported
    /// as unavailable: it is on the primary, and a retry of the request
    /// finds it there, but a failover now could lose it.
    async fn commit_and_wait(
        &self,
        command: &redis::Cmd,
        conn: &mut Connection,
        wait: WaitForReplicas,
    ) -> Result<(i8, i64), StoreError> {
        let mut loaded = false;
        loop {
            let mut pipe = redis::pipe();
            pipe.add_command(command.clone())
                .cmd("WAIT")
                .arg(wait.replicas)
                .arg(wait.timeout_ms);
            let reply: Result<((i8, i64), i64), RedisError> =
                match tokio::time::timeout(wait.deadline(), pipe.query_async(conn)).await {
                    Ok(reply) => reply,
                    Err(_) => {
                        return Err(StoreError::Unavailable(
                            "Redis did not answer the commit in time".to_owned(),
                        ));
                    }
                };
            match reply {
                Ok(((status, version), confirmed)) => {
                    if status == 1 {
                        wait.check(confirmed)?;
                    }
                    return Ok((status, version));
                }
                // The script is not cached on this server yet (a restart or
                // a failover): load it, then try again.
                Err(err) if err.code() == Some("NOSCRIPT") && !loaded => {
                    loaded = true;
                    let _: String = self.endpoint.bounded(self.commit.load_async(conn)).await?;
                }
                Err(err) => {
                    self.endpoint.failed(&err);
                    return Err(unavailable(err));
                }
            }
        }
    }

    /// What in Redis's configuration puts games at risk: a
    /// `maxmemory-policy` that evicts keys (a game or its log could vanish),
    /// or no persistence at all (a restart loses every game), on any
    /// primary of a cluster. An error when Redis cannot be asked (managed services
    /// often refuse `CONFIG`).
    pub async fn durability_findings(&self) -> Result<Vec<String>, StoreError> {
        let mut command = redis::cmd("CONFIG");
        command
            .arg("GET")
            .arg("maxmemory-policy")
            .arg("appendonly")
            .arg("save");
        let mut nodes = self.endpoint.on_every_primary(command).await?;
        nodes.sort_by(|a, b| a.0.cmp(&b.0));
        let cluster = self.endpoint.is_cluster();
        let mut findings = Vec::new();
        for (node, reply) in nodes {
            let config: HashMap<String, String> = reply
                .and_then(|reply| redis::from_redis_value(reply).map_err(|err| err.to_string()))
                .map_err(|err| {
                    StoreError::Unavailable(format!("Redis {node} refused CONFIG GET: {err}"))
                })?;
            let setting = |name: &str| config.get(name).map(String::as_str).unwrap_or("");
            let on = if cluster {
                format!("Redis node {node}")
            } else {
                "Redis".to_owned()
            };
            let policy = setting("maxmemory-policy");
            if policy != "noeviction" {
                findings.push(format!(
                    "{on} maxmemory-policy is '{policy}': under memory pressure it may evict games and their logs; set it to noeviction"
                ));
            }
            if setting("appendonly") != "yes" && setting("save").trim().is_empty() {
                findings.push(format!(
                    "{on} keeps no persistence (appendonly no, no save points): a Redis restart loses every game; enable appendonly"
                ));
            }
        }
        Ok(findings)
    }

    /// Runs commands that may each touch a different hash tag, each given
    /// with its tag, and returns their replies in order: one pipeline on a
    /// single Redis; on a cluster, one pipeline per tag (a tag is one
    /// slot), sent together.
    async fn batch(
        &self,
        commands: Vec<(String, redis::Cmd)>,
    ) -> Result<Vec<redis::Value>, StoreError> {
        if commands.is_empty() {
            return Ok(Vec::new());
        }
        let mut conn = self.endpoint.connection().await?;
        if !self.endpoint.is_cluster() {
            let mut pipe = redis::pipe();
            for (_, command) in commands {
                pipe.add_command(command);
            }
            return self.endpoint.bounded(pipe.query_async(&mut conn)).await;
        }
        let total = commands.len();
        let mut groups: HashMap<String, (Vec<usize>, redis::Pipeline)> = HashMap::new();
        for (index, (tag, command)) in commands.into_iter().enumerate() {
            let (indices, pipe) = groups
                .entry(tag)
                .or_insert_with(|| (Vec::new(), redis::pipe()));
            indices.push(index);
            pipe.add_command(command);
        }
        let replies = futures::future::try_join_all(groups.into_values().map(|(indices, pipe)| {
            let mut conn = conn.clone();
            async move {
                let replies: Vec<redis::Value> =
                    self.endpoint.bounded(pipe.query_async(&mut conn)).await?;
                Ok::<_, StoreError>(indices.into_iter().zip(replies))
            }
        }))
        .await?;
        let mut ordered = vec![redis::Value::Nil; total];
        for (index, reply) in replies.into_iter().flatten() {
            if let Some(slot) = ordered.get_mut(index) {
                *slot = reply;
            }
        }
        Ok(ordered)
    }

    /// Reads game `id`'s log after `after` with [`LOG_SCRIPT`]: at most
    /// `limit` entries (0: all).
    async fn read_log(&self, id: &GameId, after: u64, limit: i64) -> Result<LogRead, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let read: RawLogRead = self
            .endpoint
            .bounded(
                self.log
                    .key(self.keys.state_key(id))
                    .key(self.keys.log_key(id))
                    .arg(after)
                    .arg(limit)
                    .invoke_async(&mut conn),
            )
            .await?;
        decode_log_read(read)
    }
}

/// A count as Redis takes it (a signed 64-bit integer): larger limits read
/// everything anyway.
pub(super) fn count(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

pub(super) fn deadline_arg(deadline: Option<Timestamp>) -> String {
    deadline.map_or(String::new(), |at| at.unix_millis().to_string())
}

/// A commit's audited versions for `commit.lua`: decimal, comma-separated.
fn audited_arg(audited: &[u64]) -> String {
    audited
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

pub(super) fn unavailable(err: RedisError) -> StoreError {
    StoreError::Unavailable(format!("Redis: {err}"))
}

/// A game's state from its hash fields, which exist together or not at all.
pub(super) fn stored_state(
    id: &GameId,
    version: Option<u64>,
    bytes: Option<Vec<u8>>,
) -> Result<Option<StoredState>, StoreError> {
    match (version, bytes) {
        (Some(version), Some(bytes)) => Ok(Some(StoredState { version, bytes })),
        (None, None) => Ok(None),
        _ => Err(StoreError::Corrupt(Corruption::HalfAState {
            game: id.clone(),
        })),
    }
}

pub(super) fn timestamp_of((seconds, micros): (u64, u64)) -> Timestamp {
    Timestamp::from_unix_millis(seconds * 1000 + micros / 1000)
}

/// Entries of XRANGE: `(id, {field: value})`.
pub(super) type RawEntries = Vec<(String, HashMap<String, Vec<u8>>)>;

/// The reply of [`LOG_SCRIPT`].
pub(super) type RawLogRead = (u64, Option<Vec<u8>>, RawEntries);

pub(super) fn decode_log_read(
    (through, archive, entries): RawLogRead,
) -> Result<LogRead, StoreError> {
    Ok(LogRead {
        archive: archive.map(|bytes| StoredArchive { through, bytes }),
        events: decode_entries(entries)?,
    })
}

pub(super) fn decode_entries(entries: RawEntries) -> Result<Vec<StoredEvent>, StoreError> {
    entries
        .into_iter()
        .map(|(id, mut fields)| {
            let version = id
                .strip_prefix("0-")
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| StoreError::Corrupt(Corruption::LogEntryId { id: id.clone() }))?;
            let bytes = fields
                .remove("e")
                .ok_or_else(|| StoreError::Corrupt(Corruption::LogEntryEmpty { id: id.clone() }))?;
            Ok(StoredEvent { version, bytes })
        })
        .collect()
}

/// Sends a script's `EVALSHA` command, and when this Redis has not got the
/// script cached (a restart, a failover), loads it and sends it again. The
/// command is built by its caller straight into one buffer, where a
/// `ScriptInvocation` copies each argument into a vector of its own and then
/// all of them again into its command.
async fn run_script<T: redis::FromRedisValue>(
    script: &Script,
    command: &redis::Cmd,
    conn: &mut Connection,
) -> Result<T, RedisError> {
    match command.query_async(conn).await {
        Err(err) if err.code() == Some("NOSCRIPT") => {
            let _: String = script.load_async(conn).await?;
            command.query_async(conn).await
        }
        reply => reply,
    }
}

#[async_trait]
impl GameLog for RedisStore {
    async fn now(&self) -> Result<Timestamp, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let time: (u64, u64) = self
            .endpoint
            .bounded(redis::cmd("TIME").query_async(&mut conn))
            .await?;
        Ok(timestamp_of(time))
    }

    async fn load(&self, id: &GameId) -> Result<(Option<StoredState>, Timestamp), StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let ((version, bytes), time): ((Option<u64>, Option<Vec<u8>>), (u64, u64)) = self
            .endpoint
            .bounded(
                redis::pipe()
                    .cmd("HMGET")
                    .arg(self.keys.state_key(id))
                    .arg("v")
                    .arg("s")
                    .cmd("TIME")
                    .query_async(&mut conn),
            )
            .await?;
        Ok((stored_state(id, version, bytes)?, timestamp_of(time)))
    }

    async fn load_many(
        &self,
        ids: &[GameId],
    ) -> Result<(Vec<Option<StoredState>>, Timestamp), StoreError> {
        // "Now" comes from the node that holds the first game.
        let time_tag = ids.first().map(Keys::bucket_tag).unwrap_or_default();
        let mut commands: Vec<(String, redis::Cmd)> = ids
            .iter()
            .map(|id| {
                let mut command = redis::cmd("HMGET");
                command.arg(self.keys.state_key(id)).arg("v").arg("s");
                (Keys::bucket_tag(id), command)
            })
            .collect();
        commands.push((time_tag, redis::cmd("TIME")));
        let mut replies = self.batch(commands).await?;
        let time = replies.pop().ok_or_else(|| {
            StoreError::Corrupt(Corruption::Reply {
                what: "TIME",
                detail: "no reply".to_owned(),
            })
        })?;
        let time: (u64, u64) = redis::from_redis_value(time).map_err(|err| {
            StoreError::Corrupt(Corruption::Reply {
                what: "TIME",
                detail: err.to_string(),
            })
        })?;
        let states = ids
            .iter()
            .zip(replies)
            .map(|(id, reply)| {
                let (version, bytes): (Option<u64>, Option<Vec<u8>>) =
                    redis::from_redis_value(reply).map_err(|err| {
                        StoreError::Corrupt(Corruption::Reply {
                            what: "a game's state",
                            detail: format!("game {id}: {err}"),
                        })
                    })?;
                stored_state(id, version, bytes)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((states, timestamp_of(time)))
    }

    async fn commit(&self, id: &GameId, commit: Commit) -> Result<CommitOutcome, StoreError> {
        super::check_commit(&commit)?;
        let mut conn = self.endpoint.connection().await?;
        let tag = Keys::bucket_tag(id);
        let keys = if commit.event.is_some() { 5 } else { 3 };
        let mut command = redis::Cmd::with_capacity(
            3 + keys + 8 + 2 * commit.events.len(),
            commit.state.bytes.len()
                + commit.events.iter().map(|e| e.bytes.len()).sum::<usize>()
                + 512,
        );
        command
            .arg("EVALSHA")
            .arg(self.commit.get_hash())
            .arg(keys)
            .arg(self.keys.state_key(id))
            .arg(self.keys.log_key(id))
            .arg(self.keys.deadlines_key(&tag));
        if let Some(event_id) = &commit.event {
            command
                .arg(self.keys.feed_key(event_id, EventLog::Feed, &tag))
                .arg(self.keys.feed_key(event_id, EventLog::Audit, &tag));
        }
        command
            .arg(commit.expected)
            .arg(commit.state.version)
            .arg(&commit.state.bytes)
            .arg(deadline_arg(commit.deadline))
            .arg(id.as_str())
            .arg(self.keys.changes_channel())
            .arg(commit.event.as_ref().map_or("", EventId::as_str))
            .arg(audited_arg(&commit.audited));
        for event in &commit.events {
            command.arg(event.version).arg(&event.bytes);
        }
        let (status, version): (i8, i64) = match self.wait {
            None => {
                self.endpoint
                    .bounded(run_script(&self.commit, &command, &mut conn))
                    .await?
            }
            Some(wait) => self.commit_and_wait(&command, &mut conn, wait).await?,
        };
        Ok(match status {
            1 => CommitOutcome::Committed,
            0 => CommitOutcome::Conflict {
                current: u64::try_from(version).unwrap_or(0),
            },
            _ => {
                return Err(StoreError::Corrupt(Corruption::StateAndLogDisagree {
                    game: id.clone(),
                    logged: version,
                }));
            }
        })
    }

    async fn confirm_durable(&self, id: &GameId) -> Result<(), StoreError> {
        let Some(wait) = self.wait else {
            return Ok(());
        };
        // `WAIT` counts the replicas that have every write this connection
        // made: a write of its own, in the game's slot, comes after the
        // game's latest commit in the primary's replication stream, so
        // replicas that have it have the commit too.
        let mut conn = self.endpoint.connection().await?;
        let mut pipe = redis::pipe();
        pipe.cmd("SET")
            .arg(self.keys.confirm_key(id))
            .arg(1)
            .arg("PX")
            .arg(60_000)
            .ignore()
            .cmd("WAIT")
            .arg(wait.replicas)
            .arg(wait.timeout_ms);
        let (confirmed,): (i64,) = self
            .endpoint
            .bounded_within(wait.deadline(), pipe.query_async(&mut conn))
            .await?;
        wait.check(confirmed)
    }

    async fn events_after(&self, id: &GameId, after: u64) -> Result<LogRead, StoreError> {
        self.read_log(id, after, 0).await
    }

    async fn events_page(
        &self,
        id: &GameId,
        after: u64,
        limit: usize,
    ) -> Result<LogRead, StoreError> {
        if limit == 0 {
            return Ok(LogRead::default());
        }
        self.read_log(id, after, count(limit)).await
    }

    async fn events_after_many(
        &self,
        cursors: &[(GameId, u64)],
        limit: usize,
    ) -> Result<Vec<LogRead>, StoreError> {
        if cursors.is_empty() {
            return Ok(Vec::new());
        }
        if limit == 0 {
            return Ok(vec![LogRead::default(); cursors.len()]);
        }
        let commands = cursors
            .iter()
            .map(|(id, after)| {
                let mut command = redis::cmd("EVAL");
                command
                    .arg(LOG_SCRIPT)
                    .arg(2)
                    .arg(self.keys.state_key(id))
                    .arg(self.keys.log_key(id))
                    .arg(after)
                    .arg(count(limit));
                (Keys::bucket_tag(id), command)
            })
            .collect();
        self.batch(commands)
            .await?
            .into_iter()
            .map(|reply| {
                let read: RawLogRead = redis::from_redis_value(reply).map_err(|err| {
                    StoreError::Corrupt(Corruption::Reply {
                        what: "event log",
                        detail: err.to_string(),
                    })
                })?;
                decode_log_read(read)
            })
            .collect()
    }

    async fn archive(&self, id: &GameId, archive: StoredArchive) -> Result<bool, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let archived: u8 = self
            .endpoint
            .bounded(
                self.archive
                    .key(self.keys.state_key(id))
                    .key(self.keys.log_key(id))
                    .key(self.keys.deadlines_key(&Keys::bucket_tag(id)))
                    .arg(archive.through)
                    .arg(archive.bytes)
                    .arg(id.as_str())
                    .invoke_async(&mut conn),
            )
            .await?;
        Ok(archived == 1)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        // A write, not a PING: a replica (READONLY), a full Redis that
        // refuses writes, or a wrong node would answer a PING but refuse
        // every commit. On a cluster, a write to every bucket: each slot
        // that holds games must take writes (no CLUSTERDOWN, no primary
        // lost).
        let buckets = if self.endpoint.is_cluster() {
            BUCKETS
        } else {
            1
        };
        let commands = (0..buckets)
            .map(|bucket| {
                let tag = format!("{{g{bucket}}}");
                let mut command = redis::cmd("SET");
                command
                    .arg(self.keys.readiness_key(&tag))
                    .arg(1)
                    .arg("PX")
                    .arg(60_000);
                (tag, command)
            })
            .collect();
        for reply in self.batch(commands).await? {
            if let redis::Value::ServerError(err) = reply {
                return Err(StoreError::Unavailable(format!(
                    "Redis refused a write: {err:?}"
                )));
            }
        }
        Ok(())
    }
}
