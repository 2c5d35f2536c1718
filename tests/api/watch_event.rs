//! WatchEvent: one resumable stream over every game of an event.

use crate::common;

use arbiter::proto::{self, game_event::Kind};
use common::{
    Backend, STREAM_PATIENCE, TestApp, create, create_request, next_within, pairing, play_line,
    resign, seat,
};
use tonic::{Code, Streaming};

fn in_event(event: &str, round: i32, board: i32) -> proto::CreateGameRequest {
    let mut request = create_request("", "");
    request.pairing = Some(pairing(event, round, board));
    request
}

async fn open(
    client: &mut common::Client,
    event: &str,
    cursor: &str,
) -> Streaming<proto::WatchEventResponse> {
    client
        .watch_event(proto::WatchEventRequest {
            event_id: event.to_owned(),
            after_cursor: cursor.to_owned(),
        })
        .await
        .expect("watch the event")
        .into_inner()
}

async fn take(
    stream: &mut Streaming<proto::WatchEventResponse>,
    n: usize,
) -> Vec<proto::WatchEventResponse> {
    let mut messages = Vec::new();
    while messages.len() < n {
        let message = next_within(stream, STREAM_PATIENCE)
            .await
            .expect("stream open")
            .expect("an update");
        messages.push(message);
    }
    messages
}

fn summary(messages: &[proto::WatchEventResponse]) -> Vec<(String, i32, &'static str)> {
    messages
        .iter()
        .map(|m| {
            let Some(proto::watch_event_response::Kind::Event(event)) = &m.kind else {
                panic!("an event, not {m:?}");
            };
            let kind = match event.kind.as_ref().expect("kind") {
                Kind::GameCreated(_) => "created",
                Kind::MoveMade(_) => "move",
                Kind::GameEnded(_) => "ended",
                _ => "other",
            };
            (event.game_id.clone(), event.version, kind)
        })
        .collect()
}

/// Every game's events arrive once and in order; a watcher that reconnects
/// with its last cursor gets exactly what it missed, including games created
/// meanwhile.
async fn an_event_stream_resumes_without_gaps_or_duplicates(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Blitz {Arena} – 1";
    let first = create(&mut admin, in_event(event, 1, 1))
        .await
        .expect("create");
    let second = create(&mut admin, in_event(event, 1, 2))
        .await
        .expect("create");
    create(&mut admin, in_event("another event", 1, 1))
        .await
        .expect("another event's game");

    let mut stream = open(&mut client, event, "").await;
    let created = take(&mut stream, 2).await;
    assert_eq!(
        summary(&created),
        [
            (first.id.clone(), 1, "created"),
            (second.id.clone(), 1, "created")
        ]
    );
    play_line(&mut client, &first, &["e4"]).await;
    let moved = take(&mut stream, 1).await;
    assert_eq!(summary(&moved), [(first.id.clone(), 2, "move")]);
    let cursor = moved[0].cursor.clone();
    drop(stream);

    // Missed while disconnected: moves in both games, a result, a new game.
    play_line(&mut client, &second, &["d4"]).await;
    play_line(&mut client, &first, &["e5"]).await;
    seat(&mut client, &second.black, resign(&second.id))
        .await
        .expect("resign");
    let third = create(&mut admin, in_event(event, 2, 1))
        .await
        .expect("create");

    let mut stream = open(&mut client, event, &cursor).await;
    let missed = take(&mut stream, 4).await;
    let mut got = summary(&missed);
    got.sort();
    let mut expected = vec![
        (first.id.clone(), 3, "move"),
        (second.id.clone(), 2, "move"),
        (second.id.clone(), 3, "ended"),
        (third.id.clone(), 1, "created"),
    ];
    expected.sort();
    assert_eq!(got, expected);
    // Nothing else is pending: the next update is a new move.
    play_line(&mut client, &third, &["c4"]).await;
    let next = take(&mut stream, 1).await;
    assert_eq!(summary(&next), [(third.id.clone(), 2, "move")]);
}

async fn forged_cursors_and_missing_events_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    for (event, cursor) in [("", ""), ("cup", "not-a-cursor"), ("cup", "c1.%%%")] {
        let status = client
            .watch_event(proto::WatchEventRequest {
                event_id: event.to_owned(),
                after_cursor: cursor.to_owned(),
            })
            .await
            .expect_err("refused");
        assert_eq!(status.code(), Code::InvalidArgument, "{event:?} {cursor:?}");
    }
}

on_every_backend!(
    an_event_stream_resumes_without_gaps_or_duplicates,
    forged_cursors_and_missing_events_are_refused,
);
