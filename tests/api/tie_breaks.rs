//! Tie-breaks chosen per request (FIDE Tie-Break Regulations 2023) through
//! the API: a nine-round Swiss with forfeits, byes and absences computed by
//! hand, direct encounter's conditions, and refused requests.

use crate::common;

use arbiter::proto::{self, ByeKind, Outcome, TieBreakKind};
use common::{AdminClient, Backend, Client, TestApp, admin, create, reason};
use tonic::{Code, Status};
use tonic_types::StatusExt;

fn player(id: &str) -> proto::Player {
    proto::Player {
        id: id.to_owned(),
        name: format!("Player, {id}"),
        ..Default::default()
    }
}

/// How a game of the Swiss ends.
#[derive(Clone, Copy, Debug)]
pub enum Ending {
    /// White wins over the board.
    White,
    /// Black wins over the board.
    Black,
    /// A draw over the board.
    Draw,
    /// Black forfeits: White wins an unplayed game.
    BlackForfeits,
}

/// Creates the game `white`-`black` of `round` (with `scoring`, if any) and
/// has the arbiter record its result.
pub async fn ruled(
    admin_client: &mut AdminClient,
    event: &str,
    (round, board): (i32, i32),
    (white, black): (&str, &str),
    ending: Ending,
    scoring: Option<proto::Scoring>,
) {
    let game = create(
        admin_client,
        proto::CreateGameRequest {
            white: Some(player(white)),
            black: Some(player(black)),
            pairing: Some(common::pairing(event, round, board)),
            scoring,
            ..Default::default()
        },
    )
    .await
    .expect("create");
    use proto::set_game_result_request::Ruling;
    let played = |outcome: Outcome| {
        Ruling::Played(proto::PlayedResult {
            outcome: outcome.into(),
            termination: proto::Termination::ArbiterDecision.into(),
        })
    };
    let ruling = match ending {
        Ending::White => played(Outcome::WhiteWins),
        Ending::Black => played(Outcome::BlackWins),
        Ending::Draw => played(Outcome::Draw),
        Ending::BlackForfeits => Ruling::Forfeit(proto::Forfeit::Black.into()),
    };
    admin_client
        .set_game_result(admin(proto::SetGameResultRequest {
            game_id: game.id,
            ruling: Some(ruling),
            reason: "result".to_owned(),
            ..Default::default()
        }))
        .await
        .expect("ruling");
}

/// The nine-round Swiss of five players that the domain's unit tests
/// compute by hand (src/domain/standings.rs): each round one player has no
/// game, a declared bye or an absence.
///
/// | round | games                    | without a game |
/// |-------|--------------------------|----------------|
/// | 1     | a-b 1-0, c-d ½-½         | e U            |
/// | 2     | e-a 0-1, b-c 1-0         | d H            |
/// | 3     | a-c ½-½, d-e +/- (forf.) | b absent       |
/// | 4     | b-d 0-1, c-e 1-0         | a Z            |
/// | 5     | d-a 0-1, e-b ½-½         | c U            |
/// | 6     | c-a 1-0, d-b ½-½         | e U            |
/// | 7     | a-d ½-½, b-c +/- (forf.) | e H            |
/// | 8     | e-c 0-1, a-b ½-½         | d absent       |
/// | 9     | b-d 1-0, a-c ½-½         | e absent       |
pub async fn play_nine_round_swiss(
    admin_client: &mut AdminClient,
    event: &str,
    scoring: Option<proto::Scoring>,
) {
    use Ending::{Black, BlackForfeits, Draw, White};
    let games = [
        (1, "a", "b", White),
        (1, "c", "d", Draw),
        (2, "e", "a", Black),
        (2, "b", "c", White),
        (3, "a", "c", Draw),
        (3, "d", "e", BlackForfeits),
        (4, "b", "d", Black),
        (4, "c", "e", White),
        (5, "d", "a", Black),
        (5, "e", "b", Draw),
        (6, "c", "a", White),
        (6, "d", "b", Draw),
        (7, "a", "d", Draw),
        (7, "b", "c", BlackForfeits),
        (8, "e", "c", Black),
        (8, "a", "b", Draw),
        (9, "b", "d", White),
        (9, "a", "c", Draw),
    ];
    let mut board = 0;
    let mut last_round = 0;
    for (round, white, black, ending) in games {
        board = if round == last_round { board + 1 } else { 1 };
        last_round = round;
        ruled(
            admin_client,
            event,
            (round, board),
            (white, black),
            ending,
            scoring.clone(),
        )
        .await;
    }
}

/// The byes of the nine-round Swiss.
pub fn nine_round_byes() -> Vec<proto::Bye> {
    [
        ("e", 1, ByeKind::PairingAllocated),
        ("d", 2, ByeKind::HalfPoint),
        ("a", 4, ByeKind::ZeroPoint),
        ("c", 5, ByeKind::PairingAllocated),
        ("e", 6, ByeKind::PairingAllocated),
        ("e", 7, ByeKind::HalfPoint),
    ]
    .into_iter()
    .map(|(id, round, kind)| proto::Bye {
        player_id: id.to_owned(),
        round,
        kind: kind.into(),
    })
    .collect()
}

fn tie_break(kind: TieBreakKind, cut_lowest: i32, cut_highest: i32) -> proto::TieBreak {
    proto::TieBreak {
        kind: kind.into(),
        cut_lowest,
        cut_highest,
    }
}

async fn try_standings(
    client: &mut Client,
    request: proto::GetStandingsRequest,
) -> Result<proto::GetStandingsResponse, Status> {
    client
        .get_standings(request)
        .await
        .map(tonic::Response::into_inner)
}

/// Each line's rank, player, points and tie-break values.
fn table(response: &proto::GetStandingsResponse) -> Vec<(i32, String, String, Vec<String>)> {
    response
        .standings
        .iter()
        .map(|s| {
            (
                s.rank,
                s.player.clone().expect("player").id,
                s.points.clone(),
                s.tie_break_values.clone(),
            )
        })
        .collect()
}

fn row(rank: i32, id: &str, points: &str, values: &[&str]) -> (i32, String, String, Vec<String>) {
    (
        rank,
        id.to_owned(),
        points.to_owned(),
        values.iter().map(|v| (*v).to_owned()).collect(),
    )
}

/// Every tie-break kind on the nine-round Swiss; the values are the hand
/// computation of the domain's unit test
/// `a_nine_round_swiss_with_forfeits_and_byes_by_the_2023_rules`, which
/// shows it round by round (dummy opponents with the player's own points
/// for unplayed rounds, Art. 16.4; e's absence after its last game counted
/// as a draw for its opponents, Art. 16.3; voluntarily unplayed rounds cut
/// first, Art. 16.5).
async fn a_nine_round_swiss_with_forfeits_and_byes(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Swiss {9} 2026";
    play_nine_round_swiss(&mut admin_client, event, None).await;
    let order = vec![
        tie_break(TieBreakKind::Buchholz, 0, 0),
        tie_break(TieBreakKind::Buchholz, 1, 0),
        tie_break(TieBreakKind::Buchholz, 1, 1),
        tie_break(TieBreakKind::SonnebornBerger, 0, 0),
        tie_break(TieBreakKind::Wins, 0, 0),
        tie_break(TieBreakKind::GamesWon, 0, 0),
        tie_break(TieBreakKind::GamesWithBlack, 0, 0),
        tie_break(TieBreakKind::ProgressiveScore, 0, 0),
        tie_break(TieBreakKind::ProgressiveScore, 1, 0),
        tie_break(TieBreakKind::AverageRatingOfOpponents, 0, 0),
        tie_break(TieBreakKind::DirectEncounter, 0, 0),
    ];
    let ratings = [("a", 2000), ("b", 1900), ("c", 1800), ("d", 1700)]
        .into_iter()
        .map(|(id, rating)| proto::PlayerRating {
            player_id: id.to_owned(),
            rating,
        })
        .collect();
    let response = try_standings(
        &mut client,
        proto::GetStandingsRequest {
            event_id: event.to_owned(),
            tie_breaks: order.clone(),
            total_rounds: 9,
            byes: nine_round_byes(),
            ratings,
            ..Default::default()
        },
    )
    .await
    .expect("standings");
    assert_eq!(response.tie_breaks, order);
    assert_eq!(response.games_counted, 18);
    // Every tie-break the server computes, by its code, whatever was asked.
    let offered: Vec<(String, bool)> = response
        .offered_tie_breaks
        .iter()
        .map(|t| (t.code.clone(), t.takes_cuts))
        .collect();
    assert_eq!(
        offered,
        [
            ("DE", false),
            ("BH", true),
            ("FB", true),
            ("AOB", true),
            ("SB", true),
            ("KS", false),
            ("WIN", false),
            ("WON", false),
            ("BPG", false),
            ("PS", true),
            ("ARO", true),
            ("TPR", true),
            ("APRO", true),
        ]
        .map(|(code, cuts)| (code.to_owned(), cuts))
    );
    // BH, BH/C1, BH/M1, SB, WIN, WON, BPG, PS, PS/C1, ARO, DE.
    assert_eq!(
        table(&response),
        [
            row(
                1,
                "c",
                "5.5",
                &[
                    "41.5", "36", "30.5", "24.5", "4", "3", "4", "25.5", "25", "1920", "0"
                ]
            ),
            row(
                2,
                "a",
                "5",
                &[
                    "42", "37", "31.5", "21.75", "3", "3", "3", "28.5", "27.5", "1800", "0"
                ]
            ),
            row(
                3,
                "b",
                "4.5",
                &[
                    "40", "35.5", "30", "20.25", "3", "2", "4", "17.5", "17.5", "1817", "0"
                ]
            ),
            row(
                4,
                "d",
                "4",
                &[
                    "41", "37", "31.5", "18", "2", "1", "4", "25", "24.5", "1917", "0"
                ]
            ),
            row(
                5,
                "e",
                "3",
                &[
                    "35.5", "32.5", "27", "9.75", "2", "0", "1", "17", "16", "1875", "0"
                ]
            ),
        ]
    );
    let c = &response.standings[0];
    assert_eq!(
        (
            c.games_played,
            c.wins,
            c.draws,
            c.losses,
            c.forfeit_wins,
            c.forfeit_losses
        ),
        (7, 3, 3, 1, 0, 1)
    );
    assert_eq!(
        (c.buchholz.as_str(), c.buchholz_cut1.as_str()),
        ("41.5", "36")
    );

    // No tie-breaks asked: the default order, stated in the response.
    let default = try_standings(
        &mut client,
        proto::GetStandingsRequest {
            event_id: event.to_owned(),
            byes: nine_round_byes(),
            ..Default::default()
        },
    )
    .await
    .expect("standings");
    assert_eq!(
        default.tie_breaks,
        [
            tie_break(TieBreakKind::DirectEncounter, 0, 0),
            tie_break(TieBreakKind::Buchholz, 1, 0),
            tie_break(TieBreakKind::Buchholz, 0, 0),
            tie_break(TieBreakKind::SonnebornBerger, 0, 0),
            tie_break(TieBreakKind::GamesWon, 0, 0),
        ]
    );
    assert_eq!(
        table(&default)[1],
        row(2, "a", "5", &["0", "37", "42", "21.75", "3"])
    );
}

/// Direct encounter through the API: applied again within the group it
/// leaves tied, and not applied when a tied player has not met the others
/// (the cases of the domain's unit tests).
async fn direct_encounter_only_among_players_who_all_met(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    use Ending::{Black, White};
    // a, b, c, d all on 2 and all met: DE a 2, b 2, c 1, d 1; again
    // within {a, b}: a beat b; within {c, d}: d beat c. e and f (0) never
    // met: tied.
    let event = "DE {all met}";
    for (board, (white, black, ending)) in [
        ("a", "b", White),
        ("c", "a", White),
        ("a", "d", White),
        ("b", "c", White),
        ("d", "b", Black),
        ("d", "c", White),
        ("c", "e", White),
        ("d", "f", White),
    ]
    .into_iter()
    .enumerate()
    {
        let board = i32::try_from(board).expect("board") + 1;
        ruled(
            &mut admin_client,
            event,
            (0, board),
            (white, black),
            ending,
            None,
        )
        .await;
    }
    let order = vec![
        tie_break(TieBreakKind::DirectEncounter, 0, 0),
        tie_break(TieBreakKind::GamesWithBlack, 0, 0),
    ];
    let request = |event: &str| proto::GetStandingsRequest {
        event_id: event.to_owned(),
        tie_breaks: order.clone(),
        ..Default::default()
    };
    let response = try_standings(&mut client, request(event))
        .await
        .expect("standings");
    assert_eq!(
        table(&response),
        [
            row(1, "a", "2", &["2", "1"]),
            row(2, "b", "2", &["2", "2"]),
            row(3, "d", "2", &["1", "1"]),
            row(4, "c", "2", &["1", "2"]),
            row(5, "e", "0", &["0", "1"]),
            row(5, "f", "0", &["0", "1"]),
        ]
    );

    // x, y, z on 1: x beat y, z met neither. No direct encounter; games
    // with Black decide (y 2, x 0, z 0).
    let event = "DE {not all met}";
    for (board, (white, black, ending)) in [("x", "y", White), ("v", "y", Black), ("z", "w", White)]
        .into_iter()
        .enumerate()
    {
        let board = i32::try_from(board).expect("board") + 1;
        ruled(
            &mut admin_client,
            event,
            (1, board),
            (white, black),
            ending,
            None,
        )
        .await;
    }
    let response = try_standings(&mut client, request(event))
        .await
        .expect("standings");
    assert_eq!(
        table(&response),
        [
            row(1, "y", "1", &["0", "2"]),
            row(2, "x", "1", &["0", "0"]),
            row(2, "z", "1", &["0", "0"]),
            row(4, "w", "0", &["0", "1"]),
            row(5, "v", "0", &["0", "0"]),
        ]
    );
}

/// A refused request: INVALID_ARGUMENT, INVALID_FIELD, and the field and
/// the reason in a BadRequest.
fn assert_refused(status: &Status, field: &str, words: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(reason(status), "INVALID_FIELD");
    let bad = status.get_details_bad_request().expect("a BadRequest");
    let violation = &bad.field_violations[0];
    assert_eq!(violation.field, field, "{status:?}");
    assert!(
        violation.description.contains(words),
        "'{}' should say '{words}'",
        violation.description
    );
}

async fn invalid_tie_break_requests_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "Swiss {9} refusals";
    play_nine_round_swiss(&mut admin_client, event, None).await;
    let with = |tie_breaks: Vec<proto::TieBreak>| proto::GetStandingsRequest {
        event_id: event.to_owned(),
        tie_breaks,
        byes: nine_round_byes(),
        ..Default::default()
    };
    let cases = [
        (
            with(vec![proto::TieBreak {
                kind: 99,
                ..Default::default()
            }]),
            "tie_breaks",
            "no known kind (99)",
        ),
        (
            with(vec![proto::TieBreak::default()]),
            "tie_breaks",
            "no known kind (0)",
        ),
        (
            with(vec![tie_break(TieBreakKind::Koya, 1, 0)]),
            "tie_breaks",
            "takes no cut",
        ),
        (
            with(vec![
                tie_break(TieBreakKind::Buchholz, 1, 0),
                tie_break(TieBreakKind::Buchholz, 1, 0),
            ]),
            "tie_breaks",
            "BH/C1 twice",
        ),
        (
            with(vec![tie_break(TieBreakKind::Buchholz, 5, 5)]),
            "tie_breaks",
            "leaves out 10 values of a tournament of 9 rounds",
        ),
        (
            with(vec![tie_break(TieBreakKind::ProgressiveScore, -1, 0)]),
            "tie_breaks",
            "must not be negative",
        ),
        (
            proto::GetStandingsRequest {
                total_rounds: 8,
                ..with(Vec::new())
            },
            "total_rounds",
            "8 is below round 9, which has games",
        ),
        (
            proto::GetStandingsRequest {
                byes: vec![proto::Bye {
                    player_id: "a".to_owned(),
                    round: 1,
                    kind: ByeKind::HalfPoint.into(),
                }],
                ..with(Vec::new())
            },
            "byes",
            "'a' has a game in round 1",
        ),
        (
            proto::GetStandingsRequest {
                byes: vec![proto::Bye {
                    player_id: "a".to_owned(),
                    round: 10,
                    kind: 0,
                }],
                ..with(Vec::new())
            },
            "byes",
            "no known kind",
        ),
        (
            proto::GetStandingsRequest {
                ratings: vec![
                    proto::PlayerRating {
                        player_id: "a".to_owned(),
                        rating: 2000,
                    },
                    proto::PlayerRating {
                        player_id: "a".to_owned(),
                        rating: 2100,
                    },
                ],
                ..with(Vec::new())
            },
            "ratings",
            "'a' is rated twice",
        ),
    ];
    for (request, field, words) in cases {
        let status = try_standings(&mut client, request)
            .await
            .expect_err("refused");
        assert_refused(&status, field, words);
    }
    // The same refusals for a TRF export's byes.
    let status = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            total_rounds: 9,
            byes: vec![proto::Bye {
                player_id: "e".to_owned(),
                round: 12,
                kind: ByeKind::ZeroPoint.into(),
            }],
        })
        .await
        .expect_err("refused");
    assert_refused(&status, "byes", "beyond the tournament's 9 rounds");
    // Without the number of rounds, a bye far ahead would make every
    // player's line that long: the next round to be played is the last.
    let status = client
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            total_rounds: 0,
            byes: vec![proto::Bye {
                player_id: "e".to_owned(),
                round: 100_000,
                kind: ByeKind::ZeroPoint.into(),
            }],
        })
        .await
        .expect_err("refused");
    assert_refused(&status, "byes", "after round 10, the next to be played");
}

on_every_backend!(
    a_nine_round_swiss_with_forfeits_and_byes,
    direct_encounter_only_among_players_who_all_met,
    invalid_tie_break_requests_are_refused,
);
