//! Hostile input through the real server: arbitrary strings in every text
//! field a client fills (game and event ids, moves, FENs, points, request
//! ids, reasons, cursors, page and resume tokens), arbitrary bytes as the
//! body of every method, and a seeded random client that interleaves every
//! call with valid and invalid arguments. Nothing may panic or answer
//! INTERNAL, and afterwards every game's state agrees with its log.
//!
//! The runs are bounded for `scripts/test`; `ARBITER_FUZZ_CASES` raises the
//! number of cases (and `ARBITER_FUZZ_SEED` changes the seed) for longer
//! runs.

use std::time::Duration;

use arbiter::proto::{self, game_event::Kind};
use bytes::{Buf, BufMut};
use proptest::{
    prelude::*,
    strategy::ValueTree,
    test_runner::{Config, RngAlgorithm, TestRng, TestRunner},
};
use rand::{Rng, SeedableRng, rngs::StdRng};
use tonic::{
    Code, Status,
    codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder},
};

use crate::common::{
    ADMIN_TOKEN, Backend, Client, TestApp, admin, create, create_request, get, get_full, make_move,
    next_within, pairing, seat, with_token,
};

fn cases(default: usize) -> usize {
    std::env::var("ARBITER_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

fn seed() -> u64 {
    std::env::var("ARBITER_FUZZ_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20_261_130)
}

/// `n` values of `strategy`, from a fixed seed.
fn samples<S: Strategy>(strategy: S, n: usize) -> Vec<S::Value> {
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed().to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    (0..n)
        .map(|_| strategy.new_tree(&mut runner).expect("a value").current())
        .collect()
}

/// Strings a hostile client might send: anything, printable junk, near
/// misses of valid values, and long ones.
fn hostile() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[ -~]{0,64}",
        "[a-h][1-8][a-h][1-8][qrbnk]?",
        "[KQRBNP]?[a-h]?[1-8]?x?[a-h][1-8](=[QRBN])?[+#]?",
        "[rnbqkpRNBQKP1-8/]{0,80} [wb] [KQkq-]{1,4} [a-h1-8-]{1,2} [0-9]{1,4} [0-9]{1,4}",
        "-?[0-9]{0,6}(\\.[0-9]{0,6})?",
        "(c2\\.)?[A-Za-z0-9_-]{0,200}",
        "[0-9]{1,12}\\.[0-9a-f]{0,20}",
        "\\PC{200,3000}",
    ]
}

/// Codes a refusal may carry: never INTERNAL, UNKNOWN or a dropped call.
#[track_caller]
fn clean<T: std::fmt::Debug>(what: &str, input: &str, result: Result<T, Status>) -> bool {
    match result {
        Ok(_) => true,
        Err(status) => {
            assert!(
                matches!(
                    status.code(),
                    Code::InvalidArgument
                        | Code::NotFound
                        | Code::FailedPrecondition
                        | Code::OutOfRange
                        | Code::Aborted
                        | Code::AlreadyExists
                        | Code::PermissionDenied
                        | Code::Unauthenticated
                        | Code::ResourceExhausted
                ),
                "{what} with {input:?}: {status:?}"
            );
            false
        }
    }
}

/// The game without its clock readings (read at another instant).
fn unclocked(mut game: proto::Game) -> proto::Game {
    game.clock = None;
    game
}

async fn hostile_text_is_refused_cleanly(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let mut request = create_request("", "");
    request.pairing = Some(pairing("fuzz-open", 1, 1));
    let victim = create(&mut admin_client, request).await.expect("the game");
    seat(&mut client, &victim.white, make_move(&victim.id, 0, "e4"))
        .await
        .expect("e4");
    let before = unclocked(get(&mut client, &victim.id).await);
    let mut changed = false;

    for text in samples(hostile(), cases(120)) {
        let id = victim.id.clone();
        clean(
            "GetGame",
            &text,
            client
                .get_game(proto::GetGameRequest {
                    game_id: text.clone(),
                    ..Default::default()
                })
                .await,
        );
        clean(
            "ListMoves",
            &text,
            client
                .list_moves(proto::ListMovesRequest {
                    game_id: id.clone(),
                    page_token: text.clone(),
                    page_size: 5,
                    start_ply: 0,
                })
                .await,
        );
        changed |= clean(
            "MakeMove",
            &text,
            seat(&mut client, &victim.black, make_move(&id, 1, &text)).await,
        );
        clean(
            "ReportClientSignal",
            &text,
            seat(
                &mut client,
                &victim.black,
                proto::ReportClientSignalRequest {
                    game_id: text.clone(),
                    kind: proto::ClientSignalKind::FocusLost.into(),
                    client_time: None,
                },
            )
            .await,
        );
        changed |= clean(
            "ClaimDraw",
            &text,
            seat(
                &mut client,
                &victim.black,
                crate::common::claim_draw(&id, proto::DrawClaimReason::FiftyMoves, &text, 1),
            )
            .await,
        );
        let watched = client
            .watch_game(proto::WatchGameRequest {
                game_id: id.clone(),
                resume_token: text.clone(),
                ..Default::default()
            })
            .await;
        if let Ok(stream) = watched {
            let mut stream = stream.into_inner();
            if let Some(Err(status)) = next_within(&mut stream, Duration::from_secs(30)).await {
                clean("WatchGame", &text, Err::<(), _>(status));
            }
        } else {
            clean("WatchGame", &text, watched);
        }
        clean(
            "ListGames",
            &text,
            client
                .list_games(proto::ListGamesRequest {
                    event_id: "fuzz-open".to_owned(),
                    page_token: text.clone(),
                    ..Default::default()
                })
                .await,
        );
        clean(
            "GetStandings",
            &text,
            client
                .get_standings(proto::GetStandingsRequest {
                    event_id: text.clone(),
                    ..Default::default()
                })
                .await,
        );
        clean(
            "GetTeamStandings",
            &text,
            client
                .get_team_standings(proto::GetTeamStandingsRequest {
                    event_id: text.clone(),
                    tie_breaks: vec![text.clone()],
                    ..Default::default()
                })
                .await,
        );
        let watched = client
            .watch_event(proto::WatchEventRequest {
                event_id: "fuzz-open".to_owned(),
                after_cursor: text.clone(),
                round: 0,
            })
            .await;
        if let Err(status) = watched {
            clean("WatchEvent", &text, Err::<(), _>(status));
        }
        // CreateGame: a FEN, ids, names and points from the sample; a
        // game it creates elsewhere is fine, a crash is not.
        let mut request = create_request(&text, &text);
        request.white = Some(proto::Player {
            id: text.clone(),
            name: text.clone(),
            ..Default::default()
        });
        request.scoring = Some(proto::Scoring {
            system: Some(proto::scoring::System::Custom(proto::CustomScoring {
                white: Some(proto::PointTable {
                    win: text.clone(),
                    draw: "0.5".to_owned(),
                    loss: "0".to_owned(),
                }),
                black: None,
            })),
            armageddon: false,
        });
        clean(
            "CreateGame",
            &text,
            admin_client.create_game(admin(request)).await,
        );
        clean(
            "SetGameResult",
            &text,
            admin_client
                .set_game_result(admin(proto::SetGameResultRequest {
                    game_id: text.clone(),
                    reason: text.clone(),
                    request_id: text.clone(),
                    ruling: None,
                }))
                .await,
        );
        // Credentials: a name, a scope, a key and a page token from the
        // sample; whatever is created is a credential of its own.
        clean(
            "CreateCredential",
            &text,
            admin_client
                .create_credential(admin(proto::CreateCredentialRequest {
                    request_id: text.clone(),
                    name: text.clone(),
                    role: proto::Role::Arbiter as i32,
                    event_id: text.clone(),
                    expire_time: None,
                }))
                .await,
        );
        clean(
            "RevokeCredential",
            &text,
            admin_client
                .revoke_credential(admin(proto::RevokeCredentialRequest {
                    credential_id: text.clone(),
                    reason: text.clone(),
                }))
                .await,
        );
        clean(
            "ListAuditEntries",
            &text,
            admin_client
                .list_audit_entries(admin(proto::ListAuditEntriesRequest {
                    event_id: "fuzz-open".to_owned(),
                    page_token: text.clone(),
                    principal: text.clone(),
                    game_id: text.clone(),
                    ..Default::default()
                }))
                .await,
        );
        clean(
            "ExportFairPlay",
            &text,
            admin_client
                .export_fair_play(admin(proto::ExportFairPlayRequest {
                    game_id: text.clone(),
                }))
                .await,
        );
        clean(
            "CreateMatchTieBreak",
            &text,
            admin_client
                .create_match_tie_break(admin(proto::CreateMatchTieBreakRequest {
                    event_id: text.clone(),
                    round: 1,
                    table: 1,
                    white_player_id: text.clone(),
                    black_player_id: text.clone(),
                    settings: None,
                }))
                .await,
        );
        clean(
            "RegisterTeams",
            &text,
            admin_client
                .register_teams(admin(proto::RegisterTeamsRequest {
                    event_id: format!("fuzz-teams-{}", text.len()),
                    boards: 2,
                    teams: vec![proto::Team {
                        id: text.clone(),
                        name: text.clone(),
                        players: vec![proto::Player {
                            id: text.clone(),
                            name: text.clone(),
                            ..Default::default()
                        }],
                    }],
                    expected_version: 0,
                }))
                .await,
        );
        clean(
            "GetTeams",
            &text,
            client
                .get_teams(proto::GetTeamsRequest {
                    event_id: text.clone(),
                })
                .await,
        );
        clean(
            "ListCredentials",
            &text,
            admin_client
                .list_credentials(admin(proto::ListCredentialsRequest {
                    page_size: 5,
                    page_token: text.clone(),
                }))
                .await,
        );
    }
    let after = unclocked(get(&mut client, &victim.id).await);
    if !changed {
        assert_eq!(after, before, "refusals changed the game");
    }
    assert_state_agrees_with_log(&mut client, &victim.id).await;
}

/// Passes request bodies through as they are.
#[derive(Clone, Copy, Default)]
struct RawCodec;

impl Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> Self::Encoder {
        RawCodec
    }

    fn decoder(&mut self) -> Self::Decoder {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
    }
}

/// Every method of both services, by path.
const METHODS: [&str; 39] = [
    "ArbiterService/GetGame",
    "ArbiterService/ListMoves",
    "ArbiterService/MakeMove",
    "ArbiterService/ResignGame",
    "ArbiterService/OfferDraw",
    "ArbiterService/AcceptDraw",
    "ArbiterService/DeclineDraw",
    "ArbiterService/ClaimDraw",
    "ArbiterService/AbortGame",
    "ArbiterService/CheckIn",
    "ArbiterService/ClaimVictory",
    "ArbiterService/ReportClientSignal",
    "ArbiterService/WatchGame",
    "ArbiterService/ListGames",
    "ArbiterService/WatchEvent",
    "ArbiterService/GetStandings",
    "ArbiterService/GetTeamStandings",
    "ArbiterService/GetTeams",
    "ArbiterService/ExportPgn",
    "ArbiterService/ExportTrf",
    "AdminService/CreateGame",
    "AdminService/AdjustClock",
    "AdminService/PauseClock",
    "AdminService/ResumeClock",
    "AdminService/SetGameResult",
    "AdminService/InspectGame",
    "AdminService/ReportConnection",
    "AdminService/CreateRound",
    "AdminService/StartRound",
    "AdminService/GetRound",
    "AdminService/ImportPairings",
    "AdminService/RegisterTeams",
    "AdminService/CreateMatchTieBreak",
    "AdminService/CreateCredential",
    "AdminService/RevokeCredential",
    "AdminService/ListCredentials",
    "AdminService/ListAuditEntries",
    "AdminService/ExportAuditLog",
    "AdminService/ExportFairPlay",
];

async fn arbitrary_bytes_are_refused_cleanly(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let before = unclocked(get(&mut client, &game.id).await);
    let bodies = samples(prop::collection::vec(any::<u8>(), 0..256), cases(20));
    let mut grpc = tonic::client::Grpc::new(app.channel().await);
    for method in METHODS {
        let path = http::uri::PathAndQuery::from_maybe_shared(format!("/chessarbiter.v1.{method}"))
            .expect("path");
        for body in &bodies {
            grpc.ready().await.expect("ready");
            // With every credential a caller may hold: none, a seat, admin.
            let token = [None, Some(game.white.as_str()), Some(ADMIN_TOKEN)][body.len() % 3];
            let request = match token {
                Some(token) => with_token(token, body.clone()),
                None => tonic::Request::new(body.clone()),
            };
            let answer = if method.ends_with("WatchGame")
                || method.ends_with("WatchEvent")
                || method.ends_with("ExportPgn")
            {
                match grpc.server_streaming(request, path.clone(), RawCodec).await {
                    Ok(response) => {
                        let mut stream = response.into_inner();
                        match next_within(&mut stream, Duration::from_secs(30)).await {
                            Some(Err(status)) => Err(status),
                            _ => Ok(()),
                        }
                    }
                    Err(status) => Err(status),
                }
            } else {
                grpc.unary(request, path.clone(), RawCodec)
                    .await
                    .map(|_| ())
            };
            clean(method, &format!("{body:?}"), answer);
        }
    }
    // A body that is not a message is the client's error, and says so.
    grpc.ready().await.expect("ready");
    let path = http::uri::PathAndQuery::from_static("/chessarbiter.v1.ArbiterService/GetGame");
    let status = grpc
        .unary(tonic::Request::new(vec![0xff]), path, RawCodec)
        .await
        .expect_err("not a message");
    assert_eq!(
        (status.code(), crate::common::reason(&status).as_str()),
        (Code::InvalidArgument, "MALFORMED_REQUEST")
    );
    // So it is for the watch streams, which decode their requests
    // themselves; and a compressed request, which no method accepts.
    for method in ["WatchGame", "WatchEvent"] {
        let path = http::uri::PathAndQuery::from_maybe_shared(format!(
            "/chessarbiter.v1.ArbiterService/{method}"
        ))
        .expect("path");
        grpc.ready().await.expect("ready");
        let status = grpc
            .server_streaming(tonic::Request::new(vec![0xff]), path.clone(), RawCodec)
            .await
            .expect_err("not a message");
        assert_eq!(
            (status.code(), crate::common::reason(&status).as_str()),
            (Code::InvalidArgument, "MALFORMED_REQUEST"),
            "{method}"
        );
        let mut compressed = tonic::Request::new(Vec::new());
        compressed
            .metadata_mut()
            .insert("grpc-encoding", "gzip".parse().expect("ASCII"));
        grpc.ready().await.expect("ready");
        let status = grpc
            .server_streaming(compressed, path, RawCodec)
            .await
            .expect_err("compressed");
        assert_eq!(status.code(), Code::Unimplemented, "{method}: {status:?}");
        assert!(status.message().contains("gzip"), "{method}: {status:?}");
    }
    // The server still serves, and a game no body named is as it was.
    let after = unclocked(get(&mut client, &game.id).await);
    assert_eq!(after.game_id, before.game_id);
    assert_state_agrees_with_log(&mut client, &game.id).await;
}

/// Every game's state agrees with its log: versions 1 to the game's
/// without a gap, its moves are the log's moves, its position the last
/// move's, and it is over exactly when the log ends it.
async fn assert_state_agrees_with_log(client: &mut Client, game_id: &str) {
    let game = get_full(client, game_id).await;
    // The log after the creation, up to the game's version (a game in
    // progress has no end to its stream).
    let mut events = Vec::new();
    if game.version > 1 {
        let mut stream = crate::common::watch(client, game_id, 1).await;
        while events.len() + 1 < usize::try_from(game.version).expect("version") {
            match crate::common::next_message(&mut stream).await {
                crate::common::WatchKind::Event(event) => events.push(event),
                crate::common::WatchKind::Heartbeat(_) => {}
                other => panic!("{game_id}: unexpected {other:?}"),
            }
        }
    }
    let versions: Vec<i32> = events.iter().map(|event| event.version).collect();
    assert_eq!(
        versions,
        (2..=game.version).collect::<Vec<_>>(),
        "{game_id}"
    );
    let made: Vec<&proto::MoveMade> = events
        .iter()
        .filter_map(|event| match &event.kind {
            Some(Kind::MoveMade(made)) => Some(made),
            _ => None,
        })
        .collect();
    let moves: Vec<&proto::MoveRecord> = made.iter().filter_map(|m| m.r#move.as_ref()).collect();
    assert_eq!(game.moves.iter().collect::<Vec<_>>(), moves, "{game_id}");
    assert_eq!(usize::try_from(game.ply).expect("ply"), moves.len());
    if let Some(last) = made.last() {
        assert_eq!(game.fen, last.fen, "{game_id}");
        assert_eq!(game.side_to_move, last.side_to_move, "{game_id}");
    }
    let ended = events.iter().any(|event| {
        matches!(
            event.kind,
            Some(Kind::GameEnded(_) | Kind::GameAborted(_) | Kind::ResultDecided(_))
        )
    });
    assert_eq!(
        ended,
        game.status != proto::GameStatus::Active as i32
            && game.status != proto::GameStatus::Pending as i32,
        "{game_id}: status {} against its log",
        game.status
    );
}

/// A seeded client plays four games of an event with every call, valid
/// and not: moves (legal, illegal, stale, with the wrong seat), offers,
/// answers, claims, resignations, aborts, the arbiter's interventions and
/// reads; then every game's state must agree with its log.
async fn a_random_client_leaves_every_game_consistent(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let mut games = Vec::new();
    for board in 1..=4 {
        let mut request = create_request("", "");
        request.pairing = Some(pairing("random-open", 1, board));
        if board % 2 == 0 {
            request.time_control = Some(proto::TimeControl {
                periods: vec![crate::common::period(600_000, 0, 1_000, 0)],
                ..Default::default()
            });
        }
        games.push(create(&mut admin_client, request).await.expect("a game"));
    }
    let mut rng = StdRng::seed_from_u64(seed());
    for _ in 0..cases(1_000) {
        let game = &games[rng.random_range(0..games.len())];
        let current = get(&mut client, &game.id).await;
        let own = crate::common::token_to_move(game, &current).to_owned();
        let other = if own == game.white {
            game.black.clone()
        } else {
            game.white.clone()
        };
        let token = if rng.random_bool(0.85) { own } else { other };
        let ply = if rng.random_bool(0.9) {
            current.ply
        } else {
            current.ply + rng.random_range(-2..3)
        };
        let id = game.id.clone();
        match rng.random_range(0..100) {
            0..60 => {
                let text = if !current.legal_moves.is_empty() && rng.random_bool(0.9) {
                    current.legal_moves[rng.random_range(0..current.legal_moves.len())].clone()
                } else {
                    ["e9", "Kxe8", "0000", "", "a1a1", "O-O-O"][rng.random_range(0..6)].to_owned()
                };
                let mut request = make_move(&id, ply, &text);
                request.offer_draw = rng.random_bool(0.05);
                clean("MakeMove", &text, seat(&mut client, &token, request).await);
            }
            60..66 => {
                clean(
                    "OfferDraw",
                    "",
                    seat(&mut client, &token, crate::common::offer_draw(&id)).await,
                );
            }
            66..70 => {
                clean(
                    "AcceptDraw",
                    "",
                    seat(&mut client, &token, crate::common::accept_draw(&id)).await,
                );
            }
            70..76 => {
                clean(
                    "DeclineDraw",
                    "",
                    seat(&mut client, &token, crate::common::decline_draw(&id)).await,
                );
            }
            76..84 => {
                let reason = if rng.random_bool(0.5) {
                    proto::DrawClaimReason::ThreefoldRepetition
                } else {
                    proto::DrawClaimReason::FiftyMoves
                };
                clean(
                    "ClaimDraw",
                    "",
                    seat(
                        &mut client,
                        &token,
                        crate::common::claim_draw(&id, reason, "", ply),
                    )
                    .await,
                );
            }
            84..85 => {
                clean(
                    "ResignGame",
                    "",
                    seat(&mut client, &token, crate::common::resign(&id)).await,
                );
            }
            85..87 => {
                clean(
                    "AbortGame",
                    "",
                    seat(&mut client, &token, crate::common::abort(&id)).await,
                );
            }
            87..91 => {
                let request = proto::AdjustClockRequest {
                    game_id: id,
                    reason: "random".to_owned(),
                    color: proto::Color::White.into(),
                    delta_millis: rng.random_range(-5_000..5_000),
                    ..Default::default()
                };
                clean(
                    "AdjustClock",
                    "",
                    admin_client.adjust_clock(admin(request)).await,
                );
            }
            91..94 => {
                let pause = rng.random_bool(0.5);
                let result = if pause {
                    admin_client
                        .pause_clock(admin(proto::PauseClockRequest {
                            game_id: id,
                            reason: "random".to_owned(),
                            ..Default::default()
                        }))
                        .await
                        .map(|_| ())
                } else {
                    admin_client
                        .resume_clock(admin(proto::ResumeClockRequest {
                            game_id: id,
                            reason: "random".to_owned(),
                            ..Default::default()
                        }))
                        .await
                        .map(|_| ())
                };
                clean("PauseClock/ResumeClock", "", result);
            }
            94..95 => {
                let request = proto::SetGameResultRequest {
                    game_id: id,
                    reason: "random ruling".to_owned(),
                    ruling: Some(proto::set_game_result_request::Ruling::Played(
                        proto::PlayedResult {
                            outcome: proto::Outcome::Draw.into(),
                            termination: proto::Termination::Unspecified.into(),
                        },
                    )),
                    ..Default::default()
                };
                clean(
                    "SetGameResult",
                    "",
                    admin_client.set_game_result(admin(request)).await,
                );
            }
            _ => {
                clean(
                    "GetStandings",
                    "",
                    client
                        .get_standings(proto::GetStandingsRequest {
                            event_id: "random-open".to_owned(),
                            ..Default::default()
                        })
                        .await,
                );
            }
        }
    }
    for game in &games {
        assert_state_agrees_with_log(&mut client, &game.id).await;
    }
}

/// Hostile numbers where a request carries numbers: any scheduled start
/// time (seconds and nanos), any round and board. Each creation is served
/// or refused as INVALID_ARGUMENT; whatever was created reads back with a
/// time RFC 3339 can write, and the event's whole-event reads (standings,
/// TRF) are served or refused cleanly. Then metadata of any size up to
/// past what HTTP/2 reads: each call is served or refused, and the
/// connection goes on serving.
async fn hostile_numbers_and_metadata_are_refused_cleanly(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "fuzz numbers";
    let numbers = samples(
        (
            prop_oneof![any::<i64>(), 0..300_000_000_000i64],
            prop_oneof![any::<i32>(), 0..1_000_000_000i32],
            prop_oneof![any::<i32>(), 0..1_100i32],
            prop_oneof![any::<i32>(), 0..11_000i32],
        ),
        cases(60),
    );
    for (index, (seconds, nanos, round, board)) in numbers.into_iter().enumerate() {
        let mut request = create_request("", "");
        request.pairing = Some(pairing(event, round, board));
        request.white = Some(proto::Player {
            id: format!("w{index}"),
            name: String::new(),
            ..Default::default()
        });
        request.scheduled_start_time = Some(prost_types::Timestamp { seconds, nanos });
        let input = format!("{seconds}s {nanos}ns round {round} board {board}");
        let answer = create(&mut admin_client, request).await;
        if let Err(status) = &answer {
            assert_eq!(status.code(), Code::InvalidArgument, "{input}: {status:?}");
        }
        if let Ok(created) = answer {
            let read = get(&mut client, &created.id).await;
            let start = crate::common::setup(&read)
                .scheduled_start_time
                .expect("a start");
            let text = start.to_string();
            assert!(
                text.parse::<prost_types::Timestamp>().is_ok() && text.len() <= 30,
                "{input}: {text}"
            );
        }
    }
    let standings = client
        .get_standings(proto::GetStandingsRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await;
    clean("GetStandings", event, standings);
    let trf = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await;
    if let Ok(trf) = &trf {
        assert!(trf.get_ref().trf.len() <= arbiter::arbiter::MAX_TRF_BYTES);
    }
    clean("ExportTrf", event, trf);

    let game = app.new_game().await;
    let sizes = samples(0..80_000usize, cases(30));
    for size in sizes {
        let mut request = tonic::Request::new(proto::GetGameRequest {
            game_id: game.id.clone(),
            ..Default::default()
        });
        request
            .metadata_mut()
            .insert("x-padding", "p".repeat(size).parse().expect("ascii"));
        let answer = client.get_game(request).await;
        if size < arbiter::server::MAX_METADATA_BYTES - 1_000 {
            answer.unwrap_or_else(|status| panic!("{size} bytes of metadata: {status:?}"));
        } else if size > arbiter::server::MAX_METADATA_BYTES
            && size <= arbiter::server::HTTP2_MAX_HEADER_LIST_BYTES as usize - 1_000
        {
            let status = answer.expect_err("over the limit");
            assert_eq!(
                (status.code(), crate::common::reason(&status).as_str()),
                (Code::ResourceExhausted, "METADATA_TOO_LARGE"),
                "{size} bytes of metadata"
            );
        }
        // The connection serves on, whatever the size was.
        get(&mut client, &game.id).await;
    }
}

on_every_backend!(
    hostile_numbers_and_metadata_are_refused_cleanly,
    hostile_text_is_refused_cleanly,
    arbitrary_bytes_are_refused_cleanly,
    a_random_client_leaves_every_game_consistent,
);

/// The list above covers every method of the contract, so that a new RPC
/// cannot be left out of these tests unnoticed.
#[test]
fn every_method_is_fuzzed() {
    let mut listed: Vec<String> = METHODS.iter().map(|m| (*m).to_owned()).collect();
    listed.sort();
    assert_eq!(listed, crate::common::every_method());
}
