//! Wiring: the store, the arbiter, the gRPC services, health, reflection
//! and graceful shutdown.
//!
//! - `config`: flags and environment; [`tls`]: the gRPC port's TLS, with
//!   certificates read again when they change.
//! - [`health`]: liveness and readiness; `metrics_port`: `/metrics` for
//!   Prometheus; `rpc_metrics`: calls counted and timed by method and
//!   code; [`telemetry`]: logs and traces.
//! - `pages`: the spectator page and the arbiter's console, embedded, on the web port
//!   (`--web-listen`) with gRPC-Web beside it; `browser_layers`: CORS and
//!   gRPC-Web for every request but native gRPC calls.
//! - `metadata_limit` and `large_replies`: bounds on what one call may
//!   send and what a replica holds for slow readers; `bounded_listener`:
//!   the broadcast feed's port, its connections and idle clients bounded;
//!   `coalesce`: a connection's writes gathered into fewer system calls
//!   (a fan-out's until the runtime runs out of work: `idle`);
//!   `request_timeout`: how long a call may take to be answered (watch
//!   streams by their caller's deadline alone).
//! - [`runtime`]: the runtime, its idle workers giving freed memory back;
//!   the thread the commit announcements are read on.
//! - `sweeper`: the flag sweeper's loop; [`supervise`]: background tasks
//!   restarted after a panic, their state visible in health.

mod bounded_listener;
mod browser_layers;
mod coalesce;
mod config;
pub mod health;
mod idle;
mod large_replies;
mod metadata_limit;
mod metrics_port;
mod pages;
mod request_timeout;
mod rpc_metrics;
pub mod runtime;
pub mod supervise;
mod sweeper;
pub mod telemetry;
pub mod tls;

pub use self::large_replies::{LARGE_REPLY_SEND_TIME, MAX_LARGE_REPLIES, MAX_PGN_EXPORTS};
pub use self::metadata_limit::{HTTP2_MAX_HEADER_LIST_BYTES, MAX_METADATA_BYTES};

use std::{net::SocketAddr, sync::Arc, time::Duration};

use futures::StreamExt;
use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tokio_util::sync::CancellationToken;

pub use self::config::{
    Config, DEFAULT_WEB_LISTEN, LogFormat, MIN_SECRET_LEN, Settings, StoreChoice, WebListen,
};
use self::pages::PagesLayer;
use crate::{
    api::{AdminToken, ArbiterApi},
    arbiter::{Arbiter, SeatKeys},
    metrics::Metrics,
    proto,
    store::{GameStore, MemoryStore, MeteredStore, RedisStore},
};

/// Any start-up or serving failure.
pub type ServeError = Box<dyn std::error::Error + Send + Sync>;

/// Serves the API on `listener` until `shutdown` fires, then lets open
/// requests finish and ends every watch stream.
pub async fn serve(
    settings: Settings,
    listener: TcpListener,
    shutdown: CancellationToken,
) -> Result<(), ServeError> {
    fail_closed(&settings)?;
    let metrics = Metrics::new();
    let store: Arc<dyn GameStore> = Arc::new(MeteredStore::new(
        open_store(&settings.store, settings.require_durable_redis).await?,
        metrics.clone(),
    ));
    // The announcements' thread ends with the server, however it ends.
    let announcing = shutdown.child_token();
    let arbiter = Arbiter::new(store.clone(), seat_keys(settings.token_secret.as_deref()))
        .with_metrics(metrics.clone())
        .with_watch_buffer(settings.watch_buffer)
        .with_archive_after(settings.archive_after)
        .with_analysis(settings.analysis)
        .with_max_event_games(settings.max_event_games)
        .with_announcements_on(runtime::side_thread(
            "arbiter-announce",
            announcing.clone(),
        )?);
    let _announcing = announcing.drop_guard();
    let admin = admin_token(settings.admin_token.as_deref(), settings.dev_insecure);
    let api = ArbiterApi::new(
        arbiter.clone(),
        admin.clone(),
        shutdown.clone(),
        settings.heartbeat,
        settings.stream_limits,
    )
    .with_max_requests(settings.max_requests)
    .with_write_limits(settings.write_limits.0, settings.write_limits.1);

    let (reporter, health_service) = tonic_health::server::health_reporter();
    health::register(&reporter).await;
    let sweeper_task = {
        let (arbiter, shutdown) = (arbiter.clone(), shutdown.clone());
        tokio::spawn(supervise::supervise(
            supervise::SWEEPER,
            reporter.clone(),
            shutdown.clone(),
            move || sweeper::run(arbiter.clone(), shutdown.clone()),
        ))
    };
    let health_task = tokio::spawn(health::report(reporter, store, shutdown.clone()));
    // Reflection in both versions: v1, and v1alpha, which many tools
    // (grpcurl before 1.8.8, Postman, Python's grpcio-reflection) speak.
    // With google.rpc's error details, so that a generic client decodes the
    // ErrorInfo (the reason code) and BadRequest of every error.
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;

    tracing::info!(
        address = %listener.local_addr()?,
        "serving chessarbiter.v1.ArbiterService and chessarbiter.v1.AdminService"
    );
    // A browser page's calls are refused unless its origin is allowed: say
    // which are, so that a page stuck reconnecting is explained here.
    if settings.cors_allowed_origins.is_empty() {
        tracing::info!(
            "gRPC-Web from browser pages: no web origin is allowed \
             (--cors-allowed-origins or ARBITER_CORS_ALLOWED_ORIGINS)"
        );
    } else {
        tracing::info!(
            origins = %settings.cors_allowed_origins.join(","),
            "gRPC-Web from browser pages: these web origins are allowed"
        );
    }
    // HTTP/2 bounds: a connection may open a few streams beyond its watch
    // limit for unary calls; resets and keepalives are bounded so that a
    // client cannot hold a connection open with garbage.
    let streams_per_connection = u32::try_from(settings.stream_limits.per_connection)
        .unwrap_or(u32::MAX)
        .saturating_add(100);
    // Built first, so that bad TLS files stop the server before it serves.
    let tls = settings.tls.as_ref().map(tls::acceptor).transpose()?;
    let feed_tls = settings
        .feed_tls
        .as_ref()
        .map(tls::http1_acceptor)
        .transpose()?;
    let metrics_port = match settings.metrics_listen {
        Some(address) => {
            Some(metrics_port::serve(address, metrics.clone(), shutdown.clone()).await?)
        }
        None => None,
    };
    let feed_port = match settings.feed_listen {
        Some(address) => Some(
            feed_port(
                address,
                settings.feed_limits,
                feed_tls,
                arbiter.clone(),
                admin,
                shutdown.clone(),
            )
            .await?,
        ),
        None => None,
    };
    let health_port = match settings.health_listen {
        Some(address) => {
            Some(health_port(address, health_service.clone(), shutdown.clone()).await?)
        }
        None => None,
    };
    let routes = tonic::service::Routes::new(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(api.public_service())
        .add_service(api.admin_service());
    let api_port = ApiPort {
        routes,
        metrics,
        cors: cors(&settings.cors_allowed_origins)?,
        request_timeout: settings.request_timeout,
        max_connection_age: settings.max_connection_age,
        streams_per_connection,
    };
    let web_port = match settings.web_listen {
        Some(web) => web_port(web, api_port.clone(), shutdown.clone()).await?,
        None => None,
    };
    match tls {
        None => {
            api_port
                .serve(without_nagle(listener), PagesLayer::off(), shutdown.clone())
                .await?;
        }
        Some(acceptor) => {
            api_port
                .serve(
                    tls::incoming(listener, acceptor),
                    PagesLayer::off(),
                    shutdown.clone(),
                )
                .await?;
        }
    }
    for port in [health_port, metrics_port, feed_port, web_port]
        .into_iter()
        .flatten()
    {
        let _ = port.await;
    }
    let _ = health_task.await;
    let _ = sweeper_task.await;
    tracing::info!("server stopped");
    Ok(())
}

/// What every port serving the API shares: the services, and the layers
/// and HTTP/2 bounds around them.
#[derive(Clone)]
struct ApiPort {
    routes: tonic::service::Routes,
    metrics: Arc<Metrics>,
    cors: tower_http::cors::CorsLayer,
    request_timeout: Duration,
    max_connection_age: Duration,
    streams_per_connection: u32,
}

impl ApiPort {
    /// Serves the API on `incoming` until `shutdown`, with the pages in
    /// front of it where `pages` is on.
    async fn serve<I, IO, IE>(
        self,
        incoming: I,
        pages: PagesLayer,
        shutdown: CancellationToken,
    ) -> Result<(), tonic::transport::Error>
    where
        I: futures::Stream<Item = Result<IO, IE>>,
        IO: tokio::io::AsyncRead
            + tokio::io::AsyncWrite
            + tonic::transport::server::Connected
            + Unpin
            + Send
            + 'static,
        IO::ConnectInfo: Clone + Send + Sync + 'static,
        IE: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        tonic::transport::Server::builder()
            // A span per call, continuing the caller's trace.
            .trace_fn(telemetry::rpc_span)
            // gRPC-Web (HTTP/1.1 or HTTP/2) on the same port, for browsers.
            .accept_http1(true)
            .layer(pages)
            .layer(rpc_metrics::RpcMetricsLayer::new(self.metrics))
            .layer(browser_layers::ForBrowsersLayer::new(
                tower::ServiceBuilder::new()
                    .layer(self.cors)
                    .layer(tonic_web::GrpcWebLayer::new()),
            ))
            .layer(metadata_limit::MetadataLimitLayer)
            .layer(large_replies::LargeRepliesLayer::default())
            .layer(request_timeout::RequestTimeoutLayer::new(
                self.request_timeout,
            ))
            .http2_max_header_list_size(metadata_limit::HTTP2_MAX_HEADER_LIST_BYTES)
            .max_concurrent_streams(self.streams_per_connection)
            .http2_keepalive_interval(Some(Duration::from_secs(30)))
            .http2_keepalive_timeout(Some(Duration::from_secs(20)))
            .http2_max_pending_accept_reset_streams(Some(100))
            .http2_max_local_error_reset_streams(Some(1024))
            .max_connection_age(self.max_connection_age)
            .max_connection_age_grace(Duration::from_secs(60))
            .add_routes(self.routes)
            .serve_with_incoming_shutdown(
                // Many streams' frames in one write.
                incoming.map(|accepted| accepted.map(coalesce::Coalesced::new)),
                shutdown.cancelled_owned(),
            )
            .await
    }
}

/// Serves the pages, and the API for them, on `web` until `shutdown`; with
/// the default address, another port when it is taken, and no pages (a
/// warning) when it cannot be had at all.
async fn web_port(
    web: WebListen,
    api: ApiPort,
    shutdown: CancellationToken,
) -> Result<Option<tokio::task::JoinHandle<()>>, ServeError> {
    let listener = match TcpListener::bind(web.address).await {
        Ok(listener) => listener,
        Err(err) if web.any_port_if_taken => {
            let any = SocketAddr::new(web.address.ip(), 0);
            match TcpListener::bind(any).await {
                Ok(listener) => {
                    tracing::info!(
                        "the pages' default address {} is not free ({err}): another port is used",
                        web.address
                    );
                    listener
                }
                Err(again) => {
                    tracing::warn!(
                        "no pages: cannot listen on {} ({err}) nor on another port ({again}); \
                         set --web-listen (ARBITER_WEB_LISTEN)",
                        web.address
                    );
                    return Ok(None);
                }
            }
        }
        Err(err) => {
            return Err(format!("cannot listen for the pages on {}: {err}", web.address).into());
        }
    };
    let address = listener.local_addr()?;
    // An unspecified address (0.0.0.0, ::) is reached on this machine as
    // loopback.
    let shown = if address.ip().is_unspecified() {
        SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), address.port())
    } else {
        address
    };
    tracing::info!(
        %address,
        "pages: open http://{shown}/ to watch a game or an event (plain HTTP, gRPC-Web on the \
         same port)"
    );
    Ok(Some(tokio::spawn(async move {
        if let Err(err) = api
            .serve(without_nagle(listener), PagesLayer::on(), shutdown)
            .await
        {
            tracing::error!(error = %err, "the pages' port stopped");
        }
    })))
}

/// Serves the broadcast feed ([`crate::api::feed`]) on `address` until
/// `shutdown`.
async fn feed_port(
    address: std::net::SocketAddr,
    (max_connections, idle): (usize, Duration),
    tls: Option<tokio_rustls::TlsAcceptor>,
    arbiter: Arbiter,
    admin: AdminToken,
    shutdown: CancellationToken,
) -> Result<tokio::task::JoinHandle<()>, ServeError> {
    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|err| format!("cannot listen for the broadcast feed on {address}: {err}"))?;
    tracing::info!(
        address = %listener.local_addr()?,
        tls = tls.is_some(),
        "serving the broadcast feed (PGN over HTTP)"
    );
    let app = crate::api::feed::router(arbiter, admin);
    let listener = bounded_listener::BoundedListener::new(listener, max_connections, idle, tls)?;
    Ok(tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await;
        if let Err(err) = served {
            tracing::error!(error = %err, "the broadcast feed stopped");
        }
    }))
}

/// The configured store.
async fn open_store(
    choice: &StoreChoice,
    require_durable: bool,
) -> Result<Arc<dyn GameStore>, ServeError> {
    Ok(match choice {
        StoreChoice::Memory => {
            tracing::warn!(
                "no Redis configured: games are kept in memory and lost when the server stops \
                 (set ARBITER_REDIS_URL or REDIS_URL)"
            );
            Arc::new(MemoryStore::new())
        }
        StoreChoice::Redis(redis) => {
            tracing::info!(key_prefix = %redis.key_prefix, "games are kept in Redis");
            let store = RedisStore::new(redis)?;
            if require_durable {
                check_durability(&store, true).await?;
            } else {
                // Only warnings: the server starts even while Redis is down.
                let checked = store.clone();
                tokio::spawn(async move {
                    let _ = check_durability(&checked, false).await;
                });
            }
            Arc::new(store)
        }
    })
}

/// Warns (or, when `required`, refuses to start) when Redis may lose games.
async fn check_durability(store: &RedisStore, required: bool) -> Result<(), ServeError> {
    match store.durability_findings().await {
        Ok(findings) if findings.is_empty() => Ok(()),
        Ok(findings) if required => Err(findings.join("; ").into()),
        Ok(findings) => {
            for finding in findings {
                tracing::warn!("{finding}");
            }
            Ok(())
        }
        Err(err) if required => {
            Err(format!("cannot check that Redis keeps games safe: {err}").into())
        }
        Err(err) => {
            tracing::warn!(error = %err, "cannot check Redis's eviction and persistence settings");
            Ok(())
        }
    }
}

/// The keys seat tokens derive from: the configured secret, or a random one
/// (with a warning: tokens then cannot be re-issued by another replica).
fn seat_keys(secret: Option<&str>) -> SeatKeys {
    match secret {
        Some(secret) => SeatKeys::from_secret(secret.as_bytes()),
        None => {
            tracing::warn!(
                "ARBITER_TOKEN_SECRET is not set: seat tokens use a random secret, so a repeated \
                 CreateGame cannot re-issue them after a restart or on another replica"
            );
            SeatKeys::random()
        }
    }
}

/// Refuses a shared deployment (a Redis URL) without an admin token or a
/// token secret, unless the development flag says otherwise, loudly.
fn fail_closed(settings: &Settings) -> Result<(), ServeError> {
    let shared = matches!(settings.store, StoreChoice::Redis(_));
    let missing: Vec<&str> = [
        ("ARBITER_ADMIN_TOKEN", settings.admin_token.is_none()),
        ("ARBITER_TOKEN_SECRET", settings.token_secret.is_none()),
    ]
    .into_iter()
    .filter_map(|(name, absent)| absent.then_some(name))
    .collect();
    if settings.dev_insecure {
        tracing::warn!(
            "DEVELOPMENT MODE (--dev-insecure): never use it in production; {}",
            if settings.admin_token.is_none() {
                "anyone who can reach this server may create games AND intervene as the arbiter"
            } else {
                "the admin token still guards admin calls"
            }
        );
        return Ok(());
    }
    if shared && !missing.is_empty() {
        return Err(format!(
            "refusing to start: with a Redis URL (a shared deployment) the server needs {}; set \
             {}, or pass --dev-insecure (ARBITER_DEV_INSECURE=true) for a development setup",
            missing.join(" and "),
            if missing.len() == 1 { "it" } else { "them" }
        )
        .into());
    }
    Ok(())
}

/// The admin token, warning loudly when there is none.
fn admin_token(token: Option<&str>, dev_insecure: bool) -> AdminToken {
    let admin = AdminToken::new(token).with_open_interventions(dev_insecure);
    if admin.is_open() {
        tracing::warn!(
            "OPEN MODE: ARBITER_ADMIN_TOKEN is not set, so anyone who can reach this server may \
             create games; the arbiter's interventions are {}",
            if dev_insecure {
                "OPEN to anyone too (--dev-insecure)"
            } else {
                "closed"
            }
        );
    }
    admin
}

/// Which web origins may call with gRPC-Web: the headers a gRPC-Web client
/// sends and the ones it must read (status, message, details).
fn cors(origins: &[String]) -> Result<tower_http::cors::CorsLayer, ServeError> {
    use http::{HeaderName, HeaderValue, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let allow = if origins.iter().any(|origin| origin == "*") {
        AllowOrigin::any()
    } else {
        let list = origins
            .iter()
            .map(|origin| {
                HeaderValue::from_str(origin)
                    .map_err(|_| format!("not a web origin for CORS: {origin:?}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        AllowOrigin::list(list)
    };
    let header = HeaderName::from_static;
    Ok(CorsLayer::new()
        .allow_origin(allow)
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers([
            header("authorization"),
            header("content-type"),
            header("x-grpc-web"),
            header("x-user-agent"),
            header("grpc-timeout"),
            header("connect-protocol-version"),
            header("connect-timeout-ms"),
        ])
        .expose_headers([
            header("grpc-status"),
            header("grpc-message"),
            header("grpc-status-details-bin"),
        ])
        .max_age(Duration::from_secs(24 * 60 * 60)))
}

/// Serves the health service alone, in plaintext, on `address` until
/// `shutdown`.
async fn health_port<T: tonic_health::pb::health_server::Health>(
    address: SocketAddr,
    health: tonic_health::pb::health_server::HealthServer<T>,
    shutdown: CancellationToken,
) -> Result<tokio::task::JoinHandle<()>, ServeError> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|err| format!("cannot listen for health checks on {address}: {err}"))?;
    tracing::info!(address = %listener.local_addr()?, "serving grpc.health.v1 in plaintext");
    Ok(tokio::spawn(async move {
        // The same HTTP/2 hardening as the main port: a probe's port is
        // reachable by whatever reaches the pod.
        let served = tonic::transport::Server::builder()
            .layer(metadata_limit::MetadataLimitLayer)
            .http2_max_header_list_size(metadata_limit::HTTP2_MAX_HEADER_LIST_BYTES)
            .timeout(Duration::from_secs(10))
            .max_concurrent_streams(100)
            .http2_keepalive_interval(Some(Duration::from_secs(30)))
            .http2_keepalive_timeout(Some(Duration::from_secs(20)))
            .http2_max_pending_accept_reset_streams(Some(100))
            .http2_max_local_error_reset_streams(Some(1024))
            .max_connection_age(Duration::from_secs(1800))
            .add_service(health)
            .serve_with_incoming_shutdown(without_nagle(listener), shutdown.cancelled_owned())
            .await;
        if let Err(err) = served {
            tracing::error!(error = %err, "the health port stopped");
        }
    }))
}

/// The accepted connections, with Nagle's algorithm off: small request and
/// response messages must not wait for delayed ACKs (tens of milliseconds
/// per call otherwise).
fn without_nagle(
    listener: TcpListener,
) -> impl futures::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    TcpListenerStream::new(listener).map(|stream| {
        stream.inspect(|stream| {
            if let Err(err) = stream.set_nodelay(true) {
                tracing::debug!(error = %err, "cannot set TCP_NODELAY");
            }
        })
    })
}
