//! Command-line and environment configuration.

use std::{net::SocketAddr, path::PathBuf, time::Duration};

use clap::{Parser, ValueEnum};

use super::tls::{ClientAuth, TlsFiles};
use crate::{
    api::StreamLimits,
    arbiter::AnalysisConfig,
    store::{RedisConfig, RedisTls, WaitForReplicas},
};

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// The server's configuration: every flag can also be set through the
/// `ARBITER_*` environment variable named in `--help`.
#[derive(Clone, Debug, Parser)]
#[command(name = "chess-arbiter", version, about)]
pub struct Config {
    /// Address to serve gRPC on.
    #[arg(long, env = "ARBITER_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// PEM certificate chain to serve gRPC over TLS with (with
    /// `--tls-key-file`); read again when the file changes, so a rotated
    /// certificate needs no restart. Without it the port is plaintext.
    #[arg(long, env = "ARBITER_TLS_CERT_FILE", requires = "tls_key_file")]
    pub tls_cert_file: Option<PathBuf>,

    /// PEM private key of the TLS certificate.
    #[arg(long, env = "ARBITER_TLS_KEY_FILE", requires = "tls_cert_file")]
    pub tls_key_file: Option<PathBuf>,

    /// PEM certificates of the CA that signs client certificates: clients
    /// must then present one (mutual TLS, for platform backends), or may,
    /// with `--tls-client-auth optional`.
    #[arg(long, env = "ARBITER_TLS_CLIENT_CA_FILE", requires = "tls_cert_file")]
    pub tls_client_ca_file: Option<PathBuf>,

    /// With a client CA: whether every client must present a certificate.
    #[arg(
        long,
        env = "ARBITER_TLS_CLIENT_AUTH",
        value_enum,
        default_value = "required",
        requires = "tls_client_ca_file"
    )]
    pub tls_client_auth: ClientAuth,

    /// A second address serving only the plaintext gRPC health service
    /// (`liveness`, `readiness`): for probes that cannot speak TLS, such as
    /// Kubernetes' native gRPC probes, when the main port is TLS.
    #[arg(long, env = "ARBITER_HEALTH_LISTEN")]
    pub health_listen: Option<SocketAddr>,

    /// Origins of the web pages whose scripts may call the API with
    /// gRPC-Web (CORS), comma-separated (`https://play.example.org,…`), or
    /// `*` for any; none by default (gRPC-Web from the same origin, and
    /// from anything that is not a browser, needs none).
    #[arg(long, env = "ARBITER_CORS_ALLOWED_ORIGINS", value_delimiter = ',')]
    pub cors_allowed_origins: Vec<String>,

    /// The address of the pages (the spectator page at `/`) and of
    /// gRPC-Web for them, plain HTTP: `127.0.0.1:8080` by default (another
    /// free port when that one is taken, and off when the gRPC port has
    /// TLS), `off` for none. An address given here must be free.
    #[arg(long, env = "ARBITER_WEB_LISTEN", value_parser = parse_web_listen)]
    pub web_listen: Option<WebListenFlag>,

    /// An address to serve Prometheus metrics on (`GET /metrics`, plain
    /// HTTP); none by default.
    #[arg(long, env = "ARBITER_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// An address to serve the broadcast feed on (every game in PGN over
    /// plain HTTP, for relays such as lichess's broadcasts to poll, with
    /// each game's broadcast delay applied); none by default.
    #[arg(long, env = "ARBITER_FEED_LISTEN")]
    pub feed_listen: Option<SocketAddr>,

    /// PEM certificate chain for TLS on the broadcast feed's port (with
    /// `--feed-tls-key-file`); read again when the file changes. Without
    /// it the feed is plain HTTP.
    #[arg(
        long,
        env = "ARBITER_FEED_TLS_CERT_FILE",
        requires = "feed_tls_key_file",
        requires = "feed_listen"
    )]
    pub feed_tls_cert_file: Option<PathBuf>,

    /// PEM private key for the feed's TLS (with `--feed-tls-cert-file`).
    #[arg(
        long,
        env = "ARBITER_FEED_TLS_KEY_FILE",
        requires = "feed_tls_cert_file"
    )]
    pub feed_tls_key_file: Option<PathBuf>,

    /// Connections the broadcast feed serves at once; past it, new ones
    /// wait to be accepted.
    #[arg(long, env = "ARBITER_FEED_MAX_CONNECTIONS", default_value_t = 1024)]
    pub feed_max_connections: usize,

    /// Seconds a feed connection may send nothing before it is closed (a
    /// slow or idle client).
    #[arg(long, env = "ARBITER_FEED_IDLE_SECONDS", default_value_t = 30)]
    pub feed_idle_seconds: u64,

    /// Redis URL: `redis://host:6379/0` (or `rediss://` for TLS),
    /// `redis+sentinel://host:26379,…/<service>` for the primary a set of
    /// Sentinels names, `redis+cluster://host:6379,…` (or
    /// `rediss+cluster://`) for a Redis Cluster. Without it (and without
    /// `REDIS_URL`) games are kept in memory and lost on exit.
    #[arg(long, env = "ARBITER_REDIS_URL", hide_env_values = true)]
    pub redis_url: Option<String>,

    /// Prefix of every Redis key, to share one Redis between deployments.
    #[arg(long, env = "ARBITER_REDIS_KEY_PREFIX", default_value = "arbiter")]
    pub redis_key_prefix: String,

    /// With a `rediss://` URL: a PEM file of the CA(s) that sign Redis's
    /// certificate (without it, the system's roots are trusted).
    #[arg(long, env = "ARBITER_REDIS_TLS_CA_FILE")]
    pub redis_tls_ca_file: Option<PathBuf>,

    /// With a `rediss://` URL: a PEM file of this server's client
    /// certificate, for Redis servers that require mutual TLS (with
    /// `--redis-tls-key-file`).
    #[arg(
        long,
        env = "ARBITER_REDIS_TLS_CERT_FILE",
        requires = "redis_tls_key_file"
    )]
    pub redis_tls_cert_file: Option<PathBuf>,

    /// The PEM file of the client certificate's private key.
    #[arg(
        long,
        env = "ARBITER_REDIS_TLS_KEY_FILE",
        requires = "redis_tls_cert_file"
    )]
    pub redis_tls_key_file: Option<PathBuf>,

    /// Refuse to start when Redis may lose games (keys evicted under memory
    /// pressure, no persistence) or cannot be asked; without it these are
    /// warnings.
    #[arg(long, env = "ARBITER_REDIS_REQUIRE_DURABILITY")]
    pub redis_require_durability: bool,

    /// Acknowledge a commit only once this many Redis replicas have it
    /// (Redis `WAIT`), so that a failover does not lose it; 0 does not wait.
    #[arg(long, env = "ARBITER_REDIS_WAIT_REPLICAS", default_value_t = 0)]
    pub redis_wait_replicas: u32,

    /// How long a commit waits for those replicas, in milliseconds; a
    /// commit they do not confirm in time is answered UNAVAILABLE.
    #[arg(
        long,
        env = "ARBITER_REDIS_WAIT_TIMEOUT_MILLIS",
        default_value_t = 1000,
        value_parser = clap::value_parser!(u32).range(1..=60_000)
    )]
    pub redis_wait_timeout_millis: u32,

    /// The platform's admin token, required by every AdminService call
    /// (creating games, the arbiter's interventions). Without it the server
    /// runs in open mode: anyone may create games, and nobody may intervene
    /// as the arbiter (unless --dev-insecure). Required with a Redis URL.
    #[arg(long, env = "ARBITER_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,

    /// Development only: lets a server with a Redis URL start without an
    /// admin token or a token secret, and opens the arbiter's
    /// interventions to anyone in open mode. Logged loudly at start.
    #[arg(long, env = "ARBITER_DEV_INSECURE")]
    pub dev_insecure: bool,

    /// Secret from which seat tokens are derived (at least 32 characters).
    /// Every replica needs the same one; without it a random secret is used
    /// and a repeated CreateGame cannot re-issue tokens after a restart.
    /// Required with a Redis URL.
    #[arg(long, env = "ARBITER_TOKEN_SECRET", hide_env_values = true)]
    pub token_secret: Option<String>,

    /// Log line format.
    #[arg(long, env = "ARBITER_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,

    /// Seconds to let open requests finish after SIGTERM/SIGINT before exiting.
    #[arg(long, env = "ARBITER_SHUTDOWN_GRACE_SECONDS", default_value_t = 10)]
    pub shutdown_grace_seconds: u64,

    /// Watch streams one HTTP/2 connection may hold; a new one past it is
    /// refused with RESOURCE_EXHAUSTED.
    #[arg(long, env = "ARBITER_MAX_STREAMS_PER_CONNECTION", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_streams_per_connection: u32,

    /// Watch streams this server serves at once; a new one past it is
    /// refused with RESOURCE_EXHAUSTED.
    #[arg(long, env = "ARBITER_MAX_STREAMS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_streams: u32,

    /// Milliseconds a unary request may take before it is cancelled
    /// (CANCELLED, "Timeout expired"); a client's own deadline
    /// (`grpc-timeout`) applies when it is shorter. Watch streams are not
    /// bounded by it.
    #[arg(long, env = "ARBITER_REQUEST_TIMEOUT_MILLIS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub request_timeout_millis: u64,

    /// Unary requests this server serves at once; past it a request is
    /// refused at once with RESOURCE_EXHAUSTED (OVERLOADED).
    #[arg(long, env = "ARBITER_MAX_REQUESTS", default_value_t = 1024,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_requests: u32,

    /// Games an event may list; creating one more is refused with
    /// FAILED_PRECONDITION (EVENT_FULL). At most 20000, which bounds the
    /// work and memory of every read of a whole event (standings, TRF).
    #[arg(long, env = "ARBITER_MAX_EVENT_GAMES", default_value_t = 20_000,
          value_parser = clap::value_parser!(u32).range(1..=20_000))]
    pub max_event_games: u32,

    /// Writes (moves, resignations, offers, claims, aborts) one seat may
    /// make per second, with bursts of twice as many; past it,
    /// RESOURCE_EXHAUSTED (RATE_LIMITED). 0: no limit.
    #[arg(long, env = "ARBITER_MAX_SEAT_WRITES_PER_SECOND", default_value_t = 10)]
    pub max_seat_writes_per_second: u32,

    /// Writes one client address may make per second, with bursts of twice
    /// as many (a platform's backend relaying many players needs a high
    /// one). 0: no limit.
    #[arg(
        long,
        env = "ARBITER_MAX_PEER_WRITES_PER_SECOND",
        default_value_t = 1000
    )]
    pub max_peer_writes_per_second: u32,

    /// Events a watch stream may fall behind its game (a client that does
    /// not read fast enough) before it is ended with RESOURCE_EXHAUSTED
    /// (WATCHER_TOO_SLOW); it resumes from its last version.
    #[arg(long, env = "ARBITER_WATCH_BUFFER_EVENTS", default_value_t = 256,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub watch_buffer_events: u32,

    /// Seconds after a game ends before its log is archived: compacted into
    /// one record of a few kilobytes, read exactly as before. Reads of a
    /// game just ended (its final position, its PGN) are cheaper before.
    #[arg(long, env = "ARBITER_ARCHIVE_AFTER_SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(0..=86_400))]
    pub archive_after_seconds: u64,

    /// Milliseconds a move waits for the fast dead-position test (FIDE
    /// 5.2.2) on the position it leads to; past it the move is committed
    /// and the background analysis follows up, ending the game by its own
    /// commit if the position is dead.
    #[arg(long, env = "ARBITER_ANALYSIS_BUDGET_MILLIS", default_value_t = 20,
          value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub analysis_budget_millis: u64,

    /// Background dead-position analysis threads (run at the lowest
    /// scheduling priority).
    #[arg(long, env = "ARBITER_ANALYSIS_THREADS", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=64))]
    pub analysis_threads: u32,

    /// Seconds after which a client connection is asked to reconnect (HTTP/2
    /// GOAWAY), so that long-lived connections spread over new replicas
    /// after a scale-out; watch streams resume on the new connection.
    #[arg(long, env = "ARBITER_MAX_CONNECTION_AGE_SECONDS", default_value_t = 1800,
          value_parser = clap::value_parser!(u64).range(10..=86_400))]
    pub max_connection_age_seconds: u64,

    /// Milliseconds a watch stream may stay silent before it sends a
    /// heartbeat (keep it well below your proxies' idle timeouts).
    #[arg(long, env = "ARBITER_HEARTBEAT_MILLIS", default_value_t = 15_000,
          value_parser = clap::value_parser!(u64).range(100..=600_000))]
    pub heartbeat_millis: u64,
}

/// Where games are kept.
#[derive(Clone, Debug)]
pub enum StoreChoice {
    /// In this process's memory.
    Memory,
    /// In Redis.
    Redis(RedisConfig),
}

/// The resolved settings the server runs with.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Where games are kept.
    pub store: StoreChoice,
    /// The admin token, if admin calls are protected.
    pub admin_token: Option<String>,
    /// The seat-token secret, if configured.
    pub token_secret: Option<String>,
    /// How long a watch stream may stay silent before a heartbeat.
    pub heartbeat: Duration,
    /// Whether Redis must be configured not to lose games (see
    /// [`crate::store::RedisStore::durability_findings`]).
    pub require_durable_redis: bool,
    /// Watch streams per connection and in all.
    pub stream_limits: StreamLimits,
    /// When a client connection is asked to reconnect.
    pub max_connection_age: Duration,
    /// Events a watch stream may fall behind before it is ended.
    pub watch_buffer: usize,
    /// How long after its end a game's log is archived.
    pub archive_after: Duration,
    /// How dead positions are analysed.
    pub analysis: AnalysisConfig,
    /// Development only: a shared store without an admin token or a token
    /// secret is accepted, and open mode opens the arbiter's interventions.
    pub dev_insecure: bool,
    /// How long a unary request may take.
    pub request_timeout: Duration,
    /// Unary requests served at once.
    pub max_requests: usize,
    /// Games an event may list (at most [`crate::domain::Pairing::MAX_EVENT_GAMES`]).
    pub max_event_games: usize,
    /// Writes per second per seat and per client address (0: no limit).
    pub write_limits: (u32, u32),
    /// TLS on the gRPC port, if configured.
    pub tls: Option<TlsFiles>,
    /// Where to serve the plaintext health service as well, if anywhere.
    pub health_listen: Option<SocketAddr>,
    /// Where to serve the metrics, if anywhere.
    pub metrics_listen: Option<SocketAddr>,
    /// Where to serve the broadcast feed, if anywhere.
    pub feed_listen: Option<SocketAddr>,
    /// Where to serve the pages, if anywhere.
    pub web_listen: Option<WebListen>,
    /// The feed's connections at once, and how long one may send nothing.
    pub feed_limits: (usize, std::time::Duration),
    /// TLS on the feed's port, if configured (no client certificates).
    pub feed_tls: Option<TlsFiles>,
    /// The web origins allowed to call with gRPC-Web (`*`: any).
    pub cors_allowed_origins: Vec<String>,
}

/// Where the pages are served unless `--web-listen` says otherwise.
pub const DEFAULT_WEB_LISTEN: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), 8080);

/// Where the pages are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WebListen {
    /// The address to listen on.
    pub address: SocketAddr,
    /// Whether another free port of the same host will do when `address`
    /// is taken (the default address only: one given is kept or fails).
    pub any_port_if_taken: bool,
}

/// What `--web-listen` was given: an address, or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WebListenFlag {
    /// No pages.
    Off,
    /// Pages on this address.
    At(SocketAddr),
}

fn parse_web_listen(value: &str) -> Result<WebListenFlag, String> {
    let value = value.trim();
    if value.eq_ignore_ascii_case("off") {
        return Ok(WebListenFlag::Off);
    }
    value
        .parse()
        .map(WebListenFlag::At)
        .map_err(|_| format!("{value:?} is neither an address such as 127.0.0.1:8080 nor `off`"))
}

/// Shortest accepted seat-token secret.
pub const MIN_SECRET_LEN: usize = 32;

/// Why the settings cannot be resolved: the server does not start.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The seat-token secret is too short to be safe.
    #[error("ARBITER_TOKEN_SECRET must be at least {MIN_SECRET_LEN} characters")]
    TokenSecretTooShort,
    /// The admin token is set to nothing.
    #[error("ARBITER_ADMIN_TOKEN is set but empty")]
    AdminTokenEmpty,
    /// A file the settings name cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    CannotRead {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Config {
    /// Resolves the settings; `REDIS_URL` is honoured when
    /// `ARBITER_REDIS_URL` is not set.
    pub fn settings(&self) -> Result<Settings, ConfigError> {
        let redis_url = self
            .redis_url
            .clone()
            .or_else(|| std::env::var("REDIS_URL").ok())
            .filter(|url| !url.trim().is_empty());
        if let Some(secret) = &self.token_secret
            && secret.len() < MIN_SECRET_LEN
        {
            return Err(ConfigError::TokenSecretTooShort);
        }
        if self.admin_token.as_deref().is_some_and(str::is_empty) {
            return Err(ConfigError::AdminTokenEmpty);
        }
        Ok(Settings {
            store: match redis_url {
                Some(url) => StoreChoice::Redis(RedisConfig {
                    url,
                    key_prefix: self.redis_key_prefix.clone(),
                    tls: self.redis_tls()?,
                    wait: (self.redis_wait_replicas > 0).then_some(WaitForReplicas {
                        replicas: self.redis_wait_replicas,
                        timeout_ms: self.redis_wait_timeout_millis,
                    }),
                }),
                None => StoreChoice::Memory,
            },
            admin_token: self.admin_token.clone(),
            token_secret: self.token_secret.clone(),
            heartbeat: Duration::from_millis(self.heartbeat_millis),
            require_durable_redis: self.redis_require_durability,
            stream_limits: StreamLimits {
                per_connection: self.max_streams_per_connection as usize,
                total: self.max_streams as usize,
            },
            max_connection_age: Duration::from_secs(self.max_connection_age_seconds),
            watch_buffer: self.watch_buffer_events as usize,
            archive_after: Duration::from_secs(self.archive_after_seconds),
            analysis: AnalysisConfig {
                budget: Duration::from_millis(self.analysis_budget_millis),
                workers: self.analysis_threads as usize,
                ..AnalysisConfig::default()
            },
            dev_insecure: self.dev_insecure,
            request_timeout: Duration::from_millis(self.request_timeout_millis),
            max_requests: self.max_requests as usize,
            max_event_games: self.max_event_games as usize,
            write_limits: (
                self.max_seat_writes_per_second,
                self.max_peer_writes_per_second,
            ),
            tls: match (&self.tls_cert_file, &self.tls_key_file) {
                (Some(cert), Some(key)) => Some(TlsFiles {
                    cert: cert.clone(),
                    key: key.clone(),
                    client_ca: self.tls_client_ca_file.clone(),
                    client_auth: self.tls_client_auth,
                }),
                _ => None,
            },
            health_listen: self.health_listen,
            metrics_listen: self.metrics_listen,
            feed_listen: self.feed_listen,
            web_listen: match self.web_listen {
                None if self.tls_cert_file.is_some() => None,
                None => Some(WebListen {
                    address: DEFAULT_WEB_LISTEN,
                    any_port_if_taken: true,
                }),
                Some(WebListenFlag::Off) => None,
                Some(WebListenFlag::At(address)) => Some(WebListen {
                    address,
                    any_port_if_taken: false,
                }),
            },
            feed_tls: match (&self.feed_tls_cert_file, &self.feed_tls_key_file) {
                (Some(cert), Some(key)) => Some(TlsFiles {
                    cert: cert.clone(),
                    key: key.clone(),
                    client_ca: None,
                    client_auth: ClientAuth::Optional,
                }),
                _ => None,
            },
            feed_limits: (
                self.feed_max_connections,
                std::time::Duration::from_secs(self.feed_idle_seconds.max(1)),
            ),
            cors_allowed_origins: self
                .cors_allowed_origins
                .iter()
                .map(|origin| origin.trim().to_owned())
                .filter(|origin| !origin.is_empty())
                .collect(),
        })
    }

    /// The TLS files, read: a missing or unreadable file stops the server
    /// with its name.
    fn redis_tls(&self) -> Result<RedisTls, ConfigError> {
        let read = |path: &PathBuf| {
            std::fs::read(path).map_err(|source| ConfigError::CannotRead {
                path: path.clone(),
                source,
            })
        };
        Ok(RedisTls {
            ca_pem: self.redis_tls_ca_file.as_ref().map(read).transpose()?,
            client_pem: match (&self.redis_tls_cert_file, &self.redis_tls_key_file) {
                (Some(cert), Some(key)) => Some((read(cert)?, read(key)?)),
                _ => None,
            },
        })
    }

    /// How long shutdown may take.
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        Config::try_parse_from(std::iter::once("chess-arbiter").chain(args.iter().copied()))
    }

    #[test]
    fn redis_tls_files_are_read_at_start_and_named_when_missing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let ca = dir.path().join("ca.pem");
        std::fs::write(&ca, "CA PEM").expect("write");
        let ca_arg = ca.display().to_string();
        let config = parse(&[
            "--redis-url",
            "rediss://redis.example:6380/",
            "--redis-tls-ca-file",
            &ca_arg,
        ])
        .expect("flags");
        let Ok(Settings {
            store: StoreChoice::Redis(redis),
            ..
        }) = config.settings()
        else {
            panic!("a Redis store");
        };
        assert_eq!(redis.tls.ca_pem.as_deref(), Some(&b"CA PEM"[..]));
        assert!(redis.tls.client_pem.is_none());

        let missing = dir.path().join("missing.pem").display().to_string();
        let config = parse(&[
            "--redis-url",
            "rediss://redis.example:6380/",
            "--redis-tls-ca-file",
            &missing,
        ])
        .expect("flags");
        let error = config
            .settings()
            .expect_err("a missing file stops the start");
        assert!(
            matches!(&error, ConfigError::CannotRead { path, .. } if path.ends_with("missing.pem")),
            "{error}"
        );
        assert!(error.to_string().contains("missing.pem"), "{error}");

        // A client certificate needs its key, and the other way round.
        assert!(parse(&["--redis-tls-cert-file", &ca_arg]).is_err());
        assert!(parse(&["--redis-tls-key-file", &ca_arg]).is_err());
    }

    #[test]
    fn the_pages_are_on_by_default_off_on_request_and_an_address_given_is_kept() {
        let web = |args: &[&str]| {
            parse(args)
                .expect("flags")
                .settings()
                .expect("settings")
                .web_listen
        };
        let default = WebListen {
            address: DEFAULT_WEB_LISTEN,
            any_port_if_taken: true,
        };
        assert_eq!(web(&[]), Some(default));
        assert_eq!(web(&["--web-listen", "off"]), None);
        assert_eq!(web(&["--web-listen", "OFF"]), None);
        assert_eq!(
            web(&["--web-listen", "0.0.0.0:9000"]),
            Some(WebListen {
                address: "0.0.0.0:9000".parse().expect("address"),
                any_port_if_taken: false,
            })
        );
        // With TLS on the gRPC port, plaintext pages only when asked for.
        let tls = ["--tls-cert-file", "c.pem", "--tls-key-file", "k.pem"];
        assert_eq!(web(&tls), None);
        let error = parse(&["--web-listen", "everywhere"]).expect_err("not an address");
        assert!(error.to_string().contains("neither an address"), "{error}");
    }
}
