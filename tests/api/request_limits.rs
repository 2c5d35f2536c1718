//! Limits on what one request may cost: its size, its duration, and how
//! many requests a replica serves at once (past that, it refuses at once
//! rather than queue).

use std::time::Duration;

use arbiter::{proto, server::StoreChoice, store::RedisConfig};
use tonic::Code;
use tonic_types::StatusExt;

use crate::common::{
    Backend, RedisServer, TestApp, admin, create, create_request, expect_code, get, reason,
    settings,
};

/// A server on a Redis of its own (which the test pauses), with `tune`
/// applied to its settings.
async fn on_private_redis(tune: impl FnOnce(&mut arbiter::server::Settings)) -> TestApp {
    let redis = RedisServer::start();
    let mut settings = settings(StoreChoice::Redis(RedisConfig {
        url: redis.url(),
        key_prefix: "limits".to_owned(),
        tls: Default::default(),
        wait: None,
    }));
    tune(&mut settings);
    TestApp::spawn_with(settings, Some(redis)).await
}

/// Holds every command of the server's Redis for `millis` (`CLIENT PAUSE`),
/// so that requests in the meantime wait on storage.
async fn pause_redis(app: &TestApp, millis: u64) {
    let url = app.redis.as_ref().expect("a private Redis").url();
    let client = ::redis::Client::open(url).expect("client");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("connection");
    let _: () = ::redis::cmd("CLIENT")
        .arg("PAUSE")
        .arg(millis)
        .arg("ALL")
        .query_async(&mut conn)
        .await
        .expect("CLIENT PAUSE");
}

/// A request larger than the limit is refused before it is decoded, and
/// creates nothing.
async fn an_oversized_request_is_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut request = create_request("", "");
    request.white.as_mut().expect("white").name = "x".repeat(100 * 1024);
    let status = admin_client
        .create_game(admin(request))
        .await
        .expect_err("a 100 KiB request");
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    assert!(status.message().contains("too large"), "{status:?}");
    // The server goes on serving.
    create(&mut admin_client, create_request("", ""))
        .await
        .expect("a request of a normal size");
}

on_every_backend!(an_oversized_request_is_refused);

/// Past the number of requests a replica serves at once, a request is
/// refused at once with RESOURCE_EXHAUSTED (OVERLOADED) and retry advice,
/// and succeeds when retried once the others are done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_request_limit_a_request_is_refused_at_once() {
    let app = on_private_redis(|settings| settings.max_requests = 1).await;
    let game = app.new_game().await;
    let mut first = app.client().await;
    let mut second = app.client().await;
    pause_redis(&app, 1_000).await;
    let id = game.id.clone();
    let waiting = tokio::spawn(async move { get(&mut first, &id).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Refused, not queued behind the first (which waits on storage).
    let status = expect_code(
        second
            .get_game(proto::GetGameRequest {
                game_id: game.id.clone(),
                view: proto::GameView::Basic.into(),
            })
            .await,
        Code::ResourceExhausted,
    );
    assert_eq!(reason(&status), "OVERLOADED", "{status:?}");
    assert!(
        status.get_details_retry_info().is_some(),
        "retry advice: {status:?}"
    );
    assert_eq!(waiting.await.expect("the first request").version, 1);
    assert_eq!(get(&mut second, &game.id).await.version, 1);
}

/// A unary request that takes longer than the server's request timeout
/// is cancelled, saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_past_the_timeout_is_cancelled() {
    let app = on_private_redis(|settings| {
        settings.request_timeout = Duration::from_millis(300);
    })
    .await;
    let game = app.new_game().await;
    let mut client = app.client().await;
    pause_redis(&app, 1_500).await;
    let status = expect_code(
        client
            .get_game(proto::GetGameRequest {
                game_id: game.id.clone(),
                view: proto::GameView::Basic.into(),
            })
            .await,
        Code::Cancelled,
    );
    assert!(status.message().contains("Timeout"), "{status:?}");
    // Once storage answers again, so does the server.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(get(&mut client, &game.id).await.version, 1);
}
