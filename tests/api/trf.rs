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
    });
    request.black = Some(proto::Player {
        id: black.to_owned(),
        name: format!("Player, {black}"),
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
        })
        .await
        .expect_err("refused");
    assert_eq!(status.code(), Code::InvalidArgument);
    // An event with no games is an empty report, not an error.
    let trf = export(&mut client, "nobody").await;
    assert_eq!(trf, "012 nobody\n062 0\nXXR 0\n");
}

on_every_backend!(
    a_swiss_in_progress_exports_for_a_pairing_engine,
    the_event_id_is_required,
);
