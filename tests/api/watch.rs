//! Watching games: snapshots, resumption without gaps or duplicates, and
//! the end of the stream.

use crate::common;

use std::time::Duration;

use arbiter::proto::{self, game_event::Kind};
use common::{
    Backend, STREAM_PATIENCE, TestApp, WatchKind, create, create_request, drain, drain_messages,
    expect_code, next_event, next_message, next_snapshot, next_within, period, play_line, reason,
    resign, seat, watch,
};
use tonic::{Code, Streaming};

fn sans(events: &[proto::GameEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.kind {
            Some(Kind::MoveMade(m)) => m.r#move.as_ref().map(|m| m.san.clone()),
            _ => None,
        })
        .collect()
}

const FOOLS_MATE: [&str; 4] = ["f3", "e5", "g4", "Qh4#"];

async fn resume_after_disconnect_has_no_gap_and_no_duplicate(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let game = app.new_game().await;
    let mut client = app.client().await;

    let mut first = watch(&mut client, &game.id, 0).await;
    let snapshot = next_snapshot(&mut first).await;
    assert_eq!(snapshot.version, 1);
    assert_eq!(snapshot.game_id, game.id);
    play_line(&mut client, &game, &FOOLS_MATE[..1]).await;
    let seen = next_event(&mut first).await;
    assert_eq!(seen.version, 2);
    drop(first);

    // Moves made while nobody watched.
    play_line(&mut client, &game, &FOOLS_MATE[1..3]).await;

    let mut second = watch(&mut client, &game.id, seen.version).await;
    let resumed = next_event(&mut second).await;
    assert_eq!(
        resumed.version, 3,
        "resumes right after the last version seen"
    );
    assert!(matches!(resumed.kind, Some(Kind::MoveMade(_))));
    play_line(&mut client, &game, &FOOLS_MATE[3..]).await;
    let mut rest = vec![resumed];
    rest.extend(drain(&mut second).await);
    let versions: Vec<i32> = rest.iter().map(|e| e.version).collect();
    assert_eq!(versions, [3, 4, 5, 6]);
    assert_eq!(sans(&rest), ["e5", "g4", "Qh4#"]);
    assert!(matches!(
        rest.last().and_then(|e| e.kind.clone()),
        Some(Kind::GameEnded(_))
    ));
}

async fn a_finished_game_streams_its_history_then_ends(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let game = app.new_game().await;
    let mut client = app.client().await;
    let end = play_line(&mut client, &game, &FOOLS_MATE).await;

    let from_start = drain_messages(&mut watch(&mut client, &game.id, 0).await).await;
    assert_eq!(from_start.len(), 1, "just the snapshot: {from_start:?}");
    let WatchKind::Snapshot(snapshot) = &from_start[0] else {
        panic!("snapshot first: {from_start:?}");
    };
    assert_eq!(snapshot.version, end.version);
    assert_eq!(snapshot.ply, 4);
    assert!(snapshot.moves.is_empty(), "a snapshot has no move list");
    assert_eq!(
        snapshot.last_move.as_ref().map(|m| m.san.as_str()),
        Some("Qh4#")
    );
    assert_eq!(snapshot.status, proto::GameStatus::Finished as i32);
    assert_eq!(snapshot.result, end.result);

    let from_creation = drain(&mut watch(&mut client, &game.id, 1).await).await;
    assert_eq!(sans(&from_creation), FOOLS_MATE);
    assert_eq!(from_creation.last().map(|e| e.version), Some(end.version));

    let at_end = drain(&mut watch(&mut client, &game.id, end.version).await).await;
    assert!(at_end.is_empty(), "nothing follows the end: {at_end:?}");
}

async fn a_version_ahead_of_the_game_is_out_of_range(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let game = app.new_game().await;
    let mut client = app.client().await;
    let result = client
        .watch_game(proto::WatchGameRequest {
            game_id: game.id.clone(),
            after_version: 5,
            ..Default::default()
        })
        .await;
    let status = expect_code(result, Code::OutOfRange);
    assert_eq!(reason(&status), "VERSION_AHEAD");
    // A version is never negative.
    let result = client
        .watch_game(proto::WatchGameRequest {
            game_id: game.id.clone(),
            after_version: -1,
            ..Default::default()
        })
        .await;
    let status = expect_code(result, Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD");
}

async fn every_watcher_sees_every_event_and_resignation_ends_the_stream(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let game = app.new_game().await;
    let mut client = app.client().await;
    let mut streams = Vec::new();
    for _ in 0..3 {
        let mut watcher = app.client().await;
        let mut stream = watch(&mut watcher, &game.id, 1).await;
        // The creation event is version 1; nothing is pending yet.
        streams.push((watcher, async move { drain(&mut stream).await }));
    }
    let handles: Vec<_> = streams
        .into_iter()
        .map(|(watcher, events)| {
            tokio::spawn(async move {
                let _keep = watcher;
                events.await
            })
        })
        .collect();
    play_line(&mut client, &game, &["d4", "d5", "c4"]).await;
    seat(&mut client, &game.black, resign(&game.id))
        .await
        .expect("resign");
    for handle in handles {
        let events = handle.await.expect("watcher task");
        assert_eq!(sans(&events), ["d4", "d5", "c4"]);
        let Some(Kind::GameEnded(ended)) = events.last().and_then(|e| e.kind.clone()) else {
            panic!("ends with game_ended: {events:?}");
        };
        let result = ended.result.expect("result");
        assert_eq!(result.outcome, proto::Outcome::WhiteWins as i32);
        assert_eq!(result.termination, proto::Termination::Resignation as i32);
    }
}

async fn shutdown_ends_open_streams(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let game = app.new_game().await;
    let mut client = app.client().await;
    let mut stream = watch(&mut client, &game.id, 0).await;
    next_snapshot(&mut stream).await;
    let reader = tokio::spawn(async move {
        let mut last = None;
        while let Some(message) = next_within(&mut stream, STREAM_PATIENCE).await {
            last = Some(message);
        }
        last
    });
    // stop() itself asserts that the server stops within its grace period.
    app.stop().await;
    let last = reader.await.expect("reader task");
    if let Some(Err(status)) = last {
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
        assert_eq!(reason(&status), "SHUTTING_DOWN");
    }
}

/// The silence after which the heartbeat tests' servers send a heartbeat.
const QUIET: Duration = Duration::from_millis(200);

/// The next message of a watch stream, which must be a heartbeat.
async fn next_heartbeat(stream: &mut Streaming<proto::WatchGameResponse>) -> proto::Heartbeat {
    match next_message(stream).await {
        WatchKind::Heartbeat(beat) => beat,
        other => panic!("expected a heartbeat, got {other:?}"),
    }
}

/// A timestamp in milliseconds since the epoch, to compare instants.
fn unix_millis(at: &prost_types::Timestamp) -> i64 {
    at.seconds * 1000 + i64::from(at.nanos) / 1_000_000
}

/// Asserts that `beat` describes the game at `version` with `running`'s
/// clock running, its clocks read at the heartbeat's server time.
#[track_caller]
fn assert_beat(beat: &proto::Heartbeat, version: i32, running: proto::Color) -> proto::ClockState {
    let server_time = beat.server_time.expect("the server time");
    assert_eq!(beat.version, version, "{beat:?}");
    let clock = beat.clock.expect("a timed game's clocks");
    assert_eq!(clock.read_time, Some(server_time), "{beat:?}");
    assert_eq!(clock.running, Some(running as i32), "{beat:?}");
    assert!(!clock.paused, "{beat:?}");
    assert!(
        0 < clock.white_millis && clock.white_millis <= 600_000,
        "{beat:?}"
    );
    assert!(
        0 < clock.black_millis && clock.black_millis <= 600_000,
        "{beat:?}"
    );
    clock
}

/// A quiet game's stream sends heartbeats with the server time, the game's
/// version and its clocks; moves still arrive exactly once and in order
/// between them.
async fn a_quiet_game_sends_heartbeats_with_its_version_and_clocks(backend: Backend) {
    let app = TestApp::spawn_with_heartbeat(backend, QUIET).await;
    let mut request = create_request("", "");
    request.time_control = Some(proto::TimeControl {
        periods: vec![period(600_000, 0, 0, 0)],
        ..Default::default()
    });
    let game = create(&mut app.admin_client().await, request)
        .await
        .expect("create a timed game");
    let mut client = app.client().await;
    let after_e4 = play_line(&mut client, &game, &["e4"]).await;
    let mut stream = watch(&mut client, &game.id, 0).await;
    let snapshot = next_snapshot(&mut stream).await;
    assert_eq!(snapshot.version, after_e4.version);
    let white_left = snapshot.clock.expect("clocks").white_millis;

    // Nothing happens: heartbeats, each with the game as it stands and
    // Black's clock running down.
    let mut previous: Option<(i64, i32)> = None;
    for _ in 0..3 {
        let beat = next_heartbeat(&mut stream).await;
        let clock = assert_beat(&beat, snapshot.version, proto::Color::Black);
        assert_eq!(clock.white_millis, white_left, "White's clock stands");
        let at = unix_millis(&beat.server_time.expect("server time"));
        if let Some((before, black_before)) = previous {
            assert!(at >= before, "heartbeats in time order");
            assert!(clock.black_millis <= black_before, "Black's clock runs");
        }
        previous = Some((at, clock.black_millis));
    }

    // Moves between heartbeats: each event once, in order, and the
    // heartbeats that follow carry its version.
    let mut version = snapshot.version;
    for (mv, running) in [
        ("e5", proto::Color::White),
        ("Nf3", proto::Color::Black),
        ("Nc6", proto::Color::White),
    ] {
        let moved = play_line(&mut client, &game, &[mv]).await;
        let event = loop {
            match next_message(&mut stream).await {
                WatchKind::Event(event) => break event,
                // Sent before the move reached the stream: never behind.
                WatchKind::Heartbeat(beat) => assert!(beat.version >= version, "{beat:?}"),
                WatchKind::Snapshot(game) => panic!("a second snapshot: {game:?}"),
            }
        };
        assert_eq!(event.version, version + 1, "{event:?}");
        assert_eq!(event.version, moved.version);
        assert!(matches!(event.kind, Some(Kind::MoveMade(_))), "{event:?}");
        version = event.version;
        // Quiet again: nothing but heartbeats until the next move.
        for _ in 0..2 {
            assert_beat(&next_heartbeat(&mut stream).await, version, running);
        }
    }

    // The game ends, and so does the stream.
    seat(&mut client, &game.white, resign(&game.id))
        .await
        .expect("resign");
    let rest = drain(&mut stream).await;
    let versions: Vec<i32> = rest.iter().map(|e| e.version).collect();
    assert_eq!(versions, [version + 1], "{rest:?}");
    assert!(matches!(rest[0].kind, Some(Kind::GameEnded(_))));
}

/// Opens a watch with a resume token (and an after_version, 0 for none).
async fn watch_with_token(
    client: &mut common::Client,
    game_id: &str,
    after_version: i32,
    resume_token: &str,
) -> Result<Streaming<proto::WatchGameResponse>, tonic::Status> {
    client
        .watch_game(proto::WatchGameRequest {
            game_id: game_id.to_owned(),
            after_version,
            resume_token: resume_token.to_owned(),
        })
        .await
        .map(tonic::Response::into_inner)
}

/// The next snapshot or event of a stream with its resume token.
async fn next_with_token(stream: &mut Streaming<proto::WatchGameResponse>) -> (WatchKind, String) {
    let message = next_within(stream, STREAM_PATIENCE)
        .await
        .expect("a message")
        .expect("not an error");
    (message.kind.expect("a kind"), message.resume_token)
}

async fn resume_tokens_name_the_exact_event(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let game = app.new_game().await;
    let other = app.new_game().await;
    let mut client = app.client().await;

    // The snapshot carries the token of its version; resuming with it
    // sends what followed.
    let mut first = watch(&mut client, &game.id, 0).await;
    let (snapshot, snapshot_token) = next_with_token(&mut first).await;
    assert!(matches!(snapshot, WatchKind::Snapshot(_)), "{snapshot:?}");
    assert!(snapshot_token.starts_with("1."), "{snapshot_token}");
    play_line(&mut client, &game, &FOOLS_MATE[..2]).await;
    let (event, token) = next_with_token(&mut first).await;
    let WatchKind::Event(event) = event else {
        panic!("an event: {event:?}")
    };
    assert_eq!(event.version, 2);
    assert!(token.starts_with("2."), "{token}");
    drop(first);

    let mut resumed = watch_with_token(&mut client, &game.id, 0, &snapshot_token)
        .await
        .expect("resume after the snapshot");
    assert_eq!(next_event(&mut resumed).await.version, 2);
    drop(resumed);
    // With the token alone, or with the same after_version.
    for after_version in [0, 2] {
        let mut resumed = watch_with_token(&mut client, &game.id, after_version, &token)
            .await
            .expect("resume after version 2");
        let (next, next_token) = next_with_token(&mut resumed).await;
        let WatchKind::Event(next) = next else {
            panic!("an event: {next:?}")
        };
        assert_eq!(next.version, 3);
        assert!(next_token.starts_with("3."), "{next_token}");
    }

    // Malformed, or at odds with after_version: INVALID_ARGUMENT.
    for (after_version, bad) in [
        (0, "2"),
        (0, "2.xyz"),
        (0, "x.0123456789abcdef"),
        (1, &*token),
    ] {
        let status = expect_code(
            watch_with_token(&mut client, &game.id, after_version, bad).await,
            Code::InvalidArgument,
        );
        assert!(!status.message().is_empty());
    }
    // A token of another game names no event of this one.
    let mut watching_other = watch(&mut client, &other.id, 0).await;
    let (_, other_token) = next_with_token(&mut watching_other).await;
    let status = expect_code(
        watch_with_token(&mut client, &game.id, 0, &other_token).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "HISTORY_REWRITTEN", "{status:?}");
}

/// A watcher that resumes after an event its game has lost (a Redis
/// failover that dropped the latest commit, whose version the next move
/// then reused) is refused with HISTORY_REWRITTEN, before and after the
/// version is reused, instead of silently missing the replacement. The
/// loss is made here as a failover leaves it: the game's state and log as
/// they were one commit earlier.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_history_rewritten_under_a_watcher_is_refused() {
    use arbiter::server::StoreChoice;
    let app = TestApp::spawn(Backend::Redis).await;
    let StoreChoice::Redis(config) = app.settings.store.clone() else {
        panic!("a Redis store")
    };
    let game = app.new_game().await;
    let mut client = app.client().await;
    play_line(&mut client, &game, &FOOLS_MATE[..1]).await;

    let redis = ::redis::Client::open(config.url.as_str()).expect("client");
    let mut conn = redis
        .get_multiplexed_async_connection()
        .await
        .expect("connection");
    let keys: Vec<String> = ::redis::cmd("KEYS")
        .arg(format!("{}:*:{}:state", config.key_prefix, game.id))
        .query_async(&mut conn)
        .await
        .expect("keys");
    let [state_key] = keys.as_slice() else {
        panic!("one state key: {keys:?}")
    };
    let log_key = state_key.replace(":state", ":log");
    let before: Vec<Vec<u8>> = ::redis::cmd("HMGET")
        .arg(state_key)
        .arg("v")
        .arg("s")
        .query_async(&mut conn)
        .await
        .expect("state at version 2");

    // Black's reply, seen by a watcher, is then lost.
    let mut watcher = watch(&mut client, &game.id, 2).await;
    play_line(&mut client, &game, &["e5"]).await;
    let (_, seen_token) = next_with_token(&mut watcher).await;
    assert!(seen_token.starts_with("3."), "{seen_token}");
    drop(watcher);
    let _: () = ::redis::pipe()
        .cmd("XDEL")
        .arg(&log_key)
        .arg("0-3")
        .ignore()
        .cmd("XSETID")
        .arg(&log_key)
        .arg("0-2")
        .ignore()
        .cmd("HSET")
        .arg(state_key)
        .arg("v")
        .arg(&before[0])
        .arg("s")
        .arg(&before[1])
        .ignore()
        .query_async(&mut conn)
        .await
        .expect("roll the game back one commit");

    let status = expect_code(
        watch_with_token(&mut client, &game.id, 0, &seen_token).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "HISTORY_REWRITTEN", "{status:?}");

    // Black plays another move: version 3 now names another event.
    play_line(&mut client, &game, &["e6"]).await;
    let status = expect_code(
        watch_with_token(&mut client, &game.id, 0, &seen_token).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "HISTORY_REWRITTEN", "{status:?}");
    assert!(status.message().contains("version 0"), "{status:?}");

    // Starting again from a snapshot shows the history as it now is.
    let mut again = watch(&mut client, &game.id, 0).await;
    let (snapshot, token) = next_with_token(&mut again).await;
    let WatchKind::Snapshot(snapshot) = snapshot else {
        panic!("a snapshot: {snapshot:?}")
    };
    assert_eq!(snapshot.version, 3);
    assert_ne!(token, seen_token);
}

on_every_backend!(
    resume_tokens_name_the_exact_event,
    a_quiet_game_sends_heartbeats_with_its_version_and_clocks,
    resume_after_disconnect_has_no_gap_and_no_duplicate,
    a_finished_game_streams_its_history_then_ends,
    a_version_ahead_of_the_game_is_out_of_range,
    every_watcher_sees_every_event_and_resignation_ends_the_stream,
    shutdown_ends_open_streams,
);

/// Watch streams past the limits are refused with RESOURCE_EXHAUSTED
/// (TOO_MANY_STREAMS) and the open ones go on; a closed stream frees its
/// place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_streams_past_the_limits_are_refused() {
    use arbiter::{api::StreamLimits, server::StoreChoice};
    use futures::StreamExt;
    let mut limited = crate::common::settings(StoreChoice::Memory);
    limited.stream_limits = StreamLimits {
        per_connection: 2,
        total: 3,
    };
    let app = TestApp::spawn_with(limited, None).await;
    let game = app.new_game().await;
    let mut one = app.client().await;
    let mut first = watch(&mut one, &game.id, 0).await;
    let _second = watch(&mut one, &game.id, 0).await;
    let refused = one
        .watch_game(proto::WatchGameRequest {
            game_id: game.id.clone(),
            after_version: 0,
            ..Default::default()
        })
        .await
        .expect_err("a third stream on one connection");
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
    assert_eq!(reason(&refused), "TOO_MANY_STREAMS");
    let mut two = app.client().await;
    let _third = watch(&mut two, &game.id, 0).await;
    let refused = two
        .watch_event(proto::WatchEventRequest {
            event_id: "test-event".to_owned(),
            after_cursor: String::new(),
            round: 0,
        })
        .await
        .expect_err("past the server's total");
    assert_eq!(reason(&refused), "TOO_MANY_STREAMS");
    // The first stream still works, and closing it frees a place.
    assert!(matches!(
        first.next().await,
        Some(Ok(proto::WatchGameResponse {
            kind: Some(crate::common::WatchKind::Snapshot(_)),
            ..
        }))
    ));
    drop(first);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match two
            .watch_game(proto::WatchGameRequest {
                game_id: game.id.clone(),
                after_version: 0,
                ..Default::default()
            })
            .await
        {
            Ok(_) => break,
            Err(status) if status.code() == tonic::Code::ResourceExhausted => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "the place was never freed"
                );
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(status) => panic!("{status:?}"),
        }
    }
}
