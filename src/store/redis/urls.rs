//! The URLs that name several Redis servers: the Sentinels that watch a
//! primary, or the seed nodes of a Cluster.

/// A `redis+sentinel://[user:password@]host:port[,host:port…]/service[/db]`
/// URL: the Sentinels to ask and the name of the primary they watch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SentinelUrl {
    pub(super) sentinels: Vec<(String, u16)>,
    pub(super) service: String,
    pub(super) db: i64,
    pub(super) username: Option<String>,
    pub(super) password: Option<String>,
}

/// What is wrong with a Sentinel or Cluster URL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum UrlError {
    /// The URL does not start with the scheme.
    #[error("a {kind} URL starts with {schemes}")]
    Scheme {
        /// Sentinel or Cluster.
        kind: &'static str,
        /// The schemes it may start with.
        schemes: &'static str,
    },
    /// A Sentinel URL names no service.
    #[error("a Sentinel URL names the primary's service after the hosts: …/mymaster")]
    NoService,
    /// The database is not a number.
    #[error("'{db}' is not a database number")]
    NotADatabase {
        /// What the URL says.
        db: String,
    },
    /// A Cluster URL has a path.
    #[error("a Cluster URL has no path: a cluster has only database 0")]
    ClusterPath,
    /// A host's port is not a port.
    #[error("'{host}' is not host:port")]
    NotHostPort {
        /// The host as written.
        host: String,
    },
    /// A host has no name.
    #[error("'{host}' has no host name")]
    NoHostName {
        /// The host as written.
        host: String,
    },
}

impl SentinelUrl {
    /// The scheme of a Sentinel URL.
    pub(super) const SCHEME: &'static str = "redis+sentinel://";

    /// Parses a Sentinel URL, saying what is wrong with a malformed one.
    pub(super) fn parse(url: &str) -> Result<Self, UrlError> {
        let rest = url.strip_prefix(Self::SCHEME).ok_or(UrlError::Scheme {
            kind: "Sentinel",
            schemes: Self::SCHEME,
        })?;
        let (username, password, rest) = split_auth(rest);
        let (hosts, path) = rest.split_once('/').ok_or(UrlError::NoService)?;
        let sentinels = hosts_and_ports(hosts, 26379)?;
        let mut path = path.split('/');
        let service = path
            .next()
            .filter(|service| !service.is_empty())
            .ok_or(UrlError::NoService)?
            .to_owned();
        let db = match path.next() {
            None | Some("") => 0,
            Some(db) => db
                .parse()
                .map_err(|_| UrlError::NotADatabase { db: db.to_owned() })?,
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

/// A `redis+cluster://[user:password@]host:port[,host:port…][/]` URL (or
/// `rediss+cluster://` for TLS): seed nodes of a Redis Cluster, from which
/// the client learns the rest of the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ClusterUrl {
    /// Each seed node as a `redis://` (or `rediss://`) URL with the
    /// credentials.
    pub(super) nodes: Vec<String>,
    /// Whether the nodes speak TLS.
    pub(super) tls: bool,
}

impl ClusterUrl {
    /// The scheme of a Cluster URL.
    pub(super) const SCHEME: &'static str = "redis+cluster://";
    /// The scheme of a Cluster URL over TLS.
    pub(super) const TLS_SCHEME: &'static str = "rediss+cluster://";

    /// Whether `url` names a cluster.
    pub(super) fn is_cluster(url: &str) -> bool {
        url.starts_with(Self::SCHEME) || url.starts_with(Self::TLS_SCHEME)
    }

    /// Parses a Cluster URL, saying what is wrong with a malformed one.
    pub(super) fn parse(url: &str) -> Result<Self, UrlError> {
        let (rest, tls) = if let Some(rest) = url.strip_prefix(Self::SCHEME) {
            (rest, false)
        } else if let Some(rest) = url.strip_prefix(Self::TLS_SCHEME) {
            (rest, true)
        } else {
            return Err(UrlError::Scheme {
                kind: "Cluster",
                schemes: "redis+cluster:// or rediss+cluster://",
            });
        };
        let (username, password, rest) = split_auth(rest);
        let hosts = match rest.split_once('/') {
            Some((hosts, "")) => hosts,
            Some(_) => {
                return Err(UrlError::ClusterPath);
            }
            None => rest,
        };
        let auth = match (username, password) {
            (None, None) => String::new(),
            (user, password) => format!(
                "{}:{}@",
                user.unwrap_or_default(),
                password.unwrap_or_default()
            ),
        };
        let scheme = if tls { "rediss" } else { "redis" };
        let nodes = hosts_and_ports(hosts, 6379)?
            .into_iter()
            .map(|(host, port)| format!("{scheme}://{auth}{host}:{port}"))
            .collect();
        Ok(Self { nodes, tls })
    }
}

/// Splits `[user:password@]rest` (or `[password@]rest`) into its parts.
fn split_auth(rest: &str) -> (Option<String>, Option<String>, &str) {
    let Some((auth, rest)) = rest.rsplit_once('@') else {
        return (None, None, rest);
    };
    match auth.split_once(':') {
        Some((user, password)) => (
            Some(user.to_owned()).filter(|u| !u.is_empty()),
            Some(password.to_owned()),
            rest,
        ),
        None => (None, Some(auth.to_owned()), rest),
    }
}

/// `host:port,host:port…`, with `default_port` where a host has none.
fn hosts_and_ports(hosts: &str, default_port: u16) -> Result<Vec<(String, u16)>, UrlError> {
    hosts
        .split(',')
        .map(|host| {
            let (name, port) = match host.rsplit_once(':') {
                Some((name, port)) => (
                    name,
                    port.parse::<u16>().map_err(|_| UrlError::NotHostPort {
                        host: host.to_owned(),
                    })?,
                ),
                None => (host, default_port),
            };
            if name.is_empty() {
                return Err(UrlError::NoHostName {
                    host: host.to_owned(),
                });
            }
            Ok((name.to_owned(), port))
        })
        .collect()
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

    #[test]
    fn cluster_urls_name_the_seed_nodes_with_their_credentials() {
        let url = ClusterUrl::parse("redis+cluster://n1:7000,n2:7001,n3").expect("url");
        assert_eq!(
            url.nodes,
            ["redis://n1:7000", "redis://n2:7001", "redis://n3:6379"]
        );
        assert!(!url.tls);
        let url = ClusterUrl::parse("rediss+cluster://arbiter:s3cret@10.0.0.5:7000/").expect("url");
        assert_eq!(url.nodes, ["rediss://arbiter:s3cret@10.0.0.5:7000"]);
        assert!(url.tls);
        let url = ClusterUrl::parse("redis+cluster://s3cret@n1:7000").expect("url");
        assert_eq!(
            url.nodes,
            [":s3cret@n1:7000"].map(|n| format!("redis://{n}"))
        );
        for bad in [
            "redis://h:1",
            "redis+cluster://",
            "redis+cluster://h:x",
            "redis+cluster://:1",
            "redis+cluster://h:1/2",
            "redis+cluster://h:1,,h:2",
        ] {
            assert!(ClusterUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
