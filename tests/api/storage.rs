//! What the store keeps of a game: the log of a game that has ended is
//! archived (one compact record) and reads exactly as before through every
//! read of the API; InspectGame shows an arbiter the stored records in
//! readable form; and the memory a game takes in Redis.

use crate::common;

use std::time::Duration;

use arbiter::proto::{self, watch_event_response::Kind as UpdateKind};
use common::{
    ADMIN_TOKEN, AdminClient, Backend, Client, STREAM_PATIENCE, TestApp, admin, create,
    create_request, drain, export_pgn, get_full, make_move, next_within, pairing, period, reason,
    resign, seat_with_events, with_token,
};
use tonic::{Code, Request};

/// A 3-minute game with 2 seconds a move, in event `event` when given.
fn timed(event: Option<(&str, i32)>) -> proto::CreateGameRequest {
    let mut request = create_request("", "");
    request.time_control = Some(proto::TimeControl {
        periods: vec![period(180_000, 0, 2_000, 0)],
        ..Default::default()
    });
    if let Some((event, board)) = event {
        request.pairing = Some(pairing(event, 1, board));
    }
    request
}

/// Morphy's Opera Game (Paris, 1858) to the move before the mate: 32
/// half-moves, castling, captures and checks among them.
const OPERA_GAME: [&str; 32] = [
    "e4", "e5", "Nf3", "d6", "d4", "Bg4", "dxe5", "Bxf3", "Qxf3", "dxe5", "Bc4", "Nf6", "Qb3",
    "Qe7", "Nc3", "c6", "Bg5", "b5", "Nxb5", "cxb5", "Bxb5+", "Nbd7", "O-O-O", "Rd8", "Rxd7",
    "Rxd7", "Rd1", "Qe6", "Bxd7+", "Nxd7", "Qb8+", "Nxb8",
];

async fn inspect(admin_client: &mut AdminClient, game_id: &str) -> proto::InspectGameResponse {
    admin_client
        .inspect_game(admin(proto::InspectGameRequest {
            game_id: game_id.to_owned(),
        }))
        .await
        .expect("inspect the game")
        .into_inner()
}

/// Waits until the game's log is archived through `version` with nothing
/// after it (the test servers archive a game as soon as it ends).
async fn archived(admin_client: &mut AdminClient, game_id: &str, version: i32) {
    tokio::time::timeout(STREAM_PATIENCE, async {
        loop {
            let found = inspect(admin_client, game_id).await;
            if found.archived_through == version && found.log_bytes == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{game_id} was not archived through version {version}"));
}

/// Plays `moves` then resigns for the side to move, returning every event
/// the API answered with, from the creation on.
async fn play_and_resign(
    client: &mut Client,
    game: &common::NewGame,
    moves: &[&str],
) -> Vec<proto::GameEvent> {
    let mut events = Vec::new();
    let mut current = game.game.clone();
    for mv in moves {
        let token = common::token_to_move(game, &current);
        let (next, produced) =
            seat_with_events(client, token, make_move(&game.id, current.ply, mv))
                .await
                .unwrap_or_else(|status| panic!("{mv} refused: {status:?}"));
        current = next;
        events.extend(produced);
    }
    let token = common::token_to_move(game, &current);
    let (_, produced) = seat_with_events(client, token, resign(&game.id))
        .await
        .expect("resign");
    events.extend(produced);
    events
}

/// Everything a watcher from version 1 receives: events 2 onwards.
async fn watched(client: &mut Client, game_id: &str) -> Vec<proto::GameEvent> {
    drain(&mut common::watch(client, game_id, 1).await).await
}

/// A game's events as the API showed them while it was played are the
/// events every read shows once its log is archived: WatchGame from any
/// version or token, GetGame with every move, the PGN; a correction after
/// the end is added to the archive in turn.
async fn an_archived_game_reads_exactly_as_it_was_played(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = create(&mut admin_client, timed(None))
        .await
        .expect("created");
    let mut live_watch = common::watch(&mut client, &game.id, 1).await;
    let line = OPERA_GAME;
    let live = play_and_resign(&mut client, &game, &line).await;
    assert_eq!(live.len(), line.len() + 1);
    // What a watcher saw live: the same events, each with its token.
    let seen: Vec<proto::WatchGameResponse> =
        common::collect_until_end(&mut live_watch, STREAM_PATIENCE)
            .await
            .into_iter()
            .map(|message| message.expect("a message"))
            .collect();
    let seen_events: Vec<proto::GameEvent> = seen
        .iter()
        .filter_map(|message| match &message.kind {
            Some(common::WatchKind::Event(event)) => Some(event.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(seen_events, live);
    let last = live.last().expect("events").version;
    // Read while the game is over, archived or not yet.
    let pgn_soon = export_pgn(&mut client, &game.id).await;

    archived(&mut admin_client, &game.id, last).await;
    assert_eq!(watched(&mut client, &game.id).await, live);
    let full = get_full(&mut client, &game.id).await;
    let moves: Vec<&proto::MoveRecord> = live
        .iter()
        .filter_map(|event| match &event.kind {
            Some(proto::game_event::Kind::MoveMade(made)) => made.r#move.as_ref(),
            _ => None,
        })
        .collect();
    assert_eq!(full.moves.iter().collect::<Vec<_>>(), moves);
    assert_eq!(export_pgn(&mut client, &game.id).await, pgn_soon);
    // From the middle, by version and by the token of an event seen live.
    let middle = &live[17];
    assert_eq!(
        drain(&mut common::watch(&mut client, &game.id, middle.version).await).await,
        live[18..].to_vec()
    );
    let token = seen
        .iter()
        .find(|message| {
            matches!(&message.kind, Some(common::WatchKind::Event(event)) if event.version == middle.version)
        })
        .map(|message| message.resume_token.clone())
        .expect("the watcher saw the middle event");
    let mut by_token = client
        .watch_game(proto::WatchGameRequest {
            game_id: game.id.clone(),
            resume_token: token,
            ..Default::default()
        })
        .await
        .expect("resume by token")
        .into_inner();
    assert_eq!(drain(&mut by_token).await, live[18..].to_vec());

    // A correction after the archive: a live entry after it, then archived
    // with the rest.
    let ruling = admin_client
        .set_game_result(admin(proto::SetGameResultRequest {
            game_id: game.id.clone(),
            reason: "the resignation was a misclick".to_owned(),
            ruling: Some(proto::set_game_result_request::Ruling::Played(
                proto::PlayedResult {
                    outcome: proto::Outcome::Draw.into(),
                    termination: proto::Termination::Unspecified.into(),
                },
            )),
            ..Default::default()
        }))
        .await
        .expect("a correction")
        .into_inner();
    let mut corrected = live.clone();
    corrected.extend(ruling.events);
    archived(&mut admin_client, &game.id, last + 1).await;
    assert_eq!(watched(&mut client, &game.id).await, corrected);
    let found = inspect(&mut admin_client, &game.id).await;
    assert_eq!(found.events_json.len(), corrected.len() + 1);
    assert!(
        found.state_json.starts_with("{\"schema\":3,\"game\":{"),
        "{}",
        found.state_json
    );
    assert!(
        found
            .events_json
            .last()
            .expect("events")
            .contains("\"result_set\""),
        "{:?}",
        found.events_json.last()
    );
}

/// WatchEvent from the start reads the games whose logs are archived as it
/// reads the others: every event once, in order.
async fn an_event_stream_reads_archived_games(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "archive-open".to_owned();
    let mut expected = Vec::new();
    for board in 1..=2 {
        let game = create(&mut admin_client, timed(Some((&event, board))))
            .await
            .expect("created");
        let played = play_and_resign(&mut client, &game, &OPERA_GAME[..6]).await;
        archived(
            &mut admin_client,
            &game.id,
            played.last().expect("events").version,
        )
        .await;
        expected.push((game.id.clone(), 1 + played.len()));
    }
    let mut stream = client
        .watch_event(proto::WatchEventRequest {
            event_id: event.clone(),
            after_cursor: String::new(),
            round: 0,
        })
        .await
        .expect("watch the event")
        .into_inner();
    let total: usize = expected.iter().map(|(_, n)| n).sum();
    let mut seen: Vec<(String, i32)> = Vec::new();
    while seen.len() < total {
        let message = next_within(&mut stream, STREAM_PATIENCE)
            .await
            .expect("open")
            .expect("an update");
        if let Some(UpdateKind::Event(event)) = message.kind {
            seen.push((event.game_id.clone(), event.version));
        }
    }
    for (game, count) in &expected {
        let versions: Vec<i32> = seen
            .iter()
            .filter(|(id, _)| id == game)
            .map(|(_, version)| *version)
            .collect();
        let expected: Vec<i32> = (1..=i32::try_from(*count).expect("count")).collect();
        assert_eq!(versions, expected, "{game}");
    }
}

/// InspectGame is the arbiter's: it needs the admin token, names a game
/// that exists, and reads a game in progress as it stands.
async fn inspect_game_is_the_arbiters(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = app.new_game().await;
    common::play_line(&mut client, &game, &["e4", "e5"]).await;
    let request = || proto::InspectGameRequest {
        game_id: game.id.clone(),
    };
    let refused = admin_client
        .inspect_game(Request::new(request()))
        .await
        .expect_err("no token");
    assert_eq!(
        (refused.code(), reason(&refused).as_str()),
        (Code::Unauthenticated, "MISSING_TOKEN")
    );
    for token in ["wrong", game.white.as_str()] {
        let refused = admin_client
            .inspect_game(with_token(token, request()))
            .await
            .expect_err("not the admin");
        assert_eq!(
            (refused.code(), reason(&refused).as_str()),
            (Code::PermissionDenied, "NOT_ADMIN")
        );
    }
    let missing = admin_client
        .inspect_game(with_token(
            ADMIN_TOKEN,
            proto::InspectGameRequest {
                game_id: "no-such-game".to_owned(),
            },
        ))
        .await
        .expect_err("no such game");
    assert_eq!(missing.code(), Code::NotFound);
    let invalid = admin_client
        .inspect_game(admin(proto::InspectGameRequest {
            game_id: "not a game id!".to_owned(),
        }))
        .await
        .expect_err("invalid id");
    assert_eq!(
        (invalid.code(), reason(&invalid).as_str()),
        (Code::InvalidArgument, "INVALID_FIELD")
    );

    let found = inspect(&mut admin_client, &game.id).await;
    assert_eq!(found.archived_through, 0);
    assert_eq!(found.archive_bytes, 0);
    assert_eq!(found.events_json.len(), 3);
    assert!(
        found.events_json[1].contains("\"san\":\"e4\""),
        "{}",
        found.events_json[1]
    );
    assert!(
        found.state_json.contains("\"ply\":2"),
        "{}",
        found.state_json
    );
    // A live state is stored in binary, below its JSON; moves are packed
    // far below theirs.
    assert!(
        (found.state_bytes as usize) < found.state_json.len() * 3 / 4,
        "{} bytes stored against {} of JSON",
        found.state_bytes,
        found.state_json.len()
    );
    assert!(found.log_bytes < 1_200, "{} bytes of log", found.log_bytes);
}

on_every_backend!(
    an_archived_game_reads_exactly_as_it_was_played,
    an_event_stream_reads_archived_games,
    inspect_game_is_the_arbiters,
);

/// Half-moves of random legal play from the start that end nothing on the
/// way (no mate, stalemate or lack of material): a long game of the kind a
/// tournament sees, in UCI.
fn long_random_line(plies: usize) -> Vec<String> {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use shakmaty::{CastlingMode, Chess, Position, uci::UciMove};
    for seed in 0.. {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut position = Chess::default();
        let mut line = Vec::new();
        while line.len() < plies {
            let moves = position.legal_moves();
            if moves.is_empty() || position.is_insufficient_material() {
                break;
            }
            let m = moves[rng.random_range(0..moves.len())];
            line.push(UciMove::from_move(m, CastlingMode::Standard).to_string());
            position.play_unchecked(m);
        }
        if line.len() == plies && !position.is_game_over() {
            return line;
        }
    }
    unreachable!("some seed plays on")
}

/// The bytes Redis uses for every key of game `id` under `prefix`.
fn redis_memory(url: &str, prefix: &str, id: &str) -> (usize, Vec<String>) {
    let client = ::redis::Client::open(url).expect("redis url");
    let mut conn = client.get_connection().expect("connect to redis");
    let keys: Vec<String> = ::redis::cmd("KEYS")
        .arg(format!("{prefix}:*:{id}:*"))
        .query(&mut conn)
        .expect("keys");
    let mut total = 0;
    for key in &keys {
        let bytes: usize = ::redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(key)
            .arg("SAMPLES")
            .arg(0)
            .query(&mut conn)
            .expect("memory usage");
        total += bytes;
    }
    (total, keys)
}

/// An 80-move game with a clock takes under 150 bytes of Redis memory per
/// half-move while it is played, and under 4 KB once it is over and
/// archived (the targets the store is built to).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_memory_of_a_long_timed_game() {
    let config = common::fresh_redis_config();
    let app = TestApp::spawn_with(
        common::settings(arbiter::server::StoreChoice::Redis(config.clone())),
        None,
    )
    .await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let game = create(&mut admin_client, timed(None))
        .await
        .expect("created");
    let line = long_random_line(160);
    let mut current = game.game.clone();
    for mv in &line {
        let token = common::token_to_move(&game, &current);
        current = common::seat(&mut client, token, make_move(&game.id, current.ply, mv))
            .await
            .unwrap_or_else(|status| panic!("{mv} refused: {status:?}"));
    }
    assert_eq!(current.ply, 160);
    let (live, keys) = redis_memory(&config.url, &config.key_prefix, &game.id);
    assert_eq!(keys.len(), 2, "a state and a log: {keys:?}");
    let per_ply = live / 160;
    assert!(per_ply <= 150, "{live} bytes live: {per_ply} per half-move");

    let token = common::token_to_move(&game, &current);
    let (_, ended) = seat_with_events(&mut client, token, resign(&game.id))
        .await
        .expect("resign");
    archived(
        &mut admin_client,
        &game.id,
        ended.last().expect("the ending").version,
    )
    .await;
    let (finished, keys) = redis_memory(&config.url, &config.key_prefix, &game.id);
    assert_eq!(keys.len(), 1, "the state holds the archive: {keys:?}");
    assert!(finished <= 4_096, "{finished} bytes once archived");
    eprintln!(
        "redis memory of an 80-move timed game: {live} bytes live ({per_ply} per half-move), \
         {finished} bytes archived"
    );
}
