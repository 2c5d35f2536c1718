//! How to reach Redis: the URL, key prefix, replicas to wait for and TLS,
//! and the clients built from them.

use std::time::Duration;

use redis::{Client, RedisError, cluster::ClusterClientBuilder};

use super::{REQUEST_DEADLINE, urls::ClusterUrl};
use crate::store::StoreError;

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
    pub(super) fn deadline(&self) -> Duration {
        REQUEST_DEADLINE + Duration::from_millis(u64::from(self.timeout_ms))
    }

    /// Whether `confirmed` replicas are enough.
    pub(super) fn check(&self, confirmed: i64) -> Result<(), StoreError> {
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
    pub(super) fn is_set(&self) -> bool {
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
pub(super) fn client(config: &RedisConfig) -> Result<Client, StoreError> {
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
pub(super) fn cluster_client(
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
