//! Following an event's games: the WatchEvent stream (resumable, with
//! heartbeats) and ListGames pages (keyset-paged, bound to their query).

use crate::common;

use std::time::Duration;

use arbiter::proto::{self, game_event::Kind, watch_event_response::Kind as UpdateKind};
use common::{
    Backend, STREAM_PATIENCE, TestApp, create, create_request, expect_code, next_within, pairing,
    play_line, reason, resign, seat,
};
use futures::StreamExt;
use tonic::{Code, Status, Streaming};
use tonic_types::StatusExt;

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
            round: 0,
        })
        .await
        .expect("watch the event")
        .into_inner()
}

/// The next message of an event's stream, which must still be open; every
/// message carries a cursor.
async fn next_update(
    stream: &mut Streaming<proto::WatchEventResponse>,
) -> proto::WatchEventResponse {
    let message = next_within(stream, STREAM_PATIENCE)
        .await
        .expect("stream open")
        .expect("an update");
    assert!(!message.cursor.is_empty(), "{message:?}");
    message
}

/// The next `n` events of an event's stream (heartbeats are passed over).
async fn take(
    stream: &mut Streaming<proto::WatchEventResponse>,
    n: usize,
) -> Vec<proto::WatchEventResponse> {
    let mut messages = Vec::new();
    while messages.len() < n {
        let message = next_update(stream).await;
        if matches!(message.kind, Some(UpdateKind::Event(_))) {
            messages.push(message);
        }
    }
    messages
}

/// The next message of an event's stream, which must be a heartbeat: the
/// server time and nothing about any one game.
async fn next_heartbeat(stream: &mut Streaming<proto::WatchEventResponse>) -> String {
    let message = next_update(stream).await;
    let Some(UpdateKind::Heartbeat(beat)) = &message.kind else {
        panic!("expected a heartbeat, got {message:?}");
    };
    assert!(beat.server_time.is_some(), "{message:?}");
    assert_eq!((beat.version, beat.clock), (0, None), "{message:?}");
    message.cursor
}

/// Asserts that each game's events in `messages` come in version order.
#[track_caller]
fn assert_in_order_per_game(messages: &[proto::WatchEventResponse]) {
    let events = summary(messages);
    for (i, (game, version, _)) in events.iter().enumerate() {
        for (other, earlier, _) in &events[..i] {
            assert!(other != game || earlier < version, "{events:?}");
        }
    }
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
    // Games interleave as they were committed; two creations within one
    // millisecond may come in either order.
    let mut creations = summary(&created);
    creations.sort();
    let mut expected = [
        (first.id.clone(), 1, "created"),
        (second.id.clone(), 1, "created"),
    ];
    expected.sort();
    assert_eq!(creations, expected);
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
    assert_in_order_per_game(&missed);
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
                round: 0,
            })
            .await
            .expect_err("refused");
        assert_eq!(status.code(), Code::InvalidArgument, "{event:?} {cursor:?}");
    }
}

/// The silence after which the heartbeat test's server sends a heartbeat.
const QUIET: Duration = Duration::from_millis(200);

/// A quiet event's stream sends heartbeats whose cursor resumes exactly
/// where the stream was; events still arrive once and in order between
/// them.
async fn a_quiet_event_sends_heartbeats_whose_cursor_resumes_the_stream(backend: Backend) {
    let app = TestApp::spawn_with_heartbeat(backend, QUIET).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Quiet Open";

    // An event without a game yet: heartbeats only.
    let mut stream = open(&mut client, event, "").await;
    next_heartbeat(&mut stream).await;
    let cursor = next_heartbeat(&mut stream).await;
    drop(stream);

    // Resuming from a heartbeat: the games created since, from their
    // creation.
    let first = create(&mut admin, in_event(event, 1, 1))
        .await
        .expect("create");
    let second = create(&mut admin, in_event(event, 1, 2))
        .await
        .expect("create");
    let mut stream = open(&mut client, event, &cursor).await;
    let created = take(&mut stream, 2).await;
    let mut creations = summary(&created);
    creations.sort();
    let mut expected = [
        (first.id.clone(), 1, "created"),
        (second.id.clone(), 1, "created"),
    ];
    expected.sort();
    assert_eq!(creations, expected);

    // Moves between heartbeats: each once, in order; then quiet again.
    let mut cursor = next_heartbeat(&mut stream).await;
    for (game, mv, version) in [
        (&first, "e4", 2),
        (&second, "d4", 2),
        (&first, "e5", 3),
        (&second, "d5", 3),
    ] {
        play_line(&mut client, game, &[mv]).await;
        let moved = take(&mut stream, 1).await;
        assert_eq!(summary(&moved), [(game.id.clone(), version, "move")]);
        // Quiet again: heartbeats only until the next move.
        next_heartbeat(&mut stream).await;
        cursor = next_heartbeat(&mut stream).await;
    }
    drop(stream);

    // Missed while away, resumed from the last heartbeat's cursor: exactly
    // what happened since, nothing seen before.
    play_line(&mut client, &first, &["Nf3"]).await;
    play_line(&mut client, &second, &["c4"]).await;
    seat(&mut client, &second.black, resign(&second.id))
        .await
        .expect("resign");
    let mut stream = open(&mut client, event, &cursor).await;
    let missed = take(&mut stream, 3).await;
    assert_in_order_per_game(&missed);
    let mut got = summary(&missed);
    got.sort();
    let mut expected = vec![
        (first.id.clone(), 4, "move"),
        (second.id.clone(), 4, "move"),
        (second.id.clone(), 5, "ended"),
    ];
    expected.sort();
    assert_eq!(got, expected);
    // Nothing else was pending: quiet until the next move.
    next_heartbeat(&mut stream).await;
    play_line(&mut client, &first, &["Nc6"]).await;
    let next = take(&mut stream, 1).await;
    assert_eq!(summary(&next), [(first.id.clone(), 5, "move")]);
}

// ---------------------------------------------------------------------------
// ListGames
// ---------------------------------------------------------------------------

/// A ListGames request.
fn list_request(
    event: &str,
    status: proto::GameStatus,
    view: proto::GameView,
    page_size: i32,
    page_token: &str,
) -> proto::ListGamesRequest {
    proto::ListGamesRequest {
        event_id: event.to_owned(),
        status: status.into(),
        page_size,
        page_token: page_token.to_owned(),
        view: view.into(),
        needs_review: false,
    }
}

async fn list(
    client: &mut common::Client,
    request: proto::ListGamesRequest,
) -> Result<proto::ListGamesResponse, Status> {
    client
        .list_games(request)
        .await
        .map(tonic::Response::into_inner)
}

/// The ids of the listed games.
fn ids(page: &proto::ListGamesResponse) -> Vec<String> {
    page.games.iter().map(|g| g.game_id.clone()).collect()
}

/// Every game of `event` from `page_token` on, page by page.
async fn list_rest(
    client: &mut common::Client,
    event: &str,
    page_size: i32,
    page_token: &str,
) -> Vec<String> {
    let mut listed = Vec::new();
    let mut token = page_token.to_owned();
    for _ in 0..100 {
        let request = list_request(
            event,
            proto::GameStatus::Unspecified,
            proto::GameView::Basic,
            page_size,
            &token,
        );
        let page = list(client, request).await.expect("a page");
        listed.extend(ids(&page));
        if page.next_page_token.is_empty() {
            return listed;
        }
        token = page.next_page_token;
    }
    panic!("the pages never end");
}

/// Asserts an INVALID_ARGUMENT (INVALID_FIELD) naming `field`.
#[track_caller]
fn assert_invalid_field<T: std::fmt::Debug>(result: Result<T, Status>, field: &str) {
    let status = expect_code(result, Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
    let fields: Vec<String> = status
        .get_details_bad_request()
        .map(|bad| bad.field_violations.into_iter().map(|v| v.field).collect())
        .unwrap_or_default();
    assert_eq!(fields, [field], "{status:?}");
}

/// A page size above the maximum is taken as the maximum, not refused.
async fn list_games_coerces_large_page_sizes(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let admin = app.admin_client().await;
    let event = "Big Swiss";
    let created: Vec<String> = futures::stream::iter(1..=501)
        .map(|board| {
            let mut admin = admin.clone();
            async move {
                create(&mut admin, in_event(event, 1, board))
                    .await
                    .expect("create")
                    .id
            }
        })
        .buffered(8)
        .collect()
        .await;

    let (unspecified, basic) = (proto::GameStatus::Unspecified, proto::GameView::Basic);
    for size in [501, 10_000, i32::MAX] {
        let request = list_request(event, unspecified, basic, size, "");
        let page = list(&mut client, request)
            .await
            .expect("coerced, not refused");
        assert_eq!(ids(&page), created[..500], "page_size {size}");
        assert!(!page.next_page_token.is_empty());
        let request = list_request(event, unspecified, basic, size, &page.next_page_token);
        let last = list(&mut client, request).await.expect("the last page");
        assert_eq!(ids(&last), created[500..], "page_size {size}");
        assert!(last.next_page_token.is_empty());
    }
    // 0 asks for the default size.
    let page = list(&mut client, list_request(event, unspecified, basic, 0, ""))
        .await
        .expect("default size");
    assert_eq!(ids(&page), created[..50]);
    // The full view, with every move, pages more finely.
    let request = list_request(event, unspecified, proto::GameView::Full, 10_000, "");
    let page = list(&mut client, request).await.expect("full view");
    assert_eq!(ids(&page), created[..20]);
    assert!(!page.next_page_token.is_empty());
    // A negative size is an error.
    assert_invalid_field(
        list(&mut client, list_request(event, unspecified, basic, -1, "")).await,
        "page_size",
    );
}

/// A page token is valid only with the query it was issued for.
async fn list_games_page_tokens_belong_to_their_query(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Token Cup";
    let mut games = Vec::new();
    for board in 1..=3 {
        games.push(
            create(&mut admin, in_event(event, 1, board))
                .await
                .expect("create")
                .id,
        );
    }
    let (active, basic) = (proto::GameStatus::Active, proto::GameView::Basic);
    let first = list(&mut client, list_request(event, active, basic, 1, ""))
        .await
        .expect("first page");
    assert_eq!(ids(&first), games[..1]);
    let token = first.next_page_token;
    assert!(!token.is_empty());

    for (other_event, status, view) in [
        (event, proto::GameStatus::Unspecified, basic),
        (event, proto::GameStatus::Finished, basic),
        (event, active, proto::GameView::Full),
        ("Other Cup", active, basic),
    ] {
        let request = list_request(other_event, status, view, 1, &token);
        assert_invalid_field(list(&mut client, request).await, "page_token");
    }
    for forged in ["not-a-token", "p1", &token[1..]] {
        let request = list_request(event, active, basic, 1, forged);
        assert_invalid_field(list(&mut client, request).await, "page_token");
    }
    // With its own query the token still reads the next page, whatever the
    // page size.
    let next = list(&mut client, list_request(event, active, basic, 5, &token))
        .await
        .expect("next page");
    assert_eq!(ids(&next), games[1..]);
}

/// Pages are keyset-based: a game added between two page reads neither
/// repeats nor shifts the following pages, and shows up on a later page
/// when it sorts after the last one read.
async fn list_games_pages_are_stable_under_inserts(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Keyset Open";
    let mut id_of = std::collections::BTreeMap::new();
    for (round, board) in [
        (2, 4),
        (1, 6),
        (1, 2),
        (1, 12),
        (2, 2),
        (1, 8),
        (1, 4),
        (1, 10),
    ] {
        let game = create(&mut admin, in_event(event, round, board))
            .await
            .expect("create");
        id_of.insert((round, board), game.id);
    }
    let named = |keys: &[(i32, i32)], id_of: &std::collections::BTreeMap<_, String>| {
        keys.iter()
            .map(|key| id_of[key].clone())
            .collect::<Vec<_>>()
    };

    let request = list_request(
        event,
        proto::GameStatus::Unspecified,
        proto::GameView::Basic,
        3,
        "",
    );
    let first = list(&mut client, request).await.expect("first page");
    assert_eq!(ids(&first), named(&[(1, 2), (1, 4), (1, 6)], &id_of));
    assert!(!first.next_page_token.is_empty());

    // Added after the first page: two games sorting before its end, one
    // after it.
    for (round, board) in [(1, 3), (1, 1), (1, 7)] {
        let game = create(&mut admin, in_event(event, round, board))
            .await
            .expect("create");
        id_of.insert((round, board), game.id);
    }

    let rest = list_rest(&mut client, event, 3, &first.next_page_token).await;
    assert_eq!(
        rest,
        named(&[(1, 7), (1, 8), (1, 10), (1, 12), (2, 2), (2, 4)], &id_of),
        "the pages go on after the last game read"
    );
    // A new listing has every game in round and board order.
    let all = list_rest(&mut client, event, 4, "").await;
    assert_eq!(all, id_of.values().cloned().collect::<Vec<_>>());
}

/// A game with more events than one read takes (draw offers with every
/// move make three events a ply) is caught up in bounded pieces: every
/// event once, in order.
async fn a_long_game_is_caught_up_in_pieces(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut request = common::create_request("", "");
    request.pairing = Some(common::pairing("long-event", 1, 1));
    let game = common::create(&mut admin, request).await.expect("created");
    let mut client = app.client().await;
    let mut line: Vec<String> = Vec::new();
    for file in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        for rank in ["3", "6", "4", "5"] {
            line.push(format!("{file}{rank}"));
        }
    }
    for (ply, mv) in line.iter().enumerate() {
        let ply = i32::try_from(ply).expect("a short line");
        let token = if ply % 2 == 0 {
            &game.white
        } else {
            &game.black
        };
        let request = if ply >= 2 {
            common::make_move_offering_draw(&game.id, ply, mv)
        } else {
            common::make_move(&game.id, ply, mv)
        };
        common::seat(&mut client, token, request)
            .await
            .unwrap_or_else(|status| panic!("{mv}: {status:?}"));
    }
    let version = common::get(&mut client, &game.id).await.version;
    assert!(version > 64, "more events ({version}) than one read takes");

    let mut stream = client
        .watch_event(proto::WatchEventRequest {
            event_id: "long-event".to_owned(),
            after_cursor: String::new(),
            round: 0,
        })
        .await
        .expect("watch")
        .into_inner();
    let mut seen = Vec::new();
    while seen.len() < usize::try_from(version).expect("positive") {
        let message = common::next_within(&mut stream, common::STREAM_PATIENCE)
            .await
            .expect("the stream stays open")
            .expect("a message");
        if let Some(UpdateKind::Event(event)) = message.kind {
            assert_eq!(event.game_id, game.id);
            seen.push(event.version);
        }
    }
    assert_eq!(seen, (1..=version).collect::<Vec<_>>());
}

/// A cursor stays small however many games the event has: after 80 games'
/// creations it is a few hundred bytes (a form before grew by a line per
/// game), and it resumes exactly after the last event.
async fn a_cursor_stays_small_however_large_the_event(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut games = Vec::new();
    for board in 1..=80 {
        games.push(
            create(&mut admin, in_event("big-event", 1, board))
                .await
                .expect("create"),
        );
    }
    let mut client = app.client().await;
    let mut stream = open(&mut client, "big-event", "").await;
    let created = take(&mut stream, 80).await;
    let mut ids: Vec<&str> = created
        .iter()
        .map(|message| {
            let Some(UpdateKind::Event(event)) = &message.kind else {
                unreachable!()
            };
            event.game_id.as_str()
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 80, "every game's creation once");
    let cursor = &created.last().expect("updates").cursor;
    // At most 64 partitions, a few bytes each.
    assert!(cursor.len() < 700, "{} bytes", cursor.len());
    drop(stream);

    play_line(&mut client, &games[41], &["e4"]).await;
    let mut resumed = open(&mut client, "big-event", cursor).await;
    let next = take(&mut resumed, 1).await;
    let Some(UpdateKind::Event(event)) = &next[0].kind else {
        unreachable!()
    };
    assert_eq!(event.game_id, games[41].id);
    assert_eq!(event.version, 2);
}

on_every_backend!(
    a_cursor_stays_small_however_large_the_event,
    a_long_game_is_caught_up_in_pieces,
    an_event_stream_resumes_without_gaps_or_duplicates,
    forged_cursors_and_missing_events_are_refused,
    a_quiet_event_sends_heartbeats_whose_cursor_resumes_the_stream,
    list_games_coerces_large_page_sizes,
    list_games_page_tokens_belong_to_their_query,
    list_games_pages_are_stable_under_inserts,
);
