//! Where the store's Redis primary is: a fixed address, or whichever node a
//! set of Sentinels currently names, followed across failovers.
//!
//! With Sentinel, the primary is looked up on first use and again after any
//! error that says it may have moved: a write refused as `READONLY` (the old
//! primary was demoted), a connection refused or dropped, or a request that
//! timed out. The failed request itself is reported as unavailable; the
//! next one goes to the new primary. Every write is safe to repeat (the
//! version compare-and-set), so a client's retry lands exactly once.

use std::{future::Future, sync::Mutex, time::Duration};

use redis::{
    Client, ConnectionAddr, RedisError,
    aio::{ConnectionManager, ConnectionManagerConfig},
    sentinel::{SentinelClient, SentinelClientBuilder, SentinelServerType},
};

use super::{REQUEST_DEADLINE, unavailable};
use crate::store::StoreError;

/// The client and shared connection of the current primary.
#[derive(Clone)]
struct Primary {
    client: Client,
    conn: ConnectionManager,
}

enum Source {
    /// One address, reconnected to by the connection manager.
    Fixed,
    /// The primary the Sentinels name, looked up again when it may have
    /// moved.
    Sentinel(Box<tokio::sync::Mutex<SentinelClient>>),
}

/// The store's way to its Redis primary.
pub(super) struct Endpoint {
    source: Source,
    primary: Mutex<Option<Primary>>,
}

fn manager_config() -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(1)))
        .set_response_timeout(Some(Duration::from_secs(2)))
        .set_number_of_retries(2)
        .set_max_delay(Duration::from_millis(500))
}

fn primary(client: Client) -> Result<Primary, StoreError> {
    let conn = ConnectionManager::new_lazy_with_config(client.clone(), manager_config())
        .map_err(unavailable)?;
    Ok(Primary { client, conn })
}

/// Whether an error suggests that the primary has moved.
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
            primary: Mutex::new(Some(primary(client)?)),
        })
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
            primary: Mutex::new(None),
        })
    }

    fn current(&self) -> Option<Primary> {
        self.primary
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The primary, looked up through the Sentinels when it is not known.
    async fn primary(&self) -> Result<Primary, StoreError> {
        if let Some(known) = self.current() {
            return Ok(known);
        }
        let Source::Sentinel(sentinels) = &self.source else {
            return Err(StoreError::Unavailable(
                "no Redis primary configured".to_owned(),
            ));
        };
        let mut sentinels = sentinels.lock().await;
        // Another request may have looked it up while this one waited.
        if let Some(known) = self.current() {
            return Ok(known);
        }
        let client =
            match tokio::time::timeout(REQUEST_DEADLINE, sentinels.async_get_client()).await {
                Ok(client) => client.map_err(|err| {
                    StoreError::Unavailable(format!("no Redis primary from the Sentinels: {err}"))
                })?,
                Err(_) => {
                    return Err(StoreError::Unavailable(
                        "the Sentinels did not name a Redis primary in time".to_owned(),
                    ));
                }
            };
        let found = primary(client)?;
        *self
            .primary
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(found.clone());
        tracing::info!("Redis primary found through the Sentinels");
        Ok(found)
    }

    /// The shared connection to the primary.
    pub(super) async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        Ok(self.primary().await?.conn)
    }

    /// The primary's client, for connections of their own (blocking reads).
    pub(super) async fn client(&self) -> Result<Client, StoreError> {
        Ok(self.primary().await?.client)
    }

    /// Notes a failed request: with Sentinel, an error that suggests the
    /// primary moved makes the next request look it up again.
    pub(super) fn failed(&self, err: &RedisError) {
        if matches!(self.source, Source::Sentinel(_)) && may_have_moved(err) {
            self.forget();
        }
    }

    fn forget(&self) {
        let mut primary = self
            .primary
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if primary.take().is_some() {
            tracing::warn!("the Redis primary may have moved; asking the Sentinels again");
        }
    }

    /// Runs one request to Redis within the request deadline, so that an
    /// outage turns into a prompt UNAVAILABLE rather than a hang.
    pub(super) async fn bounded<T>(
        &self,
        future: impl Future<Output = Result<T, RedisError>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(REQUEST_DEADLINE, future).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => {
                self.failed(&err);
                Err(unavailable(err))
            }
            Err(_) => {
                if matches!(self.source, Source::Sentinel(_)) {
                    self.forget();
                }
                Err(StoreError::Unavailable(format!(
                    "Redis did not answer within {} s",
                    REQUEST_DEADLINE.as_secs()
                )))
            }
        }
    }
}

/// A `redis+sentinel://[user:password@]host:port[,host:port…]/service[/db]`
/// URL: the Sentinels to ask and the name of the primary they watch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SentinelUrl {
    sentinels: Vec<(String, u16)>,
    service: String,
    db: i64,
    username: Option<String>,
    password: Option<String>,
}

impl SentinelUrl {
    /// The scheme of a Sentinel URL.
    pub(super) const SCHEME: &'static str = "redis+sentinel://";

    /// Parses a Sentinel URL, saying what is wrong with a malformed one.
    pub(super) fn parse(url: &str) -> Result<Self, String> {
        let rest = url
            .strip_prefix(Self::SCHEME)
            .ok_or_else(|| format!("a Sentinel URL starts with {}", Self::SCHEME))?;
        let (auth, rest) = match rest.rsplit_once('@') {
            Some((auth, rest)) => (Some(auth), rest),
            None => (None, rest),
        };
        let (username, password) = match auth {
            None => (None, None),
            Some(auth) => match auth.split_once(':') {
                Some((user, password)) => (
                    Some(user.to_owned()).filter(|u| !u.is_empty()),
                    Some(password.to_owned()),
                ),
                None => (None, Some(auth.to_owned())),
            },
        };
        let (hosts, path) = rest
            .split_once('/')
            .ok_or("a Sentinel URL names the primary's service after the hosts: …/mymaster")?;
        let sentinels = hosts
            .split(',')
            .map(|host| {
                let (name, port) = host.rsplit_once(':').unwrap_or((host, "26379"));
                let port = port
                    .parse::<u16>()
                    .map_err(|_| format!("'{host}' is not host:port"))?;
                if name.is_empty() {
                    return Err(format!("'{host}' has no host name"));
                }
                Ok((name.to_owned(), port))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let mut path = path.split('/');
        let service = path
            .next()
            .filter(|service| !service.is_empty())
            .ok_or("a Sentinel URL names the primary's service: …/mymaster")?
            .to_owned();
        let db = match path.next() {
            None | Some("") => 0,
            Some(db) => db
                .parse()
                .map_err(|_| format!("'{db}' is not a database number"))?,
        };
        Ok(Self {
            sentinels,
            service,
            db,
            username,
            password,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinel_urls_name_the_sentinels_the_service_and_the_database() {
        let url = SentinelUrl::parse("redis+sentinel://s1:26379,s2:26380,s3/games/2").expect("url");
        assert_eq!(
            url.sentinels,
            [
                ("s1".to_owned(), 26379),
                ("s2".to_owned(), 26380),
                ("s3".to_owned(), 26379)
            ]
        );
        assert_eq!(url.service, "games");
        assert_eq!(url.db, 2);
        assert_eq!(url.password, None);
        let url = SentinelUrl::parse("redis+sentinel://arbiter:s3cret@10.0.0.5:26379/mymaster")
            .expect("url");
        assert_eq!(url.username.as_deref(), Some("arbiter"));
        assert_eq!(url.password.as_deref(), Some("s3cret"));
        assert_eq!(url.db, 0);
        for bad in [
            "redis://h:1/m",
            "redis+sentinel://h:1",
            "redis+sentinel://h:1/",
            "redis+sentinel://h:x/m",
            "redis+sentinel://:1/m",
            "redis+sentinel://h:1/m/x",
        ] {
            assert!(SentinelUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
