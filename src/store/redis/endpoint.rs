//! Where the store's Redis is: a fixed address, whichever node a set of
//! Sentinels currently names (followed across failovers), or a Redis
//! Cluster.
//!
//! With Sentinel, the primary is looked up on first use and again after any
//! error that says it may have moved: a write refused as `READONLY` (the old
//! primary was demoted), a connection refused or dropped, or a request that
//! timed out. The failed request itself is reported as unavailable; the
//! next one goes to the new primary. Every write is safe to repeat (the
//! version compare-and-set), so a client's retry lands exactly once.
//!
//! On a Cluster, the cluster client routes every request to the node that
//! holds its slot and follows `MOVED`, `ASK` and failovers by itself; after
//! an error that says the whole cluster may be out of reach the client is
//! built afresh from the seed nodes.

use std::{future::Future, sync::Mutex, time::Duration};

use redis::{
    Client, ConnectionAddr, Pipeline, RedisError, RedisFuture, Value,
    aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig},
    cluster::{ClusterClient, ClusterConfig},
    cluster_async::ClusterConnection,
    cluster_routing::{MultipleNodeRoutingInfo, RoutingInfo},
    sentinel::{SentinelClient, SentinelClientBuilder, SentinelServerType},
};

use super::{REQUEST_DEADLINE, unavailable, urls::SentinelUrl};
use crate::store::{Corruption, StoreError};

/// A connection that requests go through: to one node (shared and
/// reconnecting), or to a cluster.
#[derive(Clone)]
pub(super) enum Connection {
    /// The shared, reconnecting connection to one node.
    Node(ConnectionManager),
    /// A cluster, each request routed to the node that holds its keys.
    Cluster(ClusterConnection),
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a redis::Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Node(conn) => conn.req_packed_command(cmd),
            Self::Cluster(conn) => conn.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Node(conn) => conn.req_packed_commands(pipeline, offset, count),
            Self::Cluster(conn) => conn.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Node(conn) => conn.get_db(),
            Self::Cluster(conn) => conn.get_db(),
        }
    }
}

/// What requests go to: a node's client and shared connection, or a
/// cluster's.
#[derive(Clone)]
enum Target {
    Node {
        client: Box<Client>,
        conn: ConnectionManager,
    },
    Cluster {
        conn: ClusterConnection,
    },
}

impl Target {
    /// The shared connection to this target.
    fn connection(&self) -> Connection {
        match self {
            Target::Node { conn, .. } => Connection::Node(conn.clone()),
            Target::Cluster { conn } => Connection::Cluster(conn.clone()),
        }
    }
}

enum Source {
    /// One address, reconnected to by the connection manager.
    Fixed,
    /// The primary the Sentinels name, looked up again when it may have
    /// moved.
    Sentinel(Box<tokio::sync::Mutex<SentinelClient>>),
    /// A Redis Cluster, found from its seed nodes; a client of each seed
    /// node too, for the announcements' subscription.
    Cluster(Box<ClusterClient>, Vec<Client>),
}

/// The store's way to Redis.
pub(super) struct Endpoint {
    source: Source,
    target: Mutex<Option<Target>>,
}

fn manager_config() -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(1)))
        .set_response_timeout(Some(Duration::from_secs(2)))
        .set_number_of_retries(2)
        .set_max_delay(Duration::from_millis(500))
}

fn node(client: Client) -> Result<Target, StoreError> {
    let conn = ConnectionManager::new_lazy_with_config(client.clone(), manager_config())
        .map_err(unavailable)?;
    Ok(Target::Node {
        client: Box::new(client),
        conn,
    })
}

/// Whether an error suggests that the primary has moved (or, on a cluster,
/// that the cluster is out of reach).
fn may_have_moved(err: &RedisError) -> bool {
    err.code() == Some("READONLY")
        || err.is_io_error()
        || err.is_connection_refusal()
        || err.is_connection_dropped()
        || err.is_timeout()
}

impl Endpoint {
    /// A primary at one address (connected to lazily).
    pub(super) fn fixed(client: Client) -> Result<Self, StoreError> {
        Ok(Self {
            source: Source::Fixed,
            target: Mutex::new(Some(node(client)?)),
        })
    }

    /// A Redis Cluster (connected to lazily, on first use).
    pub(super) fn cluster(client: ClusterClient, seeds: Vec<Client>) -> Self {
        Self {
            source: Source::Cluster(Box::new(client), seeds),
            target: Mutex::new(None),
        }
    }

    /// The primary that `sentinels` name `service`, for a
    /// `redis+sentinel://` URL.
    pub(super) fn sentinel(url: &SentinelUrl) -> Result<Self, StoreError> {
        let mut builder = SentinelClientBuilder::new(
            url.sentinels
                .iter()
                .map(|(host, port)| ConnectionAddr::Tcp(host.clone(), *port)),
            &url.service,
            SentinelServerType::Master,
        )
        .map_err(unavailable)?
        .set_client_to_redis_db(url.db);
        if let Some(username) = &url.username {
            builder = builder.set_client_to_redis_username(username);
        }
        if let Some(password) = &url.password {
            builder = builder.set_client_to_redis_password(password);
        }
        Ok(Self {
            source: Source::Sentinel(Box::new(tokio::sync::Mutex::new(
                builder.build().map_err(unavailable)?,
            ))),
            target: Mutex::new(None),
        })
    }

    /// Whether requests go to a cluster, where keys of different hash tags
    /// may live on different nodes.
    pub(super) fn is_cluster(&self) -> bool {
        matches!(self.source, Source::Cluster(..))
    }

    fn current(&self) -> Option<Target> {
        self.target
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    fn remember(&self, target: Target) {
        *self
            .target
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(target);
    }

    /// Where requests go, looked up through the Sentinels (or connected to
    /// the cluster) when not known.
    async fn target(&self) -> Result<Target, StoreError> {
        if let Some(known) = self.current() {
            return Ok(known);
        }
        match &self.source {
            Source::Fixed => Err(StoreError::Unavailable(
                "no Redis primary configured".to_owned(),
            )),
            Source::Cluster(client, _) => {
                // Connects in the background: the first requests wait for
                // it, and fail as unavailable if the cluster is out of reach.
                let conn = client.get_pending_async_connection_with_config(
                    ClusterConfig::new()
                        .set_connection_timeout(Duration::from_secs(1))
                        .set_response_timeout(Duration::from_secs(2)),
                );
                let target = Target::Cluster { conn };
                self.remember(target.clone());
                Ok(target)
            }
            Source::Sentinel(sentinels) => {
                let mut sentinels = sentinels.lock().await;
                // Another request may have looked it up while this one waited.
                if let Some(known) = self.current() {
                    return Ok(known);
                }
                let client = match tokio::time::timeout(
                    REQUEST_DEADLINE,
                    sentinels.async_get_client(),
                )
                .await
                {
                    Ok(client) => client.map_err(|err| {
                        StoreError::Unavailable(format!(
                            "no Redis primary from the Sentinels: {err}"
                        ))
                    })?,
                    Err(_) => {
                        return Err(StoreError::Unavailable(
                            "the Sentinels did not name a Redis primary in time".to_owned(),
                        ));
                    }
                };
                let found = node(client)?;
                self.remember(found.clone());
                tracing::info!("Redis primary found through the Sentinels");
                Ok(found)
            }
        }
    }

    /// The shared connection.
    pub(super) async fn connection(&self) -> Result<Connection, StoreError> {
        // Every command asks for it: the known one is taken without a copy
        // of the client beside it (its address, credentials and options).
        let known = self
            .target
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .as_ref()
            .map(Target::connection);
        match known {
            Some(known) => Ok(known),
            None => Ok(self.target().await?.connection()),
        }
    }

    /// A client for a subscription to announcements: the primary's, or on
    /// a cluster (where a message published on any node reaches every
    /// node) the `attempt`-th seed node's, so that retries go round them.
    pub(super) async fn subscriber(&self, attempt: usize) -> Result<Client, StoreError> {
        match (&self.source, self.target().await?) {
            (Source::Cluster(_, seeds), _) => seeds
                .get(attempt % seeds.len().max(1))
                .cloned()
                .ok_or_else(|| StoreError::Unavailable("no Redis Cluster seed node".to_owned())),
            (_, Target::Node { client, .. }) => Ok(*client),
            (_, Target::Cluster { .. }) => Err(StoreError::Unavailable(
                "a cluster connection without a cluster".to_owned(),
            )),
        }
    }

    /// Runs `command` on every primary of the cluster (or on the one
    /// node), with each node's reply or error by its address.
    pub(super) async fn on_every_primary(
        &self,
        command: redis::Cmd,
    ) -> Result<Vec<(String, Result<Value, String>)>, StoreError> {
        match self.connection().await? {
            Connection::Cluster(mut conn) => {
                let reply = self
                    .bounded(conn.route_command(
                        command,
                        RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None)),
                    ))
                    .await?;
                let Value::Map(replies) = reply else {
                    return Err(StoreError::Corrupt(Corruption::NotEveryNode {
                        reply: format!("{reply:?}"),
                    }));
                };
                Ok(replies
                    .into_iter()
                    .map(|(node, reply)| {
                        let node = redis::from_redis_value::<String>(node)
                            .unwrap_or_else(|_| "a node".to_owned());
                        let reply = match reply {
                            Value::ServerError(err) => Err(format!("{err:?}")),
                            other => Ok(other),
                        };
                        (node, reply)
                    })
                    .collect())
            }
            mut conn => {
                let reply = self.bounded(command.query_async(&mut conn)).await;
                Ok(vec![(
                    "Redis".to_owned(),
                    reply.map_err(|err| err.to_string()),
                )])
            }
        }
    }

    /// Notes a failed request: with Sentinel or a cluster, an error that
    /// suggests the primary moved (or the cluster is out of reach) makes
    /// the next request look it up (or connect) again.
    pub(super) fn failed(&self, err: &RedisError) {
        if !matches!(self.source, Source::Fixed) && may_have_moved(err) {
            self.forget();
        }
    }

    fn forget(&self) {
        let mut target = self
            .target
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if target.take().is_some() {
            match self.source {
                Source::Cluster(..) => {
                    tracing::warn!("the Redis Cluster may be out of reach; connecting afresh");
                }
                _ => tracing::warn!("the Redis primary may have moved; asking the Sentinels again"),
            }
        }
    }

    /// Runs one request to Redis within the request deadline, so that an
    /// outage turns into a prompt UNAVAILABLE rather than a hang.
    pub(super) async fn bounded<T>(
        &self,
        future: impl Future<Output = Result<T, RedisError>>,
    ) -> Result<T, StoreError> {
        self.bounded_within(REQUEST_DEADLINE, future).await
    }

    /// [`Endpoint::bounded`] with a deadline of `limit`, for a request that
    /// waits on purpose (`WAIT` for replicas).
    pub(super) async fn bounded_within<T>(
        &self,
        limit: Duration,
        future: impl Future<Output = Result<T, RedisError>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(limit, future).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => {
                self.failed(&err);
                Err(unavailable(err))
            }
            Err(_) => {
                if !matches!(self.source, Source::Fixed) {
                    self.forget();
                }
                Err(StoreError::Unavailable(format!(
                    "Redis did not answer within {} ms",
                    limit.as_millis()
                )))
            }
        }
    }
}
