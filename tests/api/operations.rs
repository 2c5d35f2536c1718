//! Operating the server: health, reflection, the binary's configuration and
//! its graceful shutdown on SIGTERM.

use crate::common;

use std::{
    io::{BufRead, BufReader},
    process::{Command, ExitStatus, Stdio},
    time::Duration,
};

use arbiter::store::RedisConfig;
use common::{Backend, STREAM_PATIENCE, TestApp, drain, fresh_redis_config, next_within};
use tonic::Code;
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};
use tonic_reflection::pb::v1::{
    ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
    server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
};
use tonic_types::StatusExt;

/// The services of the contract, by their full names.
const SERVICES: [&str; 2] = [
    "chessarbiter.v1.ArbiterService",
    "chessarbiter.v1.AdminService",
];

async fn health_of(app: &TestApp, service: &str) -> i32 {
    HealthClient::new(app.channel().await)
        .check(HealthCheckRequest {
            service: service.to_owned(),
        })
        .await
        .expect("health check")
        .into_inner()
        .status
}

async fn health_reports_liveness_and_readiness(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    assert_eq!(
        health_of(&app, "liveness").await,
        ServingStatus::Serving as i32
    );
    // Readiness follows the first storage probe, which runs at start-up.
    let mut ready = 0;
    for _ in 0..100 {
        ready = health_of(&app, "readiness").await;
        if ready == ServingStatus::Serving as i32 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(ready, ServingStatus::Serving as i32);
    // The flag sweeper, supervised, reports itself under its own name.
    let mut sweeper = 0;
    for _ in 0..100 {
        sweeper = health_of(&app, "sweeper").await;
        if sweeper == ServingStatus::Serving as i32 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(sweeper, ServingStatus::Serving as i32);
    // Each service by its full name (what load balancers and grpc-health-
    // probe ask for), following readiness.
    for service in SERVICES {
        assert_eq!(
            health_of(&app, service).await,
            ServingStatus::Serving as i32,
            "{service}"
        );
    }
    // The old contract's name is gone.
    let status = HealthClient::new(app.channel().await)
        .check(HealthCheckRequest {
            service: "chess.arbiter.v1.ArbiterService".to_owned(),
        })
        .await
        .expect_err("no such service");
    assert_eq!(status.code(), Code::NotFound, "{status:?}");
}

async fn reflection_lists_the_services(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = ServerReflectionClient::new(app.channel().await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = client
        .server_reflection_info(futures::stream::iter([request]))
        .await
        .expect("reflection")
        .into_inner();
    let response = next_within(&mut responses, STREAM_PATIENCE)
        .await
        .expect("one response")
        .expect("reflection response");
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("unexpected reflection response: {response:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    for service in SERVICES.into_iter().chain(["grpc.health.v1.Health"]) {
        assert!(names.contains(&service.to_owned()), "{service}: {names:?}");
    }
    assert!(
        !names.iter().any(|name| name.starts_with("chess.arbiter.")),
        "the old contract is not served: {names:?}"
    );

    // Each service's methods resolve to descriptors a generic client can
    // use.
    for service in SERVICES {
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::FileContainingSymbol(service.to_owned())),
        };
        let mut responses = client
            .server_reflection_info(futures::stream::iter([request]))
            .await
            .expect("reflection")
            .into_inner();
        let response = next_within(&mut responses, STREAM_PATIENCE)
            .await
            .expect("one")
            .expect("response");
        assert!(
            matches!(response.message_response, Some(MessageResponse::FileDescriptorResponse(ref f)) if !f.file_descriptor_proto.is_empty()),
            "{service}: {response:?}"
        );
    }

    // The error details every status carries resolve too, with every file
    // they import, so that grpcurl and other generic clients show the
    // reason code instead of raw bytes.
    for symbol in [
        "google.rpc.ErrorInfo",
        "google.rpc.BadRequest",
        "google.rpc.PreconditionFailure",
        "google.rpc.Status",
    ] {
        let files = reflected_files(
            &mut client,
            MessageRequest::FileContainingSymbol(symbol.to_owned()),
        )
        .await;
        assert!(!files.is_empty(), "{symbol}");
        for file in &files {
            for dependency in &file.dependency {
                let found = reflected_files(
                    &mut client,
                    MessageRequest::FileByFilename(dependency.clone()),
                )
                .await;
                assert!(
                    found.iter().any(|f| f.name() == dependency),
                    "{symbol}: {} imports {dependency}, which reflection does not serve",
                    file.name()
                );
            }
        }
    }
}

/// The file descriptors reflection answers `request` with; none when it
/// answers with an error.
async fn reflected_files(
    client: &mut ServerReflectionClient<tonic::transport::Channel>,
    request: MessageRequest,
) -> Vec<prost_types::FileDescriptorProto> {
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(request),
    };
    let mut responses = client
        .server_reflection_info(futures::stream::iter([request]))
        .await
        .expect("reflection")
        .into_inner();
    let response = next_within(&mut responses, STREAM_PATIENCE)
        .await
        .expect("one")
        .expect("response");
    match response.message_response {
        Some(MessageResponse::FileDescriptorResponse(files)) => files
            .file_descriptor_proto
            .iter()
            .map(|bytes| prost::Message::decode(bytes.as_slice()).expect("a file descriptor"))
            .collect(),
        _ => Vec::new(),
    }
}

on_every_backend!(
    health_reports_liveness_and_readiness,
    reflection_lists_the_services
);

/// The binary reads its configuration from `ARBITER_*` variables, serves,
/// and on SIGTERM ends its open streams and exits cleanly.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_serves_and_stops_on_sigterm() {
    let redis = fresh_redis_config();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
        listener.local_addr().expect("addr").port()
    };
    let mut server = ServerProcess(
        Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
            .env("ARBITER_LISTEN", format!("127.0.0.1:{port}"))
            .env("ARBITER_REDIS_URL", &redis.url)
            .env("ARBITER_REDIS_KEY_PREFIX", &redis.key_prefix)
            .env("ARBITER_ADMIN_TOKEN", common::ADMIN_TOKEN)
            .env("ARBITER_TOKEN_SECRET", common::TOKEN_SECRET)
            .env("ARBITER_LOG_FORMAT", "json")
            .env("ARBITER_SHUTDOWN_GRACE_SECONDS", "5")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server binary"),
    );
    let stdout = server.0.stdout.take().expect("stdout");
    // Reads the whole log: it ends when the process exits and closes stdout.
    let log_reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });

    let mut client = connect(port).await;
    let mut admin = connect_admin(port).await;
    let created = common::create(&mut admin, common::create_request("", ""))
        .await
        .expect("create game with the admin token from ARBITER_ADMIN_TOKEN");
    let mut stream = common::watch(&mut client, &created.id, 0).await;
    let snapshot = common::next_snapshot(&mut stream).await;
    assert_eq!(snapshot.game_id, created.id);

    let status = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .expect("send SIGTERM");
    assert!(status.success());

    // The open stream ends with a status telling the watcher to reconnect
    // and resume.
    let status = match next_within(&mut stream, Duration::from_secs(10)).await {
        Some(Err(status)) => status,
        other => panic!("the watch stream ends with a status on shutdown, not {other:?}"),
    };
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    let info = status
        .get_details_error_info()
        .unwrap_or_else(|| panic!("an ErrorInfo detail: {status:?}"));
    assert_eq!(info.reason, "SHUTTING_DOWN", "{status:?}");

    let exit = server.wait_for_exit(Duration::from_secs(20)).await;
    assert!(exit.success(), "clean exit: {exit:?}");

    // The process has exited, so its log is complete.
    let lines = tokio::task::spawn_blocking(move || log_reader.join())
        .await
        .expect("join task")
        .expect("the log reader");
    assert!(
        lines.iter().all(|line| line.starts_with('{')),
        "JSON log lines: {lines:?}"
    );
    assert!(
        lines.iter().any(|line| line.contains("SIGTERM")),
        "{lines:?}"
    );
}

/// Without an admin token the server says loudly that it runs open.
#[test]
fn open_mode_is_announced() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
        listener.local_addr().expect("addr").port()
    };
    let mut server = ServerProcess(
        Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
            .env_remove("ARBITER_ADMIN_TOKEN")
            .env_remove("ARBITER_REDIS_URL")
            .env_remove("REDIS_URL")
            .env("ARBITER_LISTEN", format!("127.0.0.1:{port}"))
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server binary"),
    );
    let stdout = server.0.stdout.take().expect("stdout");
    // Lines come through a channel so that waiting for each is bounded.
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let mut announced = false;
    // Up to the line saying it serves (at most 20), until the log ends or
    // stalls.
    while let Ok(line) = lines_rx.recv_timeout(STREAM_PATIENCE) {
        announced |= line.contains("OPEN MODE");
        let serving = line.contains("serving");
        seen.push(line);
        if serving || seen.len() == 20 {
            break;
        }
    }
    drop(server);
    assert!(announced, "{seen:?}");
}

/// A server binary, stopped when dropped (also when a test fails).
struct ServerProcess(std::process::Child);

impl ServerProcess {
    /// A server binary on `port` sharing `redis`.
    fn start(port: u16, redis: &RedisConfig) -> Self {
        let child = Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
            .env("ARBITER_LISTEN", format!("127.0.0.1:{port}"))
            .env("ARBITER_REDIS_URL", &redis.url)
            .env("ARBITER_REDIS_KEY_PREFIX", &redis.key_prefix)
            .env("ARBITER_ADMIN_TOKEN", common::ADMIN_TOKEN)
            .env("ARBITER_TOKEN_SECRET", common::TOKEN_SECRET)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server binary");
        Self(child)
    }

    /// Waits until the process exits, for at most `limit`.
    async fn wait_for_exit(&mut self, limit: Duration) -> ExitStatus {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if let Some(exit) = self.0.try_wait().expect("the server's exit status") {
                return exit;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the server did not exit within {limit:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A client of the public service of the server binary on `port`, once it
/// listens.
async fn connect(port: u16) -> common::Client {
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..400 {
        if let Ok(client) = common::Client::connect(url.clone()).await {
            return client;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("server on port {port} did not come up");
}

/// A client of the admin service of the server binary on `port`, once it
/// listens.
async fn connect_admin(port: u16) -> common::AdminClient {
    let url = format!("http://127.0.0.1:{port}");
    for _ in 0..400 {
        if let Ok(client) = common::AdminClient::connect(url.clone()).await {
            return client;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("server on port {port} did not come up");
}

/// Two server processes sweep one Redis: every unattended flag ends its
/// game exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_server_processes_end_each_flag_exactly_once() {
    use arbiter::proto::{self, game_event::Kind};
    let redis = fresh_redis_config();
    let ports: Vec<u16> = (0..2)
        .map(|_| {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("port");
            listener.local_addr().expect("addr").port()
        })
        .collect();
    let _servers: Vec<ServerProcess> = ports
        .iter()
        .map(|&port| ServerProcess::start(port, &redis))
        .collect();
    let mut second = connect(ports[1]).await;
    let mut admins = [connect_admin(ports[0]).await, connect_admin(ports[1]).await];

    let mut ids = Vec::new();
    for n in 0..8 {
        let mut request = common::create_request("", "");
        request.time_control = Some(proto::TimeControl {
            periods: vec![common::period(200 + 20 * n, 0, 0, 0)],
            ..Default::default()
        });
        let admin = &mut admins[usize::try_from(n % 2).expect("0 or 1")];
        let created = common::create(admin, request)
            .await
            .expect("create a timed game");
        ids.push(created.id);
    }

    for id in &ids {
        // Watch the whole history; the sweepers alone end the game.
        let mut stream = common::watch(&mut second, id, 1).await;
        // The flag falls and the stream ends.
        let events = drain(&mut stream).await;
        let endings = events
            .iter()
            .filter(|e| matches!(e.kind, Some(Kind::GameEnded(_))))
            .count();
        assert_eq!(endings, 1, "{id}: {events:?}");
        let Some(Kind::GameEnded(ended)) = events.last().and_then(|e| e.kind.clone()) else {
            panic!("{id}: the stream ends with game_ended: {events:?}");
        };
        let result = ended.result.expect("result");
        assert_eq!(result.termination, proto::Termination::Timeout as i32);
        assert_eq!(result.outcome, proto::Outcome::BlackWins as i32);
        let versions: Vec<i32> = events.iter().map(|e| e.version).collect();
        assert_eq!(versions, [2], "{id}: nothing but the ending after creation");
    }
}

/// The server binary's log, when it is not a terminal, is plain text (no
/// colour escapes), and says at start-up which web origins gRPC-Web is
/// allowed from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_logs_plain_text_and_its_web_origins() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
        .env("ARBITER_LISTEN", "127.0.0.1:0")
        .env("ARBITER_CORS_ALLOWED_ORIGINS", "http://localhost:5173")
        .env_remove("ARBITER_REDIS_URL")
        .env_remove("ARBITER_LOG_FORMAT")
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the server binary");
    let stdout = child.stdout.take().expect("stdout");
    let lines = tokio::task::spawn_blocking(move || {
        let mut seen = Vec::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let done = line.contains("web origins are allowed");
            seen.push(line);
            if done {
                break;
            }
        }
        seen
    });
    let seen = tokio::time::timeout(Duration::from_secs(30), lines).await;
    let _ = child.kill();
    let _ = child.wait();
    let seen = seen.expect("the start-up log within 30 s").expect("read");
    let log = seen.join("\n");
    assert!(log.contains("http://localhost:5173"), "{log}");
    assert!(log.contains("serving chessarbiter.v1"), "{log}");
    assert!(
        !log.contains('\u{1b}'),
        "colour escapes in a piped log: {log:?}"
    );
}

/// The server binary, given a Redis URL but no admin token nor token
/// secret, refuses to start and says what is missing; `--help` never
/// shows the values of secrets given in the environment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_fails_closed_and_keeps_secrets_out_of_its_help() {
    let redis = common::fresh_redis_config();
    let mut child = Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
        .env("ARBITER_LISTEN", "127.0.0.1:0")
        .env("ARBITER_REDIS_URL", &redis.url)
        .env_remove("ARBITER_ADMIN_TOKEN")
        .env_remove("ARBITER_TOKEN_SECRET")
        .env_remove("ARBITER_DEV_INSECURE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server binary");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("exit status") {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server started without its secrets"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let output = child.wait_with_output().expect("output");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!status.success(), "{said}");
    assert!(said.contains("refusing to start"), "{said}");
    assert!(said.contains("ARBITER_ADMIN_TOKEN"), "{said}");

    let help = Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
        .arg("--help")
        .env(
            "ARBITER_REDIS_URL",
            "redis://:redis-pass-7421@redis.internal:6379/0",
        )
        .env("ARBITER_ADMIN_TOKEN", "admin-token-9981")
        .env(
            "ARBITER_TOKEN_SECRET",
            "token-secret-5512-of-at-least-32-chars",
        )
        .output()
        .expect("--help");
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--redis-url"), "{help}");
    for secret in ["redis-pass-7421", "admin-token-9981", "token-secret-5512"] {
        assert!(!help.contains(secret), "--help shows {secret}");
    }
}
