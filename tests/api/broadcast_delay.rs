//! The broadcast delay: the public (no token, or another game's seat)
//! sees a delayed game as it stood the delay earlier, and receives each
//! event no earlier than its time plus the delay; the game's seats and the
//! admin see everything live. These tests assert the rule ("not before"),
//! never how soon after: delays are short, and the games run concurrently
//! with every other test.

use crate::common;

use std::time::{SystemTime, UNIX_EPOCH};

use arbiter::proto::{self, watch_event_response::Kind as UpdateKind};
use common::{
    Backend, STREAM_PATIENCE, TestApp, WatchKind, admin, create, create_request, drain,
    expect_code, export_pgn, next_event, next_snapshot, next_within, pairing, play_line, reason,
    resign, seat, with_token,
};
use tonic::{Code, Request, Streaming};

/// An hour: long enough that nothing a test does is released meanwhile.
const HOUR: i32 = 3_600_000;

fn delayed(event: &str, board: i32, delay_millis: i32) -> proto::CreateGameRequest {
    let mut request = create_request("", "");
    request.pairing = Some(pairing(event, 1, board));
    request.broadcast_delay_millis = delay_millis;
    request.time_control = Some(proto::TimeControl {
        periods: vec![common::period(300_000, 0, 0, 0)],
        ..Default::default()
    });
    request
}

fn millis(at: &prost_types::Timestamp) -> u64 {
    u64::try_from(at.seconds).expect("after 1970") * 1000
        + u64::try_from(at.nanos / 1_000_000).expect("nanos")
}

fn now_millis() -> u64 {
    let since = SystemTime::now().duration_since(UNIX_EPOCH).expect("clock");
    u64::try_from(since.as_millis()).expect("millis")
}

/// Asserts that `event` arrived no earlier than its time plus `delay`.
#[track_caller]
fn released_after_delay(event: &proto::GameEvent, delay: i32) {
    let at = millis(event.event_time.as_ref().expect("event time"));
    let release = at + u64::try_from(delay).expect("delay");
    let received = now_millis();
    assert!(
        received >= release,
        "version {} arrived at {received}, before its release at {release}",
        event.version
    );
}

fn read_request<T>(token: Option<&str>, message: T) -> Request<T> {
    match token {
        Some(token) => with_token(token, message),
        None => Request::new(message),
    }
}

async fn watch_as(
    client: &mut common::Client,
    token: Option<&str>,
    request: proto::WatchGameRequest,
) -> Result<Streaming<proto::WatchGameResponse>, tonic::Status> {
    Ok(client
        .watch_game(read_request(token, request))
        .await?
        .into_inner())
}

fn from_version(game_id: &str, after_version: i32) -> proto::WatchGameRequest {
    proto::WatchGameRequest {
        game_id: game_id.to_owned(),
        after_version,
        ..Default::default()
    }
}

async fn get_as(client: &mut common::Client, token: Option<&str>, game_id: &str) -> proto::Game {
    client
        .get_game(read_request(
            token,
            proto::GetGameRequest {
                game_id: game_id.to_owned(),
                view: proto::GameView::Full.into(),
            },
        ))
        .await
        .expect("get game")
        .into_inner()
        .game
        .map(|game| *game)
        .expect("game")
}

async fn pgn_as(client: &mut common::Client, token: Option<&str>, game_id: &str) -> String {
    let request = proto::ExportPgnRequest {
        target: Some(proto::export_pgn_request::Target::GameId(
            game_id.to_owned(),
        )),
    };
    let mut stream = client
        .export_pgn(read_request(token, request))
        .await
        .expect("export")
        .into_inner();
    let mut text = String::new();
    while let Some(message) = next_within(&mut stream, STREAM_PATIENCE).await {
        text.push_str(&message.expect("pgn").pgn);
    }
    text
}

async fn list_as(
    client: &mut common::Client,
    token: Option<&str>,
    event: &str,
    status: proto::GameStatus,
) -> Vec<proto::Game> {
    client
        .list_games(read_request(
            token,
            proto::ListGamesRequest {
                event_id: event.to_owned(),
                status: status.into(),
                ..Default::default()
            },
        ))
        .await
        .expect("list games")
        .into_inner()
        .games
}

async fn counted_as(client: &mut common::Client, token: Option<&str>, event: &str) -> i32 {
    client
        .get_standings(read_request(
            token,
            proto::GetStandingsRequest {
                event_id: event.to_owned(),
                ..Default::default()
            },
        ))
        .await
        .expect("standings")
        .into_inner()
        .games_counted
}

/// The public watcher gets every event once, in order, each no earlier
/// than its time plus the delay, and the stream ends after the final one;
/// the game's seat and the admin follow the same game live, and so does an
/// event's watcher with the admin token while the public's waits.
async fn public_watchers_get_each_event_once_the_delay_has_passed(backend: Backend) {
    const DELAY: i32 = 1_500;
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create(&mut app.admin_client().await, delayed("open", 1, DELAY))
        .await
        .expect("create");
    assert_eq!(
        common::setup(&game.game).broadcast_delay_millis,
        DELAY,
        "the setup tells the delay"
    );
    let mut public = watch_as(&mut client, None, from_version(&game.id, 0))
        .await
        .expect("public watch");
    let snapshot = next_snapshot(&mut public).await;
    assert_eq!(snapshot.version, 1);
    let mut seat_watch = watch_as(&mut client, Some(&game.white), from_version(&game.id, 1))
        .await
        .expect("seat watch");
    let mut admin_watch = client
        .watch_game(admin(from_version(&game.id, 1)))
        .await
        .expect("admin watch")
        .into_inner();
    let mut event_public = client
        .watch_event(proto::WatchEventRequest {
            event_id: "open".to_owned(),
            after_cursor: String::new(),
            round: 0,
        })
        .await
        .expect("watch the event")
        .into_inner();

    play_line(&mut client, &game, &["e4", "e5", "Nf3"]).await;
    seat(&mut client, &game.black, resign(&game.id))
        .await
        .expect("resign");

    let mut versions = Vec::new();
    while let Some(message) = next_within(&mut public, STREAM_PATIENCE).await {
        let message = message.expect("a message");
        match message.kind.expect("body") {
            WatchKind::Event(event) => {
                released_after_delay(&event, DELAY);
                versions.push(event.version);
            }
            WatchKind::Heartbeat(_) => {}
            WatchKind::Snapshot(game) => panic!("a second snapshot: {game:?}"),
        }
    }
    assert_eq!(versions, vec![2, 3, 4, 5], "every event once, in order");

    // Live: they are complete long before an hour-long delay would allow,
    // and no later than the public's.
    for stream in [&mut seat_watch, &mut admin_watch] {
        let events = drain(stream).await;
        let got: Vec<i32> = events.iter().map(|event| event.version).collect();
        assert_eq!(got, vec![2, 3, 4, 5]);
    }

    let mut seen = Vec::new();
    while seen.len() < 5 {
        let message = next_within(&mut event_public, STREAM_PATIENCE)
            .await
            .expect("open")
            .expect("an update");
        if let Some(UpdateKind::Event(event)) = message.kind {
            released_after_delay(&event, DELAY);
            seen.push(event.version);
        }
    }
    assert_eq!(seen, vec![1, 2, 3, 4, 5]);
}

/// With a delay longer than the test, the public sees the game as created
/// (GetGame, ListMoves, ExportPgn, ListGames, standings), though it has
/// ended; the seats and the admin see it finished; a seat of another game
/// of the event is the public for this one.
async fn the_public_sees_a_game_that_just_ended_in_progress(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = create(&mut admin_client, delayed("cup", 1, HOUR))
        .await
        .expect("create");
    let other = create(&mut admin_client, delayed("cup", 2, HOUR))
        .await
        .expect("create");
    play_line(&mut client, &game, &["e4", "e5", "Nf3"]).await;
    seat(&mut client, &game.black, resign(&game.id))
        .await
        .expect("resign");

    for token in [None, Some(other.white.as_str())] {
        let public = get_as(&mut client, token, &game.id).await;
        assert_eq!(public.status, proto::GameStatus::Active as i32, "{token:?}");
        assert_eq!((public.version, public.ply), (1, 0));
        assert!(public.result.is_none() && public.moves.is_empty());
        assert_eq!(public.legal_moves.len(), 20);
        let clock = public.clock.expect("timed");
        assert_eq!(clock.white_millis, 300_000, "nobody has moved then");
        let pgn = pgn_as(&mut client, token, &game.id).await;
        assert!(
            pgn.contains("[Result \"*\"]") && !pgn.contains("1. e4"),
            "{pgn}"
        );
        let moves = client
            .list_moves(read_request(
                token,
                proto::ListMovesRequest {
                    game_id: game.id.clone(),
                    ..Default::default()
                },
            ))
            .await
            .expect("list moves")
            .into_inner();
        assert!(moves.moves.is_empty(), "{moves:?}");
    }
    let finished = proto::GameStatus::Finished;
    assert!(list_as(&mut client, None, "cup", finished).await.is_empty());
    let listed = list_as(&mut client, None, "cup", proto::GameStatus::Unspecified).await;
    assert_eq!(listed.len(), 2);
    assert!(listed.iter().all(|g| g.result.is_none() && g.ply == 0));
    assert_eq!(counted_as(&mut client, None, "cup").await, 0);

    for token in [
        Some(game.white.as_str()),
        Some(game.black.as_str()),
        Some(common::ADMIN_TOKEN),
    ] {
        let live = get_as(&mut client, token, &game.id).await;
        assert_eq!(live.status, finished as i32);
        assert_eq!((live.version, live.ply, live.moves.len()), (5, 3, 3));
        let pgn = pgn_as(&mut client, token, &game.id).await;
        assert!(
            pgn.contains("[Result \"1-0\"]") && pgn.contains("1. e4"),
            "{pgn}"
        );
    }
    let listed = list_as(&mut client, Some(common::ADMIN_TOKEN), "cup", finished).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(
        counted_as(&mut client, Some(common::ADMIN_TOKEN), "cup").await,
        1
    );
    // Reads without a token are the public's.
    assert_eq!(common::get(&mut client, &game.id).await.version, 1);
    assert!(!export_pgn(&mut client, &game.id).await.contains("1. e4"));

    // A public watcher starts from the game as created, and cannot resume
    // after a version the public has not seen.
    let mut public = watch_as(&mut client, None, from_version(&game.id, 0))
        .await
        .expect("watch");
    let snapshot = next_snapshot(&mut public).await;
    assert_eq!((snapshot.version, snapshot.ply), (1, 0));
    assert!(snapshot.result.is_none());
    let status = expect_code(
        watch_as(&mut client, None, from_version(&game.id, 3)).await,
        Code::OutOfRange,
    );
    assert_eq!(reason(&status), "VERSION_AHEAD");
    let mut seat_watch = watch_as(&mut client, Some(&game.white), from_version(&game.id, 3))
        .await
        .expect("a seat resumes live");
    let events = drain(&mut seat_watch).await;
    assert_eq!(
        events.iter().map(|e| e.version).collect::<Vec<_>>(),
        vec![4, 5]
    );
}

/// A public watcher that reconnects resumes after the last event it got,
/// by token or by version, and still gets nothing before its release.
async fn a_public_watcher_resumes_across_a_reconnect(backend: Backend) {
    const DELAY: i32 = 1_200;
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create(&mut app.admin_client().await, delayed("open", 1, DELAY))
        .await
        .expect("create");
    let mut public = watch_as(&mut client, None, from_version(&game.id, 0))
        .await
        .expect("watch");
    next_snapshot(&mut public).await;
    let current = play_line(&mut client, &game, &["d4", "d5", "c4"]).await;
    assert_eq!(current.version, 4);
    let first = loop {
        let message = next_within(&mut public, STREAM_PATIENCE)
            .await
            .expect("open")
            .expect("a message");
        if let Some(WatchKind::Event(event)) = &message.kind {
            released_after_delay(event, DELAY);
            break message;
        }
    };
    drop(public);
    let resumed = proto::WatchGameRequest {
        game_id: game.id.clone(),
        resume_token: first.resume_token.clone(),
        ..Default::default()
    };
    let mut again = watch_as(&mut client, None, resumed).await.expect("resume");
    for expected in [3, 4] {
        let event = next_event(&mut again).await;
        released_after_delay(&event, DELAY);
        assert_eq!(event.version, expected, "exactly once, in order");
    }
    let mut by_version = watch_as(&mut client, None, from_version(&game.id, 3))
        .await
        .expect("resume by version");
    let event = next_event(&mut by_version).await;
    assert_eq!(event.version, 4);
    released_after_delay(&event, DELAY);
}

/// In a delayed stream every time is shifted by the delay: the snapshot's
/// clock and each heartbeat are read at server time less the delay, and a
/// heartbeat tells the version the public has seen and the clocks then.
async fn a_delayed_stream_tells_the_shifted_time(backend: Backend) {
    const DELAY: i32 = 1_000;
    let mut settings = common::settings(backend.store());
    settings.heartbeat = std::time::Duration::from_millis(150);
    let app = TestApp::spawn_with(settings, None).await;
    let mut client = app.client().await;
    let game = create(&mut app.admin_client().await, delayed("open", 1, DELAY))
        .await
        .expect("create");
    let mut public = watch_as(&mut client, None, from_version(&game.id, 0))
        .await
        .expect("watch");
    let snapshot = next_snapshot(&mut public).await;
    let read = millis(
        snapshot
            .clock
            .as_ref()
            .expect("timed")
            .read_time
            .as_ref()
            .expect("time"),
    );
    assert!(read + u64::try_from(DELAY).expect("delay") <= now_millis());
    let moved = seat(
        &mut client,
        &game.white,
        common::make_move(&game.id, 0, "e4"),
    )
    .await
    .expect("e4");
    let mut released: Option<proto::GameEvent> = None;
    let mut beats_after = 0;
    while beats_after < 2 {
        let message = next_within(&mut public, STREAM_PATIENCE)
            .await
            .expect("open")
            .expect("a message");
        match message.kind.expect("body") {
            WatchKind::Event(event) => {
                released_after_delay(&event, DELAY);
                assert_eq!(event.version, 2);
                released = Some(event);
            }
            WatchKind::Heartbeat(beat) => {
                let at = millis(beat.server_time.as_ref().expect("server time"));
                assert!(at + u64::try_from(DELAY).expect("delay") <= now_millis());
                let clock = beat.clock.expect("timed");
                assert_eq!(clock.read_time, beat.server_time, "the clocks as of then");
                match &released {
                    None => assert_eq!(beat.version, 1, "e4 is not public yet"),
                    Some(event) => {
                        beats_after += 1;
                        assert_eq!(beat.version, 2);
                        assert_eq!(clock.running, Some(proto::Color::Black as i32));
                        let white = event.clock.as_ref().expect("clock").white_millis;
                        assert_eq!(clock.white_millis, white, "White's clock stands");
                    }
                }
            }
            WatchKind::Snapshot(game) => panic!("a second snapshot: {game:?}"),
        }
    }
    assert_eq!(moved.version, 2);
}

/// A delay that is negative or beyond three hours is refused as
/// INVALID_FIELD, and no game is created.
async fn an_invalid_delay_is_refused_and_changes_nothing(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    for (board, delay) in [(1, -1), (2, 10_800_001), (3, i32::MAX)] {
        let mut request = delayed("refused", board, delay);
        request.request_id = format!("delay-{board}");
        let status = expect_code(
            create(&mut admin_client, request).await,
            Code::InvalidArgument,
        );
        assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
        assert!(
            status.message().contains("broadcast_delay_millis"),
            "{status:?}"
        );
    }
    let mut client = app.client().await;
    let listed = list_as(
        &mut client,
        Some(common::ADMIN_TOKEN),
        "refused",
        proto::GameStatus::Unspecified,
    )
    .await;
    assert!(listed.is_empty(), "{listed:?}");
    let fine = create(&mut admin_client, delayed("refused", 4, 10_800_000))
        .await
        .expect("three hours is allowed");
    assert_eq!(common::setup(&fine.game).broadcast_delay_millis, 10_800_000);
}

on_every_backend!(
    public_watchers_get_each_event_once_the_delay_has_passed,
    the_public_sees_a_game_that_just_ended_in_progress,
    a_public_watcher_resumes_across_a_reconnect,
    a_delayed_stream_tells_the_shifted_time,
    an_invalid_delay_is_refused_and_changes_nothing,
);
