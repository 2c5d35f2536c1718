//! Event game lists and standings through the API: tie-breaks computed by
//! hand, scoring systems, forfeits, games that count for nothing, races
//! between a flag and a move (and between replicas), and ListGames paging,
//! filtering and validation.
//!
//! Event ids are free text; most tests use ids with braces, spaces and
//! non-ASCII characters, to check that the Redis key layout copes (braces
//! delimit Redis Cluster hash tags).

use crate::common;

use std::{
    collections::HashSet,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use arbiter::proto::{self, GameStatus, GameView, Outcome, Termination, game_event::Kind};
use common::{
    AdminClient, Backend, Client, NewGame, TestApp, abort, accept_draw, create, drain, expect_code,
    get, get_full, make_move, offer_draw, play_line, reason, resign, score, seat, setup, watch,
};
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// The event most tests play in.
const EVENT: &str = "Spring {Open} 2026 – A";

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

fn player(id: &str) -> proto::Player {
    proto::Player {
        id: id.to_owned(),
        name: name_of(id),
        ..Default::default()
    }
}

fn name_of(id: &str) -> String {
    format!("Player {}", id.to_uppercase())
}

/// A CreateGame request pairing `white` and `black` in `event`.
fn pairing(
    event: &str,
    round: i32,
    board: i32,
    white: &str,
    black: &str,
) -> proto::CreateGameRequest {
    proto::CreateGameRequest {
        white: Some(player(white)),
        black: Some(player(black)),
        pairing: Some(common::pairing(event, round, board)),
        ..Default::default()
    }
}

/// A pairing played with `ms` milliseconds for the whole game; White's
/// clock runs from creation.
fn timed(
    event: &str,
    round: i32,
    board: i32,
    white: &str,
    black: &str,
    ms: i32,
) -> proto::CreateGameRequest {
    proto::CreateGameRequest {
        time_control: Some(proto::TimeControl {
            periods: vec![common::period(ms, 0, 0, 0)],
            ..Default::default()
        }),
        ..pairing(event, round, board, white, black)
    }
}

fn scoring(preset: proto::ScoringPreset) -> proto::Scoring {
    proto::Scoring {
        system: Some(proto::scoring::System::Preset(preset.into())),
        armageddon: false,
    }
}

fn table(win: &str, draw: &str, loss: &str) -> proto::PointTable {
    proto::PointTable {
        win: win.to_owned(),
        draw: draw.to_owned(),
        loss: loss.to_owned(),
    }
}

/// How a game is to end.
#[derive(Clone, Copy, Debug)]
enum Ending {
    /// Black resigns.
    WhiteWins,
    /// White resigns.
    BlackWins,
    /// The players agree a draw after 1. d4 d5.
    Draw,
}

use Ending::{BlackWins, Draw, WhiteWins};

/// Ends an active game the way `ending` says.
async fn finish(client: &mut Client, game: &NewGame, ending: Ending) -> proto::Game {
    match ending {
        WhiteWins => seat(client, &game.black, resign(&game.id))
            .await
            .expect("resign"),
        BlackWins => seat(client, &game.white, resign(&game.id))
            .await
            .expect("resign"),
        Draw => {
            play_line(client, game, &["d4", "d5"]).await;
            seat(client, &game.white, offer_draw(&game.id))
                .await
                .expect("offer");
            seat(client, &game.black, accept_draw(&game.id))
                .await
                .expect("accept")
        }
    }
}

/// Creates a game from `request` and plays it to `ending`.
async fn played(
    admin: &mut AdminClient,
    client: &mut Client,
    request: proto::CreateGameRequest,
    ending: Ending,
) -> proto::Game {
    let game = create(admin, request).await.expect("create");
    let end = finish(client, &game, ending).await;
    assert_eq!(end.status, GameStatus::Finished as i32, "{end:?}");
    end
}

async fn try_standings(
    client: &mut Client,
    event: &str,
) -> Result<proto::GetStandingsResponse, Status> {
    client
        .get_standings(proto::GetStandingsRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

async fn standings(client: &mut Client, event: &str) -> proto::GetStandingsResponse {
    try_standings(client, event).await.expect("standings")
}

/// A standings line, compact enough to compare whole tables at once.
#[derive(Debug, PartialEq, Eq)]
struct Line {
    rank: i32,
    player: String,
    points: String,
    /// games_played, wins, draws, losses, forfeit_wins, forfeit_losses.
    counts: [i32; 6],
    /// direct_encounter, buchholz, buchholz_cut1, sonneborn_berger.
    tie_breaks: [String; 4],
}

fn line(rank: i32, player: &str, points: &str, counts: [i32; 6], tie_breaks: [&str; 4]) -> Line {
    Line {
        rank,
        player: player.to_owned(),
        points: points.to_owned(),
        counts,
        tie_breaks: tie_breaks.map(str::to_owned),
    }
}

/// The response's lines, checking each player's name on the way.
fn lines(response: &proto::GetStandingsResponse) -> Vec<Line> {
    response
        .standings
        .iter()
        .map(|s| {
            let player = s.player.clone().expect("player");
            assert_eq!(player.name, name_of(&player.id), "{s:?}");
            Line {
                rank: s.rank,
                player: player.id,
                points: s.points.clone(),
                counts: [
                    s.games_played,
                    s.wins,
                    s.draws,
                    s.losses,
                    s.forfeit_wins,
                    s.forfeit_losses,
                ],
                tie_breaks: [
                    s.direct_encounter.clone(),
                    s.buchholz.clone(),
                    s.buchholz_cut1.clone(),
                    s.sonneborn_berger.clone(),
                ],
            }
        })
        .collect()
}

/// A decimal number of points ("2.5", "-1", "0.125") in thousandths.
fn milli(points: &str) -> i64 {
    let (sign, digits) = match points.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, points),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    assert!(fraction.len() <= 3, "'{points}' has more than 3 decimals");
    let whole: i64 = whole.parse().unwrap_or_else(|_| panic!("'{points}'"));
    let fraction: i64 = format!("{fraction:0<3}")
        .parse()
        .unwrap_or_else(|_| panic!("'{points}'"));
    sign * (whole * 1000 + fraction)
}

/// The points of every line, summed, in thousandths.
fn total_milli(response: &proto::GetStandingsResponse) -> i64 {
    response.standings.iter().map(|s| milli(&s.points)).sum()
}

fn line_of<'a>(response: &'a proto::GetStandingsResponse, id: &str) -> &'a proto::Standing {
    response
        .standings
        .iter()
        .find(|s| s.player.as_ref().is_some_and(|p| p.id == id))
        .unwrap_or_else(|| panic!("{id} is not in the standings: {response:?}"))
}

/// A timestamp `ms` milliseconds from now.
fn from_now(ms: u64) -> prost_types::Timestamp {
    let at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        + Duration::from_millis(ms);
    prost_types::Timestamp {
        seconds: i64::try_from(at.as_secs()).expect("seconds"),
        nanos: i32::try_from(at.subsec_nanos()).expect("nanos"),
    }
}

/// Sleeps until `ms` milliseconds after `at`, a time from the server
/// (whose clock is this machine's: the in-memory store's or the local
/// Redis's).
async fn sleep_until(at: prost_types::Timestamp, ms: u64) {
    let at = Duration::new(
        u64::try_from(at.seconds).expect("seconds"),
        u32::try_from(at.nanos).expect("nanos"),
    );
    let target = UNIX_EPOCH + at + Duration::from_millis(ms);
    if let Ok(left) = target.duration_since(SystemTime::now()) {
        tokio::time::sleep(left).await;
    }
}

/// Sleeps until `ms` milliseconds after the game was created. Timing from
/// the creation itself, not from when the response arrived, keeps the race
/// window where it is meant to be.
async fn sleep_until_after_creation(game: &proto::Game, ms: u64) {
    sleep_until(game.create_time.expect("create_time"), ms).await;
}

/// Polls a game until it is finished (time must end it).
async fn wait_until_finished(client: &mut Client, game_id: &str) -> proto::Game {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let game = get(client, game_id).await;
        if game.status == GameStatus::Finished as i32 {
            return game;
        }
        assert!(Instant::now() < deadline, "the game never ended: {game:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

// ---------------------------------------------------------------------------
// Standings computed by hand
// ---------------------------------------------------------------------------

/// The round robin of a, b, c and d:
///
/// | round | board 1          | board 2          |
/// |-------|------------------|------------------|
/// | 1     | a – b  1-0       | c – d  ½-½       |
/// | 2     | d – a  1-0       | b – c  ½-½       |
/// | 3     | c – a  0-1       | d – b  0-1       |
///
/// So: a beat b and c and lost to d; b beat d and drew c; c and d drew.
/// The games are created in scrambled order: standings do not care.
async fn play_round_robin(
    admin: &mut AdminClient,
    client: &mut Client,
    event: &str,
    scoring: Option<proto::Scoring>,
) {
    let games = [
        (3, 2, "d", "b", BlackWins),
        (1, 1, "a", "b", WhiteWins),
        (2, 2, "b", "c", Draw),
        (1, 2, "c", "d", Draw),
        (3, 1, "c", "a", BlackWins),
        (2, 1, "d", "a", WhiteWins),
    ];
    for (round, board, white, black, ending) in games {
        let request = proto::CreateGameRequest {
            scoring: scoring.clone(),
            ..pairing(event, round, board, white, black)
        };
        played(admin, client, request, ending).await;
    }
}

async fn a_round_robin_with_classic_scoring(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    play_round_robin(&mut admin, &mut client, EVENT, None).await;
    let table = standings(&mut client, EVENT).await;
    assert_eq!(table.games_counted, 6);
    // Points: a 1 (b) + 1 (c) + 0 (d) = 2;  b 0 (a) + ½ (c) + 1 (d) = 1.5;
    //         c 0 (a) + ½ (b) + ½ (d) = 1;   d 1 (a) + 0 (b) + ½ (c) = 1.5.
    //         Sum 6, one point per game.
    // Buchholz (opponents' points), cut-1 (without the lowest):
    //   a: b 1.5 + c 1 + d 1.5 = 4,   cut-1 4 - 1 = 3
    //   b: a 2 + c 1 + d 1.5 = 4.5,   cut-1 4.5 - 1 = 3.5
    //   c: a 2 + b 1.5 + d 1.5 = 5,   cut-1 5 - 1.5 = 3.5
    //   d: a 2 + b 1.5 + c 1 = 4.5,   cut-1 4.5 - 1 = 3.5
    // Sonneborn-Berger (opponent's points × game score):
    //   a: b 1.5×1 + c 1×1 + d 0 (lost)               = 2.5
    //   b: a 0 + c 1×½ + d 1.5×1 = 0.5 + 1.5          = 2
    //   c: a 0 + b 1.5×½ + d 1.5×½ = 0.75 + 0.75      = 1.5
    //   d: a 2×1 + b 0 + c 1×½ = 2 + 0.5              = 2.5
    // Direct encounter: only b and d share a score (1.5); b beat d, so b
    // has 1 and d 0. a and c share their score with nobody: 0.
    // Order: a (2); then b and d on 1.5 with equal cut-1 (3.5) and
    // Buchholz (4.5): direct encounter puts b first although d has the
    // better Sonneborn-Berger (2.5 against 2); c last.
    assert_eq!(
        lines(&table),
        [
            line(1, "a", "2", [3, 2, 0, 1, 0, 0], ["0", "4", "3", "2.5"]),
            line(2, "b", "1.5", [3, 1, 1, 1, 0, 0], ["1", "4.5", "3.5", "2"]),
            line(
                3,
                "d",
                "1.5",
                [3, 1, 1, 1, 0, 0],
                ["0", "4.5", "3.5", "2.5"]
            ),
            line(4, "c", "1", [3, 0, 2, 1, 0, 0], ["0", "5", "3.5", "1.5"]),
        ]
    );
}

async fn the_same_round_robin_under_football_scoring(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Spring {Open} 2026 – football ⚽";
    play_round_robin(
        &mut admin,
        &mut client,
        event,
        Some(scoring(proto::ScoringPreset::Football)),
    )
    .await;
    let table = standings(&mut client, event).await;
    assert_eq!(table.games_counted, 6);
    // Win 3, draw 1, loss 0.
    // Points: a 3 (b) + 3 (c) + 0 (d) = 6;  b 0 (a) + 1 (c) + 3 (d) = 4;
    //         c 0 (a) + 1 (b) + 1 (d) = 2;  d 3 (a) + 0 (b) + 1 (c) = 4.
    // Buchholz, cut-1, from football points:
    //   a: b 4 + c 2 + d 4 = 10,   cut-1 10 - 2 = 8
    //   b: a 6 + c 2 + d 4 = 12,   cut-1 12 - 2 = 10
    //   c: a 6 + b 4 + d 4 = 14,   cut-1 14 - 4 = 10
    //   d: a 6 + b 4 + c 2 = 12,   cut-1 12 - 2 = 10
    // Sonneborn-Berger (opponent's football points × game score 1, ½, 0):
    //   a: b 4×1 + c 2×1 + d 0      = 6
    //   b: a 0 + c 2×½ + d 4×1      = 1 + 4 = 5
    //   c: a 0 + b 4×½ + d 4×½      = 2 + 2 = 4
    //   d: a 6×1 + b 0 + c 2×½      = 6 + 1 = 7
    // Direct encounter between b and d (both 4): b won, 3 football points.
    assert_eq!(
        lines(&table),
        [
            line(1, "a", "6", [3, 2, 0, 1, 0, 0], ["0", "10", "8", "6"]),
            line(2, "b", "4", [3, 1, 1, 1, 0, 0], ["3", "12", "10", "5"]),
            line(3, "d", "4", [3, 1, 1, 1, 0, 0], ["0", "12", "10", "7"]),
            line(4, "c", "2", [3, 0, 2, 1, 0, 0], ["0", "14", "10", "4"]),
        ]
    );
}

/// In a complete round robin players on equal points always have equal
/// Buchholz and cut-1 (their opponents are everybody else), so those two
/// tie-breaks can only decide in an incomplete, Swiss-like event. In this
/// one every criterion decides somewhere.
///
/// Games (White first):
///   round 1: c – h 1-0, b – e 1-0, f – i ½-½
///   round 2: a – b 1-0, g – e 0-1, c – d ½-½
///   round 3: e – i 1-0, h – g 0-1, c – f ½-½
///   round 4: d – h ½-½
async fn a_swiss_event_where_every_tie_break_decides(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Swiss {cup} – Zürich";
    let games = [
        (1, 1, "c", "h", WhiteWins),
        (1, 2, "b", "e", WhiteWins),
        (1, 3, "f", "i", Draw),
        (2, 1, "a", "b", WhiteWins),
        (2, 2, "g", "e", BlackWins),
        (2, 3, "c", "d", Draw),
        (3, 1, "e", "i", WhiteWins),
        (3, 2, "h", "g", BlackWins),
        (3, 3, "c", "f", Draw),
        (4, 1, "d", "h", Draw),
    ];
    for (round, board, white, black, ending) in games {
        played(
            &mut admin,
            &mut client,
            pairing(event, round, board, white, black),
            ending,
        )
        .await;
    }
    let table = standings(&mut client, event).await;
    assert_eq!(table.games_counted, 10);
    // Points: a 1 (b); b 1 (e) + 0 (a) = 1; c 1 (h) + ½ (d) + ½ (f) = 2;
    //   d ½ (c) + ½ (h) = 1; e 0 (b) + 1 (g) + 1 (i) = 2; f ½ (i) + ½ (c) = 1;
    //   g 0 (e) + 1 (h) = 1; h 0 (c) + 0 (g) + ½ (d) = ½; i ½ (f) + 0 (e) = ½.
    //   Sum 10, one per game.
    // The tie-breaks of the 2023 regulations: a round without a game (only
    // d and h play round 4) is an absence, a voluntarily unplayed round
    // (VUR) counted as a game against a dummy with the player's own
    // points (Art. 16.4). As an opponent, a player's absences after their
    // last game count as draws (Art. 16.3): adjusted scores a 2 (absent in
    // rounds 3 and 4), b 2, c 2.5, d 1, e 2.5, f 1.5, g 1.5, h ½, i 1.
    // Buchholz, per round (* a dummy of a VUR), and cut-1 (a VUR first):
    //   a: *1 + b 2 + *1 + *1          = 5,    cut-1 4
    //   b: e 2.5 + a 2 + *1 + *1       = 6.5,  cut-1 5.5
    //   c: h ½ + d 1 + f 1.5 + *2      = 5,    cut-1 3
    //   d: *1 + c 2.5 + *1 + h ½       = 5,    cut-1 4
    //   e: b 2 + g 1.5 + i 1 + *2      = 6.5,  cut-1 4.5
    //   f: i 1 + *1 + c 2.5 + *1       = 5.5,  cut-1 4.5
    //   g: *1 + e 2.5 + h ½ + *1       = 5,    cut-1 4
    //   h: c 2.5 + *½ + g 1.5 + d 1    = 5.5,  cut-1 5
    //   i: f 1.5 + *½ + e 2.5 + *½     = 5,    cut-1 4.5
    // Sonneborn-Berger (an absence scores 0, so its dummy adds nothing):
    //   a: b 2×1 = 2; b: e 2.5×1 = 2.5; c: h ½ + d 1×½ + f 1.5×½ = 1.75;
    //   d: c 2.5×½ + h ½×½ = 1.5; e: g 1.5 + i 1 = 2.5;
    //   f: i 1×½ + c 2.5×½ = 1.75; g: h ½ = 0.5; h: d 1×½ = 0.5;
    //   i: f 1.5×½ = 0.75.
    // Direct encounter: among {c, e} (2) nobody met, among {a, b, d, f, g}
    // (1) not all met, among {h, i} (½) nobody met: it applies to none.
    // Order (the default: DE, BH cut-1, BH, SB, games won):
    //   e before c: cut-1 4.5 against 3.
    //   on 1 point: b (cut-1 5.5), f (4.5), then a, d, g (cut-1 4,
    //   Buchholz 5) by Sonneborn-Berger 2, 1.5, 0.5.
    //   h before i: cut-1 5 against 4.5.
    assert_eq!(
        lines(&table),
        [
            line(1, "e", "2", [3, 2, 0, 1, 0, 0], ["0", "6.5", "4.5", "2.5"]),
            line(2, "c", "2", [3, 1, 2, 0, 0, 0], ["0", "5", "3", "1.75"]),
            line(3, "b", "1", [2, 1, 0, 1, 0, 0], ["0", "6.5", "5.5", "2.5"]),
            line(4, "f", "1", [2, 0, 2, 0, 0, 0], ["0", "5.5", "4.5", "1.75"]),
            line(5, "a", "1", [1, 1, 0, 0, 0, 0], ["0", "5", "4", "2"]),
            line(6, "d", "1", [2, 0, 2, 0, 0, 0], ["0", "5", "4", "1.5"]),
            line(7, "g", "1", [2, 1, 0, 1, 0, 0], ["0", "5", "4", "0.5"]),
            line(8, "h", "0.5", [3, 0, 1, 2, 0, 0], ["0", "5.5", "5", "0.5"]),
            line(9, "i", "0.5", [2, 0, 1, 1, 0, 0], ["0", "5", "4.5", "0.75"]),
        ]
    );
}

/// Custom points that differ by colour, and an Armageddon game whose draw
/// is Black's win, as the standings count them.
async fn per_colour_points_and_armageddon_in_standings(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Armageddon {final} – Ω";
    // White scores 2 / 1 / 0, Black 3 / 1.5 / 0.5.
    let custom = proto::Scoring {
        system: Some(proto::scoring::System::Custom(proto::CustomScoring {
            white: Some(table("2", "1", "0")),
            black: Some(table("3", "1.5", "0.5")),
        })),
        armageddon: false,
    };
    let armageddon = proto::Scoring {
        armageddon: true,
        ..scoring(proto::ScoringPreset::Classic)
    };
    // Game 1: p (White) draws q under the custom table: p 1, q 1.5.
    let first = played(
        &mut admin,
        &mut client,
        proto::CreateGameRequest {
            scoring: Some(custom.clone()),
            ..pairing(event, 1, 1, "p", "q")
        },
        Draw,
    )
    .await;
    let first_score = score(&first);
    assert_eq!(
        (
            first_score.white_points.as_str(),
            first_score.black_points.as_str()
        ),
        ("1", "1.5")
    );
    // Game 2: q (White) and p draw an Armageddon game: a draw on the board
    // that scores as Black's (p's) win, 1-0 in points for p.
    let second = played(
        &mut admin,
        &mut client,
        proto::CreateGameRequest {
            scoring: Some(armageddon),
            ..pairing(event, 2, 1, "q", "p")
        },
        Draw,
    )
    .await;
    let result = second.result.clone().expect("result");
    assert_eq!(result.outcome, Outcome::Draw as i32);
    assert_eq!(result.termination, Termination::Agreement as i32);
    let score = score(&second);
    assert_eq!(score.scored_as, Outcome::BlackWins as i32);
    assert_eq!(
        (score.white_points.as_str(), score.black_points.as_str()),
        ("0", "1")
    );
    // Game 3: p (White) beats q under the custom table: p 2, q 0.5 (Black's
    // loss scores half a point).
    played(
        &mut admin,
        &mut client,
        proto::CreateGameRequest {
            scoring: Some(custom),
            ..pairing(event, 3, 1, "p", "q")
        },
        WhiteWins,
    )
    .await;

    let table = standings(&mut client, event).await;
    assert_eq!(table.games_counted, 3);
    // p: 1 + 1 + 2 = 4, two wins (one the Armageddon draw) and a draw.
    // q: 1.5 + 0 + 0.5 = 2, a draw and two losses.
    // Buchholz: p met q three times: 3 × 2 = 6, cut-1 6 - 2 = 4;
    //           q met p three times: 3 × 4 = 12, cut-1 12 - 4 = 8.
    // Sonneborn-Berger: p: q's 2 × (½ + 1 + 1) = 5;
    //                   q: p's 4 × (½ + 0 + 0) = 2.
    // Direct encounter: no shared scores, 0 each.
    assert_eq!(
        lines(&table),
        [
            line(1, "p", "4", [3, 2, 1, 0, 0, 0], ["0", "6", "4", "5"]),
            line(2, "q", "2", [3, 0, 1, 2, 0, 0], ["0", "12", "8", "2"]),
        ]
    );
}

/// A no-show counts for points and as a forfeit, but not as a game played
/// nor in anyone's tie-breaks.
///
/// Games: x – y, a no-show (y checks in, x never arrives and forfeits);
///        y – z 1-0; z – x ½-½.
async fn forfeits_count_for_points_but_not_as_games_played(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Forfeits {no-show} – ✗";
    let no_show = create(
        &mut admin,
        proto::CreateGameRequest {
            scheduled_start_time: Some(from_now(200)),
            default_time_millis: 1000,
            ..pairing(event, 1, 1, "x", "y")
        },
    )
    .await
    .expect("create");
    let checked = seat(&mut client, &no_show.black, common::check_in(&no_show.id))
        .await
        .expect("y, Black, checks in");
    // Before the default time has run out the game counts for nothing.
    let early = standings(&mut client, event).await;
    // Every read settles a default time that has run out, so a game still
    // undecided after the standings were read proves, by the server's own
    // clock, that they were read before its default time ran out, and that
    // reading them did not forfeit it early.
    // (Pending or already started: either way undecided.)
    let waiting = get(&mut client, &no_show.id).await;
    assert!(
        [GameStatus::Pending as i32, GameStatus::Active as i32].contains(&waiting.status),
        "{waiting:?}"
    );
    assert_eq!(waiting.result, None, "{waiting:?}");
    assert_eq!(waiting.version, checked.version, "{waiting:?}");
    assert_eq!(early.games_counted, 0);
    assert_eq!(
        lines(&early),
        [
            line(1, "x", "0", [0; 6], ["0", "0", "0", "0"]),
            line(1, "y", "0", [0; 6], ["0", "0", "0", "0"]),
        ]
    );
    played(
        &mut admin,
        &mut client,
        pairing(event, 1, 2, "y", "z"),
        WhiteWins,
    )
    .await;
    played(
        &mut admin,
        &mut client,
        pairing(event, 2, 1, "z", "x"),
        Draw,
    )
    .await;
    // Well after the default time: reading the standings alone settles it.
    let schedule = setup(&no_show.game);
    sleep_until(
        schedule.scheduled_start_time.expect("scheduled_start_time"),
        u64::try_from(schedule.default_time_millis).expect("a default time") + 300,
    )
    .await;
    let table = standings(&mut client, event).await;
    assert_eq!(table.games_counted, 3);
    let forfeit = get(&mut client, &no_show.id).await;
    let result = forfeit.result.clone().expect("result");
    assert_eq!(result.termination, Termination::NoShow as i32);
    assert_eq!(result.outcome, Outcome::BlackWins as i32);
    assert!(score(&forfeit).unplayed);
    // Points: y 1 (forfeit) + 1 (z) = 2; z 0 (y) + ½ (x) = ½;
    //         x 0 (forfeit) + ½ (z) = ½.
    // Over the board: y met z; z met y and x; x met z. Two rounds are
    // held: y has no game in round 2, an absence (voluntarily unplayed).
    // Unplayed rounds count as games against a dummy with the player's
    // own points (2023, Art. 16.4); as an opponent, y's absence after its
    // last game counts as a draw (Art. 16.3): adjusted scores y 2.5,
    // z ½, x ½ (x's forfeit comes before its game of round 2).
    // Buchholz, cut-1 (a voluntarily unplayed round cut first):
    //   y: forfeit win, dummy 2 + z ½ + absence, dummy 2 = 4.5, cut-1 2.5;
    //   z: y 2.5 + x ½ = 3, cut-1 2.5;
    //   x: forfeit loss, dummy ½ + z ½ = 1, cut-1 ½.
    // Sonneborn-Berger: y: dummy 2×1 + z ½×1 + absence 0 = 2.5;
    //   z: y 0 + x ½×½ = ¼; x: dummy 0 + z ½×½ = ¼.
    // Direct encounter: z and x (both ½) drew: ½ each; y shares with nobody.
    // z before x on cut-1 (2.5 against ½).
    assert_eq!(
        lines(&table),
        [
            line(1, "y", "2", [1, 1, 0, 0, 1, 0], ["0", "4.5", "2.5", "2.5"]),
            line(
                2,
                "z",
                "0.5",
                [2, 0, 1, 1, 0, 0],
                ["0.5", "3", "2.5", "0.25"]
            ),
            line(
                3,
                "x",
                "0.5",
                [1, 0, 1, 0, 0, 1],
                ["0.5", "1", "0.5", "0.25"]
            ),
        ]
    );
}

/// Unfinished and aborted games list their players with nothing, and are
/// not counted.
async fn unfinished_and_aborted_games_count_for_nothing(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Unfinished {business} – ½";
    let active = create(&mut admin, pairing(event, 1, 1, "u1", "u2"))
        .await
        .expect("create");
    play_line(&mut client, &active, &["e4"]).await;
    let called_off = create(&mut admin, pairing(event, 1, 2, "v1", "v2"))
        .await
        .expect("create");
    let aborted = seat(&mut client, &called_off.black, abort(&called_off.id))
        .await
        .expect("abort");
    assert_eq!(aborted.status, GameStatus::Aborted as i32);
    // A timed game still running counts for nothing either.
    create(&mut admin, timed(event, 1, 3, "t1", "t2", 3_600_000))
        .await
        .expect("create");
    played(
        &mut admin,
        &mut client,
        pairing(event, 1, 4, "w1", "w2"),
        WhiteWins,
    )
    .await;

    let table = standings(&mut client, event).await;
    assert_eq!(table.games_counted, 1);
    // w1 1 point (beat w2): Buchholz w2's 0. w2 0 points, Buchholz w1's 1
    // (cut-1 drops it), which puts w2 ahead of the six players without a
    // finished game, who are equal on everything and share rank 3.
    let zero = ["0", "0", "0", "0"];
    assert_eq!(
        lines(&table),
        [
            line(1, "w1", "1", [1, 1, 0, 0, 0, 0], zero),
            line(2, "w2", "0", [1, 0, 0, 1, 0, 0], ["0", "1", "0", "0"]),
            line(3, "t1", "0", [0; 6], zero),
            line(3, "t2", "0", [0; 6], zero),
            line(3, "u1", "0", [0; 6], zero),
            line(3, "u2", "0", [0; 6], zero),
            line(3, "v1", "0", [0; 6], zero),
            line(3, "v2", "0", [0; 6], zero),
        ]
    );
}

// ---------------------------------------------------------------------------
// Each finished game counts exactly once
// ---------------------------------------------------------------------------

/// Reads the standings and the game until `stop`, checking that they never
/// count the game twice nor take back a count. Returns how many reads it
/// made.
async fn read_while_racing(
    mut client: Client,
    event: String,
    game_id: String,
    stop: Arc<AtomicBool>,
) -> usize {
    let mut reads = 0;
    let mut counted = 0;
    while !stop.load(Ordering::SeqCst) {
        let table = standings(&mut client, &event).await;
        assert!(table.games_counted <= 1, "{table:?}");
        assert!(table.games_counted >= counted, "a count was taken back");
        counted = table.games_counted;
        assert_eq!(
            total_milli(&table),
            1000 * i64::from(counted),
            "one point per finished game: {table:?}"
        );
        let game = get(&mut client, &game_id).await;
        if counted == 1 {
            assert_eq!(game.status, GameStatus::Finished as i32, "{game:?}");
        }
        reads += 1;
    }
    reads
}

/// After the game ended: counted once, with the points its result gives.
async fn assert_counted_once(client: &mut Client, event: &str, end: &proto::Game) {
    let table = standings(client, event).await;
    assert_eq!(table.games_counted, 1, "{table:?}");
    assert_eq!(total_milli(&table), 1000, "{table:?}");
    let score = score(end);
    let white = setup(end).white.clone().expect("white").id;
    let black = setup(end).black.clone().expect("black").id;
    assert_eq!(line_of(&table, &white).points, score.white_points);
    assert_eq!(line_of(&table, &black).points, score.black_points);
    assert_eq!(line_of(&table, &white).games_played, 1);
    assert_eq!(line_of(&table, &black).games_played, 1);
}

/// The game's log holds exactly one ending, as its last event.
async fn assert_one_ending(client: &mut Client, game_id: &str) {
    let mut stream = watch(client, game_id, 1).await;
    let events = drain(&mut stream).await;
    let endings = events
        .iter()
        .filter(|e| matches!(e.kind, Some(Kind::GameEnded(_))))
        .count();
    assert_eq!(endings, 1, "{events:?}");
    assert!(
        matches!(
            events.last().and_then(|e| e.kind.as_ref()),
            Some(Kind::GameEnded(_))
        ),
        "{events:?}"
    );
}

/// White's flag (300 ms for the game) falls while White's first move is
/// on its way and another client reads the standings and the game: the
/// game ends once, by the flag (before or after the move) and is counted
/// once.
async fn a_flag_racing_a_move_is_counted_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    for attempt in 0..8 {
        let event = format!("Flag race {{{attempt}}} – ⏱");
        let game = create(&mut admin, timed(&event, 1, 1, "fast", "slow", 300))
            .await
            .expect("create");
        let stop = Arc::new(AtomicBool::new(false));
        let reader = tokio::spawn(read_while_racing(
            app.client().await,
            event.clone(),
            game.id.clone(),
            stop.clone(),
        ));
        // Around the flag: from 50 ms before it to 20 ms after.
        sleep_until_after_creation(&game.game, 250 + 10 * attempt).await;
        if let Err(status) = seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await {
            assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
            assert_eq!(reason(&status), "GAME_OVER", "{status:?}");
        }
        // Nobody moves again: a flag ends the game.
        let end = wait_until_finished(&mut client, &game.id).await;
        let result = end.result.clone().expect("result");
        assert_eq!(
            result.termination,
            Termination::Timeout as i32,
            "{result:?}"
        );
        stop.store(true, Ordering::SeqCst);
        let reads = reader.await.expect("the reader saw nothing wrong");
        assert!(reads > 0);
        assert_counted_once(&mut client, &event, &end).await;
        assert_one_ending(&mut client, &game.id).await;
    }
}

/// Two replicas share one Redis and race to end the same game: one reads
/// the standings as White's flag falls (committing the flag), the other
/// resigns for Black. One ending wins; both replicas then show identical
/// standings counting the game once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_one_redis_agree_on_standings() {
    let first = TestApp::spawn(Backend::Redis).await;
    // Same Redis, same key prefix.
    let second = TestApp::spawn_with(first.settings.clone(), None).await;
    let (mut a, mut b) = (first.client().await, second.client().await);
    let mut admin = first.admin_client().await;
    for attempt in 0..8 {
        let event = format!("Replicas {{{attempt}}} – ♞");
        let game = create(&mut admin, timed(&event, 1, 1, "white", "black", 300))
            .await
            .expect("create");
        sleep_until_after_creation(&game.game, 250 + 10 * attempt).await;
        let (mut a1, mut a2, mut b1, mut b2) = (a.clone(), a.clone(), b.clone(), b.clone());
        let (on_a, on_b, resigned, _) = tokio::join!(
            try_standings(&mut a1, &event),
            try_standings(&mut b1, &event),
            seat(&mut b2, &game.black, resign(&game.id)),
            get(&mut a2, &game.id),
        );
        for table in [on_a.expect("standings on a"), on_b.expect("standings on b")] {
            assert!(table.games_counted <= 1, "{table:?}");
            assert_eq!(total_milli(&table), 1000 * i64::from(table.games_counted));
        }
        let end = match resigned {
            Ok(game) => game,
            Err(status) => {
                assert_eq!(reason(&status), "GAME_OVER", "{status:?}");
                wait_until_finished(&mut a, &game.id).await
            }
        };
        let on_a = get(&mut a, &game.id).await;
        let on_b = get(&mut b, &game.id).await;
        assert_eq!(on_a.result, on_b.result);
        assert_eq!(on_a.result, end.result);
        assert_eq!(on_a.version, on_b.version);
        let termination = end.result.clone().expect("result").termination;
        assert!(
            termination == Termination::Timeout as i32
                || termination == Termination::Resignation as i32,
            "{end:?}"
        );
        let table_a = standings(&mut a, &event).await;
        let table_b = standings(&mut b, &event).await;
        assert_eq!(table_a, table_b);
        assert_counted_once(&mut a, &event, &end).await;
        assert_one_ending(&mut b, &game.id).await;
    }
}

// ---------------------------------------------------------------------------
// ListGames
// ---------------------------------------------------------------------------

async fn list_page(
    client: &mut Client,
    event: &str,
    status: GameStatus,
    page_size: i32,
    page_token: &str,
) -> Result<proto::ListGamesResponse, Status> {
    list_view(
        client,
        event,
        status,
        GameView::Unspecified,
        page_size,
        page_token,
    )
    .await
}

async fn list_view(
    client: &mut Client,
    event: &str,
    status: GameStatus,
    view: GameView,
    page_size: i32,
    page_token: &str,
) -> Result<proto::ListGamesResponse, Status> {
    client
        .list_games(proto::ListGamesRequest {
            event_id: event.to_owned(),
            status: status.into(),
            page_size,
            page_token: page_token.to_owned(),
            view: view.into(),
            needs_review: false,
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Every page, following the tokens until an empty one; checks that no
/// page is larger than asked.
async fn list_all(
    client: &mut Client,
    event: &str,
    status: GameStatus,
    page_size: i32,
) -> Vec<proto::Game> {
    let mut games = Vec::new();
    let mut token = String::new();
    for _ in 0..100 {
        let page = list_page(client, event, status, page_size, &token)
            .await
            .expect("list games");
        assert!(
            page.games.len() <= page_size as usize,
            "{} games on a page of {page_size}",
            page.games.len()
        );
        games.extend(page.games);
        if page.next_page_token.is_empty() {
            return games;
        }
        token = page.next_page_token;
    }
    panic!("paging did not end after 100 pages");
}

fn ids(games: &[proto::Game]) -> Vec<String> {
    games.iter().map(|g| g.game_id.clone()).collect()
}

/// Where a listed game belongs: its event, round and board.
fn pairing_of(game: &proto::Game) -> proto::Pairing {
    setup(game).pairing.clone().expect("pairing")
}

async fn list_games_in_round_and_board_order_with_paging(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    // Created out of order.
    let mut created = Vec::new();
    for (round, board) in [(2, 1), (1, 2), (3, 1), (1, 1), (2, 2)] {
        let game = create(&mut admin, pairing(EVENT, round, board, "w", "b"))
            .await
            .expect("create");
        created.push(((round, board), game.id));
    }
    created.sort();
    let expected: Vec<String> = created.into_iter().map(|(_, id)| id).collect();

    // Pages of two: 2 + 2 + 1, the last without a token.
    let first = list_page(&mut client, EVENT, GameStatus::Unspecified, 2, "")
        .await
        .expect("page 1");
    assert_eq!(ids(&first.games), expected[..2]);
    assert!(!first.next_page_token.is_empty());
    let second = list_page(
        &mut client,
        EVENT,
        GameStatus::Unspecified,
        2,
        &first.next_page_token,
    )
    .await
    .expect("page 2");
    assert_eq!(ids(&second.games), expected[2..4]);
    assert!(!second.next_page_token.is_empty());
    let third = list_page(
        &mut client,
        EVENT,
        GameStatus::Unspecified,
        2,
        &second.next_page_token,
    )
    .await
    .expect("page 3");
    assert_eq!(ids(&third.games), expected[4..]);
    assert_eq!(third.next_page_token, "");
    let listed: Vec<proto::Game> = [first.games, second.games, third.games].concat();
    let orders: Vec<(i32, i32)> = listed
        .iter()
        .map(|g| (pairing_of(g).round, pairing_of(g).board))
        .collect();
    assert_eq!(orders, [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)]);
    assert!(listed.iter().all(|g| pairing_of(g).event_id == EVENT));

    // Any page size gives every game once, in order.
    for page_size in [1, 3, 4, 5, 6, 500] {
        let all = list_all(&mut client, EVENT, GameStatus::Unspecified, page_size).await;
        assert_eq!(ids(&all), expected, "page size {page_size}");
    }
    // 0 means 50: one page.
    let all = list_page(&mut client, EVENT, GameStatus::Unspecified, 0, "")
        .await
        .expect("default page size");
    assert_eq!(ids(&all.games), expected);
    assert_eq!(all.next_page_token, "");
}

/// Pages follow the round and board order from where the last one ended:
/// games added meanwhile show on later pages when they sort after it, and
/// no game is listed twice or skipped.
async fn pages_hold_steady_while_games_are_added(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Growing {event} – ➕";
    let mut by_board = std::collections::HashMap::new();
    for (round, board) in [(1, 1), (1, 3), (2, 1), (2, 3)] {
        let game = create(&mut admin, pairing(event, round, board, "w", "b"))
            .await
            .expect("create");
        by_board.insert((round, board), game.id);
    }
    let first = list_page(&mut client, event, GameStatus::Unspecified, 2, "")
        .await
        .expect("page 1");
    assert_eq!(
        ids(&first.games),
        [by_board[&(1, 1)].clone(), by_board[&(1, 3)].clone()]
    );
    // One game sorts before the page just read, one after it.
    for (round, board) in [(1, 2), (2, 2)] {
        let game = create(&mut admin, pairing(event, round, board, "w", "b"))
            .await
            .expect("create");
        by_board.insert((round, board), game.id);
    }
    let second = list_page(
        &mut client,
        event,
        GameStatus::Unspecified,
        2,
        &first.next_page_token,
    )
    .await
    .expect("page 2");
    assert_eq!(
        ids(&second.games),
        [by_board[&(2, 1)].clone(), by_board[&(2, 2)].clone()]
    );
    let third = list_page(
        &mut client,
        event,
        GameStatus::Unspecified,
        2,
        &second.next_page_token,
    )
    .await
    .expect("page 3");
    assert_eq!(ids(&third.games), [by_board[&(2, 3)].clone()]);
    assert_eq!(third.next_page_token, "");
    // A fresh listing has every game, in order.
    let all = list_all(&mut client, event, GameStatus::Unspecified, 50).await;
    let mut expected: Vec<_> = by_board.into_iter().collect();
    expected.sort();
    let expected: Vec<String> = expected.into_iter().map(|(_, id)| id).collect();
    assert_eq!(ids(&all), expected);
}

async fn list_games_filters_by_status_with_paging(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Status {filter} – ☑";
    let new = |round, board| pairing(event, round, board, "w", "b");
    let r1b1 = create(&mut admin, new(1, 1)).await.expect("create");
    play_line(&mut client, &r1b1, &["e4"]).await;
    let r1b2 = played(&mut admin, &mut client, new(1, 2), WhiteWins).await;
    let r2b1 = create(&mut admin, new(2, 1)).await.expect("create");
    seat(&mut client, &r2b1.white, abort(&r2b1.id))
        .await
        .expect("abort");
    let r2b2 = played(&mut admin, &mut client, new(2, 2), Draw).await;
    let r3b1 = create(&mut admin, new(3, 1)).await.expect("create");
    // A timed game whose flag falls unattended: listed as it stands now,
    // finished, whoever notices first (the sweeper or the listing).
    let r3b2 = create(&mut admin, timed(event, 3, 2, "w", "b", 200))
        .await
        .expect("create");
    // A game that starts long after the test: pending.
    let r3b3 = create(
        &mut admin,
        proto::CreateGameRequest {
            scheduled_start_time: Some(from_now(3_600_000)),
            ..new(3, 3)
        },
    )
    .await
    .expect("create");
    tokio::time::sleep(Duration::from_millis(400)).await;

    let pending = vec![r3b3.id.clone()];
    let active = vec![r1b1.id.clone(), r3b1.id.clone()];
    let finished = vec![r1b2.game_id.clone(), r2b2.game_id.clone(), r3b2.id.clone()];
    let aborted = vec![r2b1.id.clone()];
    let all = vec![
        r1b1.id.clone(),
        r1b2.game_id.clone(),
        r2b1.id.clone(),
        r2b2.game_id.clone(),
        r3b1.id.clone(),
        r3b2.id.clone(),
        r3b3.id.clone(),
    ];
    for page_size in [1, 2, 3, 50] {
        for (status, expected) in [
            (GameStatus::Pending, &pending),
            (GameStatus::Active, &active),
            (GameStatus::Finished, &finished),
            (GameStatus::Aborted, &aborted),
            (GameStatus::Unspecified, &all),
        ] {
            let listed = list_all(&mut client, event, status, page_size).await;
            assert_eq!(&ids(&listed), expected, "{status:?}, pages of {page_size}");
            if status != GameStatus::Unspecified {
                assert!(
                    listed.iter().all(|g| g.status == status as i32),
                    "{listed:?}"
                );
            }
        }
    }
    let flagged = get(&mut client, &r3b2.id).await;
    assert_eq!(
        flagged.result.expect("result").termination,
        Termination::Timeout as i32
    );
}

/// A filter that matches rarely still pages through every game: a page may
/// come back short (even empty) with a token to go on.
async fn a_sparse_filter_still_finds_every_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Sparse {filter}";
    for board in 1..=12 {
        create(&mut admin, pairing(event, 1, board, "w", "b"))
            .await
            .expect("create");
    }
    let last = played(
        &mut admin,
        &mut client,
        pairing(event, 2, 1, "w", "b"),
        BlackWins,
    )
    .await;
    for page_size in [1, 2, 5] {
        let listed = list_all(&mut client, event, GameStatus::Finished, page_size).await;
        assert_eq!(
            ids(&listed),
            std::slice::from_ref(&last.game_id),
            "pages of {page_size}"
        );
        let listed = list_all(&mut client, event, GameStatus::Aborted, page_size).await;
        assert!(listed.is_empty(), "{listed:?}");
        let listed = list_all(&mut client, event, GameStatus::Pending, page_size).await;
        assert!(listed.is_empty(), "{listed:?}");
        let listed = list_all(&mut client, event, GameStatus::Active, page_size).await;
        assert_eq!(listed.len(), 12);
    }
}

/// Other events' games are never listed nor counted (even events whose
/// ids differ only in case or a character); listed games carry no moves
/// unless the full view is asked for; an unknown event has no games and
/// empty standings.
async fn events_are_kept_apart_and_listed_without_moves(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let others = ["Spring {Open} 2026 – B", "spring {open} 2026 – a", "Spring"];
    for (i, other) in others.iter().enumerate() {
        played(
            &mut admin,
            &mut client,
            pairing(other, 1, 1, &format!("o{i}"), "x"),
            Draw,
        )
        .await;
    }
    // A game in no event.
    played(&mut admin, &mut client, pairing("", 1, 1, "n", "x"), Draw).await;
    let mine = create(&mut admin, pairing(EVENT, 1, 1, "a", "b"))
        .await
        .expect("create");
    let after = play_line(&mut client, &mine, &["e4", "e5"]).await;
    assert_eq!(after.ply, 2);
    let other_mine = played(
        &mut admin,
        &mut client,
        pairing(EVENT, 1, 2, "c", "d"),
        WhiteWins,
    )
    .await;

    let listed = list_all(&mut client, EVENT, GameStatus::Unspecified, 50).await;
    assert_eq!(ids(&listed), [mine.id.clone(), other_mine.game_id.clone()]);
    let game = &listed[0];
    assert!(game.moves.is_empty(), "listed without moves: {game:?}");
    assert_eq!(game.last_move, after.last_move);
    assert_eq!(game.ply, 2);
    assert_eq!(game.fen, after.fen);
    assert_eq!(game.version, after.version);
    assert_eq!(pairing_of(game).event_id, EVENT);
    assert!(listed[1].moves.is_empty());
    let full = get_full(&mut client, &mine.id).await;
    assert_eq!(full.moves.len(), 2);
    // The full view lists them with their moves.
    let page = list_view(
        &mut client,
        EVENT,
        GameStatus::Unspecified,
        GameView::Full,
        0,
        "",
    )
    .await
    .expect("list with moves");
    assert_eq!(ids(&page.games), ids(&listed));
    assert_eq!(page.games[0].moves, full.moves);
    assert_eq!(page.next_page_token, "");

    let table = standings(&mut client, EVENT).await;
    assert_eq!(table.games_counted, 1);
    let players: HashSet<String> = table
        .standings
        .iter()
        .map(|s| s.player.clone().expect("player").id)
        .collect();
    assert_eq!(
        players,
        ["a", "b", "c", "d"]
            .map(str::to_owned)
            .into_iter()
            .collect()
    );
    for (i, other) in others.iter().enumerate() {
        let listed = list_all(&mut client, other, GameStatus::Unspecified, 50).await;
        assert_eq!(listed.len(), 1, "{other}");
        assert_eq!(pairing_of(&listed[0]).event_id, *other);
        let table = standings(&mut client, other).await;
        assert_eq!(table.games_counted, 1, "{other}");
        assert_eq!(
            table.standings.len(),
            2,
            "{other}: only o{i} and x: {table:?}"
        );
    }

    let unknown = "No such event {at all}";
    let page = list_page(&mut client, unknown, GameStatus::Unspecified, 0, "")
        .await
        .expect("list an unknown event");
    assert!(page.games.is_empty());
    assert_eq!(page.next_page_token, "");
    let table = standings(&mut client, unknown).await;
    assert!(table.standings.is_empty());
    assert_eq!(table.games_counted, 0);
}

/// The full view pages by at most 20 games, whatever page size is asked.
async fn the_full_view_pages_by_twenty_at_most(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let event = "Full {view} – 21 boards";
    for board in 1..=21 {
        create(&mut admin, pairing(event, 1, board, "w", "b"))
            .await
            .expect("create");
    }
    for page_size in [0, 21, 500] {
        let first = list_view(
            &mut client,
            event,
            GameStatus::Unspecified,
            GameView::Full,
            page_size,
            "",
        )
        .await
        .expect("page 1");
        assert_eq!(first.games.len(), 20, "page size {page_size}");
        assert!(!first.next_page_token.is_empty());
        let second = list_view(
            &mut client,
            event,
            GameStatus::Unspecified,
            GameView::Full,
            page_size,
            &first.next_page_token,
        )
        .await
        .expect("page 2");
        assert_eq!(second.games.len(), 1, "page size {page_size}");
        assert_eq!(second.next_page_token, "");
        let boards: Vec<i32> = first
            .games
            .iter()
            .chain(&second.games)
            .map(|g| pairing_of(g).board)
            .collect();
        assert_eq!(boards, (1..=21).collect::<Vec<_>>());
    }
    // The basic view takes the page size as asked. (A full page may come
    // with a token to an empty last page: the server does not look ahead.)
    let page = list_page(&mut client, event, GameStatus::Unspecified, 21, "")
        .await
        .expect("basic");
    assert_eq!(page.games.len(), 21);
    if !page.next_page_token.is_empty() {
        let rest = list_page(
            &mut client,
            event,
            GameStatus::Unspecified,
            21,
            &page.next_page_token,
        )
        .await
        .expect("the page after a full one");
        assert!(rest.games.is_empty(), "{rest:?}");
        assert_eq!(rest.next_page_token, "");
    }
}

/// Asserts INVALID_ARGUMENT whose BadRequest names exactly `field`.
#[track_caller]
fn assert_invalid_field<T: std::fmt::Debug>(result: Result<T, Status>, field: &str) {
    let status = expect_code(result, Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
    let fields: Vec<String> = status
        .get_details_bad_request()
        .expect("a BadRequest detail")
        .field_violations
        .into_iter()
        .map(|violation| violation.field)
        .collect();
    assert_eq!(fields, [field], "{status:?}");
}

async fn list_games_and_standings_validate_their_requests(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    for board in [1, 2] {
        create(&mut admin, pairing(EVENT, 1, board, "a", "b"))
            .await
            .expect("create");
    }
    let any = GameStatus::Unspecified;
    // Sizes above 500 are taken as 500; negative ones are refused.
    for page_size in [500, 501, i32::MAX] {
        let page = list_page(&mut client, EVENT, any, page_size, "")
            .await
            .unwrap_or_else(|status| panic!("page size {page_size}: {status:?}"));
        assert_eq!(page.games.len(), 2);
        assert_eq!(page.next_page_token, "");
    }
    for page_size in [-1, i32::MIN] {
        assert_invalid_field(
            list_page(&mut client, EVENT, any, page_size, "").await,
            "page_size",
        );
    }
    for forged in ["xyz", "p", "p!", "P1", "p-1", "pzzzzzzzzzzzzzzzzzzzz"] {
        assert_invalid_field(
            list_page(&mut client, EVENT, any, 2, forged).await,
            "page_token",
        );
    }
    // A token is valid only for the query it came from.
    let first = list_page(&mut client, EVENT, any, 1, "")
        .await
        .expect("page 1");
    let token = first.next_page_token.as_str();
    assert!(!token.is_empty());
    assert_invalid_field(
        list_page(&mut client, EVENT, GameStatus::Active, 1, token).await,
        "page_token",
    );
    assert_invalid_field(
        list_page(&mut client, "Another {event}", any, 1, token).await,
        "page_token",
    );
    assert_invalid_field(
        list_view(&mut client, EVENT, any, GameView::Full, 1, token).await,
        "page_token",
    );
    // The page size may change from page to page.
    let rest = list_page(&mut client, EVENT, any, 5, token)
        .await
        .expect("page 2");
    assert_eq!(rest.games.len(), 1);
    assert_ne!(rest.games[0].game_id, first.games[0].game_id);

    assert_invalid_field(list_page(&mut client, "", any, 2, "").await, "event_id");
    assert_invalid_field(try_standings(&mut client, "").await, "event_id");
    let control = "Spring\n2026";
    assert_invalid_field(
        list_page(&mut client, control, any, 2, "").await,
        "event_id",
    );
    assert_invalid_field(try_standings(&mut client, control).await, "event_id");
    let long = "é".repeat(129);
    assert_invalid_field(list_page(&mut client, &long, any, 2, "").await, "event_id");
    assert_invalid_field(try_standings(&mut client, &long).await, "event_id");
    // 128 characters (of two bytes each) is still an event id.
    let longest = "é".repeat(128);
    let page = list_page(&mut client, &longest, any, 2, "")
        .await
        .expect("128 characters are allowed");
    assert!(page.games.is_empty());
}

/// CreateGame repeated with the same request_id lists and counts the game
/// once, before and after it ends.
async fn an_idempotent_create_is_listed_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let request = proto::CreateGameRequest {
        request_id: "spring-open-r1-b1".to_owned(),
        ..pairing(EVENT, 1, 1, "a", "b")
    };
    let first = create(&mut admin, request.clone()).await.expect("create");
    let again = create(&mut admin, request.clone()).await.expect("repeat");
    assert_eq!(first.id, again.id);
    let listed = list_all(&mut client, EVENT, GameStatus::Unspecified, 50).await;
    assert_eq!(ids(&listed), std::slice::from_ref(&first.id));
    finish(&mut client, &first, WhiteWins).await;
    let after_end = create(&mut admin, request)
        .await
        .expect("repeat after the end");
    assert_eq!(after_end.id, first.id);
    assert_eq!(after_end.game.status, GameStatus::Finished as i32);
    let listed = list_all(&mut client, EVENT, GameStatus::Unspecified, 1).await;
    assert_eq!(ids(&listed), std::slice::from_ref(&first.id));
    let table = standings(&mut client, EVENT).await;
    assert_eq!(table.games_counted, 1);
    assert_eq!(
        lines(&table),
        [
            line(1, "a", "1", [1, 1, 0, 0, 0, 0], ["0", "0", "0", "0"]),
            line(2, "b", "0", [1, 0, 0, 1, 0, 0], ["0", "1", "0", "0"]),
        ]
    );
}

on_every_backend!(
    a_round_robin_with_classic_scoring,
    the_same_round_robin_under_football_scoring,
    a_swiss_event_where_every_tie_break_decides,
    per_colour_points_and_armageddon_in_standings,
    forfeits_count_for_points_but_not_as_games_played,
    unfinished_and_aborted_games_count_for_nothing,
    a_flag_racing_a_move_is_counted_once,
    list_games_in_round_and_board_order_with_paging,
    pages_hold_steady_while_games_are_added,
    list_games_filters_by_status_with_paging,
    a_sparse_filter_still_finds_every_game,
    events_are_kept_apart_and_listed_without_moves,
    the_full_view_pages_by_twenty_at_most,
    list_games_and_standings_validate_their_requests,
    an_idempotent_create_is_listed_once,
);
