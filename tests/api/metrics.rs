//! The metrics port: scraped before and after a game, its counters and
//! histograms move by exactly what the game did; the sweeper's endings and
//! made-up methods are counted as such; and the probes of the manifests
//! name health services the server registers. (That the dashboard in
//! `deploy/` names only exported metrics is a unit test of `metrics`.)

use std::{collections::HashMap, net::SocketAddr, time::Duration};

use arbiter::proto;
use tonic::Code;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

use crate::common::{
    Backend, TestApp, create, create_request, free_port, make_move, seat, settings, watch,
};

/// A server on `backend` with its metrics on a port of its own.
async fn spawn(backend: Backend) -> (TestApp, SocketAddr) {
    let port = free_port();
    let mut settings = settings(backend.store());
    settings.metrics_listen = Some(port);
    (TestApp::spawn_with(settings, None).await, port)
}

/// One scrape: every sample by its name and labels as written.
async fn scrape(port: SocketAddr) -> (HashMap<String, f64>, String) {
    let text = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if let Ok(text) = get_metrics(port).await {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the metrics port answers");
    let samples = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .filter_map(|line| {
            let (key, value) = line.rsplit_once(' ')?;
            Some((key.to_owned(), value.parse().ok()?))
        })
        .collect();
    (samples, text)
}

/// `GET /metrics`: the text, when the port answers it in OpenMetrics.
async fn get_metrics(port: SocketAddr) -> std::io::Result<String> {
    let (code, head, body) = crate::common::http_get(port, "/metrics", "").await?;
    if code != 200 || !head.contains("application/openmetrics-text") {
        return Err(std::io::Error::other(format!("unexpected reply: {head}")));
    }
    String::from_utf8(body).map_err(std::io::Error::other)
}

fn value(samples: &HashMap<String, f64>, key: &str) -> f64 {
    samples.get(key).copied().unwrap_or(0.0)
}

/// What moved between two scrapes.
fn delta(before: &HashMap<String, f64>, after: &HashMap<String, f64>, key: &str) -> f64 {
    value(after, key) - value(before, key)
}

async fn a_game_moves_the_counters_by_what_it_did(backend: Backend) {
    let (app, port) = spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let (before, _) = scrape(port).await;

    let game = create(&mut admin_client, create_request("", ""))
        .await
        .expect("created");
    let mut viewer = watch(&mut client, &game.id, 1).await;
    // Fool's mate, with one illegal move on the way.
    let illegal = seat(&mut client, &game.white, make_move(&game.id, 0, "e5")).await;
    assert_eq!(illegal.expect_err("illegal").code(), Code::InvalidArgument);
    let mut current = game.game.clone();
    let mut during = HashMap::new();
    for mv in ["f3", "e5", "g4", "Qh4#"] {
        if mv == "Qh4#" {
            // While the game is on, its watcher is open.
            during = scrape(port).await.0;
        }
        let token = crate::common::token_to_move(&game, &current);
        current = seat(&mut client, token, make_move(&game.id, current.ply, mv))
            .await
            .expect("a move");
    }
    assert_eq!(current.status, proto::GameStatus::Finished as i32);
    // The watcher's stream ends with the game.
    while crate::common::next_within(&mut viewer, Duration::from_secs(30))
        .await
        .is_some()
    {}
    drop(viewer);
    let (after, text) = scrape(port).await;

    let moved = |key: &str| delta(&before, &after, key);
    assert_eq!(moved("arbiter_games_created_total"), 1.0, "{text}");
    assert_eq!(moved("arbiter_moves_committed_total"), 4.0, "{text}");
    assert_eq!(
        moved(r#"arbiter_games_ended_total{termination="checkmate"}"#),
        1.0,
        "{text}"
    );
    assert_eq!(
        moved(r#"arbiter_grpc_requests_total{method="AdminService/CreateGame",code="OK"}"#),
        1.0
    );
    assert_eq!(
        moved(r#"arbiter_grpc_requests_total{method="ArbiterService/MakeMove",code="OK"}"#),
        4.0
    );
    assert_eq!(
        moved(
            r#"arbiter_grpc_requests_total{method="ArbiterService/MakeMove",code="INVALID_ARGUMENT"}"#
        ),
        1.0
    );
    assert_eq!(
        moved(r#"arbiter_grpc_request_duration_seconds_count{method="ArbiterService/MakeMove"}"#),
        5.0
    );
    // Four moves and a creation committed: five commits at least (the
    // sweeper commits nothing here).
    assert_eq!(
        moved(r#"arbiter_store_operation_duration_seconds_count{operation="commit"}"#),
        5.0,
        "{text}"
    );
    assert_eq!(
        moved(r#"arbiter_store_errors_total{operation="commit"}"#),
        0.0
    );
    assert_eq!(
        value(&during, "arbiter_watch_streams_open"),
        1.0,
        "one watcher open"
    );
    assert_eq!(
        value(&after, "arbiter_watch_streams_open"),
        0.0,
        "closed with the game"
    );
    assert_eq!(moved("arbiter_commit_conflicts_total"), 0.0);
}

on_every_backend!(a_game_moves_the_counters_by_what_it_did);

/// A flag that falls with nobody looking is ended by the sweeper, and said
/// so; calls to made-up methods are counted under one `unknown` label.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweeper_and_unknown_methods_are_counted() {
    let (app, port) = spawn(Backend::Memory).await;
    let mut admin_client = app.admin_client().await;
    let mut request = create_request("", "");
    request.time_control = Some(proto::TimeControl {
        periods: vec![crate::common::period(1_000, 0, 0, 0)],
        ..Default::default()
    });
    request.clock_starts_after_first_moves = false;
    create(&mut admin_client, request).await.expect("created");
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let (samples, _) = scrape(port).await;
            if value(&samples, r#"arbiter_time_endings_total{by="sweeper"}"#) == 1.0 {
                return samples;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the sweeper ends the game on time");
    assert_eq!(
        value(
            &ended,
            r#"arbiter_games_ended_total{termination="timeout"}"#
        ) + value(
            &ended,
            r#"arbiter_games_ended_total{termination="timeout_vs_insufficient_material"}"#
        ),
        1.0
    );

    let mut channel = tonic::client::Grpc::new(app.channel().await);
    for name in ["Nope", "Other"] {
        channel.ready().await.expect("ready");
        let path = http::uri::PathAndQuery::from_maybe_shared(format!(
            "/chessarbiter.v1.ArbiterService/{name}"
        ))
        .expect("path");
        let call: Result<tonic::Response<proto::GetGameResponse>, _> = channel
            .unary(
                tonic::Request::new(proto::GetGameRequest::default()),
                path,
                tonic_prost::ProstCodec::default(),
            )
            .await;
        assert_eq!(
            call.expect_err("no such method").code(),
            Code::Unimplemented
        );
    }
    let (samples, text) = scrape(port).await;
    assert_eq!(
        value(
            &samples,
            r#"arbiter_grpc_requests_total{method="unknown",code="UNIMPLEMENTED"}"#
        ),
        2.0,
        "{text}"
    );
    assert!(!text.contains("Nope"), "a made-up name became a label");
}

/// The probes of the Deployment name health services the server registers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manifests_probe_services_the_server_registers() {
    let app = TestApp::spawn(Backend::Memory).await;
    let deployment = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/deploy/base/deployment.yaml"
    ))
    .expect("the deployment");
    let services: Vec<&str> = deployment
        .lines()
        .filter_map(|line| line.trim().strip_prefix("service: "))
        .collect();
    assert_eq!(
        services.len(),
        3,
        "startup, liveness and readiness probes: {services:?}"
    );
    let mut health = HealthClient::new(app.channel().await);
    for service in services {
        let status = health
            .check(HealthCheckRequest {
                service: service.to_owned(),
            })
            .await
            .unwrap_or_else(|status| panic!("probe service {service}: {status:?}"))
            .into_inner()
            .status;
        assert!(status == 1 || status == 2, "{service}: {status}");
    }
}

/// A flag whose helpmate search cannot decide is counted as a result
/// awaiting an arbiter's review.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_awaiting_review_are_counted() {
    use crate::clocks::{CHESS960_KING_ON_F1, FLAG_MS, sudden_death, timed};
    let (app, port) = spawn(Backend::Memory).await;
    let mut admin_client = app.admin_client().await;
    let (before, _) = scrape(port).await;
    let mut request = timed(CHESS960_KING_ON_F1, sudden_death(FLAG_MS));
    request.variant = proto::Variant::Chess960.into();
    create(&mut admin_client, request).await.expect("created");
    let counted = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let (samples, _) = scrape(port).await;
            if value(&samples, "arbiter_results_awaiting_review_total") == 1.0 {
                return samples;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the undecided flag is counted for review");
    assert_eq!(value(&before, "arbiter_results_awaiting_review_total"), 0.0);
    assert_eq!(
        value(
            &counted,
            r#"arbiter_games_ended_total{termination="timeout"}"#
        ),
        1.0
    );
}
