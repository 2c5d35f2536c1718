//! The broadcast feed over HTTP: a round's games, an event's, one game, in
//! PGN as relays poll them (lichess's broadcasts), with the broadcast delay
//! applied, and its refusals.

use std::{net::SocketAddr, time::Duration};

use arbiter::{proto, server::Settings};

use crate::common::{
    self, Backend, NewGame, TestApp, create, create_request, free_port, make_move, pairing, period,
    resign, seat, settings,
};

const EVENT: &str = "Club Open {2026}";
/// The event id as a path segment.
const EVENT_PATH: &str = "Club%20Open%20%7B2026%7D";

/// A server on `backend` with its feed on a port of its own.
pub(crate) async fn spawn(backend: Backend) -> (TestApp, SocketAddr) {
    spawn_feed(backend, |_| {}).await
}

/// A server whose feed listens on a free port, with `adjust` applied to
/// its settings. A port probed free can be taken by another test's server
/// before this one binds it (the server then stops): the feed is checked
/// to be this server's, and another port tried, a few times at most.
async fn spawn_feed(backend: Backend, adjust: impl Fn(&mut Settings)) -> (TestApp, SocketAddr) {
    let mut seen = Vec::new();
    for _ in 0..5 {
        let port = free_port();
        let mut settings = settings(backend.store());
        settings.feed_listen = Some(port);
        adjust(&mut settings);
        let app = TestApp::spawn_with(settings, None).await;
        match ours(port).await {
            Ok(()) => return (app, port),
            Err(why) => seen.push(format!("{port}: {why}")),
        }
    }
    panic!("the feed never listened: {seen:#?}");
}

/// Whether the feed at `port` answers as this project's does (an unknown
/// game is a 404 with a line of text), within five seconds.
async fn ours(port: SocketAddr) -> Result<(), String> {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Ok((code, _, body)) = common::http_get(port, "/games/none.pgn", "").await {
                return if code == 404 && body.ends_with(b"\n") {
                    Ok(())
                } else {
                    Err(format!("another server answers: {code}"))
                };
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .map_err(|_| "no answer".to_owned())?
}

/// `GET path` over a plain HTTP/1.1 connection: the status line's code,
/// the head and the body. Waits for the port to listen.
pub(crate) async fn get(port: SocketAddr, path: &str) -> (u16, String, String) {
    let (code, head, body) = get_with(port, path, "").await;
    (code, head, String::from_utf8(body).expect("UTF-8"))
}

/// `GET path` with `headers` (each line ending in `\r\n`): the code, the
/// head and the body's bytes. Waits for the port to listen.
async fn get_with(port: SocketAddr, path: &str, headers: &str) -> (u16, String, Vec<u8>) {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match common::http_get(port, path, headers).await {
                Ok(reply) => return reply,
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    })
    .await
    .expect("the feed answers")
}

/// The value of header `name` in `head`.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// A ten-minute game of the event at `round` and `board`.
async fn game(app: &TestApp, round: i32, board: i32, delay_millis: i32) -> NewGame {
    let mut request = create_request("", "");
    request.pairing = Some(pairing(EVENT, round, board));
    request.white = Some(proto::Player {
        id: format!("w{round}{board}"),
        name: format!("White {round}.{board}"),
        ..Default::default()
    });
    request.black = Some(proto::Player {
        id: format!("b{round}{board}"),
        name: if board == 2 {
            "Carlsen, Magnus".to_owned()
        } else {
            format!("Black {round}.{board}")
        },
        ..Default::default()
    });
    request.time_control = Some(proto::TimeControl {
        periods: vec![period(600_000, 0, 5_000, 0)],
        ..Default::default()
    });
    request.broadcast_delay_millis = delay_millis;
    if board == 1 {
        // Board 1's players with what broadcasts show of them.
        if let Some(white) = request.white.as_mut() {
            (white.rating, white.title, white.fide_id, white.team) =
                (2712, "GM".into(), 1_503_014, "Norway".into());
        }
        if let Some(black) = request.black.as_mut() {
            (black.rating, black.title) = (2650, "IM".into());
        }
    }
    create(&mut app.admin_client().await, request)
        .await
        .expect("created")
}

/// The body `path` serves once its tag is no longer `etag` (within 20 s).
async fn changed_since(port: SocketAddr, path: &str, etag: &str) -> String {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let (code, _, body) = get_with(port, path, &format!("If-None-Match: {etag}\r\n")).await;
            if code == 200 {
                return String::from_utf8(body).expect("UTF-8");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the change reaches the feed")
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
    for tag in [
        "[WhiteElo \"2712\"]",
        "[WhiteTitle \"GM\"]",
        "[WhiteFideId \"1503014\"]",
        "[WhiteTeam \"Norway\"]",
        "[BlackElo \"2650\"]",
        "[BlackTitle \"IM\"]",
    ] {
        assert!(round[0].contains(tag), "{tag} in {}", round[0]);
    }
    assert!(!round[0].contains("BlackFideId") && !round[1].contains("WhiteElo"));
    assert!(round[1].contains("[Round \"1.2\"]"));
    assert!(round[1].contains(&format!("[GameId \"{}\"]", second.id)));

    // An independent PGN reader reads the round back: two games, the
    // moves played, a clock after each, the result still open.
    let read = crate::pgn::parse_all(&body);
    assert_eq!(read.len(), 2);
    let sans: Vec<String> = read[0].sans.iter().map(ToString::to_string).collect();
    assert_eq!(sans, ["e4", "e5"]);
    assert_eq!(read[0].comments.len(), 2);
    assert!(
        read[0]
            .comments
            .iter()
            .all(|c| c.starts_with("[%clk 0:10:"))
    );
    assert_eq!(read[0].outcome.as_deref(), Some("*"));
    assert_eq!(read[0].tag("GameId"), Some(first.id.as_str()));
    assert_eq!(read[1].tag("Round"), Some("1.2"));

    // The same round as a DGT LiveChess-style index and a file a game, as
    // lichess reads a round.json source.
    for name in ["round.json", "index.json"] {
        let (code, head, index) = get(port, &format!("/events/{EVENT_PATH}/rounds/1/{name}")).await;
        assert_eq!(code, 200, "{head}");
        assert!(
            header(&head, "content-type").is_some_and(|t| t.starts_with("application/json")),
            "{head}"
        );
        let index: serde_json::Value = serde_json::from_str(&index).expect("JSON");
        let pairings = index["pairings"].as_array().expect("pairings");
        assert_eq!(pairings.len(), 2);
        assert_eq!(pairings[0]["white"]["lname"], "White 1.1");
        assert_eq!(pairings[0]["white"]["title"], "GM");
        assert_eq!(pairings[0]["white"]["fideid"], 1_503_014);
        assert!(pairings[1]["white"].get("title").is_none());
        assert_eq!(pairings[0]["black"]["lname"], "Black 1.1");
        assert!(pairings[0]["black"].get("fname").is_none());
        // A name written "Last, First" is split as DGT names players.
        assert_eq!(pairings[1]["black"]["lname"], "Carlsen");
        assert_eq!(pairings[1]["black"]["fname"], "Magnus");
        assert_eq!(pairings[0]["result"], "*");
        assert_eq!(pairings[0]["live"], true);
        assert_eq!(pairings[1]["board"], 2);
    }
    for (n, game) in [(1, round[0]), (2, round[1])] {
        let (code, _, text) =
            get(port, &format!("/events/{EVENT_PATH}/rounds/1/game-{n}.pgn")).await;
        assert_eq!(code, 200);
        assert_eq!(text.trim_end(), game.trim_end());
    }
    for missing in ["game-3.pgn", "game-0.pgn", "game-x.pgn", "other.txt"] {
        let (code, _, _) = get(port, &format!("/events/{EVENT_PATH}/rounds/1/{missing}")).await;
        assert_eq!(code, 404, "{missing}");
    }

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
    // After a last move with a clock, the ending shares its comment: one
    // comment a move, as readers such as chess.js require.
    seat(&mut client, &first.white, common::resign(&first.id))
        .await
        .expect("resigns");
    // (Polled a moment ago: the answer is kept a second.)
    let body = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let (_, _, body) = get(port, &format!("/games/{}.pgn", first.id)).await;
            if body.contains("[Result \"0-1\"]") {
                return body;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the resignation reaches the feed");
    assert!(!body.contains("} {"), "{body}");
    let read = crate::pgn::parse_all(&body);
    let last = read[0].comments.last().expect("a comment");
    assert!(
        last.starts_with("[%clk 0:10:") && last.contains("resign"),
        "{last:?} in {body}"
    );
    assert_eq!(read[0].comments.len(), 2, "{body}");
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
    // (The move's text: a random game id may hold "d4".)
    assert!(
        !body.contains("1. d4"),
        "the move is ten minutes from public: {body}"
    );
    let round_path = format!("/events/{EVENT_PATH}/rounds/1/games.pgn");
    let (_, _, round) = get(port, &round_path).await;
    assert!(!round.contains("1. d4"), "{round}");
    // The organiser's own relay, with the admin token, reads it live; a
    // wrong token is the public.
    let live = format!("Authorization: Bearer {}\r\n", common::ADMIN_TOKEN);
    for path in [format!("/games/{}.pgn", delayed.id), round_path.clone()] {
        let (code, head, body) = get_with(port, &path, &live).await;
        assert_eq!(code, 200);
        // Never kept by a shared cache, unlike the public feed.
        assert_eq!(header(&head, "cache-control"), Some("private, no-store"));
        let (_, public, _) = get_with(port, &path, "").await;
        assert_eq!(header(&public, "cache-control"), Some("public, max-age=1"));
        assert!(
            String::from_utf8(body).expect("UTF-8").contains("1. d4"),
            "{path} live"
        );
        let (_, _, body) = get_with(port, &path, "Authorization: Bearer wrong\r\n").await;
        assert!(!String::from_utf8(body).expect("UTF-8").contains("1. d4"));
    }
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
    let (code, head, body) = get(port, "/events/nobody/rounds/1/games.pgn").await;
    assert_eq!(code, 404, "an event without games: {head}");
    assert!(body.contains("no games"), "{body}");
    assert_eq!(get(port, "/events/nobody/games.pgn").await.0, 404);
    // Nothing climbs out of the feed's names, and a huge path is refused
    // (or the connection closed) without hurting the port.
    assert_eq!(get(port, "/games/../../etc/passwd").await.0, 404);
    assert_eq!(get(port, "/games/..%2F..%2Fetc%2Fpasswd.pgn").await.0, 400);
    assert_eq!(
        get(port, "/events/..%2F..%2Fetc/rounds/1/games.pgn")
            .await
            .0,
        404
    );
    let huge = format!("/games/{}.pgn", "a".repeat(200_000));
    if let Ok((code, head, _)) = common::http_get(port, &huge, "").await {
        assert!((400..500).contains(&code), "{head}");
    }
    assert_eq!(get(port, "/games/none.pgn").await.0, 404, "still serving");
    // Only GET.
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(port)
        .await
        .expect("connects");
    stream
        .write_all(
            b"POST /events/x/games.pgn HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        )
        .await
        .expect("request");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).await.expect("reply");
    assert!(reply.starts_with("HTTP/1.1 405"), "{reply}");
}

/// A poll that sends the ETag back gets a 304 until the round changes; a
/// poller that takes gzip gets the same text compressed; a crowd of polls
/// at once costs the store one read of the event's list.
async fn polls_are_cheap_with_etags_gzip_and_one_build(backend: Backend) {
    let (app, port) = spawn_feed(backend, |settings| {
        settings.metrics_listen = Some(free_port());
    })
    .await;
    let metrics = app.settings.metrics_listen.expect("a metrics port");
    let mut client = app.client().await;
    let board = game(&app, 1, 1, 0).await;
    let path = format!("/events/{EVENT_PATH}/rounds/1/games.pgn");

    let (code, head, body) = get_with(port, &path, "").await;
    assert_eq!(code, 200);
    let etag = header(&head, "etag").expect("an ETag").to_owned();
    assert!(
        etag.starts_with('"') && etag.ends_with('"'),
        "a strong tag: {etag}"
    );
    let (code, head, empty) = get_with(port, &path, &format!("If-None-Match: {etag}\r\n")).await;
    assert_eq!(code, 304, "{head}");
    assert!(empty.is_empty());
    assert_eq!(header(&head, "etag"), Some(etag.as_str()));

    // gzip: the same text.
    let (code, head, gzipped) = get_with(port, &path, "Accept-Encoding: gzip\r\n").await;
    assert_eq!(code, 200);
    assert_eq!(header(&head, "content-encoding"), Some("gzip"));
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gzipped[..]), &mut text)
        .expect("gzip");
    assert_eq!(text.as_bytes(), &body[..]);

    // Last-Modified: If-Modified-Since with it is a 304 (without a tag),
    // and a rebuild that finds the text unchanged keeps the date.
    let (_, head, _) = get_with(port, &path, "").await;
    let modified = header(&head, "last-modified")
        .expect("a Last-Modified")
        .to_owned();
    let (code, _, _) = get_with(port, &path, &format!("If-Modified-Since: {modified}\r\n")).await;
    assert_eq!(code, 304);
    let (code, _, _) = get_with(
        port,
        &path,
        "If-Modified-Since: Mon, 01 Jan 2001 00:00:00 GMT\r\n",
    )
    .await;
    assert_eq!(code, 200, "changed since 2001");
    // A tag that does not match decides over a date that does.
    let (code, _, _) = get_with(
        port,
        &path,
        &format!("If-None-Match: \"other\"\r\nIf-Modified-Since: {modified}\r\n"),
    )
    .await;
    assert_eq!(code, 200, "the tag decides");
    // A game that has ended does not change (a running one's clocks do):
    // rebuilt a second later, it keeps its tag and its date.
    let over = game(&app, 2, 1, 0).await;
    seat(&mut client, &over.white, resign(&over.id))
        .await
        .expect("resigned");
    let over_path = format!("/games/{}.pgn", over.id);
    let (_, first, _) = get_with(port, &over_path, "").await;
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let (_, rebuilt, _) = get_with(port, &over_path, "").await;
    assert_eq!(header(&rebuilt, "etag"), header(&first, "etag"));
    assert!(header(&first, "last-modified").is_some());
    assert_eq!(
        header(&rebuilt, "last-modified"),
        header(&first, "last-modified")
    );

    // A move: once the answer is rebuilt (within a second), the old tag no
    // longer matches.
    seat(&mut client, &board.white, make_move(&board.id, 0, "c4"))
        .await
        .expect("c4");
    let changed = changed_since(port, &path, &etag).await;
    assert!(changed.contains("1. c4"), "{changed}");

    // A thousand polls, a hundred at a time: the list read once for each
    // second they take (an answer is kept a second), plus one across a
    // rebuild, never once a poll.
    let lists = || async {
        let (_, _, text) = get_with(metrics, "/metrics", "").await;
        String::from_utf8(text)
            .expect("UTF-8")
            .lines()
            .find_map(|line| {
                line.strip_prefix(
                    r#"arbiter_store_operation_duration_seconds_count{operation="event_games"} "#,
                )
                .and_then(|n| n.parse::<u64>().ok())
            })
            .unwrap_or(0)
    };
    let before = lists().await;
    let started = std::time::Instant::now();
    for _ in 0..10 {
        let polls = (0..100).map(|_| get_with(port, &path, ""));
        let answers = futures::future::join_all(polls).await;
        assert!(answers.iter().all(|(code, _, _)| *code == 200));
    }
    let seconds = started.elapsed().as_secs();
    let read = lists().await - before;
    assert!(
        read <= seconds + 2,
        "{read} list reads for 1,000 polls in {seconds} s"
    );
}

/// The whole event is sent round after round, the games without a round
/// first, a round skipped by nobody's mistake (none has games) left out;
/// it is tagged, answered with 304 when unchanged, and compressed as one
/// gzip stream. A round's feed reads its own round, however many come
/// before it.
async fn the_whole_event_is_sent_round_after_round(backend: Backend) {
    let (app, port) = spawn(backend).await;
    let unpaired = {
        let mut request = create_request("", "");
        request.pairing = Some(pairing(EVENT, 0, 0));
        create(&mut app.admin_client().await, request)
            .await
            .expect("created")
    };
    let third = game(&app, 3, 1, 0).await;
    let first = game(&app, 1, 1, 0).await;
    let second = game(&app, 1, 2, 0).await;
    let path = format!("/events/{EVENT_PATH}/games.pgn");

    let (code, head, body) = get_with(port, &path, "").await;
    assert_eq!(code, 200, "{head}");
    assert_eq!(
        header(&head, "transfer-encoding"),
        Some("chunked"),
        "{head}"
    );
    let body = String::from_utf8(body).expect("UTF-8");
    let read = crate::pgn::parse_all(&body);
    let ids: Vec<_> = read.iter().map(|game| game.tag("GameId")).collect();
    assert_eq!(
        ids,
        [&unpaired.id, &first.id, &second.id, &third.id].map(|id| Some(id.as_str())),
        "{body}"
    );
    assert_eq!(games(&body).len(), 4);
    // Each round's text as its own URL serves it, a blank line between.
    let (_, _, one) = get(port, &format!("/events/{EVENT_PATH}/rounds/1/games.pgn")).await;
    let (_, _, three) = get(port, &format!("/events/{EVENT_PATH}/rounds/3/games.pgn")).await;
    assert!(body.contains(&format!("{one}\n{three}")), "{body}");
    let (code, _, _) = get(port, &format!("/events/{EVENT_PATH}/rounds/2/games.pgn")).await;
    assert_eq!(code, 404, "round 2 has no games");

    let etag = header(&head, "etag").expect("an ETag").to_owned();
    assert!(etag.starts_with('"') && etag.ends_with('"'), "{etag}");
    assert!(header(&head, "last-modified").is_some(), "{head}");
    let (code, _, empty) = get_with(port, &path, &format!("If-None-Match: {etag}\r\n")).await;
    assert_eq!(code, 304);
    assert!(empty.is_empty());

    let (code, head, gzipped) = get_with(port, &path, "Accept-Encoding: gzip\r\n").await;
    assert_eq!(code, 200);
    assert_eq!(header(&head, "content-encoding"), Some("gzip"));
    let gzip_etag = header(&head, "etag").expect("an ETag").to_owned();
    assert_ne!(
        gzip_etag, etag,
        "the compressed bytes have a tag of their own"
    );
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gzipped[..]), &mut text)
        .expect("one gzip stream");
    assert_eq!(text, body);

    // A move changes the round's text, and so the event's tag.
    let mut client = app.client().await;
    seat(&mut client, &third.white, make_move(&third.id, 0, "Nf3"))
        .await
        .expect("Nf3");
    let changed = changed_since(port, &path, &etag).await;
    assert!(changed.contains("1. Nf3"), "{changed}");
}

/// Milliseconds since the Unix epoch, as the server's clock counts (one
/// machine).
fn now_millis() -> u64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock");
    u64::try_from(since.as_millis()).expect("millis")
}

/// At the delay's boundary: a move shows in the public feed (of its game,
/// its round and its event) only in an answer received once its time plus
/// the delay has passed, and it shows within two seconds of that (an
/// answer is kept a second).
async fn a_delayed_move_shows_only_once_its_delay_has_passed(backend: Backend) {
    const DELAY: u64 = 1_500;
    let (app, port) = spawn(backend).await;
    let mut client = app.client().await;
    let delayed = game(&app, 1, 1, i32::try_from(DELAY).expect("delay")).await;
    let paths = [
        format!("/games/{}.pgn", delayed.id),
        format!("/events/{EVENT_PATH}/rounds/1/games.pgn"),
        format!("/events/{EVENT_PATH}/games.pgn"),
    ];
    // Polled once before the move, so that answers are kept from then on.
    for path in &paths {
        assert_eq!(get(port, path).await.0, 200);
    }
    let (_, events) =
        common::seat_with_events(&mut client, &delayed.white, make_move(&delayed.id, 0, "d4"))
            .await
            .expect("d4");
    let at = events[0].event_time.as_ref().expect("event time");
    let at = u64::try_from(at.seconds * 1_000 + i64::from(at.nanos / 1_000_000)).expect("time");
    let release = at + DELAY;
    for path in &paths {
        let mut hidden_before = 0;
        let shown_at = loop {
            let (code, _, body) = get(port, path).await;
            let received = now_millis();
            assert_eq!(code, 200);
            if body.contains("1. d4") {
                assert!(
                    received >= release,
                    "{path}: shown at {received}, before its release at {release}"
                );
                break received;
            }
            hidden_before += u32::from(received < release);
            assert!(
                received < release + 2_000,
                "{path}: still hidden at {received}, 2 s after its release at {release}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(shown_at >= release);
        if path == &paths[0] {
            assert!(hidden_before > 0, "polled before the release");
        }
    }
}

/// A feed reader's credential reads its event's URLs live, and nothing
/// else (another event's reader, and a game's own URL, get the public's
/// delayed view); a revoked or forged credential is answered 401.
async fn a_feed_readers_credential_reads_its_event_live(backend: Backend) {
    let (app, port) = spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let delayed = game(&app, 1, 1, 600_000).await;
    seat(&mut client, &delayed.white, make_move(&delayed.id, 0, "d4"))
        .await
        .expect("d4");
    let mut other = create_request("", "");
    other.pairing = Some(pairing("Another Open", 1, 1));
    create(&mut admin_client, other)
        .await
        .expect("another event");
    let mut reader_of = async |event: &str, name: &str| {
        admin_client
            .create_credential(common::admin(proto::CreateCredentialRequest {
                name: name.to_owned(),
                role: proto::Role::FeedReader.into(),
                event_id: event.to_owned(),
                ..Default::default()
            }))
            .await
            .expect("a feed reader")
            .into_inner()
    };
    let relay = reader_of(EVENT, "Relay").await;
    let elsewhere = reader_of("Another Open", "Other relay").await;
    let bearer = |token: &str| format!("Authorization: Bearer {token}\r\n");
    let round_path = format!("/events/{EVENT_PATH}/rounds/1/games.pgn");
    let game_path = format!("/games/{}.pgn", delayed.id);
    let body_of = async |path: &str, token: &str| {
        let (code, head, body) = get_with(port, path, &bearer(token)).await;
        (code, head, String::from_utf8(body).expect("UTF-8"))
    };
    let (code, head, live) = body_of(&round_path, &relay.token).await;
    assert_eq!(code, 200);
    assert!(
        live.contains("1. d4"),
        "the relay reads its event live: {live}"
    );
    assert_eq!(header(&head, "cache-control"), Some("private, no-store"));
    let (code, _, delayed_view) = body_of(&round_path, &elsewhere.token).await;
    assert_eq!(code, 200);
    assert!(!delayed_view.contains("1. d4"), "{delayed_view}");
    let (code, _, own_url) = body_of(&game_path, &relay.token).await;
    assert_eq!(code, 200);
    assert!(!own_url.contains("1. d4"), "{own_url}");
    // Revoked: answered 401 from the next poll on, on every URL.
    admin_client
        .revoke_credential(common::admin(proto::RevokeCredentialRequest {
            credential_id: relay.credential.expect("its record").credential_id,
            reason: "the broadcast ended".to_owned(),
        }))
        .await
        .expect("revoked");
    for path in [&round_path, &game_path] {
        let (code, _, body) = body_of(path, &relay.token).await;
        assert_eq!(code, 401, "{path}: {body}");
        assert!(!body.contains("1. d4"));
    }
    let forged = format!("cred.{}.not-its-secret", "0".repeat(20));
    let (code, _, body) = body_of(&round_path, &forged).await;
    assert_eq!(code, 401, "{body}");
}

on_every_backend!(
    a_feed_readers_credential_reads_its_event_live,
    a_delayed_move_shows_only_once_its_delay_has_passed,
    the_whole_event_is_sent_round_after_round,
    a_players_details_are_checked,
    a_rounds_games_are_served_in_board_order_with_their_clocks,
    the_feed_keeps_the_broadcast_delay,
    the_feed_refuses_what_it_cannot_serve,
    polls_are_cheap_with_etags_gzip_and_one_build,
);

/// The feed's port closes a connection that sends nothing, so that idle
/// clients holding every place (here both of two) cannot keep it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_do_not_hold_the_feed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (_app, port) = spawn_feed(Backend::Memory, |settings| {
        settings.feed_limits = (2, Duration::from_secs(1));
    })
    .await;
    // The port answers.
    assert_eq!(get(port, "/games/none.pgn").await.0, 404);
    // Two clients connect and send nothing: they hold both places...
    let mut idle = Vec::new();
    for _ in 0..2 {
        idle.push(
            tokio::net::TcpStream::connect(port)
                .await
                .expect("connects"),
        );
    }
    // ...until the idle time closes them, and the port serves again.
    for stream in &mut idle {
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(Duration::from_secs(20), stream.read(&mut byte))
            .await
            .expect("the idle connection is closed");
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
    }
    let mut stream = tokio::net::TcpStream::connect(port)
        .await
        .expect("connects");
    stream
        .write_all(b"GET /games/none.pgn HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .expect("request");
    let mut reply = String::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_string(&mut reply))
        .await
        .expect("served after the idle ones left")
        .expect("reply");
    assert!(reply.starts_with("HTTP/1.1 404"), "{reply}");
}

/// A player's details are checked with the rest of the request: a title
/// FIDE does not award, or a rating out of range, is refused, naming the
/// seat, and creates nothing.
async fn a_players_details_are_checked(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    for (rating, title) in [(5000, ""), (0, "XM"), (-3, "")] {
        let mut request = create_request("", "");
        request.pairing = Some(pairing("Checked", 1, 1));
        if let Some(white) = request.white.as_mut() {
            (white.rating, white.title) = (rating, title.into());
        }
        let status = create(&mut admin_client, request)
            .await
            .expect_err("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert_eq!(common::reason(&status), "INVALID_FIELD");
        assert!(status.message().contains("white"), "{}", status.message());
    }
    // What was given is read back.
    let mut request = create_request("", "");
    if let Some(black) = request.black.as_mut() {
        (black.rating, black.title, black.fide_id, black.team) =
            (1900, "WFM".into(), 42, "Club".into());
    }
    let created = create(&mut admin_client, request).await.expect("created");
    let black = common::setup(&created.game).black.clone().expect("black");
    assert_eq!(
        (
            black.rating,
            black.title.as_str(),
            black.fide_id,
            black.team.as_str()
        ),
        (1900, "WFM", 42, "Club")
    );
}

/// With a certificate and key, the feed is served over TLS (HTTP/1.1), the
/// same answers as in the clear; a client that speaks plain HTTP to it gets
/// no answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_feed_is_served_over_tls() {
    use std::sync::Arc;

    use arbiter::server::tls::{ClientAuth, TlsFiles};
    let ca = crate::redis_tls::ca("feed CA");
    let (cert, key) = crate::redis_tls::leaf(&ca, "feed", true);
    let dir = tempfile::tempdir().expect("dir");
    let (cert_path, key_path) = (dir.path().join("feed.crt"), dir.path().join("feed.key"));
    std::fs::write(&cert_path, cert.pem()).expect("cert");
    std::fs::write(&key_path, key.serialize_pem()).expect("key");
    let port = free_port();
    let mut settings = settings(Backend::Memory.store());
    settings.feed_listen = Some(port);
    settings.feed_tls = Some(TlsFiles {
        cert: cert_path,
        key: key_path,
        client_ca: None,
        client_auth: ClientAuth::Optional,
    });
    let app = TestApp::spawn_with(settings, None).await;
    let first = game(&app, 1, 1, 0).await;

    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.der().clone()).expect("the CA");
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let get_tls = |path: String| {
        let connector = connector.clone();
        async move {
            let tcp = tokio::net::TcpStream::connect(port).await?;
            let name = rustls_pki_types::ServerName::try_from("localhost")
                .map_err(std::io::Error::other)?;
            let tls = connector.connect(name, tcp).await?;
            common::http_get_on(tls, &path, "").await
        }
    };
    let path = format!("/events/{EVENT_PATH}/rounds/1/games.pgn");
    let (code, head, body) = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match get_tls(path.clone()).await {
                Ok(reply) => return reply,
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        }
    })
    .await
    .expect("the feed answers over TLS");
    assert_eq!(code, 200, "{head}");
    let body = String::from_utf8(body).expect("UTF-8");
    assert!(
        body.contains(&format!("[GameId \"{}\"]", first.id)),
        "{body}"
    );

    // Plain HTTP on the TLS port: no HTTP answer.
    let plain = tokio::time::timeout(Duration::from_secs(20), common::http_get(port, &path, ""))
        .await
        .expect("the connection ends");
    assert!(
        plain.as_ref().is_err() || plain.as_ref().is_ok_and(|(code, _, _)| *code != 200),
        "{plain:?}"
    );
}
