//! Unit tests of the platform's connection reports and the claim of the
//! game against an opponent gone.

use super::*;
use crate::domain::test_support::*;
use crate::domain::{
    AdjudicationNote, DelayMode, GameEvent, GameId, GameResult, GameRules, GameStatus, NewGame,
    Outcome, Pairing, Period, Rejection, RulesProfile, Schedule, StartPosition, TimeControl,
    Timing, Variant, public_view,
};

const CLAIM_AFTER: u32 = 30_000;

fn timing() -> Timing {
    let control = TimeControl::new(
        "time_control",
        vec![Period {
            time_ms: 600_000,
            moves: 0,
            increment_ms: 0,
            delay_ms: 0,
        }],
        DelayMode::Simple,
    )
    .expect("control");
    Timing {
        white: control.clone(),
        black: control,
        clock_starts_after_first_moves: false,
    }
}

/// A ten-minute game from `start` whose rules allow the claim after
/// [`CLAIM_AFTER`] (0: no claim), created at `at(0)`.
fn game_from(start: StartPosition, claim_after: u32, profile: RulesProfile) -> Game {
    let rules = GameRules {
        claim_after_opponent_left_ms: claim_after,
        profile,
        ..GameRules::default()
    };
    let new = NewGame::new(
        player("w", "White"),
        player("b", "Black"),
        Variant::Standard,
        &start,
        Pairing::default(),
        rules,
    )
    .expect("setup")
    .with_clock(Some(timing()), Schedule::default());
    Game::create(GameId::parse("left").expect("id"), new, seats(), at(0)).0
}

/// The standard game after 1. e4 e5, played at 1 s and 2 s.
fn after_two_moves(claim_after: u32) -> Game {
    let game = game_from(StartPosition::Standard, claim_after, RulesProfile::Fide);
    let (game, _) = changed(game.play_move(Color::White, Ply::new(0), "e4", false, at(1_000)));
    changed(game.play_move(Color::Black, Ply::new(1), "e5", false, at(2_000))).0
}

fn gone(game: &Game, color: Color, now: u64) -> (Game, Vec<GameEvent>) {
    changed(game.report_connection(color, false, "platform", at(now)))
}

fn refusal(result: Result<Decision, Rejection>) -> VictoryClaimRefusal {
    match result {
        Err(Rejection::VictoryClaimRefused { reason }) => reason,
        other => panic!("expected a refused claim, got {other:?}"),
    }
}

#[test]
fn a_report_records_since_when_a_player_is_gone_and_says_who_reported_it() {
    let game = after_two_moves(CLAIM_AFTER);
    let (gone_game, events) = gone(&game, Color::Black, 5_000);
    assert_eq!(
        gone_game.departures().left_at(Color::Black),
        Some(at(5_000))
    );
    assert_eq!(gone_game.departures().left_at(Color::White), None);
    assert_eq!(
        events.iter().map(|e| &e.kind).collect::<Vec<_>>(),
        vec![&EventKind::ConnectionReported {
            color: Color::Black,
            connected: false,
            by: "platform".into()
        }]
    );
    // A second report of the same absence keeps the first time.
    assert_eq!(
        gone_game.report_connection(Color::Black, false, "platform", at(9_000)),
        Ok(Decision::Unchanged)
    );
    // Connected again: the absence ends.
    let (back, _) = changed(gone_game.report_connection(Color::Black, true, "platform", at(9_000)));
    assert_eq!(back.departures().left_at(Color::Black), None);
    // A report of a connection nobody reported lost changes nothing.
    assert_eq!(
        game.report_connection(Color::White, true, "platform", at(9_000)),
        Ok(Decision::Unchanged)
    );
}

#[test]
fn the_claim_wins_once_the_opponent_has_been_gone_long_enough() {
    let game = after_two_moves(CLAIM_AFTER);
    let (game, _) = gone(&game, Color::White, 5_000);
    // White is to move and gone; Black claims.
    assert_eq!(
        refusal(game.claim_victory(Color::Black, at(5_000 + 29_999))),
        VictoryClaimRefusal::TooSoon {
            claimable_at: at(35_000)
        }
    );
    let (over, events) = changed(game.claim_victory(Color::Black, at(35_000)));
    assert_eq!(
        over.result(),
        Some(GameResult {
            outcome: Outcome::BlackWins,
            termination: Termination::OpponentLeft,
        })
    );
    assert!(matches!(events[0].kind, EventKind::GameEnded { .. }));
    assert!(over.score().is_some_and(|score| score.played));
    // The claimant's retry changes nothing; the opponent's is refused.
    assert_eq!(
        over.claim_victory(Color::Black, at(36_000)),
        Ok(Decision::Unchanged)
    );
    assert_eq!(
        over.claim_victory(Color::White, at(36_000)),
        Err(Rejection::GameOver)
    );
}

#[test]
fn the_claim_is_refused_while_the_opponent_is_connected_or_back() {
    let game = after_two_moves(CLAIM_AFTER);
    assert_eq!(
        refusal(game.claim_victory(Color::Black, at(60_000))),
        VictoryClaimRefusal::OpponentConnected
    );
    let (game, _) = gone(&game, Color::White, 5_000);
    // The claimant's own absence is not the opponent's.
    assert_eq!(
        refusal(game.claim_victory(Color::White, at(60_000))),
        VictoryClaimRefusal::OpponentConnected
    );
    let (back, _) = changed(game.report_connection(Color::White, true, "platform", at(20_000)));
    assert_eq!(
        refusal(back.claim_victory(Color::Black, at(60_000))),
        VictoryClaimRefusal::OpponentConnected
    );
}

#[test]
fn a_move_by_the_player_gone_ends_the_absence() {
    let game = after_two_moves(CLAIM_AFTER);
    let (game, _) = gone(&game, Color::White, 5_000);
    let (moved, _) = changed(game.play_move(Color::White, Ply::new(2), "Nf3", false, at(6_000)));
    assert!(moved.departures().is_empty());
    assert_eq!(
        refusal(moved.claim_victory(Color::Black, at(60_000))),
        VictoryClaimRefusal::OpponentConnected
    );
}

#[test]
fn the_claim_needs_the_rule_and_both_players_to_have_moved() {
    let game = after_two_moves(0);
    let (game, _) = gone(&game, Color::White, 5_000);
    assert_eq!(
        refusal(game.claim_victory(Color::Black, at(600_000))),
        VictoryClaimRefusal::NotAllowed
    );
    let fresh = game_from(StartPosition::Standard, CLAIM_AFTER, RulesProfile::Fide);
    let (fresh, _) = gone(&fresh, Color::White, 1_000);
    assert_eq!(
        refusal(fresh.claim_victory(Color::Black, at(60_000))),
        VictoryClaimRefusal::BeforeBothMoved
    );
}

#[test]
fn the_claim_waits_while_the_clock_is_paused() {
    let game = after_two_moves(CLAIM_AFTER);
    let (game, _) = gone(&game, Color::White, 5_000);
    let (paused, _) = changed(game.pause_clock("dispute", "arbiter", at(10_000)));
    assert_eq!(
        paused.claim_victory(Color::Black, at(60_000)),
        Err(Rejection::ClockPaused)
    );
}

#[test]
fn a_claimant_who_cannot_checkmate_only_draws() {
    // Black has a bare king against White's rook: White is gone.
    let fen = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    let game = game_from(
        StartPosition::Fen(fen.into()),
        CLAIM_AFTER,
        RulesProfile::Fide,
    );
    let (game, _) = changed(game.play_move(Color::White, Ply::new(0), "Ra2", false, at(1_000)));
    let (game, _) = changed(game.play_move(Color::Black, Ply::new(1), "Kd7", false, at(2_000)));
    let (game, _) = gone(&game, Color::White, 3_000);
    let (over, _) = changed(game.claim_victory(Color::Black, at(40_000)));
    assert_eq!(
        over.result(),
        Some(GameResult {
            outcome: Outcome::Draw,
            termination: Termination::OpponentLeft,
        })
    );
    assert_eq!(over.review(), None::<AdjudicationNote>);
}

#[test]
fn a_game_that_is_over_takes_no_report() {
    let game = after_two_moves(CLAIM_AFTER);
    let (over, _) = changed(game.resign(Color::White, at(3_000)));
    assert_eq!(
        over.report_connection(Color::White, false, "platform", at(4_000)),
        Err(Rejection::GameOver)
    );
    assert_eq!(over.status(), GameStatus::Finished);
}

#[test]
fn the_public_view_replays_departures() {
    let mut log = Vec::new();
    let start = game_from(StartPosition::Standard, CLAIM_AFTER, RulesProfile::Fide);
    let (g1, e1) = changed(start.play_move(Color::White, Ply::new(0), "e4", false, at(1_000)));
    let (g2, e2) = changed(g1.play_move(Color::Black, Ply::new(1), "e5", false, at(2_000)));
    let (g3, e3) = gone(&g2, Color::White, 5_000);
    let (g4, e4) = changed(g3.play_move(Color::White, Ply::new(2), "Nf3", false, at(8_000)));
    let (g5, e5) = gone(&g4, Color::Black, 9_000);
    for events in [e1, e2, e3, e4, e5] {
        log.extend(events);
    }
    let at_six = public_view(&g5, &log, at(6_000)).expect("replays");
    assert_eq!(at_six.departures().left_at(Color::White), Some(at(5_000)));
    let at_eight = public_view(&g5, &log, at(8_500)).expect("replays");
    assert!(at_eight.departures().is_empty());
    let now = public_view(&g5, &log, at(9_500)).expect("replays");
    assert_eq!(now.departures(), g5.departures());
}
