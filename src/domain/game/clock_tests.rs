//! Clock arithmetic with an injected "now": no sleeps.

use super::*;

const MIN: u64 = 60_000;
const SEC: u64 = 1_000;

fn at(ms: u64) -> Timestamp {
    Timestamp::from_unix_millis(1_000_000 + ms)
}

fn control(periods: &[(u64, u32, u64, u64)], mode: DelayMode) -> TimeControl {
    TimeControl::new(
        "time_control",
        periods
            .iter()
            .map(|&(time_ms, moves, increment_ms, delay_ms)| Period {
                time_ms,
                moves,
                increment_ms,
                delay_ms,
            })
            .collect(),
        mode,
    )
    .expect("valid control")
}

fn clock(control: TimeControl) -> Clock {
    Clock::new(control.clone(), control, Some(Color::White), at(0))
}

#[test]
fn increment_is_credited_after_each_move_in_time() {
    let mut c = clock(control(&[(5 * MIN, 0, 3 * SEC, 0)], DelayMode::Simple));
    let white = c.complete_move(Color::White, at(10 * SEC), false, None);
    assert_eq!(white.spent_ms, 10 * SEC);
    assert_eq!(white.remaining_ms, (5 * MIN - 10 * SEC + 3 * SEC) as i64);
    assert_eq!(c.running(), Some(Color::Black));
    let black = c.complete_move(Color::Black, at(12 * SEC), false, None);
    assert_eq!(black.spent_ms, 2 * SEC);
    assert_eq!(black.remaining_ms, (5 * MIN + SEC) as i64);
    assert_eq!(c.remaining(Color::White, at(12 * SEC)), white.remaining_ms);
}

#[test]
fn the_flag_falls_when_the_time_is_used_up() {
    let c = clock(control(&[(MIN, 0, 0, 0)], DelayMode::Simple));
    assert_eq!(c.flag_time(), Some(at(MIN)));
    assert_eq!(c.flagged(at(MIN - 1)), None);
    assert_eq!(c.flagged(at(MIN)), Some(Color::White));
    assert_eq!(c.remaining(Color::White, at(MIN + 5)), -5);
}

#[test]
fn simple_delay_holds_the_clock_for_the_delay() {
    // G/60;d5: the first 5 s of each move are free.
    let mut c = clock(control(&[(60 * MIN, 0, 0, 5 * SEC)], DelayMode::Simple));
    assert_eq!(c.view(at(3 * SEC)).delay_left_ms, 2 * SEC);
    assert_eq!(c.remaining(Color::White, at(3 * SEC)), (60 * MIN) as i64);
    let quick = c.complete_move(Color::White, at(4 * SEC), false, None);
    assert_eq!(
        quick.remaining_ms,
        (60 * MIN) as i64,
        "a move within the delay costs nothing"
    );
    let slow = c.complete_move(Color::Black, at(4 * SEC + 12 * SEC), false, None);
    assert_eq!(slow.remaining_ms, (60 * MIN - 7 * SEC) as i64);
    // The flag falls only after remaining time plus delay.
    let tight = clock(control(&[(10 * SEC, 0, 0, 5 * SEC)], DelayMode::Simple));
    assert_eq!(tight.flag_time(), Some(at(15 * SEC)));
    assert_eq!(tight.flagged(at(14 * SEC)), None);
    assert_eq!(tight.flagged(at(15 * SEC)), Some(Color::White));
}

#[test]
fn bronstein_delay_gives_back_the_time_used_up_to_the_delay() {
    let mut c = clock(control(&[(3 * MIN, 0, 0, 3 * SEC)], DelayMode::Bronstein));
    // The clock runs during the delay...
    assert_eq!(
        c.remaining(Color::White, at(2 * SEC)),
        (3 * MIN - 2 * SEC) as i64
    );
    // ...and a quick move gets all of it back...
    let quick = c.complete_move(Color::White, at(2 * SEC), false, None);
    assert_eq!(quick.remaining_ms, (3 * MIN) as i64);
    // ...a slow one only the delay.
    let slow = c.complete_move(Color::Black, at(2 * SEC + 10 * SEC), false, None);
    assert_eq!(slow.remaining_ms, (3 * MIN - 7 * SEC) as i64);
    // Unlike simple delay, the flag is not pushed back by the delay.
    let tight = clock(control(&[(10 * SEC, 0, 0, 5 * SEC)], DelayMode::Bronstein));
    assert_eq!(tight.flag_time(), Some(at(10 * SEC)));
}

#[test]
fn periods_change_after_their_move_count_and_saved_time_carries_over() {
    // 2 moves in 1 min, then 30 s for the rest, +1 s from move 1.
    let mut c = clock(control(
        &[(MIN, 2, SEC, 0), (30 * SEC, 0, SEC, 0)],
        DelayMode::Simple,
    ));
    c.complete_move(Color::White, at(10 * SEC), false, None);
    c.complete_move(Color::Black, at(10 * SEC), false, None);
    let view = c.view(at(10 * SEC));
    assert_eq!(view.white_period, 0);
    assert_eq!(view.white_moves_left, 1);
    let second = c.complete_move(Color::White, at(20 * SEC), false, None);
    // 60 - 10 + 1 - 10 + 1 = 42 s saved, plus the next period's 30 s.
    assert_eq!(second.remaining_ms, (72 * SEC) as i64);
    let view = c.view(at(20 * SEC));
    assert_eq!(view.white_period, 1);
    assert_eq!(view.white_moves_left, 0, "the rest of the game");
    assert_eq!(view.black_period, 0);
}

#[test]
fn running_out_before_the_move_count_is_reached_is_a_flag() {
    // 40 moves in 2 minutes: time runs out at move 2.
    let mut c = clock(control(
        &[(2 * MIN, 40, 0, 0), (30 * MIN, 0, 0, 0)],
        DelayMode::Simple,
    ));
    c.complete_move(Color::White, at(MIN), false, None);
    c.complete_move(Color::Black, at(MIN), false, None);
    assert_eq!(
        c.flagged(at(2 * MIN)),
        Some(Color::White),
        "the next period's time is not there yet"
    );
}

#[test]
fn a_repeating_last_period_adds_its_time_each_round() {
    let mut c = clock(control(&[(MIN, 1, 0, 0)], DelayMode::Simple));
    let first = c.complete_move(Color::White, at(10 * SEC), false, None);
    assert_eq!(first.remaining_ms, (110 * SEC) as i64);
    c.complete_move(Color::Black, at(10 * SEC), false, None);
    let second = c.complete_move(Color::White, at(20 * SEC), false, None);
    assert_eq!(second.remaining_ms, (160 * SEC) as i64);
}

#[test]
fn a_clock_that_waits_starts_after_the_first_moves() {
    let tc = control(&[(MIN, 0, 2 * SEC, 0)], DelayMode::Simple);
    let mut c = Clock::new(tc.clone(), tc, None, at(0));
    assert_eq!(c.flag_time(), None);
    assert_eq!(c.flagged(at(10 * MIN)), None);
    let white = c.complete_move(Color::White, at(5 * MIN), false, None);
    assert_eq!(white.spent_ms, 0, "the first move is untimed");
    assert_eq!(white.remaining_ms, MIN as i64, "and earns no increment");
    assert_eq!(c.running(), None);
    c.complete_move(Color::Black, at(6 * MIN), true, None);
    assert_eq!(c.running(), Some(Color::White));
    assert_eq!(c.flag_time(), Some(at(7 * MIN)));
}

#[test]
fn a_scheduled_start_in_the_future_runs_nothing_until_then() {
    let tc = control(&[(MIN, 0, 0, 0)], DelayMode::Simple);
    let c = Clock::new(tc.clone(), tc, Some(Color::White), at(10 * MIN));
    assert_eq!(c.remaining(Color::White, at(5 * MIN)), MIN as i64);
    assert_eq!(c.flag_time(), Some(at(11 * MIN)));
}

#[test]
fn pauses_do_not_count_and_adjustments_apply() {
    let mut c = clock(control(&[(MIN, 0, 0, 0)], DelayMode::Simple));
    c.pause(at(10 * SEC));
    assert!(c.is_paused());
    assert_eq!(c.flag_time(), None);
    assert_eq!(c.flagged(at(10 * MIN)), None);
    assert_eq!(c.remaining(Color::White, at(10 * MIN)), (50 * SEC) as i64);
    c.resume(at(10 * MIN));
    assert_eq!(
        c.remaining(Color::White, at(10 * MIN + 5 * SEC)),
        (45 * SEC) as i64
    );
    c.adjust(Color::White, -(50 * SEC as i64));
    assert_eq!(c.flagged(at(10 * MIN + 5 * SEC)), Some(Color::White));
    c.adjust(Color::Black, 2 * MIN as i64);
    assert_eq!(c.remaining(Color::Black, at(10 * MIN)), (3 * MIN) as i64);
}

#[test]
fn time_odds_give_each_colour_its_own_control() {
    let five = control(&[(5 * MIN, 0, 0, 0)], DelayMode::Simple);
    let four = control(&[(4 * MIN, 0, 0, 0)], DelayMode::Simple);
    let c = Clock::new(five, four, Some(Color::White), at(0));
    let view = c.view(at(0));
    assert_eq!(view.white_ms, (5 * MIN) as i64);
    assert_eq!(view.black_ms, (4 * MIN) as i64);
}
