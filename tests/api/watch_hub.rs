//! Watching at scale: a replica follows a game once however many streams
//! watch it, fans every event out to each in order and exactly once, and
//! holds a constant number of Redis connections whatever the number of
//! watchers.

use crate::common;

use std::time::Duration;

use arbiter::{proto, server::StoreChoice, store::RedisConfig};
use common::{Backend, RedisServer, TestApp, drain, play_line, resign, seat, settings, watch};

/// Watchers each get every event after the version they start from, once
/// and in order, whether they start before or during play, from two
/// replicas sharing one store where the backend allows it.
async fn many_watchers_each_get_every_event_once_in_order(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let game = app.new_game().await;
    let line = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7",
    ];
    let mut player = app.client().await;

    let mut watchers = Vec::new();
    let start = |from: i32, client: common::Client| {
        let id = game.id.clone();
        tokio::spawn(async move {
            let mut client = client;
            let mut stream = watch(&mut client, &id, from).await;
            let events = drain(&mut stream).await;
            (from, events)
        })
    };
    // Four connections, ten watchers on each, half from the creation.
    let mut clients = Vec::new();
    for _ in 0..4 {
        clients.push(app.client().await);
    }
    for n in 0..40 {
        watchers.push(start(1, clients[n % 4].clone()));
    }
    play_line(&mut player, &game, &line[..4]).await;
    // Later watchers resume from where they say they are.
    for n in 0..20 {
        watchers.push(start(1 + (n % 5) as i32, clients[n % 4].clone()));
    }
    play_line(&mut player, &game, &line[4..]).await;
    seat(&mut player, &game.black, resign(&game.id))
        .await
        .expect("resign");

    let last = line.len() as i32 + 2;
    for watcher in watchers {
        let (from, events) = watcher.await.expect("a watcher");
        let versions: Vec<i32> = events.iter().map(|event| event.version).collect();
        assert_eq!(versions, (from + 1..=last).collect::<Vec<_>>());
        assert!(matches!(
            events.last().and_then(|event| event.kind.clone()),
            Some(proto::game_event::Kind::GameEnded(_))
        ));
    }
}

/// The clients connected to the Redis on `port`.
async fn redis_clients(port: u16) -> usize {
    let client = ::redis::Client::open(format!("redis://127.0.0.1:{port}/")).expect("client");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("connection");
    let list: String = ::redis::cmd("CLIENT")
        .arg("LIST")
        .query_async(&mut conn)
        .await
        .expect("client list");
    // Less this connection.
    list.lines().count() - 1
}

/// 300 watch streams on six games of one replica hold the same Redis
/// connections as none: the shared one and the announcements'
/// subscription, not one per stream (nor per game).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_connections_do_not_grow_with_watchers() {
    let redis = RedisServer::start();
    let store = StoreChoice::Redis(RedisConfig {
        url: redis.url(),
        key_prefix: "hub".to_owned(),
        tls: Default::default(),
        wait: None,
    });
    let app = TestApp::spawn_with(settings(store), None).await;
    let mut player = app.client().await;
    let mut games = Vec::new();
    for _ in 0..6 {
        games.push(app.new_game().await);
    }
    // One watcher, then the replica's connections at rest with a game
    // followed.
    let lone = app.new_game().await;
    let mut first = app.client().await;
    let mut first_stream = watch(&mut first, &lone.id, 1).await;
    play_line(&mut player, &lone, &["d4"]).await;
    let event = common::next_event(&mut first_stream).await;
    assert_eq!(event.version, 2);
    let with_one = redis_clients(redis.port()).await;

    let mut clients = Vec::new();
    for _ in 0..10 {
        clients.push(app.client().await);
    }
    let mut streams = Vec::new();
    for n in 0..300 {
        let game = &games[n % games.len()];
        let mut client = clients[n % clients.len()].clone();
        streams.push(watch(&mut client, &game.id, 1).await);
    }
    for game in &games {
        play_line(&mut player, game, &["e4"]).await;
    }
    // Every stream got its game's move: all of them are being followed.
    for stream in &mut streams {
        assert_eq!(common::next_event(stream).await.version, 2);
    }
    let with_many = redis_clients(redis.port()).await;
    assert!(
        with_many <= with_one && with_one <= 4,
        "{with_one} Redis connections with one watcher, {with_many} with 301"
    );
    drop(streams);
    tokio::time::sleep(Duration::from_millis(50)).await;
    drop(redis);
}

/// A watcher resumes on another replica with the resume token of the last
/// message it got on the first, and misses nothing; moves made through one
/// replica reach the watchers of the other at once (the announcements).
async fn a_watcher_resumes_on_another_replica(backend: Backend) {
    let first = TestApp::spawn(backend).await;
    let second = TestApp::spawn_with(first.settings.clone(), None).await;
    let game = first.new_game().await;
    let (mut on_first, mut on_second) = (first.client().await, second.client().await);

    let mut stream = watch(&mut on_first, &game.id, 1).await;
    play_line(&mut on_second, &game, &["e4", "e5"]).await;
    let mut token = String::new();
    for version in [2, 3] {
        let message = common::next_within(&mut stream, common::STREAM_PATIENCE)
            .await
            .expect("open")
            .expect("a message");
        let Some(proto::watch_game_response::Kind::Event(event)) = message.kind else {
            panic!("an event: {message:?}");
        };
        assert_eq!(event.version, version);
        token = message.resume_token;
    }
    drop(stream);
    play_line(&mut on_second, &game, &["Nf3"]).await;
    let mut resumed = on_second
        .watch_game(proto::WatchGameRequest {
            game_id: game.id.clone(),
            resume_token: token,
            ..Default::default()
        })
        .await
        .expect("resume on the other replica")
        .into_inner();
    assert_eq!(common::next_event(&mut resumed).await.version, 4);
    play_line(&mut on_first, &game, &["Nc6"]).await;
    assert_eq!(common::next_event(&mut resumed).await.version, 5);
}

/// A result corrected after the game ended reaches the event's watchers
/// that are still connected.
async fn a_correction_reaches_connected_event_watchers(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let mut request = common::create_request("", "");
    request.pairing = Some(common::pairing("corrected-cup", 1, 1));
    let game = common::create(&mut admin, request).await.expect("create");
    let mut stream = client
        .watch_event(proto::WatchEventRequest {
            event_id: "corrected-cup".to_owned(),
            after_cursor: String::new(),
            round: 0,
        })
        .await
        .expect("watch the event")
        .into_inner();
    let mated = play_line(&mut client, &game, &["f3", "e5", "g4", "Qh4#"]).await;
    let mut versions = Vec::new();
    while versions.last() != Some(&mated.version) {
        let message = common::next_within(&mut stream, common::STREAM_PATIENCE)
            .await
            .expect("open")
            .expect("a message");
        if let Some(proto::watch_event_response::Kind::Event(event)) = message.kind {
            versions.push(event.version);
        }
    }
    assert_eq!(versions, (1..=mated.version).collect::<Vec<_>>());

    admin
        .set_game_result(common::admin(proto::SetGameResultRequest {
            game_id: game.id.clone(),
            reason: "a mobile phone rang (FIDE 11.3.2)".to_owned(),
            ruling: Some(proto::set_game_result_request::Ruling::Played(
                proto::PlayedResult {
                    outcome: proto::Outcome::WhiteWins.into(),
                    termination: proto::Termination::Unspecified.into(),
                },
            )),
            ..Default::default()
        }))
        .await
        .expect("correct the result");
    let correction = loop {
        let message = common::next_within(&mut stream, common::STREAM_PATIENCE)
            .await
            .expect("open")
            .expect("a message");
        if let Some(proto::watch_event_response::Kind::Event(event)) = message.kind {
            break event;
        }
    };
    assert_eq!(correction.version, mated.version + 1);
    assert!(
        matches!(
            correction.kind,
            Some(proto::game_event::Kind::ResultDecided(_))
        ),
        "{correction:?}"
    );
}

on_every_backend!(
    many_watchers_each_get_every_event_once_in_order,
    a_correction_reaches_connected_event_watchers,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_a_watcher_resumes_on_another_replica() {
    a_watcher_resumes_on_another_replica(Backend::Redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_a_watcher_resumes_on_another_replica() {
    a_watcher_resumes_on_another_replica(Backend::Cluster).await;
}
