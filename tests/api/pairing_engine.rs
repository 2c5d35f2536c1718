//! The loop with a pairing engine: a Swiss of nine rounds run with one
//! `ImportPairings`, one `StartRound` and the results per round, each
//! round paired by bbpPairings (`--dutch … -p`) from the event's own
//! `ExportTrf`.
//!
//! The engine's pairings are committed in `tests/data/pairings/` with the
//! report each was made from: the test checks that the event exports that
//! report byte for byte before it imports the engine's answer, so every
//! round is paired exactly as the engine paired the event. With
//! `BBP_PAIRINGS` set to a bbpPairings binary, the test runs the engine
//! instead and writes the files anew.

use crate::common;

use std::{path::PathBuf, process::Command};

use arbiter::proto;
use common::{AdminClient, Backend, Client, TestApp, admin, expect_code, reason};
use tonic::Code;
use tonic_types::StatusExt;

const EVENT: &str = "Swiss of nine";
const PLAYERS: usize = 9;
const ROUNDS: i32 = 9;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/pairings")
        .join(name)
}

fn players() -> Vec<proto::Player> {
    (1..=PLAYERS)
        .map(|n| proto::Player {
            id: format!("p{n:02}"),
            name: format!("Player {n:02}"),
            ..Default::default()
        })
        .collect()
}

/// The platform's report for the first round: the players in
/// starting-rank order, no games yet, White for rank 1 on board 1.
fn first_report() -> String {
    let mut trf = format!("012 {EVENT}\n062 {PLAYERS}\nXXR {ROUNDS}\nXXC white1\n");
    for (index, player) in players().iter().enumerate() {
        let line = format!(
            "001 {:>4}      {:<33} {:>4} {:>3} {:>11} {:>10} {:>4} {:>4}",
            index + 1,
            player.name,
            "",
            "",
            "",
            "",
            "0.0",
            index + 1
        );
        trf.push_str(line.trim_end());
        trf.push('\n');
    }
    trf
}

/// The engine's pairings of `trf`: run when `BBP_PAIRINGS` names the
/// binary (and written to `name`), else read from `name`.
fn engine_pairings(trf: &str, trf_name: &str, name: &str) -> String {
    match std::env::var_os("BBP_PAIRINGS") {
        Some(engine) => {
            std::fs::create_dir_all(data("")).expect("data folder");
            std::fs::write(data(trf_name), trf).expect("write the report");
            let out = data(name);
            let status = Command::new(engine)
                .arg("--dutch")
                .arg(data(trf_name))
                .arg("-p")
                .arg(&out)
                .status()
                .expect("run the engine");
            assert!(
                status.success(),
                "the engine failed on {trf_name}: {status}"
            );
            std::fs::read_to_string(out).expect("the engine's pairings")
        }
        None => {
            let committed = std::fs::read_to_string(data(trf_name)).expect("committed report");
            assert_eq!(
                trf, committed,
                "the event's report differs from the one the engine paired ({trf_name})"
            );
            std::fs::read_to_string(data(name)).expect("committed pairings")
        }
    }
}

/// Who wins board `board` of round `round`: a fixed pattern of wins for
/// either colour and draws.
fn result_of(round: i32, board: i32) -> proto::Outcome {
    match (round * 7 + board * 3) % 5 {
        0 | 3 => proto::Outcome::WhiteWins,
        1 => proto::Outcome::Draw,
        _ => proto::Outcome::BlackWins,
    }
}

async fn export(client: &mut Client) -> String {
    client
        .export_trf(proto::ExportTrfRequest {
            event_id: EVENT.to_owned(),
            total_rounds: ROUNDS,
            ..Default::default()
        })
        .await
        .expect("export")
        .into_inner()
        .trf
}

async fn import(
    admin_client: &mut AdminClient,
    round: i32,
    pairings: &str,
    trf: &str,
    players: Vec<proto::Player>,
) -> Result<proto::ImportPairingsResponse, tonic::Status> {
    admin_client
        .import_pairings(admin(proto::ImportPairingsRequest {
            request_id: format!("swiss-round-{round}"),
            event_id: EVENT.to_owned(),
            round,
            pairings: pairings.to_owned(),
            trf: trf.to_owned(),
            players,
            ..Default::default()
        }))
        .await
        .map(tonic::Response::into_inner)
}

async fn a_swiss_runs_round_by_round_with_a_pairing_engine(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let ranks = players();
    let mut trf = first_report();
    for round in 1..=ROUNDS {
        let pairings = engine_pairings(
            &trf,
            &format!("round-{round}.trf"),
            &format!("round-{round}.pairings"),
        );
        // The first round's ranks are the platform's; later rounds use
        // the event's, which the first made the same.
        let listed = if round == 1 {
            ranks.clone()
        } else {
            Vec::new()
        };
        let created = import(&mut admin_client, round, &pairings, &trf, listed)
            .await
            .unwrap_or_else(|status| panic!("round {round}: {status:?}"));
        // The games are the engine's pairs, board by board, by rank.
        let mut lines = pairings.lines().skip(1).map(str::split_whitespace);
        let rank_of = |id: &str| ranks.iter().position(|p| p.id == id).map(|i| i + 1);
        for game in &created.games {
            let mut line = lines.next().expect("a line per game");
            let white: usize = line.next().and_then(|r| r.parse().ok()).expect("white");
            let black: usize = line.next().and_then(|r| r.parse().ok()).expect("black");
            assert_eq!(
                rank_of(&game.white.as_ref().expect("white").id),
                Some(white)
            );
            assert_eq!(
                rank_of(&game.black.as_ref().expect("black").id),
                Some(black)
            );
        }
        let round_info = created.round.expect("round");
        assert_eq!(round_info.byes.len(), 1, "nine players: one bye a round");
        assert_eq!(round_info.byes[0].kind(), proto::ByeKind::PairingAllocated);

        admin_client
            .start_round(admin(proto::StartRoundRequest {
                event_id: EVENT.to_owned(),
                round,
            }))
            .await
            .expect("start");
        for game in &created.games {
            admin_client
                .set_game_result(admin(proto::SetGameResultRequest {
                    game_id: game.game_id.clone(),
                    ruling: Some(proto::set_game_result_request::Ruling::Played(
                        proto::PlayedResult {
                            outcome: result_of(round, game.board).into(),
                            termination: proto::Termination::Unspecified.into(),
                        },
                    )),
                    reason: "result reported at the board".into(),
                    ..Default::default()
                }))
                .await
                .expect("result");
        }
        trf = export(&mut client).await;
    }
    // Nine rounds, every player paired once a round or given the bye, and
    // no two players met twice (the engine's absolute criterion).
    let mut met = std::collections::HashSet::new();
    for line in trf.lines().filter(|l| l.starts_with("001")) {
        let rank: usize = line[4..8].trim().parse().expect("rank");
        // Each round's block is ten columns from column 92: the
        // opponent's rank in its first four.
        for round in 0..ROUNDS as usize {
            let start = 91 + round * 10;
            let opponent: usize = line
                .get(start..start + 4)
                .and_then(|o| o.trim().parse().ok())
                .unwrap_or_else(|| panic!("round {} in {line}", round + 1));
            if opponent != 0 {
                assert!(met.insert((rank.min(opponent), rank.max(opponent), rank)));
            }
        }
    }
    assert_eq!(met.len(), ROUNDS as usize * (PLAYERS - 1));
}

async fn pairings_that_contradict_the_event_are_refused_by_line(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let ranks = players();
    // A rank beyond the nine, and a player paired twice.
    let status = expect_code(
        import(
            &mut admin_client,
            1,
            "3\n1 10\n2 3\n3 4\n",
            "",
            ranks.clone(),
        )
        .await,
        Code::InvalidArgument,
    );
    let reasons: Vec<String> = status
        .get_details_bad_request()
        .expect("bad request")
        .field_violations
        .into_iter()
        .map(|v| format!("{}: {}", v.field, v.description))
        .collect();
    assert_eq!(
        reasons,
        [
            "pairings: line 2: rank 10 is beyond the 9 starting ranks",
            "pairings: line 4: rank 3 is also paired on line 3",
        ]
    );
    // Not the engine's format.
    let status = expect_code(
        import(&mut admin_client, 1, "1-2\n", "", ranks.clone()).await,
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "INVALID_FIELD");
    assert!(status.message().contains("line 1"), "{status:?}");
    // A report whose players are not the ranks given.
    let mut other = first_report();
    other = other.replace("Player 02", "Somebody");
    let status = expect_code(
        import(&mut admin_client, 1, "1\n1 2\n", &other, ranks.clone()).await,
        Code::InvalidArgument,
    );
    assert!(status.message().contains("starting rank 2"), "{status:?}");
    // Without ranks, an event without games has none to pair.
    let status = expect_code(
        import(&mut admin_client, 1, "1\n1 2\n", "", Vec::new()).await,
        Code::InvalidArgument,
    );
    assert!(
        status.message().contains("beyond the 0 starting ranks"),
        "{status:?}"
    );

    // The engine's bye for a player the request also gives a bye: named
    // by the request's own fields and the pairings' line.
    let status = expect_code(
        admin_client
            .import_pairings(admin(proto::ImportPairingsRequest {
                event_id: EVENT.to_owned(),
                round: 1,
                pairings: "2\n1 2\n3 0\n".into(),
                players: ranks.clone(),
                byes: vec![proto::RoundBye {
                    player: Some(ranks[2].clone()),
                    kind: proto::ByeKind::HalfPoint.into(),
                }],
                ..Default::default()
            }))
            .await,
        Code::InvalidArgument,
    );
    let violations: Vec<(String, String)> = status
        .get_details_bad_request()
        .expect("bad request")
        .field_violations
        .into_iter()
        .map(|v| (v.field, v.description))
        .collect();
    assert_eq!(
        violations,
        [(
            "byes[0].player.id".to_owned(),
            "player \"p03\" is also in the bye on line 3: a player plays once a round".to_owned()
        )]
    );

    // A round created, then other pairings for it: refused.
    import(
        &mut admin_client,
        1,
        "4\n1 2\n3 4\n5 6\n7 0\n",
        "",
        ranks.clone(),
    )
    .await
    .expect("round 1");
    let mut again = import(
        &mut admin_client,
        1,
        "4\n2 1\n3 4\n5 6\n7 0\n",
        "",
        ranks.clone(),
    )
    .await;
    // The same key for other pairings is a reused key; without one, the
    // round exists.
    assert_eq!(
        reason(&expect_code(again, Code::AlreadyExists)),
        "REQUEST_ID_REUSED"
    );
    again = admin_client
        .import_pairings(admin(proto::ImportPairingsRequest {
            event_id: EVENT.to_owned(),
            round: 1,
            pairings: "4\n2 1\n3 4\n5 6\n7 0\n".into(),
            players: ranks,
            ..Default::default()
        }))
        .await
        .map(tonic::Response::into_inner);
    assert_eq!(
        reason(&expect_code(again, Code::AlreadyExists)),
        "ROUND_EXISTS"
    );
}

/// Forbidden pairs and accelerations given with a round reach the engine
/// in the event's report (XXP, XXA), and the engine pairs by them.
async fn forbidden_pairs_and_accelerations_reach_the_engine(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Constrained";
    let ranks: Vec<proto::Player> = players().into_iter().take(6).collect();
    let pair = |a: usize, b: usize| proto::ForbiddenPair {
        first_player_id: ranks[a - 1].id.clone(),
        second_player_id: ranks[b - 1].id.clone(),
    };
    let created = admin_client
        .import_pairings(admin(proto::ImportPairingsRequest {
            event_id: event.to_owned(),
            round: 1,
            pairings: "3\n1 4\n5 2\n3 6\n".into(),
            players: ranks.clone(),
            // Rank 1 and rank 2 may never meet; ranks 5 and 6 are
            // accelerated by a point for the first two rounds.
            forbidden_pairs: vec![pair(1, 2)],
            accelerations: [5, 6]
                .into_iter()
                .map(|rank| proto::Acceleration {
                    player_id: ranks[rank - 1].id.clone(),
                    points: "1".into(),
                    first_round: 1,
                    last_round: 2,
                })
                .collect(),
            ..Default::default()
        }))
        .await
        .expect("round 1")
        .into_inner();
    let round = created.round.expect("round");
    assert_eq!(round.forbidden_pairs.len(), 1);
    assert_eq!(round.accelerations.len(), 2);
    admin_client
        .start_round(admin(proto::StartRoundRequest {
            event_id: event.to_owned(),
            round: 1,
        }))
        .await
        .expect("start");
    // White wins every board.
    for game in &created.games {
        admin_client
            .set_game_result(admin(proto::SetGameResultRequest {
                game_id: game.game_id.clone(),
                ruling: Some(proto::set_game_result_request::Ruling::Played(
                    proto::PlayedResult {
                        outcome: proto::Outcome::WhiteWins.into(),
                        termination: proto::Termination::Unspecified.into(),
                    },
                )),
                reason: "reported".into(),
                ..Default::default()
            }))
            .await
            .expect("result");
    }
    let trf = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            total_rounds: 5,
            ..Default::default()
        })
        .await
        .expect("export")
        .into_inner()
        .trf;
    let lines: Vec<&str> = trf
        .lines()
        .filter(|l| l.starts_with("XXP") || l.starts_with("XXA"))
        .collect();
    assert_eq!(
        lines,
        ["XXP    1    2", "XXA    5  1.0  1.0", "XXA    6  1.0  1.0"],
        "{trf}"
    );
    // Ranks 1 and 5 and 3 won; 1 and 2 would meet in round 2 but for the
    // forbidden pair.
    let pairings = engine_pairings(
        &trf,
        "constrained-round-2.trf",
        "constrained-round-2.pairings",
    );
    let pairs: Vec<(usize, usize)> = pairings
        .lines()
        .skip(1)
        .filter_map(|line| {
            let mut ranks = line.split_whitespace().map(|r| r.parse::<usize>().ok());
            Some((ranks.next()??, ranks.next()??))
        })
        .collect();
    assert_eq!(pairs.len(), 3);
    assert!(
        pairs.iter().all(|&(w, b)| (w.min(b), w.max(b)) != (1, 2)),
        "{pairings}"
    );
}

on_every_backend!(
    forbidden_pairs_and_accelerations_reach_the_engine,
    a_swiss_runs_round_by_round_with_a_pairing_engine,
    pairings_that_contradict_the_event_are_refused_by_line,
);
