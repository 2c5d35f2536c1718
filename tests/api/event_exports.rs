//! An event's PGN and TRF exports compared with expected files
//! (`tests/data/`), byte for byte. Game ids come from request ids, so the
//! exports are the same on every run; only the PGN `Date` tag (the day the
//! test runs) is normalised.

use crate::common;

use arbiter::proto;
use common::{
    Backend, STREAM_PATIENCE, TestApp, accept_draw, collect_until_end, create, export_pgn,
    offer_draw, play_line, resign, seat,
};

const EVENT: &str = "Club Championship 2026";

fn pairing(
    round: i32,
    board: i32,
    white: (&str, &str),
    black: (&str, &str),
) -> proto::CreateGameRequest {
    let mut request = common::create_request(&format!("club-2026/r{round}/b{board}"), "");
    request.pairing = Some(common::pairing(EVENT, round, board));
    request.white = Some(proto::Player {
        id: white.0.to_owned(),
        name: white.1.to_owned(),
        ..Default::default()
    });
    request.black = Some(proto::Player {
        id: black.0.to_owned(),
        name: black.1.to_owned(),
        ..Default::default()
    });
    request
}

/// Two rounds of four players: round 1 a mate and an agreed draw, round 2
/// a resignation and a game in progress. Returns the games' ids in round
/// and board order.
async fn play_the_event(
    client: &mut common::Client,
    admin: &mut common::AdminClient,
) -> Vec<String> {
    let anna = ("p-anna", "Anand, Anna");
    let boris = ("p-boris", "Berg, Boris");
    let clara = ("p-clara", "Chen, Clara");
    let dmitri = ("p-dmitri", "Dvorak, Dmitri");
    let r1b1 = create(admin, pairing(1, 1, anna, boris))
        .await
        .expect("create");
    let r1b2 = create(admin, pairing(1, 2, clara, dmitri))
        .await
        .expect("create");
    play_line(
        client,
        &r1b1,
        &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"],
    )
    .await;
    play_line(client, &r1b2, &["d4", "d5", "c4", "e6"]).await;
    seat(client, &r1b2.white, offer_draw(&r1b2.id))
        .await
        .expect("offer");
    seat(client, &r1b2.black, accept_draw(&r1b2.id))
        .await
        .expect("accept");
    let r2b1 = create(admin, pairing(2, 1, dmitri, anna))
        .await
        .expect("create");
    let r2b2 = create(admin, pairing(2, 2, boris, clara))
        .await
        .expect("create");
    play_line(client, &r2b1, &["Nf3", "d5", "g3"]).await;
    seat(client, &r2b1.white, resign(&r2b1.id))
        .await
        .expect("resign");
    play_line(client, &r2b2, &["e4", "c5"]).await;
    vec![r1b1.id, r1b2.id, r2b1.id, r2b2.id]
}

fn normalise_dates(pgn: &str) -> String {
    pgn.lines()
        .map(|line| {
            if line.starts_with("[Date \"") {
                "[Date \"????.??.??\"]"
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

async fn exports_match_the_expected_files(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let ids = play_the_event(&mut client, &mut admin).await;
    let mut stream = client
        .export_pgn(proto::ExportPgnRequest {
            target: Some(proto::export_pgn_request::Target::EventId(EVENT.to_owned())),
        })
        .await
        .expect("export PGN")
        .into_inner();
    let games: Vec<proto::ExportPgnResponse> = collect_until_end(&mut stream, STREAM_PATIENCE)
        .await
        .into_iter()
        .map(|message| message.expect("a game's PGN"))
        .collect();
    let exported: Vec<&str> = games.iter().map(|g| g.game_id.as_str()).collect();
    assert_eq!(
        exported, ids,
        "one message per game, in round and board order"
    );
    // Each game's message is the game's own export.
    for game in &games {
        assert_eq!(
            normalise_dates(&export_pgn(&mut client, &game.game_id).await),
            normalise_dates(&game.pgn),
            "{}",
            game.game_id
        );
    }
    let trf = client
        .export_trf(proto::ExportTrfRequest {
            event_id: EVENT.to_owned(),
            ..Default::default()
        })
        .await
        .expect("export TRF")
        .into_inner()
        .trf;
    assert_eq!(
        trf,
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/club-championship.trf"
        ))
    );
    // Each message ends with a blank line, so that the messages
    // concatenated make one PGN file.
    for game in &games {
        assert!(
            game.pgn.ends_with("\n\n") && !game.pgn.ends_with("\n\n\n"),
            "{}: the game's PGN ends with one blank line: {:?}",
            game.game_id,
            game.pgn
        );
    }
    let pgn: String = games.iter().map(|g| g.pgn.as_str()).collect();
    assert_eq!(
        normalise_dates(&pgn),
        include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/club-championship.pgn"
        ))
    );
}

on_every_backend!(exports_match_the_expected_files);
