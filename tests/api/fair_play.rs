//! A game's fair-play record through the API: the lag and client move
//! time reported with each move, the signals a seat's client sends
//! (ReportClientSignal), and the record's export (ExportFairPlay) for the
//! event's arbiters and auditors; capped, rate-limited, and never reached
//! from another game.

use arbiter::proto;
use serde_json::Value;
use tonic::{Code, Request};

use crate::common::{
    ADMIN_TOKEN, AdminClient, Backend, NewGame, TestApp, admin, create, create_request, get,
    make_move, pairing, period, reason, seat, settings, with_token,
};

/// A 10-minute game of `event` with a fair-play record (`kept`).
fn recorded_in(event: &str, kept: bool) -> proto::CreateGameRequest {
    proto::CreateGameRequest {
        pairing: Some(pairing(event, 1, 1)),
        time_control: Some(proto::TimeControl {
            periods: vec![period(600_000, 0, 0, 0)],
            ..Default::default()
        }),
        record_fair_play: kept,
        ..create_request("", "")
    }
}

fn signal(game_id: &str, kind: proto::ClientSignalKind) -> proto::ReportClientSignalRequest {
    proto::ReportClientSignalRequest {
        game_id: game_id.to_owned(),
        kind: kind.into(),
        client_time: None,
    }
}

async fn export(
    admin_client: &mut AdminClient,
    token: &str,
    game_id: &str,
) -> Result<proto::ExportFairPlayResponse, tonic::Status> {
    admin_client
        .export_fair_play(with_token(
            token,
            proto::ExportFairPlayRequest {
                game_id: game_id.to_owned(),
            },
        ))
        .await
        .map(tonic::Response::into_inner)
}

fn refusal(status: &tonic::Status) -> (Code, String) {
    (status.code(), reason(status))
}

/// The time `seconds` ago as the client's clock says it.
fn client_time(seconds_ago: i64) -> prost_types::Timestamp {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970");
    prost_types::Timestamp {
        seconds: i64::try_from(now.as_secs()).expect("a time") - seconds_ago,
        nanos: 0,
    }
}

async fn a_games_fair_play_record_holds_its_moves_signals_and_absences(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let game: NewGame = create(&mut admin_client, recorded_in("fp-cup", true))
        .await
        .expect("created");
    assert!(crate::common::setup(&game.game).record_fair_play);

    let lost = proto::ReportClientSignalRequest {
        client_time: Some(client_time(2)),
        ..signal(&game.id, proto::ClientSignalKind::FocusLost)
    };
    let first = seat(&mut client, &game.white, lost.clone())
        .await
        .expect("recorded");
    assert!(first.recorded);
    assert_eq!(first.signals_recorded, 1);
    assert!(first.received_time.is_some());
    // The relay's retry is recorded once.
    let retry = seat(&mut client, &game.white, lost)
        .await
        .expect("a repeat");
    assert!(!retry.recorded);
    assert_eq!(retry.signals_recorded, 0);
    let regained = seat(
        &mut client,
        &game.white,
        signal(&game.id, proto::ClientSignalKind::FocusRegained),
    )
    .await
    .expect("recorded");
    assert_eq!(regained.signals_recorded, 2);

    let e4 = proto::MakeMoveRequest {
        lag_millis: 120,
        client_move_millis: Some(900),
        ..make_move(&game.id, 0, "e4")
    };
    client
        .make_move(with_token(&game.white, e4))
        .await
        .expect("e4");
    client
        .make_move(with_token(&game.black, make_move(&game.id, 1, "e5")))
        .await
        .expect("e5");
    admin_client
        .report_connection(admin(proto::ReportConnectionRequest {
            game_id: game.id.clone(),
            color: proto::Color::Black.into(),
            connected: false,
        }))
        .await
        .expect("black gone");
    seat(
        &mut client,
        &game.black,
        signal(&game.id, proto::ClientSignalKind::Reconnected),
    )
    .await
    .expect("black back");

    let found = export(&mut admin_client, ADMIN_TOKEN, &game.id)
        .await
        .expect("the record");
    let json: Value = serde_json::from_str(&found.json).expect("JSON");
    assert_eq!(json["schema"], "chess-arbiter/fair-play/v1");
    assert_eq!(json["game_id"], game.id.as_str());
    assert_eq!(json["event_id"], "fp-cup");
    let moves = json["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 2);
    assert_eq!(moves[0]["san"], "e4");
    assert_eq!(moves[0]["lag_reported_ms"], 120);
    assert_eq!(moves[0]["client_ms"], 900);
    assert_eq!(moves[1]["lag_reported_ms"], 0);
    assert_eq!(moves[1]["client_ms"], Value::Null);
    assert!(
        moves[0]["received_at"]
            .as_str()
            .is_some_and(|at| at.ends_with('Z'))
    );
    assert!(moves[0]["spent_ms"].as_u64().is_some());
    let kinds: Vec<(&str, &str)> = json["signals"]
        .as_array()
        .expect("signals")
        .iter()
        .map(|s| {
            (
                s["color"].as_str().unwrap_or(""),
                s["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("white", "focus_lost"),
            ("white", "focus_regained"),
            ("black", "reconnected")
        ]
    );
    let white = found.white.expect("white");
    let black = found.black.expect("black");
    assert_eq!((white.focus_losses, white.disconnections), (1, 0));
    assert_eq!((black.disconnections, black.disconnected_now), (1, false));
    assert!(black.disconnected_millis >= 0);
    assert!(found.pgn.contains("1. e4 {[%clk "), "{}", found.pgn);
    assert!(
        found.pgn.contains("[%lag 0.120] [%clientemt 0:00:00.9]"),
        "{}",
        found.pgn
    );
    assert!(found.pgn.contains("[%emt "), "{}", found.pgn);
    assert!(
        found.pgn.contains("[%signal white focus_lost "),
        "{}",
        found.pgn
    );

    // The game's own PGN and its moves carry none of it.
    let public = crate::common::export_pgn(&mut client, &game.id).await;
    assert!(
        !public.contains("%lag ") && !public.contains("%signal"),
        "{public}"
    );

    // Once the game is over, no more signals.
    client
        .resign_game(with_token(
            &game.black,
            proto::ResignGameRequest {
                game_id: game.id.clone(),
            },
        ))
        .await
        .expect("resigned");
    let over = seat(
        &mut client,
        &game.white,
        signal(&game.id, proto::ClientSignalKind::FocusLost),
    )
    .await
    .expect_err("over");
    assert_eq!(
        refusal(&over),
        (Code::FailedPrecondition, "GAME_OVER".to_owned())
    );
}

async fn bad_signals_are_refused_and_reach_no_other_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let game = create(&mut admin_client, recorded_in("fp-bad", true))
        .await
        .expect("created");
    let other = create(&mut admin_client, recorded_in("fp-bad", true))
        .await
        .expect("created");
    let plain = create(&mut admin_client, recorded_in("fp-bad", false))
        .await
        .expect("created");

    let invalid = |status: &tonic::Status| {
        assert_eq!(
            refusal(status),
            (Code::InvalidArgument, "INVALID_FIELD".to_owned())
        );
        use tonic_types::StatusExt;
        status
            .get_details_bad_request()
            .and_then(|bad| bad.field_violations.first().map(|v| v.field.clone()))
            .unwrap_or_default()
    };
    let unspecified = seat(
        &mut client,
        &game.white,
        signal(&game.id, proto::ClientSignalKind::Unspecified),
    )
    .await
    .expect_err("no kind");
    assert_eq!(invalid(&unspecified), "kind");
    let mut unknown = signal(&game.id, proto::ClientSignalKind::FocusLost);
    unknown.kind = 99;
    let unknown = seat(&mut client, &game.white, unknown)
        .await
        .expect_err("an unknown kind");
    assert_eq!(invalid(&unknown), "kind");
    let skewed = proto::ReportClientSignalRequest {
        client_time: Some(client_time(2 * 86_400)),
        ..signal(&game.id, proto::ClientSignalKind::FocusLost)
    };
    let skewed = seat(&mut client, &game.white, skewed)
        .await
        .expect_err("two days off");
    assert_eq!(invalid(&skewed), "client_time");
    for bad in [-1, 86_400_001] {
        let refused = client
            .make_move(with_token(
                &game.white,
                proto::MakeMoveRequest {
                    client_move_millis: Some(bad),
                    ..make_move(&game.id, 0, "e4")
                },
            ))
            .await
            .expect_err("a bad client time");
        assert_eq!(invalid(&refused), "client_move_millis");
    }
    assert_eq!(
        get(&mut client, &game.id).await.ply,
        0,
        "no move was played"
    );

    // A seat's token reaches its own game only.
    let elsewhere = seat(
        &mut client,
        &game.white,
        signal(&other.id, proto::ClientSignalKind::FocusLost),
    )
    .await
    .expect_err("another game's seat");
    assert_eq!(refusal(&elsewhere).1, "NOT_A_SEAT");
    let no_token = client
        .report_client_signal(Request::new(signal(
            &game.id,
            proto::ClientSignalKind::FocusLost,
        )))
        .await
        .expect_err("no token");
    assert_eq!(refusal(&no_token).0, Code::Unauthenticated);
    let not_kept = seat(
        &mut client,
        &plain.white,
        signal(&plain.id, proto::ClientSignalKind::FocusLost),
    )
    .await
    .expect_err("no record");
    assert_eq!(
        refusal(&not_kept),
        (
            Code::FailedPrecondition,
            "FAIR_PLAY_NOT_RECORDED".to_owned()
        )
    );
    let not_kept = export(&mut admin_client, ADMIN_TOKEN, &plain.id)
        .await
        .expect_err("no record");
    assert_eq!(refusal(&not_kept).1, "FAIR_PLAY_NOT_RECORDED");
    for id in [&game.id, &other.id] {
        let found = export(&mut admin_client, ADMIN_TOKEN, id)
            .await
            .expect("the record");
        let json: Value = serde_json::from_str(&found.json).expect("JSON");
        assert_eq!(json["signals"], Value::Array(Vec::new()), "{id}");
    }
}

async fn a_record_is_read_by_the_events_arbiters_and_auditors_only(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let game = create(&mut admin_client, recorded_in("fp-open", true))
        .await
        .expect("created");
    create(&mut admin_client, recorded_in("fp-other", true))
        .await
        .expect("another event");
    let mut token_of = async |role: proto::Role, event: &str, name: &str| {
        admin_client
            .create_credential(admin(proto::CreateCredentialRequest {
                name: name.to_owned(),
                role: role.into(),
                event_id: event.to_owned(),
                ..Default::default()
            }))
            .await
            .expect("a credential")
            .into_inner()
            .token
    };
    let arbiter = token_of(proto::Role::Arbiter, "fp-open", "Chief").await;
    let auditor = token_of(proto::Role::Auditor, "", "Fair-play officer").await;
    let outsider = token_of(proto::Role::Arbiter, "fp-other", "Other").await;
    let relay = token_of(proto::Role::FeedReader, "fp-open", "Relay").await;
    let mut admin_client = app.admin_client().await;
    for allowed in [ADMIN_TOKEN, arbiter.as_str(), auditor.as_str()] {
        export(&mut admin_client, allowed, &game.id)
            .await
            .expect("allowed");
    }
    let refused = export(&mut admin_client, &outsider, &game.id)
        .await
        .expect_err("another event's arbiter");
    assert_eq!(
        refusal(&refused),
        (Code::PermissionDenied, "OUT_OF_SCOPE".to_owned())
    );
    let refused = export(&mut admin_client, &relay, &game.id)
        .await
        .expect_err("a feed reader");
    assert_eq!(
        refusal(&refused),
        (Code::PermissionDenied, "ROLE_NOT_PERMITTED".to_owned())
    );
    let refused = export(&mut admin_client, &game.white, &game.id)
        .await
        .expect_err("a seat");
    assert_eq!(refused.code(), Code::PermissionDenied);
}

async fn a_seat_keeps_five_hundred_signals_and_its_opponent_its_own(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let game = create(&mut admin_client, recorded_in("fp-flood", true))
        .await
        .expect("created");
    let kinds = [
        proto::ClientSignalKind::FocusLost,
        proto::ClientSignalKind::FocusRegained,
    ];
    // White's signal between Black's does not make Black's retry new.
    seat(&mut client, &game.black, signal(&game.id, kinds[0]))
        .await
        .expect("recorded");
    seat(&mut client, &game.white, signal(&game.id, kinds[0]))
        .await
        .expect("recorded");
    let retry = seat(&mut client, &game.black, signal(&game.id, kinds[0]))
        .await
        .expect("a repeat");
    assert!(!retry.recorded);
    for n in 1..500 {
        let done = seat(&mut client, &game.black, signal(&game.id, kinds[n % 2]))
            .await
            .expect("recorded");
        assert!(done.recorded, "{n}");
    }
    let full = seat(&mut client, &game.black, signal(&game.id, kinds[0]))
        .await
        .expect_err("full");
    assert_eq!(
        refusal(&full),
        (Code::ResourceExhausted, "FAIR_PLAY_RECORD_FULL".to_owned())
    );
    use tonic_types::StatusExt;
    let info = full.get_details_error_info().expect("error info");
    assert_eq!(info.metadata.get("limit").map(String::as_str), Some("500"));
    // The opponent's share is its own, and the game goes on.
    let white = seat(&mut client, &game.white, signal(&game.id, kinds[1]))
        .await
        .expect("White's own share");
    assert_eq!(white.signals_recorded, 502);
    client
        .make_move(with_token(&game.white, make_move(&game.id, 0, "d4")))
        .await
        .expect("a move");
    let found = export(&mut admin_client, ADMIN_TOKEN, &game.id)
        .await
        .expect("the record");
    let json: Value = serde_json::from_str(&found.json).expect("JSON");
    assert_eq!(json["signals"].as_array().map(Vec::len), Some(502));
    assert_eq!(found.black.expect("black").focus_losses, 250);
}

on_every_backend!(
    a_games_fair_play_record_holds_its_moves_signals_and_absences,
    bad_signals_are_refused_and_reach_no_other_game,
    a_record_is_read_by_the_events_arbiters_and_auditors_only,
    a_seat_keeps_five_hundred_signals_and_its_opponent_its_own,
);

/// A seat sending signals faster than seat writes are admitted is refused
/// with RATE_LIMITED, and nothing more is recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signals_flooding_a_game_are_rate_limited() {
    let mut tuned = settings(Backend::Memory.store());
    tuned.write_limits = (1, 0);
    let app = TestApp::spawn_with(tuned, None).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let game = create(&mut admin_client, recorded_in("fp-rate", true))
        .await
        .expect("created");
    let kinds = [
        proto::ClientSignalKind::FocusLost,
        proto::ClientSignalKind::FocusRegained,
    ];
    let mut recorded = 0;
    let mut limited = None;
    for n in 0..10 {
        match seat(&mut client, &game.white, signal(&game.id, kinds[n % 2])).await {
            Ok(_) => recorded += 1,
            Err(status) => {
                limited = Some(status);
                break;
            }
        }
    }
    let limited = limited.expect("a flood is limited");
    assert_eq!(
        refusal(&limited),
        (Code::ResourceExhausted, "RATE_LIMITED".to_owned())
    );
    let found = export(&mut admin_client, ADMIN_TOKEN, &game.id)
        .await
        .expect("the record");
    let json: Value = serde_json::from_str(&found.json).expect("JSON");
    assert_eq!(json["signals"].as_array().map(Vec::len), Some(recorded));
}
