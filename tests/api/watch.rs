//! Watching games: snapshots, resumption without gaps or duplicates, and
//! the end of the stream.

use crate::common;

use arbiter::proto::{self, game_event::Kind};
use common::{
    Backend, STREAM_PATIENCE, TestApp, WatchKind, drain, drain_messages, expect_code, next_event,
    next_snapshot, next_within, play_line, reason, resign, seat, watch,
};
use tonic::Code;

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
        })
        .await;
    let status = expect_code(result, Code::OutOfRange);
    assert_eq!(reason(&status), "VERSION_AHEAD");
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

on_every_backend!(
    resume_after_disconnect_has_no_gap_and_no_duplicate,
    a_finished_game_streams_its_history_then_ends,
    a_version_ahead_of_the_game_is_out_of_range,
    every_watcher_sees_every_event_and_resignation_ends_the_stream,
    shutdown_ends_open_streams,
);
