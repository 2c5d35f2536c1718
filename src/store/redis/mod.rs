//! The Redis store: production persistence shared by every replica.
//!
//! Key layout. Games are spread over 64 buckets by a hash of their id; every
//! key of a bucket carries the hash tag `{g<bucket>}`, so a game and its
//! bucket's deadline index live in one slot of a Redis Cluster and one
//! script can write them together:
//!
//! - `<prefix>:{g<n>}:<game_id>:state`: a hash with `v` (version) and `s`
//!   (state).
//! - `<prefix>:{g<n>}:<game_id>:log`: a stream of events whose entry IDs are
//!   `0-<version>`, so "events after version v" is an exclusive range from
//!   `0-v` and a blocking `XREAD` from `0-v` wakes on the next event.
//! - `<prefix>:{g<n>}:deadlines`: the bucket's games by the instant they
//!   next need the flag sweeper.
//! - `<prefix>:{e<digest>}:games`: an event's games, members
//!   `<round><board><game_id>` (round and board as ten digits) of one score,
//!   so that their lexical order is the list's order and a page resumes
//!   after the last member it returned.
//!
//! A commit is one Lua script: compare the version, write the state, append
//! the events, and set the game's deadline. "Now" is Redis `TIME`, read in
//! the same round trip as the state, so replicas with skewed clocks agree.
//! A move therefore costs two round trips whatever the game's length.

use std::{collections::HashMap, time::Duration};

mod endpoint;
mod urls;

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

use async_trait::async_trait;
use redis::{Client, RedisError, Script, cluster::ClusterClientBuilder};

use self::{
    endpoint::{Connection, Endpoint},
    urls::{ClusterUrl, SentinelUrl},
};
use super::{
    Change, ChangeFeed, Commit, CommitOutcome, EventPosition, FeedEntry, FeedPosition, GameStore,
    LogRead, StoreError, StoredArchive, StoredEvent, StoredState,
};
use crate::domain::{EventId, GameId, Timestamp};

/// Compare-and-set of the version, state write, event append and deadline,
/// atomically. KEYS: state hash, log stream, the bucket's deadline index,
/// and (for a game of a tournament event) the event's feed in the bucket.
/// ARGV: expected version, new version, state, deadline in ms or "" for
/// none, game id, the announcements' channel, the tournament event's id or
/// "", then (event version, event bytes) pairs. Appends `g <game id> v
/// <version>` to the feed for each event, and publishes `<game id> <new
/// version> <deadline in ms or -> [<event id>]` once written. Returns {1, new},
/// {0, current} on a version conflict, or {-1, logged} when the log does not
/// end at the stored version (state and log disagree: nothing is written).
/// Everything is checked before the first write, because Redis does not undo
/// a script's earlier writes when a later command fails; the events go
/// first, so that a log whose stream refuses their IDs (its last ID ahead
/// of its last entry) fails the commit before anything is written.
const COMMIT_SCRIPT: &str = r"
local stored = redis.call('HGET', KEYS[1], 'v')
local current = 0
if stored then current = tonumber(stored) end
if current ~= tonumber(ARGV[1]) then return {0, current} end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local logged = tonumber(redis.call('HGET', KEYS[1], 'a') or '0')
if #last > 0 then logged = tonumber(string.match(last[1][1], '^0%-(%d+)$')) or -1 end
if logged ~= current then
  return {-1, logged}
end
for i = 8, #ARGV, 2 do
  redis.call('XADD', KEYS[2], '0-' .. ARGV[i], 'e', ARGV[i + 1])
end
if #KEYS > 3 then
  for i = 8, #ARGV, 2 do
    redis.call('XADD', KEYS[4], '*', 'g', ARGV[5], 'v', ARGV[i])
  end
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[3], ARGV[5])
else
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
end
local deadline = ARGV[4]
if deadline == '' then deadline = '-' end
local announcement = ARGV[5] .. ' ' .. ARGV[2] .. ' ' .. deadline
if ARGV[7] ~= '' then announcement = announcement .. ' ' .. ARGV[7] end
redis.call('PUBLISH', ARGV[6], announcement)
return {1, tonumber(ARGV[2])}
";

/// A read of a game's log. KEYS: state hash, log stream. ARGV: the version
/// to read after, the most entries to return (0: all). Returns {archived
/// through, the archive when the read reaches into it or nil, entries}: the
/// entries come after the archive.
const LOG_SCRIPT: &str = r"
local through = redis.call('HGET', KEYS[1], 'a')
local start = ARGV[1]
local archive = false
if through and tonumber(ARGV[1]) < tonumber(through) then
  archive = redis.call('HGET', KEYS[1], 'x')
  start = through
end
local entries
if ARGV[2] == '0' then
  entries = redis.call('XRANGE', KEYS[2], '(0-' .. start, '+')
else
  entries = redis.call('XRANGE', KEYS[2], '(0-' .. start, '+', 'COUNT', ARGV[2])
end
return {tonumber(through or '0'), archive, entries}
";

/// Archiving a game's log. KEYS: state hash, log stream, the bucket's
/// deadline index. ARGV: the version the archive runs through, the archive,
/// game id. When the game is stored at that version, keeps the archive in
/// the state hash (`a`: the version it runs through, `x`: the archive), drops
/// the log's entries and the game's deadline entry, and returns 1; returns 0
/// otherwise. Commits after it start a new stream of entries.
const ARCHIVE_SCRIPT: &str = r"
local stored = redis.call('HGET', KEYS[1], 'v')
if not stored or tonumber(stored) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'a', ARGV[1], 'x', ARGV[2])
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[3])
return 1
";

/// The sweeper's repair of one deadline entry. KEYS: state hash, the
/// bucket's deadline index. ARGV: the version the deadline was computed
/// from (0: the game does not exist), deadline in ms or "", game id. Does
/// nothing when the game has moved on since.
const REPAIR_SCRIPT: &str = r"
local stored = redis.call('HGET', KEYS[1], 'v')
local current = 0
if stored then current = tonumber(stored) end
if current ~= tonumber(ARGV[1]) then return 0 end
if ARGV[2] == '' then
  redis.call('ZREM', KEYS[2], ARGV[3])
else
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
end
return 1
";

/// Lists a game in its event unless the event's list is full (see the
/// script's header for its keys and arguments).
const LIST_IN_EVENT_SCRIPT: &str = include_str!("list_in_event.lua");

/// Games are spread over this many buckets, each in its own hash slot. The
/// number is part of the key layout: changing it moves every game.
const BUCKETS: u32 = 64;

/// Upper bound for any single request to Redis, reconnection included, so
/// that an outage turns into a prompt UNAVAILABLE rather than a hang.
const REQUEST_DEADLINE: Duration = Duration::from_secs(3);

/// How to reach Redis.
#[derive(Clone, Debug)]
pub struct RedisConfig {
    /// A `redis://` or `rediss://` URL, a `redis+sentinel://` URL (the
    /// Sentinels of a primary), or a `redis+cluster://` or
    /// `rediss+cluster://` URL (seed nodes of a Redis Cluster).
    pub url: String,
    /// The first part of every key, to share a Redis between deployments.
    pub key_prefix: String,
    /// TLS settings beyond the URL's scheme, for a `rediss://` URL.
    pub tls: RedisTls,
    /// Whether a commit waits for replicas to have it before it counts.
    pub wait: Option<WaitForReplicas>,
}

/// A commit is acknowledged only once this many replicas have it (Redis
/// `WAIT`), so that a failover does not lose it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitForReplicas {
    /// Replicas that must have the commit.
    pub replicas: u32,
    /// How long to wait for them, in milliseconds.
    pub timeout_ms: u32,
}

impl WaitForReplicas {
    /// How long a request that waits for the replicas may take in all.
    fn deadline(&self) -> Duration {
        REQUEST_DEADLINE + Duration::from_millis(u64::from(self.timeout_ms))
    }

    /// Whether `confirmed` replicas are enough.
    fn check(&self, confirmed: i64) -> Result<(), StoreError> {
        if confirmed < i64::from(self.replicas) {
            return Err(StoreError::NotReplicated {
                confirmed,
                required: self.replicas,
                timeout_ms: self.timeout_ms,
            });
        }
        Ok(())
    }
}

/// TLS for a `rediss://` URL. Without a CA the system's roots verify the
/// server; with a client certificate and key the connection is mutual TLS.
#[derive(Clone, Default)]
pub struct RedisTls {
    /// The PEM of the CA(s) that sign the server's certificate.
    pub ca_pem: Option<Vec<u8>>,
    /// The client's certificate chain and private key, both PEM.
    pub client_pem: Option<(Vec<u8>, Vec<u8>)>,
}

impl std::fmt::Debug for RedisTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never prints the private key.
        f.debug_struct("RedisTls")
            .field("ca", &self.ca_pem.is_some())
            .field("client_certificate", &self.client_pem.is_some())
            .finish()
    }
}

impl RedisTls {
    fn is_set(&self) -> bool {
        self.ca_pem.is_some() || self.client_pem.is_some()
    }

    fn certificates(&self) -> redis::TlsCertificates {
        redis::TlsCertificates {
            client_tls: self
                .client_pem
                .as_ref()
                .map(|(cert, key)| redis::ClientTlsConfig {
                    client_cert: cert.clone(),
                    client_key: key.clone(),
                }),
            root_cert: self.ca_pem.clone(),
        }
    }
}

/// The client for `config`: plain, TLS with the system's roots, or TLS
/// with the configured CA and client certificate.
fn client(config: &RedisConfig) -> Result<Client, StoreError> {
    let invalid = |err: RedisError| StoreError::Unavailable(format!("invalid Redis URL: {err}"));
    if !config.tls.is_set() {
        return Client::open(config.url.as_str()).map_err(invalid);
    }
    if !config.url.starts_with("rediss://") {
        return Err(StoreError::Unavailable(
            "a Redis CA or client certificate is configured, but the URL is not rediss://"
                .to_owned(),
        ));
    }
    Client::build_with_tls(config.url.as_str(), config.tls.certificates())
        .map_err(|err| StoreError::Unavailable(format!("invalid Redis TLS settings: {err}")))
}

/// The client of the cluster that a `redis+cluster://` (or
/// `rediss+cluster://`) URL names, and a client of each seed node.
fn cluster_client(
    config: &RedisConfig,
) -> Result<(redis::cluster::ClusterClient, Vec<Client>), StoreError> {
    let url = ClusterUrl::parse(&config.url)
        .map_err(|err| StoreError::Unavailable(format!("invalid Redis Cluster URL: {err}")))?;
    if config.tls.is_set() && !url.tls {
        return Err(StoreError::Unavailable(
            "a Redis CA or client certificate is configured, but the URL is not rediss+cluster://"
                .to_owned(),
        ));
    }
    // Response timeouts are set per connection: a blocking reader's own
    // connection waits longer than the shared one.
    let seeds = url
        .nodes
        .iter()
        .map(|node| {
            let node = RedisConfig {
                url: node.clone(),
                ..config.clone()
            };
            client(&node)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut builder = ClusterClientBuilder::new(url.nodes)
        .connection_timeout(Duration::from_secs(1))
        .overall_response_timeout(None);
    if config.tls.is_set() {
        builder = builder.certs(config.tls.certificates());
    }
    let cluster = builder
        .build()
        .map_err(|err| StoreError::Unavailable(format!("invalid Redis Cluster settings: {err}")))?;
    Ok((cluster, seeds))
}

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
    prefix: String,
    /// The pub/sub channel of commit announcements.
    changes_channel: String,
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
            prefix: config.key_prefix.clone(),
            changes_channel: format!("{}:changes", config.key_prefix),
        })
    }

    /// Runs the commit script and `WAIT` in one round trip (a pipeline on
    /// one connection, so `WAIT` counts the replicas that have the
    /// commit). A commit that fewer replicas confirm in time is reported
    /// as unavailable: it is on the primary, and a retry of the request
    /// finds it there, but a failover now could lose it.
    async fn commit_and_wait(
        &self,
        invocation: &redis::ScriptInvocation<'_>,
        conn: &mut Connection,
        wait: WaitForReplicas,
    ) -> Result<(i8, i64), StoreError> {
        let mut loaded = false;
        loop {
            let mut pipe = redis::pipe();
            pipe.invoke_script(invocation)
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
                    let _: String = self.endpoint.bounded(invocation.load_async(conn)).await?;
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

    /// The hash tag of a game's bucket (FNV-1a of its id).
    fn bucket_tag(id: &GameId) -> String {
        format!("{{g{}}}", Self::bucket(id))
    }

    fn state_key(&self, id: &GameId) -> String {
        format!("{}:{}:{}:state", self.prefix, Self::bucket_tag(id), id)
    }

    fn log_key(&self, id: &GameId) -> String {
        format!("{}:{}:{}:log", self.prefix, Self::bucket_tag(id), id)
    }

    /// Reads game `id`'s log after `after` with [`LOG_SCRIPT`]: at most
    /// `limit` entries (0: all).
    async fn read_log(&self, id: &GameId, after: u64, limit: i64) -> Result<LogRead, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let read: RawLogRead = self
            .endpoint
            .bounded(
                self.log
                    .key(self.state_key(id))
                    .key(self.log_key(id))
                    .arg(after)
                    .arg(limit)
                    .invoke_async(&mut conn),
            )
            .await?;
        decode_log_read(read)
    }

    /// The key of a replica's claim on sweeping game `id`.
    fn sweep_claim_key(&self, id: &GameId) -> String {
        format!("{}:{}:sweeping:{}", self.prefix, Self::bucket_tag(id), id)
    }

    fn deadlines_key(&self, tag: &str) -> String {
        format!("{}:{}:deadlines", self.prefix, tag)
    }

    /// The key of an event's game list. Event ids are free text, so the
    /// hash tag is a digest of the id rather than the id itself.
    fn event_key(&self, event_id: &EventId) -> String {
        format!("{}:{{e{}}}:games", self.prefix, event_digest(event_id))
    }

    /// The key of an event's feed in the bucket with hash tag `tag`: the
    /// events of the event's games of that bucket, as `g <game id> v
    /// <version>` entries in commit order.
    fn feed_key(&self, event_id: &EventId, tag: &str) -> String {
        format!("{}:{tag}:feed:{}", self.prefix, event_digest(event_id))
    }

    /// The bucket of a game: its feed partition.
    fn bucket(id: &GameId) -> u32 {
        id.as_str().bytes().fold(0x811c_9dc5_u32, |hash, byte| {
            (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
        }) % BUCKETS
    }
}

/// A digest of a (free-text) event id, for keys.
fn event_digest(event_id: &EventId) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(event_id.as_str().as_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
}

/// A feed position as a stream entry id.
fn stream_id(position: FeedPosition) -> String {
    format!("{}-{}", position.major, position.minor)
}

/// A stream entry id as a feed position.
fn feed_position(id: &str) -> Result<FeedPosition, StoreError> {
    id.split_once('-')
        .and_then(|(major, minor)| {
            Some(FeedPosition {
                major: major.parse().ok()?,
                minor: minor.parse().ok()?,
            })
        })
        .ok_or_else(|| StoreError::Corrupt(format!("feed entry id {id}")))
}

/// The member of an event list that sorts (lexically) in list order.
fn event_member(position: &EventPosition) -> String {
    format!(
        "{:010}{:010}{}",
        position.round, position.board, position.game
    )
}

fn event_position(member: &str) -> Result<EventPosition, StoreError> {
    let corrupt = || StoreError::Corrupt(format!("event list member '{member}'"));
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

/// A count as Redis takes it (a signed 64-bit integer): larger limits read
/// everything anyway.
fn count(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX)
}

fn deadline_arg(deadline: Option<Timestamp>) -> String {
    deadline.map_or(String::new(), |at| at.unix_millis().to_string())
}

fn unavailable(err: RedisError) -> StoreError {
    StoreError::Unavailable(format!("Redis: {err}"))
}

/// A game's state from its hash fields, which exist together or not at all.
fn stored_state(
    id: &GameId,
    version: Option<u64>,
    bytes: Option<Vec<u8>>,
) -> Result<Option<StoredState>, StoreError> {
    match (version, bytes) {
        (Some(version), Some(bytes)) => Ok(Some(StoredState { version, bytes })),
        (None, None) => Ok(None),
        _ => Err(StoreError::Corrupt(format!(
            "game {id} has a version without a state or a state without a version"
        ))),
    }
}

fn timestamp_of((seconds, micros): (u64, u64)) -> Timestamp {
    Timestamp::from_unix_millis(seconds * 1000 + micros / 1000)
}

/// Entries of XRANGE: `(id, {field: value})`.
type RawEntries = Vec<(String, HashMap<String, Vec<u8>>)>;

/// The reply of [`LOG_SCRIPT`].
type RawLogRead = (u64, Option<Vec<u8>>, RawEntries);

fn decode_log_read((through, archive, entries): RawLogRead) -> Result<LogRead, StoreError> {
    Ok(LogRead {
        archive: archive.map(|bytes| StoredArchive { through, bytes }),
        events: decode_entries(entries)?,
    })
}

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
                    .arg(self.state_key(id))
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
        let time_tag = ids.first().map(Self::bucket_tag).unwrap_or_default();
        let mut commands: Vec<(String, redis::Cmd)> = ids
            .iter()
            .map(|id| {
                let mut command = redis::cmd("HMGET");
                command.arg(self.state_key(id)).arg("v").arg("s");
                (Self::bucket_tag(id), command)
            })
            .collect();
        commands.push((time_tag, redis::cmd("TIME")));
        let mut replies = self.batch(commands).await?;
        let time = replies
            .pop()
            .ok_or_else(|| StoreError::Corrupt("no reply to TIME".to_owned()))?;
        let time: (u64, u64) = redis::from_redis_value(time)
            .map_err(|err| StoreError::Corrupt(format!("TIME: {err}")))?;
        let states = ids
            .iter()
            .zip(replies)
            .map(|(id, reply)| {
                let (version, bytes): (Option<u64>, Option<Vec<u8>>) =
                    redis::from_redis_value(reply)
                        .map_err(|err| StoreError::Corrupt(format!("game {id}: {err}")))?;
                stored_state(id, version, bytes)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((states, timestamp_of(time)))
    }

    async fn commit(&self, id: &GameId, commit: Commit) -> Result<CommitOutcome, StoreError> {
        super::check_commit(&commit)?;
        let mut conn = self.endpoint.connection().await?;
        let mut invocation = self.commit.key(self.state_key(id));
        invocation
            .key(self.log_key(id))
            .key(self.deadlines_key(&Self::bucket_tag(id)))
            .arg(commit.expected)
            .arg(commit.state.version)
            .arg(commit.state.bytes)
            .arg(deadline_arg(commit.deadline))
            .arg(id.as_str())
            .arg(&self.changes_channel)
            .arg(commit.event.as_ref().map_or("", EventId::as_str));
        if let Some(event_id) = &commit.event {
            invocation.key(self.feed_key(event_id, &Self::bucket_tag(id)));
        }
        for event in commit.events {
            invocation.arg(event.version).arg(event.bytes);
        }
        let (status, version): (i8, i64) = match self.wait {
            None => {
                self.endpoint
                    .bounded(invocation.invoke_async(&mut conn))
                    .await?
            }
            Some(wait) => self.commit_and_wait(&invocation, &mut conn, wait).await?,
        };
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
            .arg(format!("{}:{}:confirm", self.prefix, Self::bucket_tag(id)))
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
                    .arg(self.state_key(id))
                    .arg(self.log_key(id))
                    .arg(after)
                    .arg(count(limit));
                (Self::bucket_tag(id), command)
            })
            .collect();
        self.batch(commands)
            .await?
            .into_iter()
            .map(|reply| {
                let read: RawLogRead = redis::from_redis_value(reply)
                    .map_err(|err| StoreError::Corrupt(format!("event log: {err}")))?;
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
                    .key(self.state_key(id))
                    .key(self.log_key(id))
                    .key(self.deadlines_key(&Self::bucket_tag(id)))
                    .arg(archive.through)
                    .arg(archive.bytes)
                    .arg(id.as_str())
                    .invoke_async(&mut conn),
            )
            .await?;
        Ok(archived == 1)
    }

    async fn changes(&self) -> Result<Box<dyn ChangeFeed>, StoreError> {
        static ATTEMPTS: AtomicUsize = AtomicUsize::new(0);
        let client = self
            .endpoint
            .subscriber(ATTEMPTS.fetch_add(1, Ordering::Relaxed))
            .await?;
        let mut pubsub = self.endpoint.bounded(client.get_async_pubsub()).await?;
        self.endpoint
            .bounded(pubsub.subscribe(&self.changes_channel))
            .await?;
        let (sink, stream) = pubsub.split();
        Ok(Box::new(RedisFeed {
            sink,
            stream,
            next_ping: tokio::time::Instant::now() + FEED_PING,
        }))
    }

    fn feed_partitions(&self) -> u32 {
        BUCKETS
    }

    fn feed_partition(&self, id: &GameId) -> u32 {
        Self::bucket(id)
    }

    async fn event_feed(
        &self,
        event_id: &EventId,
        cursors: &[(u32, FeedPosition)],
        limit: usize,
    ) -> Result<Vec<Vec<FeedEntry>>, StoreError> {
        if cursors.is_empty() || limit == 0 {
            return Ok(vec![Vec::new(); cursors.len()]);
        }
        // The feed entries after each cursor, one pipeline per slot ...
        let commands = cursors
            .iter()
            .map(|(partition, after)| {
                let tag = format!("{{g{partition}}}");
                let start = if *after == FeedPosition::default() {
                    "-".to_owned()
                } else {
                    format!("({}", stream_id(*after))
                };
                let mut command = redis::cmd("XRANGE");
                command
                    .arg(self.feed_key(event_id, &tag))
                    .arg(start)
                    .arg("+")
                    .arg("COUNT")
                    .arg(count(limit));
                (tag, command)
            })
            .collect();
        let mut pages: Vec<Vec<(FeedPosition, GameId, u64)>> = Vec::new();
        for reply in self.batch(commands).await? {
            let entries: Vec<(String, HashMap<String, String>)> = redis::from_redis_value(reply)
                .map_err(|err| StoreError::Corrupt(format!("event feed: {err}")))?;
            let page = entries
                .into_iter()
                .map(|(id, fields)| {
                    let game = fields
                        .get("g")
                        .and_then(|game| GameId::parse(game).ok())
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!("feed entry {id} has no game"))
                        })?;
                    let version = fields
                        .get("v")
                        .and_then(|version| version.parse().ok())
                        .ok_or_else(|| {
                            StoreError::Corrupt(format!("feed entry {id} has no version"))
                        })?;
                    Ok((feed_position(&id)?, game, version))
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            pages.push(page);
        }
        // ... then the events they name, one range of each game's log.
        let mut spans: HashMap<&GameId, (u64, u64)> = HashMap::new();
        for (_, game, version) in pages.iter().flatten() {
            let (low, high) = spans.entry(game).or_insert((*version, *version));
            *low = (*low).min(*version);
            *high = (*high).max(*version);
        }
        let ranges: Vec<(GameId, u64, u64)> = spans
            .into_iter()
            .map(|(game, (low, high))| (game.clone(), low, high))
            .collect();
        let commands = ranges
            .iter()
            .map(|(game, low, high)| {
                let mut command = redis::cmd("XRANGE");
                command
                    .arg(self.log_key(game))
                    .arg(format!("0-{low}"))
                    .arg(format!("0-{high}"));
                (Self::bucket_tag(game), command)
            })
            .collect();
        let mut logged: HashMap<(GameId, u64), StoredEvent> = HashMap::new();
        for ((game, ..), reply) in ranges.iter().zip(self.batch(commands).await?) {
            let entries: RawEntries = redis::from_redis_value(reply)
                .map_err(|err| StoreError::Corrupt(format!("event log: {err}")))?;
            for event in decode_entries(entries)? {
                logged.insert((game.clone(), event.version), event);
            }
        }
        Ok(pages
            .into_iter()
            .map(|page| {
                page.into_iter()
                    .map(|(position, game, version)| FeedEntry {
                        // Not among the entries: archived (the reader reads
                        // the game's log for it, and finds it there or
                        // reports the log corrupt).
                        event: logged.remove(&(game.clone(), version)),
                        version,
                        position,
                        game,
                    })
                    .collect()
            })
            .collect())
    }

    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<GameId>, StoreError> {
        let commands = (0..BUCKETS)
            .map(|bucket| {
                let tag = format!("{{g{bucket}}}");
                let mut command = redis::cmd("ZRANGEBYSCORE");
                command
                    .arg(self.deadlines_key(&tag))
                    .arg("-inf")
                    .arg(now.unix_millis())
                    .arg("LIMIT")
                    .arg(0)
                    .arg(count(limit));
                (tag, command)
            })
            .collect();
        let buckets = self
            .batch(commands)
            .await?
            .into_iter()
            .map(|reply| {
                redis::from_redis_value::<Vec<String>>(reply)
                    .map_err(|err| StoreError::Corrupt(format!("deadline index: {err}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(buckets
            .into_iter()
            .flatten()
            .filter_map(|id| GameId::parse(&id).ok())
            .take(limit)
            .collect())
    }

    async fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError> {
        let commands = (0..BUCKETS)
            .map(|bucket| {
                let tag = format!("{{g{bucket}}}");
                let mut command = redis::cmd("ZRANGE");
                command
                    .arg(self.deadlines_key(&tag))
                    .arg(0)
                    .arg(0)
                    .arg("WITHSCORES");
                (tag, command)
            })
            .collect();
        let mut earliest: Option<Timestamp> = None;
        for reply in self.batch(commands).await? {
            let first: Vec<(String, f64)> = redis::from_redis_value(reply)
                .map_err(|err| StoreError::Corrupt(format!("deadline index: {err}")))?;
            for (_, score) in first {
                // Scores are whole milliseconds since the epoch.
                let at = Timestamp::from_unix_millis(score.max(0.0) as u64);
                earliest = Some(earliest.map_or(at, |known| known.min(at)));
            }
        }
        Ok(earliest)
    }

    async fn claim_sweep(&self, id: &GameId, for_ms: u64) -> Result<bool, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let claimed: Option<String> = self
            .endpoint
            .bounded(
                redis::cmd("SET")
                    .arg(self.sweep_claim_key(id))
                    .arg(1)
                    .arg("NX")
                    .arg("PX")
                    .arg(for_ms.max(1))
                    .query_async(&mut conn),
            )
            .await?;
        Ok(claimed.is_some())
    }

    async fn release_sweep(&self, id: &GameId) -> Result<(), StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let _: i64 = self
            .endpoint
            .bounded(
                redis::cmd("DEL")
                    .arg(self.sweep_claim_key(id))
                    .query_async(&mut conn),
            )
            .await?;
        Ok(())
    }

    async fn repair_deadline(
        &self,
        id: &GameId,
        version: u64,
        deadline: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let _: u8 = self
            .endpoint
            .bounded(
                self.repair
                    .key(self.state_key(id))
                    .key(self.deadlines_key(&Self::bucket_tag(id)))
                    .arg(version)
                    .arg(deadline_arg(deadline))
                    .arg(id.as_str())
                    .invoke_async(&mut conn),
            )
            .await?;
        Ok(())
    }

    async fn add_to_event(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<bool, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let listed: u8 = self
            .endpoint
            .bounded(
                self.list_in_event
                    .key(self.event_key(event_id))
                    .arg(event_member(position))
                    .arg(max_entries)
                    .invoke_async(&mut conn),
            )
            .await?;
        Ok(listed == 1)
    }

    async fn event_games(
        &self,
        event_id: &EventId,
        after: Option<&EventPosition>,
        limit: usize,
    ) -> Result<Vec<EventPosition>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut conn = self.endpoint.connection().await?;
        let start = after.map_or("-".to_owned(), |after| format!("({}", event_member(after)));
        let members: Vec<String> = self
            .endpoint
            .bounded(
                redis::cmd("ZRANGE")
                    .arg(self.event_key(event_id))
                    .arg(start)
                    .arg("+")
                    .arg("BYLEX")
                    .arg("LIMIT")
                    .arg(0)
                    .arg(count(limit))
                    .query_async(&mut conn),
            )
            .await?;
        members
            .iter()
            .map(|member| event_position(member))
            .collect()
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
                    .arg(format!("{}:{tag}:readiness", self.prefix))
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

/// How often an idle announcement subscription is checked with a `PING`:
/// a connection that died without closing would otherwise go unnoticed.
const FEED_PING: Duration = Duration::from_secs(5);

/// Commit announcements from a Redis pub/sub subscription.
struct RedisFeed {
    sink: redis::aio::PubSubSink,
    stream: redis::aio::PubSubStream,
    next_ping: tokio::time::Instant,
}

#[async_trait]
impl ChangeFeed for RedisFeed {
    async fn next(&mut self) -> Result<Change, StoreError> {
        use futures::StreamExt;
        loop {
            tokio::select! {
                message = self.stream.next() => {
                    let Some(message) = message else {
                        return Err(StoreError::Unavailable(
                            "the Redis announcement subscription closed".to_owned(),
                        ));
                    };
                    let payload: String = message.get_payload().unwrap_or_default();
                    let mut parts = payload.splitn(4, ' ');
                    let change = (|| {
                        Some(Change {
                            game: GameId::parse(parts.next()?).ok()?,
                            version: parts.next()?.parse().ok()?,
                            deadline: match parts.next()? {
                                "-" => None,
                                millis => Some(Timestamp::from_unix_millis(millis.parse().ok()?)),
                            },
                            event: match parts.next() {
                                None => None,
                                Some(event) => Some(EventId::parse(event).ok()?),
                            },
                        })
                    })();
                    // Anything else on the channel is not ours: skipped.
                    if let Some(change) = change {
                        return Ok(change);
                    }
                }
                () = tokio::time::sleep_until(self.next_ping) => {
                    let pong: Result<Result<redis::Value, RedisError>, _> =
                        tokio::time::timeout(REQUEST_DEADLINE, self.sink.ping()).await;
                    if !matches!(pong, Ok(Ok(_))) {
                        return Err(StoreError::Unavailable(
                            "the Redis announcement subscription stopped answering".to_owned(),
                        ));
                    }
                    self.next_ping = tokio::time::Instant::now() + FEED_PING;
                }
            }
        }
    }
}
