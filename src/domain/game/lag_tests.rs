//! Unit tests of lag compensation: the policy and its validation, the
//! reported lag's bounds, and what a game does with a move's lag: the
//! credit and its caps, the quota run out and regained, delays, untimed
//! first moves, flags it never moves, retries, and the PGN comment. Every
//! "now" is an explicit timestamp; nothing reads a clock.

use super::*;
use crate::domain::test_support::*;
use crate::domain::{
    Decision, DelayMode, Game, GameEvent, GameRules, MoveTime, NewGame, Pairing, Period, Ply,
    Rejection, Schedule, StartPosition, TimeControl, Timing, Variant, tournament::pgn,
};
use shakmaty::Color;

fn lag(ms: i64) -> ReportedLag {
    ReportedLag::parse("lag_millis", ms).expect("a valid lag")
}

#[test]
fn zero_values_take_the_online_defaults() {
    assert_eq!(
        LagCompensation::requested(0, 0, 0, 0),
        Ok(LagCompensation::ONLINE)
    );
    let own = LagCompensation::requested(500, 2_000, 100, 300).expect("valid");
    assert_eq!(
        (
            own.initial_quota_ms(),
            own.max_quota_ms(),
            own.quota_gain_ms(),
            own.max_move_credit_ms()
        ),
        (500, 2_000, 100, 300)
    );
    // The maximum is the only bound on the others.
    assert!(LagCompensation::requested(60_000, 60_000, 60_000, 60_000).is_ok());
}

#[test]
fn nonsense_policies_are_refused_naming_the_field() {
    let field = |result: Result<LagCompensation, FieldError>| result.expect_err("refused").field;
    assert_eq!(
        field(LagCompensation::requested(0, 60_001, 0, 0)),
        "lag_compensation.max_quota_millis"
    );
    // The default initial quota (3 s) exceeds a 2 s maximum.
    assert_eq!(
        field(LagCompensation::requested(0, 2_000, 0, 0)),
        "lag_compensation.initial_quota_millis"
    );
    assert_eq!(
        field(LagCompensation::requested(1_000, 2_000, 2_001, 1_000)),
        "lag_compensation.quota_gain_millis"
    );
    assert_eq!(
        field(LagCompensation::requested(1_000, 2_000, 1_000, 2_001)),
        "lag_compensation.max_move_credit_millis"
    );
}

#[test]
fn reported_lag_is_bounded() {
    assert_eq!(lag(0), ReportedLag::NONE);
    assert_eq!(lag(60_000).millis(), 60_000);
    for bad in [-1, 60_001, i64::MIN, i64::MAX] {
        let err = ReportedLag::parse("lag_millis", bad).expect_err("refused");
        assert_eq!(err.field, "lag_millis");
    }
}

#[test]
fn the_credit_is_the_least_of_lag_quota_cap_and_cost() {
    let policy = LagCompensation::requested(2_000, 5_000, 1_000, 1_500).expect("valid");
    let credit = |quota, lag_ms, cost| policy.settle(quota, lag(lag_ms), cost).credit_ms;
    assert_eq!(credit(2_000, 400, 10_000), 400, "the lag");
    assert_eq!(credit(300, 400, 10_000), 300, "the quota");
    assert_eq!(credit(5_000, 4_000, 10_000), 1_500, "the most per move");
    assert_eq!(credit(5_000, 4_000, 250), 250, "the move's cost");
    assert_eq!(credit(5_000, 4_000, 0), 0, "a free move");
}

#[test]
fn the_quota_is_debited_and_regained_up_to_its_maximum() {
    let policy = LagCompensation::requested(2_000, 5_000, 1_000, 3_000).expect("valid");
    let mut quota = policy.initial_quota_ms();
    let mut credits = Vec::new();
    // Heavy lag on every move: the quota runs out, then each move gets
    // what the previous one regained.
    for _ in 0..4 {
        let settled = policy.settle(quota, lag(3_000), 60_000);
        credits.push(settled.credit_ms);
        quota = settled.quota_ms;
    }
    assert_eq!(credits, [2_000, 1_000, 1_000, 1_000]);
    // Moves without lag regain it, up to the maximum and no further.
    let mut quotas = Vec::new();
    for _ in 0..6 {
        quota = policy.settle(quota, ReportedLag::NONE, 60_000).quota_ms;
        quotas.push(quota);
    }
    assert_eq!(quotas, [2_000, 3_000, 4_000, 5_000, 5_000, 5_000]);
}

// ---------------------------------------------------------------------------
// A game's moves
// ---------------------------------------------------------------------------

const SEC: u64 = 1_000;
const MIN: u64 = 60 * SEC;

/// Both players on one period of `(time, increment, delay)` ms.
fn timing(time_ms: u64, increment_ms: u64, delay_ms: u64, mode: DelayMode) -> Timing {
    let control = TimeControl::new(
        "time_control",
        vec![Period {
            time_ms,
            moves: 0,
            increment_ms,
            delay_ms,
        }],
        mode,
    )
    .expect("valid control");
    Timing {
        white: control.clone(),
        black: control,
        clock_starts_after_first_moves: false,
    }
}

/// 5 minutes plus 2 seconds a move.
fn blitz() -> Timing {
    timing(5 * MIN, 2 * SEC, 0, DelayMode::Simple)
}

/// A game from the standard start created at `at(0)`, compensating lag
/// under `policy`.
fn game(timing: Timing, policy: Option<LagCompensation>) -> Game {
    let new = NewGame::new(
        player("w", "White"),
        player("b", "Black"),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("request")
    .with_clock(Some(timing), Schedule::default())
    .with_lag_compensation(policy)
    .expect("a timed game may compensate lag");
    Game::create(game_id(), new, seats(), at(0)).0
}

/// Plays `text` for the side to move at `at(now_ms)`, reporting `lag_ms`.
#[track_caller]
fn play(game: &Game, text: &str, lag_ms: i64, now_ms: u64) -> (Game, Vec<GameEvent>) {
    changed(game.play_move_with_lag(
        game.side_to_move(),
        game.ply(),
        text,
        false,
        lag(lag_ms),
        at(now_ms),
    ))
}

/// What the clock recorded for the (only) move among `events`.
#[track_caller]
fn move_time(events: &[GameEvent]) -> MoveTime {
    let records: Vec<_> = events.iter().filter_map(GameEvent::move_record).collect();
    assert_eq!(records.len(), 1, "{events:?}");
    records[0].time.expect("a timed move records its time")
}

fn quota(game: &Game, color: Color) -> u64 {
    game.clock().expect("timed").lag_quota(color)
}

fn ms(value: u64) -> i64 {
    i64::try_from(value).expect("fits")
}

#[test]
fn a_reported_lag_is_credited_back_within_the_quota() {
    let start = game(blitz(), Some(LagCompensation::ONLINE));
    assert_eq!(quota(&start, Color::White), 3 * SEC);
    assert_eq!(quota(&start, Color::Black), 3 * SEC);
    let (after, events) = play(&start, "e4", 400, 10 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 10 * SEC,
            remaining_ms: ms(5 * MIN - 10 * SEC + 400 + 2 * SEC),
            lag_credit_ms: 400,
        }
    );
    // The quota lost the credit and regained a second; Black's is untouched.
    assert_eq!(quota(&after, Color::White), 3 * SEC - 400 + SEC);
    assert_eq!(quota(&after, Color::Black), 3 * SEC);
    // The clocks shown with the move agree with the record.
    let view = events.last().and_then(|e| e.clock).expect("a clock view");
    assert_eq!(view.white_ms, ms(5 * MIN - 10 * SEC + 400 + 2 * SEC));
}

#[test]
fn the_credit_never_exceeds_what_the_move_cost_the_clock() {
    let (after_white, _) = play(
        &game(blitz(), Some(LagCompensation::ONLINE)),
        "e4",
        0,
        10 * SEC,
    );
    // Black answers 100 ms later and reports two seconds of lag: only the
    // 100 ms the move took come back, and the quota pays only for those.
    let (after, events) = play(&after_white, "e5", 2_000, 10 * SEC + 100);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 100,
            remaining_ms: ms(5 * MIN + 2 * SEC),
            lag_credit_ms: 100,
        }
    );
    assert_eq!(quota(&after, Color::Black), 3 * SEC - 100 + SEC);
}

#[test]
fn time_within_a_delay_is_not_credited() {
    for mode in [DelayMode::Simple, DelayMode::Bronstein] {
        let start = game(
            timing(5 * MIN, 0, 2 * SEC, mode),
            Some(LagCompensation::ONLINE),
        );
        // 2.5 s of thinking under a 2 s delay costs the clock 0.5 s: a
        // second of lag gets back those 0.5 s, no more.
        let (after, events) = play(&start, "e4", 1_000, 2_500);
        assert_eq!(
            move_time(&events),
            MoveTime {
                spent_ms: 2_500,
                remaining_ms: ms(5 * MIN),
                lag_credit_ms: 500,
            },
            "{mode:?}"
        );
        assert_eq!(quota(&after, Color::White), 3 * SEC - 500 + SEC, "{mode:?}");
    }
}

#[test]
fn the_quota_runs_out_and_is_regained_up_to_its_maximum() {
    let policy = LagCompensation::requested(2 * SEC, 4 * SEC, SEC, 3 * SEC).expect("valid");
    let mut game = game(blitz(), Some(policy));
    // White thinks 10 s a move and reports the lags below; Black answers at
    // once without lag. The knights go out and back.
    let lags = [3_000, 3_000, 3_000, 0, 0, 0, 0, 3_000];
    let mut now = 0;
    let mut credits = Vec::new();
    let mut quotas = Vec::new();
    for (i, lag_ms) in lags.into_iter().enumerate() {
        now += 10 * SEC;
        let (after, events) = play(&game, SHUFFLE[(2 * i) % 4], lag_ms, now);
        credits.push(move_time(&events).lag_credit_ms);
        quotas.push(quota(&after, Color::White));
        now += 10;
        game = play(&after, SHUFFLE[(2 * i + 1) % 4], 0, now).0;
    }
    // The quota runs out (2 s, then the second regained each move), is
    // regained without lag up to its 4 s maximum and no further, and one
    // move gets at most 3 s of it.
    assert_eq!(credits, [2_000, 1_000, 1_000, 0, 0, 0, 0, 3_000]);
    assert_eq!(
        quotas,
        [1_000, 1_000, 1_000, 2_000, 3_000, 4_000, 4_000, 2_000]
    );
}

#[test]
fn without_a_policy_reported_lag_changes_nothing() {
    let start = game(blitz(), None);
    assert_eq!(quota(&start, Color::White), 0);
    let with_lag = play(&start, "e4", 3_000, 10 * SEC);
    let without = play(&start, "e4", 0, 10 * SEC);
    assert_eq!(with_lag, without);
    assert_eq!(move_time(&with_lag.1).lag_credit_ms, 0);
    assert_eq!(
        move_time(&with_lag.1).remaining_ms,
        ms(5 * MIN - 10 * SEC + 2 * SEC)
    );
}

#[test]
fn lag_compensation_needs_a_clock() {
    let untimed = NewGame::new(
        player("w", "White"),
        player("b", "Black"),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("request");
    let err = untimed
        .with_lag_compensation(Some(LagCompensation::ONLINE))
        .expect_err("refused");
    assert_eq!(err.field, "lag_compensation");
}

#[test]
fn untimed_first_moves_settle_no_lag() {
    let mut online = blitz();
    online.clock_starts_after_first_moves = true;
    let start = game(online, Some(LagCompensation::ONLINE));
    let (after, events) = play(&start, "e4", 1_000, 5 * SEC);
    assert_eq!(move_time(&events).lag_credit_ms, 0);
    assert_eq!(move_time(&events).spent_ms, 0);
    assert_eq!(quota(&after, Color::White), 3 * SEC);
}

#[test]
fn the_credit_never_moves_a_flag() {
    let policy = Some(LagCompensation::ONLINE);
    let sudden = timing(10 * SEC, 0, 0, DelayMode::Simple);
    let start = game(sudden.clone(), policy);
    // The sweeper's deadline is the flag, whatever quota is left: the same
    // as in a game without compensation.
    assert_eq!(start.deadline(), Some(at(10 * SEC)));
    assert_eq!(start.deadline(), game(sudden, None).deadline());
    // A move in time gets its credit ...
    let (_, events) = play(&start, "e4", 3_000, 9_900);
    assert_eq!(move_time(&events).remaining_ms, 100 + 3_000);
    // ... but one that arrives after the flag fell is void, whatever lag
    // it reports: the game is lost on time, when the flag fell.
    assert_eq!(
        start.play_move_with_lag(
            Color::White,
            Ply::START,
            "e4",
            false,
            lag(3_000),
            at(10_100)
        ),
        Err(Rejection::GameOver)
    );
    let (decision, _) = start.check_time(at(10_100)).expect("the flag fell");
    let Decision::Changed { game: over, .. } = decision else {
        panic!("the flag ends the game");
    };
    assert!(over.is_over());
    assert_eq!(over.ended_at(), Some(at(10 * SEC)));
}

#[test]
fn a_retried_move_ignores_its_lag() {
    let (after, _) = play(
        &game(blitz(), Some(LagCompensation::ONLINE)),
        "e4",
        400,
        10 * SEC,
    );
    assert_eq!(
        after.play_move_with_lag(
            Color::White,
            Ply::START,
            "e4",
            false,
            lag(3_000),
            at(11 * SEC)
        ),
        Ok(Decision::Unchanged)
    );
}

#[test]
fn the_pgn_of_a_compensated_game_gives_each_moves_credit() {
    let (after_white, white) = play(
        &game(blitz(), Some(LagCompensation::ONLINE)),
        "e4",
        400,
        10 * SEC,
    );
    let (after, black) = play(&after_white, "e5", 0, 20 * SEC);
    let moves: Vec<_> = white
        .iter()
        .chain(&black)
        .filter_map(GameEvent::move_record)
        .cloned()
        .collect();
    let text = pgn::export(&after, &moves);
    assert!(
        text.contains(
            "1. e4 {[%clk 0:04:52] [%lagcomp 0.400]} e5 {[%clk 0:04:52] [%lagcomp 0.000]}"
        ),
        "{text}"
    );
    // A game without compensation keeps its plain clock comments.
    let (plain, events) = play(&game(blitz(), None), "e4", 400, 10 * SEC);
    let moves: Vec<_> = events
        .iter()
        .filter_map(GameEvent::move_record)
        .cloned()
        .collect();
    let text = pgn::export(&plain, &moves);
    assert!(text.contains("1. e4 {[%clk 0:04:52]}"), "{text}");
    assert!(!text.contains("%lagcomp"), "{text}");
}
