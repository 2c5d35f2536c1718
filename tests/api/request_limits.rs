//! Limits on what one request may cost: its size, its duration, and how
//! many requests a replica serves at once (past that, it refuses at once
//! rather than queue).

use std::time::Duration;

use arbiter::{proto, server::StoreChoice, store::RedisConfig};
use tonic::Code;
use tonic_types::StatusExt;

use crate::common::{
    Backend, RedisServer, TestApp, admin, create, create_request, expect_code, get, make_move,
    next_snapshot, offer_draw, reason, seat, settings, watch,
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
    // AdminService takes up to 4 MiB (a round of 2,000 boards).
    let mut request = create_request("", "");
    request.white.as_mut().expect("white").name = "x".repeat(5 * 1024 * 1024);
    let status = admin_client
        .create_game(admin(request))
        .await
        .expect_err("a 5 MiB request");
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    assert!(status.message().contains("too large"), "{status:?}");
    // ArbiterService, up to 64 KiB.
    let mut client = app.client().await;
    let status = client
        .get_game(proto::GetGameRequest {
            game_id: "x".repeat(100 * 1024),
            view: proto::GameView::Basic.into(),
        })
        .await
        .expect_err("a 100 KiB request");
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    // WatchGame (served as encoded frames) has the same bound.
    let status = client
        .watch_game(proto::WatchGameRequest {
            game_id: "x".repeat(100 * 1024),
            ..Default::default()
        })
        .await
        .expect_err("a 100 KiB watch request");
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    // The server goes on serving.
    create(&mut admin_client, create_request("", ""))
        .await
        .expect("a request of a normal size");
}

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

/// A watch stream's start is not bounded by the server's request timeout:
/// it waits for the game's read however long storage takes, where a
/// unary request on the same server is cancelled. (A watcher's own
/// deadline still bounds its start: `request_timeout`'s unit tests; a
/// client enforces it too.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_start_outlasts_the_request_timeout() {
    let app = on_private_redis(|settings| {
        settings.request_timeout = Duration::from_millis(300);
    })
    .await;
    let game = app.new_game().await;
    let mut client = app.client().await;
    let mut unary = app.client().await;
    pause_redis(&app, 1_500).await;
    let id = game.id.clone();
    let watching = tokio::spawn(async move { watch(&mut client, &id, 0).await });
    let status = expect_code(
        unary
            .get_game(proto::GetGameRequest {
                game_id: game.id.clone(),
                view: proto::GameView::Basic.into(),
            })
            .await,
        Code::Cancelled,
    );
    assert!(
        status.message().contains("request timeout (300 ms)"),
        "{status:?}"
    );
    let mut stream = watching
        .await
        .expect("the watch starts once storage answers");
    assert_eq!(next_snapshot(&mut stream).await.version, 1);
}

/// A seat that writes faster than its rate is refused with
/// RESOURCE_EXHAUSTED (RATE_LIMITED) and the wait in `RetryInfo`, and
/// nothing is applied; the other seat and other games are not held back;
/// after the wait the seat is admitted again.
async fn a_seat_writing_too_fast_is_rate_limited(backend: Backend) {
    let mut tuned = settings(backend.store());
    // One write per second per seat, bursts of two; no limit per address.
    tuned.write_limits = (1, 0);
    let app = TestApp::spawn_with(tuned, None).await;
    let game = app.new_game().await;
    let other = app.new_game().await;
    let mut client = app.client().await;

    // A burst of draw offers by White, most of them refused as offers out
    // of turn or limited: count the limited ones.
    let mut limited = None;
    for _ in 0..10 {
        let result = seat(&mut client, &game.white, offer_draw(&game.id)).await;
        if let Err(status) = result
            && reason(&status) == "RATE_LIMITED"
        {
            limited = Some(status);
            break;
        }
    }
    let limited = limited.expect("White is limited after its burst");
    assert_eq!(limited.code(), Code::ResourceExhausted);
    let wait = limited
        .get_details_retry_info()
        .and_then(|info| info.retry_delay)
        .expect("the wait");
    assert!(wait <= Duration::from_secs(2), "{wait:?}");
    // A limited move is not applied.
    let refused = seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await;
    assert_eq!(
        refused.map(|_| ()).map_err(|status| reason(&status)),
        Err("RATE_LIMITED".to_owned())
    );
    assert_eq!(get(&mut client, &game.id).await.ply, 0);
    // Other seats are not held back.
    seat(&mut client, &other.white, make_move(&other.id, 0, "d4"))
        .await
        .expect("another game's seat");
    // After the wait, White moves.
    tokio::time::sleep(wait + Duration::from_millis(50)).await;
    let moved = seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("admitted again");
    assert_eq!(moved.ply, 1);
}

/// Writes from one client address are limited whatever the seat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_address_writing_too_fast_is_rate_limited() {
    let mut tuned = settings(Backend::Memory.store());
    // No limit per seat; one write per second per address, bursts of two.
    tuned.write_limits = (0, 1);
    let app = TestApp::spawn_with(tuned, None).await;
    let mut client = app.client().await;
    let mut reasons = Vec::new();
    for _ in 0..4 {
        // A new game's White each time: every seat is fresh.
        let game = app.new_game().await;
        match seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await {
            Ok(_) => reasons.push("OK".to_owned()),
            Err(status) => reasons.push(reason(&status)),
        }
    }
    assert!(
        reasons.iter().any(|reason| reason == "RATE_LIMITED"),
        "{reasons:?}"
    );
}

on_every_backend!(
    an_oversized_request_is_refused,
    a_seat_writing_too_fast_is_rate_limited,
);
