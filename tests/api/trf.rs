//! The TRF-16 export of an event over gRPC, checked against the format's
//! published columns.

use crate::common;

use arbiter::proto;
use common::{Backend, TestApp, create, create_request, play_line, reason, resign, seat};
use tonic::Code;

/// Characters `from` to `to` (1-based, inclusive) of a fixed-column line.
fn field(line: &str, from: usize, to: usize) -> String {
    line.chars().skip(from - 1).take(to - from + 1).collect()
}

fn pairing(
    event: &str,
    round: i32,
    board: i32,
    white: &str,
    black: &str,
) -> proto::CreateGameRequest {
    let mut request = create_request("", "");
    request.pairing = Some(common::pairing(event, round, board));
    request.white = Some(proto::Player {
        id: white.to_owned(),
        name: format!("Player, {white}"),
        ..Default::default()
    });
    request.black = Some(proto::Player {
        id: black.to_owned(),
        name: format!("Player, {black}"),
        ..Default::default()
    });
    request
}

async fn export(client: &mut common::Client, event: &str) -> String {
    client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("export")
        .into_inner()
        .trf
}

/// Two rounds of a four-player Swiss: round 1 finished (a win and a draw),
/// round 2 paired with one game finished and one in progress.
async fn a_swiss_in_progress_exports_for_a_pairing_engine(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Swiss {B} 2026";
    // Created out of order on purpose.
    let r2b1 = create(&mut admin, pairing(event, 2, 1, "d", "a"))
        .await
        .expect("create");
    let r1b1 = create(&mut admin, pairing(event, 1, 1, "a", "b"))
        .await
        .expect("create");
    let r1b2 = create(&mut admin, pairing(event, 1, 2, "c", "d"))
        .await
        .expect("create");
    create(&mut admin, pairing(event, 2, 2, "b", "c"))
        .await
        .expect("create");

    seat(&mut client, &r1b1.black, resign(&r1b1.id))
        .await
        .expect("b resigns");
    play_line(&mut client, &r1b2, &["d4", "d5"]).await;
    common::seat(&mut client, &r1b2.white, common::offer_draw(&r1b2.id))
        .await
        .expect("offer");
    common::seat(&mut client, &r1b2.black, common::accept_draw(&r1b2.id))
        .await
        .expect("draw");
    seat(&mut client, &r2b1.white, resign(&r2b1.id))
        .await
        .expect("d resigns");

    let trf = export(&mut client, event).await;
    let lines: Vec<&str> = trf.lines().collect();
    assert_eq!(lines[0], "012 Swiss {B} 2026");
    assert_eq!(lines[1], "062 4");
    // The rounds so far, unless the request names the total.
    assert_eq!(lines[2], "XXR 2");
    let nine = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            total_rounds: 9,
            ..Default::default()
        })
        .await
        .expect("export")
        .into_inner()
        .trf;
    assert_eq!(nine.lines().nth(2), Some("XXR 9"));
    let players: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("001"))
        .collect();
    assert_eq!(players.len(), 4);
    // Starting ranks by first appearance: a 1, b 2, c 3, d 4.
    for (index, id) in ["a", "b", "c", "d"].iter().enumerate() {
        let line = players[index];
        assert_eq!(field(line, 5, 8), format!("{:>4}", index + 1));
        assert_eq!(field(line, 15, 47).trim_end(), format!("Player, {id}"));
    }
    let a = players[0];
    assert_eq!(field(a, 81, 84), " 2.0");
    assert_eq!(field(a, 86, 89), "   1");
    assert_eq!(field(a, 92, 99), "   2 w 1");
    assert_eq!(field(a, 102, 109), "   4 b 1");
    let b = players[1];
    assert_eq!(field(b, 81, 84), " 0.0");
    assert_eq!(field(b, 92, 99), "   1 b 0");
    // Paired, in progress: no result yet (trailing blanks are trimmed).
    assert_eq!(field(b, 102, 109).trim_end(), "   3 w");
    let c = players[2];
    assert_eq!(field(c, 81, 84), " 0.5");
    assert_eq!(field(c, 92, 99), "   4 w =");
    let d = players[3];
    assert_eq!(field(d, 92, 99), "   3 b =");
    assert_eq!(field(d, 102, 109), "   1 w 0");
}

async fn the_event_id_is_required(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let status = client
        .export_trf(proto::ExportTrfRequest::default())
        .await
        .expect_err("refused");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD");
    let status = client
        .export_trf(proto::ExportTrfRequest {
            event_id: "nobody".to_owned(),
            total_rounds: -1,
            ..Default::default()
        })
        .await
        .expect_err("refused");
    assert_eq!(status.code(), Code::InvalidArgument);
    // An event with no games is an empty report, not an error.
    let trf = export(&mut client, "nobody").await;
    assert_eq!(trf, "012 nobody\n062 0\nXXR 0\n");
}

/// The points a TRF result code scores under `win`, `draw`, `loss`
/// (thousandths): a forfeit loss scores a loss, a zero-point bye or an
/// absence nothing, a pairing-allocated or full-point bye a win.
fn code_points(code: char, (win, draw, loss): (i64, i64, i64)) -> i64 {
    match code {
        '1' | '+' | 'U' | 'F' => win,
        '=' | 'H' => draw,
        '0' | '-' => loss,
        'Z' => 0,
        other => panic!("unexpected result code '{other}'"),
    }
}

/// Checks every 001 line of `trf` against the TRF-16 columns: starting
/// rank (5-8), name (15-47), points (81-84) equal to what the round codes
/// score, rank (86-89), and per round (from 92, ten columns each) the
/// opponent's starting rank or 0000, the colour (w, b, or - for a round
/// without a game) and a result code.
fn check_columns(trf: &str, rounds: usize, points: (i64, i64, i64)) {
    let players: Vec<&str> = trf.lines().filter(|l| l.starts_with("001")).collect();
    for (index, line) in players.iter().enumerate() {
        assert_eq!(field(line, 4, 4), " ");
        assert_eq!(field(line, 5, 8), format!("{:>4}", index + 1), "{line}");
        assert!(field(line, 15, 47).starts_with("Player, "), "{line}");
        let rank: usize = field(line, 86, 89).trim().parse().expect("rank");
        assert!((1..=players.len()).contains(&rank), "{line}");
        let mut scored = 0;
        for round in 0..rounds {
            let at = 92 + 10 * round;
            assert_eq!(field(line, at - 2, at - 1), "  ", "{line}");
            let opponent = field(line, at, at + 3);
            let colour = field(line, at + 5, at + 5);
            let code = field(line, at + 7, at + 7).chars().next().expect("code");
            if opponent == "0000" {
                assert_eq!(colour, "-", "{line}");
                assert!("UFHZ".contains(code), "{line}");
            } else {
                let opponent: usize = opponent.trim().parse().expect("opponent");
                assert!((1..=players.len()).contains(&opponent) && opponent != index + 1);
                assert!(colour == "w" || colour == "b", "{line}");
                assert!("10=+-".contains(code), "{line}");
            }
            scored += code_points(code, points);
        }
        let stated = field(line, 81, 84).trim().replace('.', "");
        assert_eq!(
            stated.parse::<i64>().expect("points") * 100,
            scored,
            "{line}"
        );
        assert_eq!(line.chars().count(), 91 + 10 * rounds - 2, "{line}");
    }
}

/// The nine-round Swiss of `tie_breaks.rs` under `scoring`, exported for a
/// tenth round to be paired, compared byte for byte with `golden` and
/// checked column by column.
async fn export_matches(
    backend: Backend,
    scoring: Option<proto::Scoring>,
    golden: &str,
    points: (i64, i64, i64),
) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Swiss {9} 2026";
    crate::tie_breaks::play_nine_round_swiss(&mut admin, event, scoring).await;
    let trf = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            total_rounds: 10,
            byes: crate::tie_breaks::nine_round_byes(),
        })
        .await
        .expect("export")
        .into_inner()
        .trf;
    let path = format!("{}/tests/data/trf/{golden}", env!("CARGO_MANIFEST_DIR"));
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if trf != expected {
        let actual = format!("{}/target/{golden}.actual", env!("CARGO_MANIFEST_DIR"));
        std::fs::write(&actual, &trf).expect("write the actual export");
        panic!("the export differs from {path} (written to {actual}):\n{trf}");
    }
    check_columns(&trf, 9, points);
}

fn custom_scoring(win: &str, draw: &str, loss: &str) -> proto::Scoring {
    let table = proto::PointTable {
        win: win.to_owned(),
        draw: draw.to_owned(),
        loss: loss.to_owned(),
    };
    proto::Scoring {
        system: Some(proto::scoring::System::Custom(proto::CustomScoring {
            white: Some(table.clone()),
            black: Some(table),
        })),
        armageddon: false,
    }
}

/// 1 / ½ / 0: no point-system lines; U, H and Z byes, forfeits, absences.
async fn a_classic_swiss_with_byes_exports_byte_for_byte(backend: Backend) {
    export_matches(backend, None, "nine-rounds-classic.trf", (1000, 500, 0)).await;
}

/// 3 / 1 / 0: BBW, BBD, BBL and TRF-2026's 162 line.
async fn a_football_swiss_exports_byte_for_byte(backend: Backend) {
    let football = proto::Scoring {
        system: Some(proto::scoring::System::Preset(
            proto::ScoringPreset::Football.into(),
        )),
        armageddon: false,
    };
    export_matches(
        backend,
        Some(football),
        "nine-rounds-football.trf",
        (3000, 1000, 0),
    )
    .await;
}

/// 2 / 1 / ½: a loss scores, so a forfeit loss does too (BBF), and no 162
/// line (its one value for a forfeit loss and a zero-point bye cannot say
/// both).
async fn a_custom_scored_swiss_exports_byte_for_byte(backend: Backend) {
    export_matches(
        backend,
        Some(custom_scoring("2", "1", "0.5")),
        "nine-rounds-custom.trf",
        (2000, 1000, 500),
    )
    .await;
}

on_every_backend!(
    a_swiss_in_progress_exports_for_a_pairing_engine,
    the_event_id_is_required,
    a_classic_swiss_with_byes_exports_byte_for_byte,
    a_football_swiss_exports_byte_for_byte,
    a_custom_scored_swiss_exports_byte_for_byte,
);
