//! The broadcast feed over HTTP: a round's games, an event's, one game, in
//! PGN as relays poll them (lichess's broadcasts), with the broadcast delay
//! applied, and its refusals.

use std::{net::SocketAddr, time::Duration};

use arbiter::proto;

use crate::common::{
    self, Backend, NewGame, TestApp, create, create_request, make_move, pairing, period, seat,
    settings,
};

const EVENT: &str = "Club Open {2026}";
/// The event id as a path segment.
const EVENT_PATH: &str = "Club%20Open%20%7B2026%7D";

/// A free port on the loopback interface.
fn free_port() -> SocketAddr {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
    probe.local_addr().expect("address")
}

/// A server on `backend` with its feed on a port of its own.
async fn spawn(backend: Backend) -> (TestApp, SocketAddr) {
    let port = free_port();
    let mut settings = settings(backend.store());
    settings.feed_listen = Some(port);
    (TestApp::spawn_with(settings, None).await, port)
}

/// `GET path` over a plain HTTP/1.1 connection: the status line's code,
/// the head and the body. Waits for the port to listen.
async fn get(port: SocketAddr, path: &str) -> (u16, String, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let reply = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let Ok(mut stream) = tokio::net::TcpStream::connect(port).await else {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let request =
                format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
            stream.write_all(request.as_bytes()).await.expect("request");
            let mut reply = String::new();
            stream.read_to_string(&mut reply).await.expect("reply");
            return reply;
        }
    })
    .await
    .expect("the feed answers");
    let (head, body) = reply.split_once("\r\n\r\n").expect("a head and a body");
    let code = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .expect("a status code");
    (code, head.to_owned(), body.to_owned())
}

/// A ten-minute game of the event at `round` and `board`.
async fn game(app: &TestApp, round: i32, board: i32, delay_millis: i32) -> NewGame {
    let mut request = create_request("", "");
    request.pairing = Some(pairing(EVENT, round, board));
    request.white = Some(proto::Player {
        id: format!("w{round}{board}"),
        name: format!("White {round}.{board}"),
    });
    request.black = Some(proto::Player {
        id: format!("b{round}{board}"),
        name: format!("Black {round}.{board}"),
    });
    request.time_control = Some(proto::TimeControl {
        periods: vec![period(600_000, 0, 5_000, 0)],
        ..Default::default()
    });
    request.broadcast_delay_millis = delay_millis;
    create(&mut app.admin_client().await, request)
        .await
        .expect("created")
}

/// The games of a multi-game PGN, each from its `[Event` tag.
fn games(pgn: &str) -> Vec<&str> {
    let starts: Vec<usize> = pgn.match_indices("[Event ").map(|(at, _)| at).collect();
    starts
        .iter()
        .enumerate()
        .map(|(i, &start)| &pgn[start..starts.get(i + 1).copied().unwrap_or(pgn.len())])
        .collect()
}

/// A round's feed holds its games in board order, each with the tags relays
/// match and show it by; the event's holds every round; one game's holds it
/// alone.
async fn a_rounds_games_are_served_in_board_order_with_their_clocks(backend: Backend) {
    let (app, port) = spawn(backend).await;
    let mut client = app.client().await;
    let second = game(&app, 1, 2, 0).await;
    let first = game(&app, 1, 1, 0).await;
    let later = game(&app, 2, 1, 0).await;
    seat(&mut client, &first.white, make_move(&first.id, 0, "e4"))
        .await
        .expect("e4");
    seat(&mut client, &first.black, make_move(&first.id, 1, "e5"))
        .await
        .expect("e5");

    let (code, head, body) = get(port, &format!("/events/{EVENT_PATH}/rounds/1/games.pgn")).await;
    assert_eq!(code, 200, "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/x-chess-pgn"),
        "{head}"
    );
    let round = games(&body);
    assert_eq!(round.len(), 2, "{body}");
    assert!(round[0].contains("[Round \"1.1\"]"), "{}", round[0]);
    assert!(round[0].contains(&format!("[GameId \"{}\"]", first.id)));
    assert!(round[0].contains("[Event \"Club Open {2026}\"]"));
    assert!(round[0].contains("[Result \"*\"]"));
    assert!(round[0].contains("[TimeControl \"600+5\"]"), "{}", round[0]);
    assert!(round[0].contains("1. e4 {[%clk 0:10:"), "{}", round[0]);
    assert!(round[0].contains("[WhiteClock \"0:10:0"), "{}", round[0]);
    assert!(round[0].contains("[BlackClock \"0:"), "{}", round[0]);
    assert!(round[1].contains("[Round \"1.2\"]"));
    assert!(round[1].contains(&format!("[GameId \"{}\"]", second.id)));

    let (code, _, body) = get(port, &format!("/events/{EVENT_PATH}/games.pgn")).await;
    assert_eq!(code, 200);
    let event = games(&body);
    assert_eq!(event.len(), 3);
    assert!(event[2].contains(&format!("[GameId \"{}\"]", later.id)));
    assert!(event[2].contains("[Round \"2.1\"]"));

    let (code, _, body) = get(port, &format!("/games/{}.pgn", first.id)).await;
    assert_eq!(code, 200);
    assert_eq!(games(&body).len(), 1);
    assert_eq!(body.trim_end(), round[0].trim_end());

    // A finished game: its result, and no running clocks.
    seat(&mut client, &second.white, common::resign(&second.id))
        .await
        .expect("resigns");
    let (_, _, body) = get(port, &format!("/games/{}.pgn", second.id)).await;
    assert!(body.contains("[Result \"0-1\"]"), "{body}");
    assert!(!body.contains("WhiteClock"), "{body}");
}

/// The feed is public: a delayed game shows none of its recent moves.
async fn the_feed_keeps_the_broadcast_delay(backend: Backend) {
    let (app, port) = spawn(backend).await;
    let mut client = app.client().await;
    let delayed = game(&app, 1, 1, 600_000).await;
    seat(&mut client, &delayed.white, make_move(&delayed.id, 0, "d4"))
        .await
        .expect("d4");
    let (code, _, body) = get(port, &format!("/games/{}.pgn", delayed.id)).await;
    assert_eq!(code, 200);
    assert!(body.contains(&format!("[GameId \"{}\"]", delayed.id)));
    assert!(
        !body.contains("d4"),
        "the move is ten minutes from public: {body}"
    );
    let (_, _, round) = get(port, &format!("/events/{EVENT_PATH}/rounds/1/games.pgn")).await;
    assert!(!round.contains("d4"), "{round}");
}

/// Unknown games are 404, malformed ids and rounds 400, an event without
/// games an empty 200.
async fn the_feed_refuses_what_it_cannot_serve(backend: Backend) {
    let (app, port) = spawn(backend).await;
    let _ = app;
    assert_eq!(get(port, "/games/no-such-game.pgn").await.0, 404);
    assert_eq!(get(port, "/games/no-such-game").await.0, 404);
    assert_eq!(get(port, "/games/bad%20id.pgn").await.0, 400);
    assert_eq!(get(port, "/events/x/rounds/0/games.pgn").await.0, 400);
    assert_eq!(get(port, "/events/x/rounds/two/games.pgn").await.0, 400);
    assert_eq!(get(port, "/nothing").await.0, 404);
    let (code, _, body) = get(port, "/events/nobody/rounds/1/games.pgn").await;
    assert_eq!((code, body.as_str()), (200, ""));
}

on_every_backend!(
    a_rounds_games_are_served_in_board_order_with_their_clocks,
    the_feed_keeps_the_broadcast_delay,
    the_feed_refuses_what_it_cannot_serve,
);
