//! Unit tests of a game against the clock: increments, flags and who wins
//! on them (FIDE 6.9, USCF 14E), the scheduled start and default time
//! (FIDE 6.6, 6.7), periods and delays, the arbiter's clock controls and
//! claim penalties. Every "now" is an explicit timestamp; nothing reads a
//! clock and nothing sleeps.

use super::*;
use crate::domain::test_support::*;
use crate::domain::{
    ClaimReason, ClaimVerdict, DelayMode, GameEvent, GameId, GameRules, MoveTime, NewGame, Pairing,
    Period, Player, Points, Presence, RulesProfile, Ruling, Schedule, StartPosition, TimeControl,
    Timing, Variant,
};

const SEC: u64 = 1_000;
const MIN: u64 = 60 * SEC;

/// Milliseconds as the clock's signed remaining time.
fn ms(value: u64) -> i64 {
    i64::try_from(value).expect("fits")
}

/// A control from `(time, moves, increment, delay)` periods, in ms.
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

/// Both players on `base` ms with `increment` ms a move, from move one.
fn fischer(base: u64, increment: u64) -> Timing {
    same(control(&[(base, 0, increment, 0)], DelayMode::Simple))
}

fn same(control: TimeControl) -> Timing {
    Timing {
        white: control.clone(),
        black: control,
        clock_starts_after_first_moves: false,
    }
}

/// A game created at `at(0)`.
fn create(
    start: StartPosition,
    rules: GameRules,
    timing: Option<Timing>,
    schedule: Schedule,
) -> (Game, GameEvent) {
    let new = NewGame::new(
        Player::parse("white", "w-1", "White").unwrap(),
        Player::parse("black", "b-1", "Black").unwrap(),
        Variant::Standard,
        &start,
        Pairing::default(),
        rules,
    )
    .unwrap_or_else(|err| panic!("{start:?} refused: {err}"))
    .with_clock(timing, schedule);
    Game::create(GameId::parse("timed").unwrap(), new, seats(), at(0))
}

/// A timed game from the standard start, created at `at(0)`.
fn timed(timing: Timing) -> Game {
    create(
        StartPosition::Standard,
        GameRules::default(),
        Some(timing),
        Schedule::default(),
    )
    .0
}

/// A timed game from `fen` under `rules`.
fn timed_fen(fen: &str, rules: GameRules, timing: Timing) -> Game {
    create(
        StartPosition::Fen(fen.to_owned()),
        rules,
        Some(timing),
        Schedule::default(),
    )
    .0
}

/// A timed game from the standard start with a schedule.
fn scheduled(timing: Timing, schedule: Schedule) -> Game {
    create(
        StartPosition::Standard,
        GameRules::default(),
        Some(timing),
        schedule,
    )
    .0
}

fn untimed() -> Game {
    create(
        StartPosition::Standard,
        GameRules::default(),
        None,
        Schedule::default(),
    )
    .0
}

/// Plays `text` for the side to move at `at(now_ms)`.
#[track_caller]
fn play(game: &Game, text: &str, now_ms: u64) -> (Game, Vec<GameEvent>) {
    changed(game.play_move(game.side_to_move(), game.ply(), text, false, at(now_ms)))
}

/// Plays `text` for the side to move at `at(now_ms)`, offering a draw.
#[track_caller]
fn play_offering(game: &Game, text: &str, now_ms: u64) -> (Game, Vec<GameEvent>) {
    changed(game.play_move(game.side_to_move(), game.ply(), text, true, at(now_ms)))
}

/// Plays `moves`, the first at `at(first_ms)` and each next one `step_ms`
/// later; returns the game and every event.
#[track_caller]
fn line(game: &Game, moves: &[&str], first_ms: u64, step_ms: u64) -> (Game, Vec<GameEvent>) {
    let mut game = game.clone();
    let mut all = Vec::new();
    for (i, text) in moves.iter().enumerate() {
        let (next, events) = play(&game, text, first_ms + step_ms * i as u64);
        game = next;
        all.extend(events);
    }
    (game, all)
}

/// What the clock recorded for the (only) move among `events`.
#[track_caller]
fn move_time(events: &[GameEvent]) -> MoveTime {
    let records: Vec<_> = events.iter().filter_map(GameEvent::move_record).collect();
    assert_eq!(records.len(), 1, "{events:?}");
    records[0].time.expect("a timed move records its time")
}

/// The ending `check_time` commits at `at(now_ms)`, which must be one.
#[track_caller]
fn time_out(game: &Game, now_ms: u64) -> (Game, Vec<GameEvent>) {
    let (decision, _note) = game
        .check_time(at(now_ms))
        .unwrap_or_else(|| panic!("time should have ended the game at +{now_ms} ms"));
    changed(Ok(decision))
}

/// The result `check_time` gives at `at(now_ms)`.
#[track_caller]
fn time_result(game: &Game, now_ms: u64) -> GameResult {
    let (ended, events) = time_out(game, now_ms);
    let result = ended.result().expect("a result");
    assert_eq!(ended.status(), GameStatus::Finished);
    assert_eq!(
        events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>(),
        vec![EventKind::ended_classic(result)]
    );
    result
}

fn timeout_win(winner: Color) -> GameResult {
    GameResult {
        outcome: Outcome::win_for(winner),
        termination: Termination::Timeout,
    }
}

fn timeout_draw() -> GameResult {
    GameResult {
        outcome: Outcome::Draw,
        termination: Termination::TimeoutVsInsufficientMaterial,
    }
}

fn no_show_of(absent: Color) -> GameResult {
    GameResult {
        outcome: Outcome::win_for(!absent),
        termination: Termination::NoShow,
    }
}

/// Neither player arrived by the default time: both lose.
fn double_no_show() -> GameResult {
    GameResult {
        outcome: Outcome::DoubleForfeit,
        termination: Termination::NoShow,
    }
}

/// `seat` checks in at `at(now_ms)`.
#[track_caller]
fn check_in(game: &Game, seat: Color, now_ms: u64) -> Game {
    let (game, events) = changed(game.check_in(seat, at(now_ms)));
    assert_eq!(
        events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>(),
        vec![EventKind::PlayerCheckedIn { color: seat }]
    );
    game
}

fn remaining(game: &Game, color: Color, now_ms: u64) -> i64 {
    game.clock()
        .expect("a timed game")
        .remaining(color, at(now_ms))
}

// ---------------------------------------------------------------------------
// Moves, increments and the flag
// ---------------------------------------------------------------------------

#[test]
fn the_increment_is_credited_for_a_move_in_time_and_recorded_with_it() {
    // 5 min + 3 s.
    let game = timed(fischer(5 * MIN, 3 * SEC));
    let (game, events) = play(&game, "e4", 10 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 10 * SEC,
            remaining_ms: ms(5 * MIN - 10 * SEC + 3 * SEC),
            lag_credit_ms: 0,
        }
    );
    assert_eq!(remaining(&game, Color::White, 10 * SEC), ms(293 * SEC));
    assert_eq!(game.clock().unwrap().running(), Some(Color::Black));
    // Black's time ran only since White's move.
    let (game, events) = play(&game, "e5", 12 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 2 * SEC,
            remaining_ms: ms(5 * MIN + SEC),
            lag_credit_ms: 0,
        }
    );
    // White's clock stood still meanwhile.
    assert_eq!(remaining(&game, Color::White, 12 * SEC), ms(293 * SEC));
    let (_, events) = play(&game, "Nf3", 20 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 8 * SEC,
            remaining_ms: ms(293 * SEC - 8 * SEC + 3 * SEC),
            lag_credit_ms: 0,
        }
    );
}

#[test]
fn a_games_clock_runs_while_it_is_played_and_stops_when_it_ends() {
    let game = timed(fischer(5 * MIN, 0));
    let (game, _) = play(&game, "e4", 10 * SEC);
    let playing = game.clock_view(at(40 * SEC)).expect("timed");
    assert_eq!(playing.at, at(40 * SEC));
    assert_eq!(playing.running, Some(Color::Black));
    assert_eq!(playing.black_ms, ms(5 * MIN - 30 * SEC));

    let (ended, events) = changed(game.resign(Color::Black, at(70 * SEC)));
    let frozen = ended.clock_view(at(10 * MIN)).expect("timed");
    // As of the resignation, whenever it is looked at.
    assert_eq!(frozen, ended.clock_view(at(70 * SEC)).expect("timed"));
    assert_eq!(frozen.at, at(70 * SEC));
    assert_eq!(frozen.running, None);
    assert_eq!(frozen.black_ms, ms(5 * MIN - 60 * SEC));
    assert_eq!(frozen.white_ms, ms(5 * MIN - 10 * SEC));

    // The final event shows the same stopped clock; earlier ones run.
    let last = events.last().expect("an event");
    assert!(last.is_final());
    assert_eq!(last.clock.map(|c| c.running), Some(Some(Color::Black)));
    assert_eq!(last.clock_view(), Some(frozen));
    let (_, moved) = play(&game, "e5", 20 * SEC);
    assert_eq!(moved[0].clock_view(), moved[0].clock);
    assert_eq!(
        moved[0].clock_view().and_then(|c| c.running),
        Some(Color::White)
    );

    assert_eq!(untimed().clock_view(at(0)), None);
}

#[test]
fn before_the_flag_falls_check_time_does_nothing_and_moves_count() {
    let game = timed(fischer(MIN, 0));
    assert_eq!(game.check_time(at(0)), None);
    assert_eq!(game.check_time(at(MIN - 1)), None);
    // The last millisecond is still in time.
    let (after, events) = play(&game, "e4", MIN - 1);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: MIN - 1,
            remaining_ms: 1,
            lag_credit_ms: 0,
        }
    );
    // Black's flag now falls a minute after White's move.
    assert_eq!(after.check_time(at(2 * MIN - 2)), None);
    assert_eq!(time_result(&after, 2 * MIN - 1), timeout_win(Color::White));
}

#[test]
fn a_move_after_the_flag_fell_is_refused_and_check_time_ends_the_game() {
    let game = timed(fischer(MIN, 0));
    for late in [MIN, MIN + 1, 10 * MIN] {
        assert_eq!(
            game.play_move(Color::White, game.ply(), "e4", false, at(late)),
            Err(Rejection::GameOver),
            "a move at +{late} ms"
        );
        assert_eq!(
            game.claim_draw(
                Color::White,
                game.ply(),
                ClaimReason::FiftyMoves,
                None,
                at(late)
            ),
            Err(Rejection::GameOver),
            "a claim at +{late} ms"
        );
    }
    let (ended, events) = time_out(&game, MIN);
    assert_eq!(ended.result(), Some(timeout_win(Color::Black)));
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].version, 2);
    assert_eq!(events[0].at, at(MIN));
    assert_eq!(ended.version(), 2);
    assert_eq!(ended.updated_at(), at(MIN));
    // Once decided, time has nothing more to say.
    assert_eq!(ended.check_time(at(MIN + 1)), None);
    assert_eq!(
        ended.play_move(Color::White, ended.ply(), "e4", false, at(MIN)),
        Err(Rejection::GameOver)
    );
}

// ---------------------------------------------------------------------------
// Who wins on a flag
// ---------------------------------------------------------------------------

#[test]
fn fide_a_flag_against_a_lone_king_is_a_draw_and_otherwise_a_loss() {
    let lone_black = |turn: &str| format!("8/8/4k3/8/8/3K4/8/7R {turn} - - 0 1");
    let fide = GameRules::default();
    // White, with a rook, flags against a lone king: a draw.
    let white_flags = timed_fen(&lone_black("w"), fide, fischer(MIN, 0));
    assert_eq!(time_result(&white_flags, MIN), timeout_draw());
    // Black, the lone king, flags: White can mate, so White wins.
    let black_flags = timed_fen(&lone_black("b"), fide, fischer(MIN, 0));
    assert_eq!(time_result(&black_flags, MIN), timeout_win(Color::White));
    // With all the material, the flag simply loses.
    assert_eq!(
        time_result(&timed(fischer(MIN, 0)), MIN),
        timeout_win(Color::Black)
    );
}

/// White, who may still castle, has lots of material; Black has king,
/// bishop and pawns that can never get free.
const WHITE_MAY_CASTLE: &str = "k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/4K2R w K - 0 1";

/// The same with White's king on f1: Chess960 castling the helpmate search
/// cannot follow.
const CHESS960_KING_ON_F1: &str = "k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/5K1R w K - 0 1";

/// A timed Chess960 game from `fen`, created at `at(0)`.
fn timed_chess960(fen: &str, timing: Timing) -> Game {
    let new = NewGame::new(
        Player::parse("white", "w-1", "White").unwrap(),
        Player::parse("black", "b-1", "Black").unwrap(),
        Variant::Chess960,
        &StartPosition::Fen(fen.to_owned()),
        Pairing::default(),
        GameRules::default(),
    )
    .unwrap_or_else(|err| panic!("{fen} refused: {err}"))
    .with_clock(Some(timing), Schedule::default());
    Game::create(GameId::parse("timed").unwrap(), new, seats(), at(0)).0
}

#[test]
fn fide_castling_rights_do_not_keep_a_flag_from_being_a_draw() {
    // 6.9: White lets the clock run out; Black cannot checkmate by any
    // series of legal moves, whatever White's castling right.
    let game = timed_fen(WHITE_MAY_CASTLE, GameRules::default(), fischer(MIN, 0));
    assert_eq!(time_result(&game, MIN), timeout_draw());
    // The same position in Chess960, castling from the standard squares.
    let game = timed_chess960(WHITE_MAY_CASTLE, fischer(MIN, 0));
    assert_eq!(time_result(&game, MIN), timeout_draw());
}

#[test]
fn an_undecided_flag_ruling_awaits_the_arbiters_review_until_a_ruling_clears_it() {
    let game = timed_chess960(CHESS960_KING_ON_F1, fischer(MIN, 0));
    let (decision, note) = game.check_time(at(MIN)).expect("the flag fell");
    let review = AdjudicationNote::HelpmateSearchUndecided {
        opponent: Color::Black,
    };
    assert_eq!(note, Some(review));
    let (ended, events) = changed(Ok(decision));
    // The player with time wins, provisionally: the result and its event
    // say that an arbiter must review it.
    assert_eq!(ended.result(), Some(timeout_win(Color::Black)));
    assert_eq!(ended.review(), Some(review));
    assert_eq!(
        events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>(),
        vec![EventKind::GameEnded {
            result: timeout_win(Color::Black),
            score: Some(ended.scoring().score(timeout_win(Color::Black))),
            review: Some(review),
        }]
    );
    // Stored and read back, it is still there.
    let stored = crate::domain::stored::encoding::encode_game(&ended).expect("encode");
    let read = crate::domain::stored::encoding::decode_game(&stored).expect("decode");
    assert_eq!(read.review(), Some(review));
    let stored = crate::domain::stored::encoding::encode_event(&events[0]).expect("encode");
    assert_eq!(
        crate::domain::stored::encoding::decode_event(&stored).expect("decode"),
        events[0]
    );

    // The arbiter corrects it to a draw: no review pending any more.
    let ruling = Ruling::Played {
        outcome: Outcome::Draw,
        termination: Some(Termination::TimeoutVsInsufficientMaterial),
    };
    let (corrected, _) =
        changed(ended.set_result(ruling, "no helpmate for Black", "arbiter", at(2 * MIN)));
    assert_eq!(corrected.result(), Some(timeout_draw()));
    assert_eq!(corrected.review(), None);
    // Confirming the result as it stands clears it as well.
    let ruling = Ruling::Played {
        outcome: Outcome::BlackWins,
        termination: Some(Termination::Timeout),
    };
    let (confirmed, _) = changed(ended.set_result(ruling, "confirmed", "arbiter", at(2 * MIN)));
    assert_eq!(confirmed.result(), Some(timeout_win(Color::Black)));
    assert_eq!(confirmed.review(), None);
}

#[test]
fn a_decided_flag_ruling_needs_no_review() {
    let lone_black = "8/8/4k3/8/8/3K4/8/7R w - - 0 1";
    let game = timed_fen(lone_black, GameRules::default(), fischer(MIN, 0));
    let (decision, note) = game.check_time(at(MIN)).expect("the flag fell");
    assert_eq!(note, None);
    let (ended, _) = changed(Ok(decision));
    assert_eq!(ended.review(), None);
}

#[test]
fn uscf_draws_knight_against_pawn_which_fide_wins() {
    // White (K+P) flags; Black has K+N, which can be helpmated into a mate.
    let fen = "8/8/4k3/8/8/3K4/7P/6n1 w - - 0 1";
    let fide = GameRules::default();
    let uscf = GameRules {
        profile: RulesProfile::Uscf,
        ..GameRules::default()
    };
    assert_eq!(
        time_result(&timed_fen(fen, fide, fischer(MIN, 0)), MIN),
        timeout_win(Color::Black)
    );
    assert_eq!(
        time_result(&timed_fen(fen, uscf, fischer(MIN, 0)), MIN),
        timeout_draw()
    );
}

#[test]
fn uscf_draws_two_knights_only_against_no_pawns() {
    let uscf = GameRules {
        profile: RulesProfile::Uscf,
        ..GameRules::default()
    };
    let bare = "8/8/4k3/8/8/3K4/8/5nn1 w - - 0 1";
    assert_eq!(
        time_result(&timed_fen(bare, uscf, fischer(MIN, 0)), MIN),
        timeout_draw()
    );
    // FIDE looks only at whether a mate is possible at all: it is.
    assert_eq!(
        time_result(&timed_fen(bare, GameRules::default(), fischer(MIN, 0)), MIN),
        timeout_win(Color::Black)
    );
    // With a pawn, the flagging player could be mated: USCF scores the win.
    let with_pawn = "8/8/4k3/8/8/3K4/7P/5nn1 w - - 0 1";
    assert_eq!(
        time_result(&timed_fen(with_pawn, uscf, fischer(MIN, 0)), MIN),
        timeout_win(Color::Black)
    );
}

#[test]
fn a_flag_with_the_opponents_offer_pending_is_a_draw_only_where_the_rules_say_so() {
    let lenient = GameRules {
        pending_offer_draws_on_flag: true,
        ..GameRules::default()
    };
    // 1. e4 (at 1 s) e5 with Black's offer (at 2 s): White has 59 s left,
    // running from 2 s, so White's flag falls at 61 s.
    let offered = |rules: GameRules| {
        let (game, _) = play(
            &create(
                StartPosition::Standard,
                rules,
                Some(fischer(MIN, 0)),
                Schedule::default(),
            )
            .0,
            "e4",
            SEC,
        );
        let (game, _) = play_offering(&game, "e5", 2 * SEC);
        assert_eq!(game.draw_offer(), Some(Color::Black));
        game
    };
    let game = offered(lenient);
    assert_eq!(game.check_time(at(61 * SEC - 1)), None);
    let (ended, _) = time_out(&game, 61 * SEC);
    assert_eq!(
        ended.result(),
        Some(GameResult {
            outcome: Outcome::Draw,
            termination: Termination::TimeoutWithPendingDrawOffer,
        })
    );
    assert_eq!(ended.draw_offer(), None, "the offer lapses with the game");

    // Under the FIDE Laws the offer changes nothing.
    assert_eq!(
        time_result(&offered(GameRules::default()), 61 * SEC),
        timeout_win(Color::Black)
    );

    // An offer made with the opponent's move counts the same: 2. Nf3 with
    // White's offer at 3 s; Black (59 s left, from 3 s) flags at 62 s.
    let (theirs, _) = play_offering(&offered(lenient), "Nf3", 3 * SEC);
    assert_eq!(theirs.draw_offer(), Some(Color::White));
    assert_eq!(theirs.check_time(at(62 * SEC - 1)), None);
    assert_eq!(
        time_result(&theirs, 62 * SEC).termination,
        Termination::TimeoutWithPendingDrawOffer
    );

    // The flagger's own offer does not save it: after 1. e4 e5 (no offer)
    // White offers before moving, then flags at 61 s.
    let plain = create(
        StartPosition::Standard,
        lenient,
        Some(fischer(MIN, 0)),
        Schedule::default(),
    )
    .0;
    let (plain, _) = line(&plain, &["e4", "e5"], SEC, SEC);
    let (own, _) = changed(plain.offer_draw(Color::White, at(30 * SEC)));
    assert_eq!(own.draw_offer(), Some(Color::White));
    assert_eq!(own.side_to_move(), Color::White);
    assert_eq!(own.check_time(at(61 * SEC - 1)), None);
    assert_eq!(time_result(&own, 61 * SEC), timeout_win(Color::Black));
}

// ---------------------------------------------------------------------------
// Scheduled start and default time
// ---------------------------------------------------------------------------

/// Start at +60 s, default time 30 s, an hour each.
fn with_default_time() -> Game {
    scheduled(
        fischer(60 * MIN, 0),
        Schedule {
            scheduled_start: Some(at(60 * SEC)),
            default_time_ms: Some(30 * SEC),
            awaits_start: false,
        },
    )
}

#[test]
fn a_default_time_needs_a_scheduled_start() {
    assert_eq!(
        Schedule::new(None, Some(30 * SEC)),
        Err(FieldError::new(
            "default_time_millis",
            "needs a scheduled_start_time"
        ))
    );
    assert_eq!(
        Schedule::new(Some(at(MIN)), Some(30 * SEC)),
        Ok(Schedule {
            scheduled_start: Some(at(MIN)),
            default_time_ms: Some(30 * SEC),
            awaits_start: false,
        })
    );
    assert_eq!(
        Schedule::new(Some(at(MIN)), None).map(|s| s.default_time_ms),
        Ok(None)
    );
    assert_eq!(Schedule::new(None, None), Ok(Schedule::default()));
}

#[test]
fn black_plays_on_whites_control_unless_given_its_own() {
    let white = control(&[(5 * MIN, 0, 3 * SEC, 0)], DelayMode::Simple);
    let black = control(&[(4 * MIN, 0, 3 * SEC, 0)], DelayMode::Simple);
    assert_eq!(Timing::requested(None, None, false), Ok(None));
    assert_eq!(
        Timing::requested(Some(white.clone()), None, true),
        Ok(Some(Timing {
            white: white.clone(),
            black: white.clone(),
            clock_starts_after_first_moves: true,
        }))
    );
    assert_eq!(
        Timing::requested(Some(white.clone()), Some(black.clone()), false),
        Ok(Some(Timing {
            white,
            black: black.clone(),
            clock_starts_after_first_moves: false,
        }))
    );
    assert_eq!(
        Timing::requested(None, Some(black), false),
        Err(FieldError::new(
            "black_time_control",
            "needs time_control for White as well"
        ))
    );
    assert_eq!(
        Timing::requested(None, None, true),
        Err(FieldError::new(
            "clock_starts_after_first_moves",
            "needs a time_control"
        ))
    );
}

#[test]
fn white_absent_at_the_default_time_forfeits() {
    // Black checked in before the start; White neither checks in nor moves.
    let game = check_in(&with_default_time(), Color::Black, 10 * SEC);
    assert_eq!(game.deadline(), Some(at(90 * SEC)));
    assert_eq!(game.check_time(at(90 * SEC - 1)), None);
    assert_eq!(time_result(&game, 90 * SEC), no_show_of(Color::White));
    assert_eq!(time_result(&game, 10 * MIN), no_show_of(Color::White));
    assert_eq!(
        game.play_move(Color::White, game.ply(), "e4", false, at(90 * SEC)),
        Err(Rejection::GameOver)
    );
    // Just in time is in time.
    play(&game, "e4", 90 * SEC - 1);
}

#[test]
fn nobody_present_at_the_default_time_is_a_double_forfeit() {
    // FIDE 6.7.1: each player "who arrives at the chessboard after the
    // default time shall lose the game", so with neither there both lose.
    let game = with_default_time();
    assert_eq!(game.present(), Presence::NOBODY);
    assert_eq!(game.deadline(), Some(at(90 * SEC)));
    assert_eq!(game.check_time(at(90 * SEC - 1)), None);
    assert_eq!(time_result(&game, 90 * SEC), double_no_show());
    let (ended, _) = time_out(&game, 10 * MIN);
    assert_eq!(ended.result(), Some(double_no_show()));
    // It ended when the default time ran out, however late it was noticed.
    assert_eq!(ended.ended_at(), Some(at(90 * SEC)));
    let score = ended.score().expect("scored");
    assert_eq!((score.white, score.black), (Points::ZERO, Points::ZERO));
    assert!(!score.played);
    assert_eq!(ended.deadline(), None);
}

#[test]
fn a_present_black_is_not_forfeited_for_whites_late_first_move() {
    // Black checks in before the start; White moves a millisecond before the
    // default time ends. Black, who could not move before White, is
    // present: the default time no longer applies to anyone.
    let game = check_in(&with_default_time(), Color::Black, 30 * SEC);
    let (game, _) = play(&game, "e4", 90 * SEC - 1);
    assert!(game.present().is_complete());
    assert_eq!(game.check_time(at(90 * SEC)), None);
    assert_eq!(game.check_time(at(91 * SEC)), None);
    // Only Black's flag is left: an hour from White's move.
    assert_eq!(game.deadline(), Some(at(90 * SEC - 1 + 60 * MIN)));
    play(&game, "e5", 5 * MIN);
    // The same with Black checking in after the start.
    let game = check_in(&with_default_time(), Color::Black, 89 * SEC);
    let (game, _) = play(&game, "d4", 90 * SEC - 1);
    assert_eq!(game.check_time(at(2 * MIN)), None);
}

#[test]
fn a_move_is_presence_for_the_side_that_moves_first() {
    // From a position with Black to move, Black's first move makes Black
    // present; White, who has not checked in, forfeits.
    let (game, _) = create(
        StartPosition::Fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".to_owned()),
        GameRules::default(),
        Some(fischer(60 * MIN, 0)),
        Schedule {
            scheduled_start: Some(at(60 * SEC)),
            default_time_ms: Some(30 * SEC),
            awaits_start: false,
        },
    );
    let (game, _) = play(&game, "e5", 70 * SEC);
    assert_eq!(game.present(), Presence::NOBODY.with(Color::Black));
    assert_eq!(game.checked_in(), Presence::NOBODY, "a move is not stored");
    assert_eq!(time_result(&game, 90 * SEC), no_show_of(Color::White));
}

#[test]
fn check_in_is_idempotent_and_refused_once_the_game_is_over() {
    let game = with_default_time();
    // Allowed before the scheduled start (+60 s).
    let checked = check_in(&game, Color::White, 5 * SEC);
    assert_eq!(checked.checked_in(), Presence::NOBODY.with(Color::White));
    assert_eq!(checked.version(), game.version() + 1);
    // A repeat changes nothing.
    assert_eq!(
        checked.check_in(Color::White, at(6 * SEC)),
        Ok(Decision::Unchanged)
    );
    // Nor does a check-in by a seat that has already moved.
    let (moved, _) = play(&checked, "e4", 61 * SEC);
    let black = check_in(&moved, Color::Black, 62 * SEC);
    assert!(black.present().is_complete());
    let (both, _) = play(&black, "e5", 63 * SEC);
    assert_eq!(
        both.check_in(Color::White, at(64 * SEC)),
        Ok(Decision::Unchanged)
    );
    // A game that is over refuses it: finished, or aborted.
    let (resigned, _) = changed(checked.resign(Color::White, at(7 * SEC)));
    assert_eq!(
        resigned.check_in(Color::Black, at(8 * SEC)),
        Err(Rejection::GameOver)
    );
    assert_eq!(
        resigned.check_in(Color::White, at(8 * SEC)),
        Err(Rejection::GameOver)
    );
    let (aborted, _) = changed(checked.abort(Color::Black, at(7 * SEC)));
    assert_eq!(
        aborted.check_in(Color::Black, at(8 * SEC)),
        Err(Rejection::GameAborted)
    );
    // Untimed games and games without a default time take check-ins too.
    check_in(&untimed(), Color::Black, SEC);
}

#[test]
fn check_ins_are_stored_only_when_there_are_some() {
    let game = with_default_time();
    let json = serde_json::to_string(&game).expect("serialize");
    assert!(!json.contains("checked_in"), "{json}");
    let checked = check_in(&game, Color::Black, SEC);
    let json = serde_json::to_string(&checked).expect("serialize");
    assert!(json.contains(r#""checked_in":{"black":true}"#), "{json}");
    let back: Game = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, checked);
    assert_eq!(time_result(&back, 90 * SEC), no_show_of(Color::White));
}

#[test]
fn black_without_a_first_move_by_the_default_time_forfeits() {
    let (game, _) = play(&with_default_time(), "e4", 70 * SEC);
    assert_eq!(game.deadline(), Some(at(90 * SEC)));
    assert_eq!(game.check_time(at(90 * SEC - 1)), None);
    assert_eq!(time_result(&game, 90 * SEC), no_show_of(Color::Black));
    assert_eq!(
        game.play_move(Color::Black, game.ply(), "e5", false, at(90 * SEC)),
        Err(Rejection::GameOver)
    );
}

#[test]
fn after_both_first_moves_the_default_time_no_longer_applies() {
    let (game, _) = line(&with_default_time(), &["e4", "e5"], 70 * SEC, 10 * SEC);
    assert_eq!(game.check_time(at(90 * SEC)), None);
    assert_eq!(game.check_time(at(30 * MIN)), None);
    // Only White's flag is left: an hour less 10 s, running from 80 s.
    assert_eq!(game.deadline(), Some(at(80 * SEC + 60 * MIN - 10 * SEC)));
    play(&game, "Nf3", 30 * MIN);
}

#[test]
fn a_flag_that_falls_before_the_default_time_decides_whenever_it_is_checked() {
    // A one-minute game starting at +60 s with a 15-minute default time:
    // White's flag falls at +120 s, long before the default time ends.
    let game = scheduled(
        fischer(MIN, 0),
        Schedule {
            scheduled_start: Some(at(60 * SEC)),
            default_time_ms: Some(15 * MIN),
            awaits_start: false,
        },
    );
    assert_eq!(game.deadline(), Some(at(2 * MIN)));
    assert_eq!(time_result(&game, 2 * MIN), timeout_win(Color::Black));
    // Checking only after the default time has passed too must not change
    // what already happened.
    assert_eq!(time_result(&game, 20 * MIN), timeout_win(Color::Black));
    // It can change the winner: White with a rook flags against a lone
    // king (a draw), whereas a forfeit for no-show would lose.
    let game = create(
        StartPosition::Fen("8/8/4k3/8/8/3K4/8/7R w - - 0 1".to_owned()),
        GameRules::default(),
        Some(fischer(MIN, 0)),
        Schedule {
            scheduled_start: Some(at(60 * SEC)),
            default_time_ms: Some(15 * MIN),
            awaits_start: false,
        },
    )
    .0;
    assert_eq!(time_result(&game, 2 * MIN), timeout_draw());
    assert_eq!(time_result(&game, 20 * MIN), timeout_draw());
    // With the default time ending first, the no-show decides even when
    // checked after the flag would have fallen.
    let game = scheduled(
        fischer(MIN, 0),
        Schedule {
            scheduled_start: Some(at(60 * SEC)),
            default_time_ms: Some(30 * SEC),
            awaits_start: false,
        },
    );
    assert_eq!(time_result(&game, 20 * MIN), double_no_show());
    // A tie goes to the default time.
    let game = scheduled(
        fischer(MIN, 0),
        Schedule {
            scheduled_start: Some(at(60 * SEC)),
            default_time_ms: Some(MIN),
            awaits_start: false,
        },
    );
    assert_eq!(time_result(&game, 2 * MIN), double_no_show());
    let game = check_in(&game, Color::Black, SEC);
    assert_eq!(time_result(&game, 2 * MIN), no_show_of(Color::White));
}

// ---------------------------------------------------------------------------
// The deadline
// ---------------------------------------------------------------------------

#[test]
fn the_deadline_is_the_earlier_of_the_flag_and_the_default_time() {
    // The default time (+90 s) ends before the hour on White's clock.
    assert_eq!(with_default_time().deadline(), Some(at(90 * SEC)));
    // The flag (+120 s) falls before the default time (+16 min).
    let game = scheduled(
        fischer(MIN, 0),
        Schedule {
            scheduled_start: Some(at(60 * SEC)),
            default_time_ms: Some(15 * MIN),
            awaits_start: false,
        },
    );
    assert_eq!(game.deadline(), Some(at(2 * MIN)));
    // A scheduled start without a default time: only the flag.
    let game = scheduled(
        fischer(MIN, 0),
        Schedule {
            scheduled_start: Some(at(60 * SEC)),
            default_time_ms: None,
            awaits_start: false,
        },
    );
    assert_eq!(game.deadline(), Some(at(2 * MIN)));
}

#[test]
fn untimed_and_finished_games_have_no_deadline() {
    let game = untimed();
    assert_eq!(game.deadline(), None);
    let (game, _) = play(&game, "e4", SEC);
    assert_eq!(game.deadline(), None);
    assert_eq!(game.check_time(at(1_000 * MIN)), None);

    let game = timed(fischer(MIN, 0));
    let (flagged, _) = time_out(&game, MIN);
    assert_eq!(flagged.deadline(), None);
    let (resigned, _) = changed(game.resign(Color::White, at(SEC)));
    assert_eq!(resigned.deadline(), None);
    let (aborted, _) = changed(game.abort(Color::White, at(SEC)));
    assert_eq!(aborted.deadline(), None);
    assert_eq!(aborted.check_time(at(10 * MIN)), None);
}

#[test]
fn the_deadline_moves_later_with_each_move_in_time() {
    let game = timed(fischer(5 * MIN, 2 * SEC));
    assert_eq!(game.deadline(), Some(at(300 * SEC)));
    // Black's five minutes run from 10 s.
    let (game, _) = play(&game, "e4", 10 * SEC);
    assert_eq!(game.deadline(), Some(at(310 * SEC)));
    // White's 292 s run from 20 s.
    let (game, _) = play(&game, "e5", 20 * SEC);
    assert_eq!(game.deadline(), Some(at(312 * SEC)));
}

#[test]
fn whites_time_does_not_run_before_a_scheduled_start() {
    let (game, created) = create(
        StartPosition::Standard,
        GameRules::default(),
        Some(fischer(MIN, 0)),
        Schedule {
            scheduled_start: Some(at(10 * MIN)),
            default_time_ms: None,
            awaits_start: false,
        },
    );
    assert_eq!(created.clock.map(|c| c.white_ms), Some(ms(MIN)));
    assert_eq!(remaining(&game, Color::White, 5 * MIN), ms(MIN));
    assert_eq!(remaining(&game, Color::White, 10 * MIN), ms(MIN));
    assert_eq!(game.deadline(), Some(at(11 * MIN)));
    assert_eq!(game.check_time(at(11 * MIN - 1)), None);
    assert_eq!(time_result(&game, 11 * MIN), timeout_win(Color::Black));
    // A move 20 s after the start costs 20 s.
    let (_, events) = play(&game, "e4", 10 * MIN + 20 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 20 * SEC,
            remaining_ms: ms(40 * SEC),
            lag_credit_ms: 0,
        }
    );
    // No move may be played before the start.
    let early = game.play_move(
        Color::White,
        crate::domain::Ply::START,
        "e4",
        false,
        at(5 * MIN),
    );
    assert_eq!(
        early,
        Err(Rejection::NotStarted {
            starts_at_ms: at(10 * MIN).unix_millis()
        })
    );
}

#[test]
fn a_pause_before_a_scheduled_start_does_not_push_the_start_back() {
    let game = scheduled(
        fischer(MIN, 0),
        Schedule {
            scheduled_start: Some(at(10 * MIN)),
            default_time_ms: None,
            awaits_start: false,
        },
    );
    // Paused and resumed before the start: no time was lost.
    let (paused, _) = changed(game.pause_clock("dispute", "arbiter", at(5 * MIN)));
    let (resumed, _) = changed(paused.resume_clock("settled", "arbiter", at(7 * MIN)));
    assert_eq!(resumed.deadline(), Some(at(11 * MIN)));
    // Paused before the start, resumed 5 min after it: the clock starts at
    // the resumption.
    let (resumed, _) = changed(paused.resume_clock("settled", "arbiter", at(15 * MIN)));
    assert_eq!(resumed.deadline(), Some(at(16 * MIN)));
    assert_eq!(remaining(&resumed, Color::White, 15 * MIN), ms(MIN));
}

#[test]
fn a_clock_that_starts_after_the_first_moves_leaves_them_untimed() {
    let mut timing = fischer(MIN, 2 * SEC);
    timing.clock_starts_after_first_moves = true;
    let game = timed(timing);
    assert_eq!(game.deadline(), None);
    assert_eq!(game.check_time(at(60 * MIN)), None);

    let (game, events) = play(&game, "e4", 5 * MIN);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 0,
            remaining_ms: ms(MIN),
            lag_credit_ms: 0,
        }
    );
    assert_eq!(game.deadline(), None);
    assert_eq!(game.check_time(at(60 * MIN)), None);

    let (game, events) = play(&game, "e5", 6 * MIN);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 0,
            remaining_ms: ms(MIN),
            lag_credit_ms: 0,
        }
    );
    // Now White's clock runs, from Black's first move.
    assert_eq!(game.clock().unwrap().running(), Some(Color::White));
    assert_eq!(game.deadline(), Some(at(7 * MIN)));
    assert_eq!(game.check_time(at(7 * MIN - 1)), None);
    assert_eq!(time_result(&game, 7 * MIN), timeout_win(Color::Black));
    let (_, events) = play(&game, "Nf3", 6 * MIN + 10 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 10 * SEC,
            remaining_ms: ms(MIN - 10 * SEC + 2 * SEC),
            lag_credit_ms: 0,
        }
    );
}

// ---------------------------------------------------------------------------
// Periods and delays
// ---------------------------------------------------------------------------

/// 84 half-moves with no ending: six pawn moves per side, each followed by
/// three rounds of knights out and back (a position appears at most four
/// times between pawn moves, never five).
fn long_line() -> Vec<&'static str> {
    let pawns = [
        ("a3", "a6"),
        ("a4", "a5"),
        ("b3", "b6"),
        ("b4", "b5"),
        ("c3", "c6"),
        ("c4", "c5"),
    ];
    let mut moves = Vec::new();
    for (white, black) in pawns {
        moves.extend([white, black]);
        for _ in 0..3 {
            moves.extend(["Nf3", "Nf6", "Ng1", "Ng8"]);
        }
    }
    moves
}

#[test]
fn after_forty_moves_the_next_periods_time_is_added_to_the_time_saved() {
    // 40 moves in 90 min, then 30 min for the rest, 30 s a move from move 1.
    let game = timed(same(control(
        &[(90 * MIN, 40, 30 * SEC, 0), (30 * MIN, 0, 30 * SEC, 0)],
        DelayMode::Simple,
    )));
    // One second per half-move: every move spends 1 s and earns 30 s.
    let mut game = game;
    let mut white_after = Vec::new();
    let mut black_after = Vec::new();
    for (i, text) in long_line().into_iter().enumerate() {
        let now = (i as u64 + 1) * SEC;
        let (next, events) = play(&game, text, now);
        assert_eq!(next.status(), GameStatus::Active, "after {text} at ply {i}");
        let time = move_time(&events);
        assert_eq!(time.spent_ms, SEC);
        let view = events[0].clock.expect("a clock view");
        if i % 2 == 0 {
            white_after.push((time.remaining_ms, view));
        } else {
            black_after.push((time.remaining_ms, view));
        }
        game = next;
    }
    let per_move = ms(29 * SEC);
    // Move 39: still in the first period, one move to go.
    let (left, view) = white_after[38];
    assert_eq!(left, ms(90 * MIN) + 39 * per_move);
    assert_eq!((view.white_period, view.white_moves_left), (0, 1));
    // Move 40 completes the period: 90 min + 40 × 29 s saved, plus 30 min.
    let (left, view) = white_after[39];
    assert_eq!(left, ms(90 * MIN) + 40 * per_move + ms(30 * MIN));
    assert_eq!((view.white_period, view.white_moves_left), (1, 0));
    assert_eq!(view.white_ms, left);
    // Black's period changes with its own 40th move, not White's.
    assert_eq!((view.black_period, view.black_moves_left), (0, 1));
    let (left, view) = black_after[39];
    assert_eq!(left, ms(90 * MIN) + 40 * per_move + ms(30 * MIN));
    assert_eq!((view.black_period, view.black_moves_left), (1, 0));
    // Move 41 goes on in the last period, with its increment.
    let (left, _) = white_after[40];
    assert_eq!(left, ms(90 * MIN) + 41 * per_move + ms(30 * MIN));
    let (left, view) = white_after[41];
    assert_eq!(left, ms(90 * MIN) + 42 * per_move + ms(30 * MIN));
    assert_eq!(
        view.white_period, 1,
        "the rest-of-game period does not repeat"
    );
}

#[test]
fn a_last_period_with_a_move_count_repeats() {
    // 2 moves in 10 min, then 5 min for every move after.
    let game = timed(same(control(
        &[(10 * MIN, 2, 0, 0), (5 * MIN, 1, 0, 0)],
        DelayMode::Simple,
    )));
    let (_, events) = line(
        &game,
        &["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "d3", "d6"],
        SEC,
        SEC,
    );
    let white: Vec<(i64, u32)> = events
        .iter()
        .filter(|e| e.move_record().is_some_and(|r| r.color == Color::White))
        .map(|e| {
            (
                e.move_record().unwrap().time.unwrap().remaining_ms,
                e.clock.unwrap().white_period,
            )
        })
        .collect();
    assert_eq!(
        white,
        vec![
            (ms(599 * SEC), 0),
            (ms(598 * SEC + 5 * MIN), 1),
            (ms(597 * SEC + 10 * MIN), 2),
            (ms(596 * SEC + 15 * MIN), 3),
        ]
    );
}

#[test]
fn simple_delay_holds_the_clock_and_pushes_the_flag_back() {
    // 10 s with a 5 s simple delay.
    let game = timed(same(control(
        &[(10 * SEC, 0, 0, 5 * SEC)],
        DelayMode::Simple,
    )));
    let view = game.clock().unwrap().view(at(2 * SEC));
    assert_eq!((view.white_ms, view.delay_left_ms), (ms(10 * SEC), 3 * SEC));
    assert_eq!(game.deadline(), Some(at(15 * SEC)));
    // A move within the delay costs nothing.
    let (after, events) = play(&game, "e4", 3 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 3 * SEC,
            remaining_ms: ms(10 * SEC),
            lag_credit_ms: 0,
        }
    );
    // A 12 s move costs 7 s.
    let (_, events) = play(&after, "e5", 15 * SEC);
    assert_eq!(move_time(&events).remaining_ms, ms(3 * SEC));
    // The flag falls after time plus delay, not before.
    let (_, events) = play(&game, "e4", 15 * SEC - 1);
    assert_eq!(move_time(&events).remaining_ms, 1);
    assert_eq!(
        game.play_move(Color::White, game.ply(), "e4", false, at(15 * SEC)),
        Err(Rejection::GameOver)
    );
}

#[test]
fn bronstein_delay_runs_the_clock_and_gives_back_the_time_used() {
    // 10 s with a 5 s Bronstein delay.
    let game = timed(same(control(
        &[(10 * SEC, 0, 0, 5 * SEC)],
        DelayMode::Bronstein,
    )));
    let view = game.clock().unwrap().view(at(2 * SEC));
    assert_eq!((view.white_ms, view.delay_left_ms), (ms(8 * SEC), 0));
    assert_eq!(game.deadline(), Some(at(10 * SEC)));
    // A quick move gets all its time back...
    let (after, events) = play(&game, "e4", 3 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 3 * SEC,
            remaining_ms: ms(10 * SEC),
            lag_credit_ms: 0,
        }
    );
    // ...a slow one only the delay: 10 - 8 + 5.
    let (_, events) = play(&after, "e5", 11 * SEC);
    assert_eq!(move_time(&events).remaining_ms, ms(7 * SEC));
    // The delay does not push the flag back.
    assert_eq!(
        game.play_move(Color::White, game.ply(), "e4", false, at(10 * SEC)),
        Err(Rejection::GameOver)
    );
    assert_eq!(time_result(&game, 10 * SEC), timeout_win(Color::Black));
}

// ---------------------------------------------------------------------------
// The arbiter's clock controls
// ---------------------------------------------------------------------------

#[test]
fn a_paused_clock_refuses_moves_never_flags_and_resumes_where_it_stopped() {
    let game = timed(fischer(MIN, 0));
    let (paused, events) =
        changed(game.pause_clock("dispute at the board", "arbiter", at(10 * SEC)));
    assert_eq!(
        events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>(),
        vec![EventKind::ClockPaused {
            reason: "dispute at the board".to_owned(),
            by: Some("arbiter".to_owned()),
        }]
    );
    let view = events[0].clock.unwrap();
    assert!(view.paused);
    assert_eq!(view.running, None);
    assert_eq!(view.white_ms, ms(50 * SEC));

    assert_eq!(
        paused.play_move(Color::White, paused.ply(), "e4", false, at(20 * SEC)),
        Err(Rejection::ClockPaused)
    );
    assert_eq!(
        paused
            .claim_draw(
                Color::White,
                paused.ply(),
                ClaimReason::ThreefoldRepetition,
                None,
                at(20 * SEC)
            )
            .map(|(_, verdict)| verdict),
        Err(Rejection::ClockPaused)
    );
    assert_eq!(paused.check_time(at(10 * MIN)), None);
    assert_eq!(paused.deadline(), None);
    assert_eq!(remaining(&paused, Color::White, 10 * MIN), ms(50 * SEC));
    assert_eq!(
        paused.pause_clock("again", "arbiter", at(MIN)),
        Err(Rejection::ClockPaused)
    );
    assert_eq!(
        game.resume_clock("not paused", "arbiter", at(MIN)),
        Err(Rejection::ClockNotPaused)
    );

    // Resumed at 10 min: the flag falls 50 s later, not at 60 s.
    let (resumed, events) = changed(paused.resume_clock("settled", "arbiter", at(10 * MIN)));
    assert_eq!(
        events[0].kind,
        EventKind::ClockResumed {
            reason: "settled".to_owned(),
            by: Some("arbiter".to_owned()),
        }
    );
    assert_eq!(events[0].clock.unwrap().running, Some(Color::White));
    assert!(!resumed.clock().unwrap().is_paused());
    assert_eq!(resumed.deadline(), Some(at(10 * MIN + 50 * SEC)));
    assert_eq!(resumed.check_time(at(10 * MIN + 50 * SEC - 1)), None);
    assert_eq!(
        time_result(&resumed, 10 * MIN + 50 * SEC),
        timeout_win(Color::Black)
    );
    // The pause is not thinking time.
    let (_, events) = play(&resumed, "e4", 10 * MIN + 5 * SEC);
    assert_eq!(
        move_time(&events),
        MoveTime {
            spent_ms: 15 * SEC,
            remaining_ms: ms(45 * SEC),
            lag_credit_ms: 0,
        }
    );
}

#[test]
fn an_adjustment_adds_or_deducts_time_and_is_an_event() {
    let game = timed(fischer(5 * MIN, 0));
    let (game, events) = changed(game.adjust_clock(
        Color::White,
        ms(30 * SEC),
        "disturbed by the opponent",
        "arbiter",
        at(10 * SEC),
    ));
    assert_eq!(
        events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>(),
        vec![EventKind::ClockAdjusted {
            color: Color::White,
            delta_ms: ms(30 * SEC),
            reason: "disturbed by the opponent".to_owned(),
            by: Some("arbiter".to_owned()),
        }]
    );
    assert_eq!(events[0].clock.unwrap().white_ms, ms(320 * SEC));
    assert_eq!(game.deadline(), Some(at(330 * SEC)));

    let (game, events) = changed(game.adjust_clock(
        Color::Black,
        -ms(MIN),
        "illegal move",
        "arbiter",
        at(20 * SEC),
    ));
    assert_eq!(
        events[0].kind,
        EventKind::ClockAdjusted {
            color: Color::Black,
            delta_ms: -ms(MIN),
            reason: "illegal move".to_owned(),
            by: Some("arbiter".to_owned()),
        }
    );
    assert_eq!(remaining(&game, Color::Black, 20 * SEC), ms(4 * MIN));
    assert_eq!(game.deadline(), Some(at(330 * SEC)), "White's flag stays");

    // Deducting more than is left makes the flag fall at once.
    let (game, _) = changed(game.adjust_clock(
        Color::White,
        -ms(10 * MIN),
        "penalty",
        "arbiter",
        at(30 * SEC),
    ));
    assert_eq!(time_result(&game, 30 * SEC), timeout_win(Color::Black));
}

#[test]
fn clock_controls_are_refused_on_untimed_and_finished_games() {
    let game = untimed();
    assert_eq!(
        game.adjust_clock(Color::White, 1000, "r", "arbiter", at(SEC)),
        Err(Rejection::Untimed)
    );
    assert_eq!(
        game.pause_clock("r", "arbiter", at(SEC)),
        Err(Rejection::Untimed)
    );
    assert_eq!(
        game.resume_clock("r", "arbiter", at(SEC)),
        Err(Rejection::Untimed)
    );

    let (resigned, _) = changed(timed(fischer(MIN, 0)).resign(Color::Black, at(SEC)));
    let (flagged, _) = time_out(&timed(fischer(MIN, 0)), MIN);
    let (paused, _) = changed(timed(fischer(MIN, 0)).pause_clock("r", "arbiter", at(SEC)));
    let (paused_then_resigned, _) = changed(paused.resign(Color::White, at(2 * SEC)));
    for over in [resigned, flagged, paused_then_resigned] {
        assert_eq!(
            over.adjust_clock(Color::White, 1000, "r", "arbiter", at(2 * MIN)),
            Err(Rejection::GameOver)
        );
        assert_eq!(
            over.pause_clock("r", "arbiter", at(2 * MIN)),
            Err(Rejection::GameOver)
        );
        assert_eq!(
            over.resume_clock("r", "arbiter", at(2 * MIN)),
            Err(Rejection::GameOver)
        );
    }
}

// ---------------------------------------------------------------------------
// Incorrect claims (FIDE 9.5.3, A.5.5)
// ---------------------------------------------------------------------------

/// After 1. e4 e5 (at 1 s and 2 s), White claims threefold at 3 s: wrongly.
fn wrong_claim(game: &Game) -> (Game, Vec<GameEvent>) {
    let (game, _) = line(game, &["e4", "e5"], SEC, SEC);
    let (decision, verdict) = game
        .claim_draw(
            Color::White,
            game.ply(),
            ClaimReason::ThreefoldRepetition,
            None,
            at(3 * SEC),
        )
        .expect("a ruling");
    assert!(
        matches!(verdict, ClaimVerdict::Refused { .. }),
        "{verdict:?}"
    );
    changed(Ok(decision))
}

fn penalties(events: &[GameEvent]) -> Vec<(Color, i64)> {
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::ClockAdjusted {
                color, delta_ms, ..
            } => Some((color, delta_ms)),
            _ => None,
        })
        .collect()
}

#[test]
fn an_incorrect_claim_gives_the_opponent_two_minutes_in_standard_play() {
    let (after, events) = wrong_claim(&timed(fischer(90 * MIN, 30 * SEC)));
    assert_eq!(penalties(&events), vec![(Color::Black, ms(2 * MIN))]);
    // Black spent 1 s and earned 30 s, then got the two minutes.
    assert_eq!(
        remaining(&after, Color::Black, 3 * SEC),
        ms(90 * MIN + 29 * SEC + 2 * MIN)
    );
    // The claimant's own clock is untouched (it ran from 2 s).
    assert_eq!(
        remaining(&after, Color::White, 3 * SEC),
        ms(90 * MIN + 29 * SEC - SEC)
    );
}

#[test]
fn an_incorrect_claim_gives_the_opponent_one_minute_in_rapid_and_blitz() {
    for (base, increment) in [(15 * MIN, 10 * SEC), (25 * MIN, 0), (5 * MIN, 3 * SEC)] {
        let (after, events) = wrong_claim(&timed(fischer(base, increment)));
        assert_eq!(
            penalties(&events),
            vec![(Color::Black, ms(MIN))],
            "{base} + {increment}"
        );
        assert_eq!(
            remaining(&after, Color::Black, 3 * SEC),
            ms(base - SEC + increment + MIN)
        );
    }
}

#[test]
fn an_incorrect_claim_costs_nothing_in_an_untimed_game() {
    let (after, events) = wrong_claim(&untimed());
    assert!(penalties(&events).is_empty(), "{events:?}");
    assert!(after.clock().is_none());
    assert!(events.iter().all(|e| e.clock.is_none()));
    assert!(
        events
            .iter()
            .any(|e| matches!(e.kind, EventKind::DrawClaimRefused { .. }))
    );
}

// ---------------------------------------------------------------------------
// Events and persistence
// ---------------------------------------------------------------------------

/// Asserts that every event carries the clocks of `game` as of its time.
#[track_caller]
fn assert_views(game: &Game, events: &[GameEvent]) {
    let clock = game.clock().expect("a timed game");
    for event in events {
        let view = event
            .clock
            .unwrap_or_else(|| panic!("{:?} has no clock", event.kind));
        assert_eq!(view.at, event.at, "{:?}", event.kind);
        assert_eq!(view, clock.view(event.at), "{:?}", event.kind);
    }
}

#[test]
fn every_event_of_a_timed_game_carries_the_clocks_as_of_its_time() {
    let (game, created) = create(
        StartPosition::Standard,
        GameRules::default(),
        Some(fischer(5 * MIN, 3 * SEC)),
        Schedule::default(),
    );
    let view = created.clock.expect("a clock on creation");
    assert_eq!(view.at, at(0));
    assert_eq!((view.white_ms, view.black_ms), (ms(5 * MIN), ms(5 * MIN)));
    assert_eq!(view.running, Some(Color::White));

    let (game, events) = play(&game, "e4", 10 * SEC);
    assert_views(&game, &events);
    let view = events[0].clock.unwrap();
    assert_eq!(
        (view.white_ms, view.black_ms, view.running),
        (ms(293 * SEC), ms(5 * MIN), Some(Color::Black))
    );
    let (game, events) = play_offering(&game, "e5", 15 * SEC);
    assert_eq!(events.len(), 2);
    assert_views(&game, &events);
    let (game, events) = changed(game.respond_to_draw_offer(Color::White, false, at(20 * SEC)));
    assert_views(&game, &events);
    // White's time keeps running between moves: 293 s less 5 s.
    assert_eq!(events[0].clock.unwrap().white_ms, ms(288 * SEC));
    let (game, events) =
        changed(game.adjust_clock(Color::Black, 1000, "r", "arbiter", at(21 * SEC)));
    assert_views(&game, &events);
    let (game, events) = changed(game.pause_clock("r", "arbiter", at(22 * SEC)));
    assert_views(&game, &events);
    let (game, events) = changed(game.resume_clock("r", "arbiter", at(30 * SEC)));
    assert_views(&game, &events);
    let (decision, _) = game
        .claim_draw(
            Color::White,
            game.ply(),
            ClaimReason::FiftyMoves,
            Some("Nf3"),
            at(31 * SEC),
        )
        .expect("a ruling");
    let (game, events) = changed(Ok(decision));
    assert!(events.len() >= 3, "{events:?}");
    assert_views(&game, &events);
    let flag = game.deadline().expect("a deadline");
    let flag_ms = flag.unix_millis() - T0;
    let (ended, events) = time_out(&game, flag_ms);
    assert_views(&ended, &events);
    assert_eq!(events[0].clock.unwrap().black_ms, 0);
}

#[test]
fn events_of_an_untimed_game_carry_no_clock() {
    let (game, created) = create(
        StartPosition::Standard,
        GameRules::default(),
        None,
        Schedule::default(),
    );
    assert_eq!(created.clock, None);
    let (game, mut events) = line(&game, &["e4", "e5"], SEC, SEC);
    let (game, more) = play_offering(&game, "Nf3", 3 * SEC);
    events.extend(more);
    let (_, more) = changed(game.resign(Color::Black, at(4 * SEC)));
    events.extend(more);
    assert!(events.len() >= 5, "{events:?}");
    for event in &events {
        assert_eq!(event.clock, None, "{:?}", event.kind);
        if let Some(record) = event.move_record() {
            assert_eq!(record.time, None);
        }
    }
}

#[test]
fn a_timed_game_survives_a_serde_round_trip_mid_game_and_paused() {
    let timing = Timing {
        white: control(
            &[(90 * MIN, 40, 30 * SEC, 0), (30 * MIN, 0, 30 * SEC, 0)],
            DelayMode::Simple,
        ),
        black: control(&[(60 * MIN, 0, 0, 5 * SEC)], DelayMode::Bronstein),
        clock_starts_after_first_moves: false,
    };
    let rules = GameRules {
        profile: RulesProfile::Uscf,
        pending_offer_draws_on_flag: true,
        ..GameRules::default()
    };
    let (game, _) = create(
        StartPosition::Standard,
        rules,
        Some(timing),
        Schedule {
            scheduled_start: Some(at(MIN)),
            default_time_ms: Some(15 * MIN),
            awaits_start: false,
        },
    );
    let (game, _) = line(&game, &["e4", "c5", "Nf3"], 2 * MIN, 7 * SEC);
    let (game, _) = play_offering(&game, "d6", 2 * MIN + 30 * SEC);
    let (game, _) = changed(game.adjust_clock(Color::White, 5000, "r", "arbiter", at(3 * MIN)));
    let (game, _) = changed(game.pause_clock("r", "arbiter", at(3 * MIN + 10 * SEC)));

    let json = serde_json::to_string(&game).expect("serialize");
    let back: Game = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(back, game);
    // It behaves the same afterwards.
    let resume = |g: &Game| changed(g.resume_clock("r", "arbiter", at(10 * MIN)));
    assert_eq!(resume(&back), resume(&game));
    let (resumed, _) = resume(&back);
    assert_eq!(resumed.deadline(), resume(&game).0.deadline());
    assert!(resumed.deadline().is_some());
}

#[test]
fn a_later_correction_leaves_the_clocks_as_they_were_at_the_end() {
    let game = timed(fischer(5 * MIN, 0));
    let (game, _) = play(&game, "e4", 10 * SEC);
    let (ended, _) = changed(game.resign(Color::Black, at(70 * SEC)));
    let frozen = ended.clock_view(at(70 * SEC)).expect("timed");
    // An hour later the arbiter corrects the result.
    let ruling = Ruling::Played {
        outcome: Outcome::Draw,
        termination: None,
    };
    let (corrected, events) =
        changed(ended.set_result(ruling, "appeal", "arbiter", at(70 * SEC + 60 * MIN)));
    assert_eq!(corrected.clock_view(at(2 * 60 * MIN)), Some(frozen));
    assert_eq!(events[0].clock_view(), Some(frozen));
    assert_eq!(corrected.ended_at(), Some(at(70 * SEC)));
}

#[test]
fn a_flag_noticed_late_ends_the_game_when_it_fell() {
    let game = timed(fischer(MIN, 0));
    let (game, _) = play(&game, "e4", 10 * SEC);
    let flag = game.deadline().expect("Black's flag");
    let flag_ms = flag.unix_millis() - T0;
    // Noticed ten minutes after it fell.
    let (ended, events) = time_out(&game, flag_ms + 10 * MIN);
    assert_eq!(ended.ended_at(), Some(flag));
    let view = ended.clock_view(at(flag_ms + 20 * MIN)).expect("timed");
    assert_eq!(view.black_ms, 0);
    assert_eq!(events[0].clock_view().map(|c| c.black_ms), Some(0));
}

#[test]
fn the_default_time_stands_still_while_the_arbiter_has_the_clock_paused() {
    // The game starts at 60 s with 30 s of default time; the arbiter pauses
    // the clock at 70 s and resumes it at 5 min.
    let game = with_default_time();
    let Ok(Decision::Changed { game: paused, .. }) =
        game.pause_clock("hall", "arbiter", at(70 * SEC))
    else {
        panic!("paused");
    };
    // No forfeit while paused, however long, and nothing for the sweeper.
    assert_eq!(paused.deadline(), None);
    assert_eq!(paused.check_time(at(10 * MIN)), None);
    let Ok(Decision::Changed { game: resumed, .. }) =
        paused.resume_clock("hall", "arbiter", at(5 * MIN))
    else {
        panic!("resumed, not ended");
    };
    // The 20 s left of the default time at the pause run from the resumption.
    let extended = 90 * SEC + (5 * MIN - 70 * SEC);
    assert_eq!(resumed.deadline(), Some(at(extended)));
    assert_eq!(resumed.check_time(at(extended - 1)), None);
    assert_eq!(time_result(&resumed, extended), double_no_show());
    // Black checks in during the pause: then only White forfeits.
    let black = check_in(&paused, Color::Black, 3 * MIN);
    assert_eq!(black.deadline(), None, "still paused");
    let (resumed, _) = changed(black.resume_clock("hall", "arbiter", at(5 * MIN)));
    assert_eq!(resumed.deadline(), Some(at(extended)));
    assert_eq!(time_result(&resumed, extended), no_show_of(Color::White));
    // White moving in the extended time is in time, and nobody forfeits.
    let (moved, _) = play(&resumed, "e4", extended - 1);
    assert_eq!(moved.check_time(at(extended + MIN)), None);
}

// ---------------------------------------------------------------------------
// A start by the arbiter (a round's games)
// ---------------------------------------------------------------------------

const HOUR: u64 = 60 * MIN;

/// A game that waits for the arbiter's start, an hour each, with a default
/// time of 30 s counted from that start.
fn awaiting_start() -> Game {
    scheduled(
        fischer(60 * MIN, 0),
        Schedule::started_by_arbiter(None, Some(30 * SEC)),
    )
}

#[test]
fn a_game_awaiting_its_start_refuses_moves_and_runs_no_clock() {
    let game = awaiting_start();
    assert!(game.awaits_start());
    assert_eq!(game.status_at(at(HOUR)), GameStatus::Pending);
    assert_eq!(game.deadline(), None);
    assert_eq!(game.check_time(at(10 * HOUR)), None);
    assert_eq!(
        game.play_move(
            Color::White,
            crate::domain::Ply::START,
            "e4",
            false,
            at(SEC)
        ),
        Err(Rejection::AwaitingStart)
    );
    // Nobody's time runs before the start.
    assert_eq!(remaining(&game, Color::White, 5 * MIN), 60 * ms(MIN));
}

#[test]
fn the_arbiters_start_runs_the_clock_and_the_default_time_from_then() {
    let start = 10 * MIN;
    let (game, events) = changed(awaiting_start().start("chief arbiter", at(start)));
    assert!(matches!(
        &events[..],
        [GameEvent { kind: EventKind::GameStarted { by }, .. }] if by == "chief arbiter"
    ));
    assert!(!game.awaits_start());
    assert_eq!(game.start_time(), Some(at(start)));
    assert_eq!(game.status_at(at(start)), GameStatus::Active);
    assert_eq!(remaining(&game, Color::White, start + MIN), 59 * ms(MIN));
    // The default time counts from the start: 30 s after it, nobody has
    // arrived, so both lose.
    assert_eq!(game.deadline(), Some(at(start + 30 * SEC)));
    assert_eq!(time_result(&game, start + 30 * SEC), double_no_show());
    // Starting again changes nothing; a game that has ended refuses.
    assert_eq!(
        game.start("again", at(start + SEC)),
        Ok(Decision::Unchanged)
    );
    let (ended, _) = time_out(&game, start + 30 * SEC);
    assert_eq!(
        ended.start("late", at(start + HOUR)),
        Err(Rejection::GameOver)
    );
}

#[test]
fn a_start_brings_a_scheduled_start_forward_and_leaves_a_past_one() {
    let game = with_default_time();
    // Before the scheduled +60 s: the arbiter starts it at +20 s.
    let (early, _) = changed(game.start("arbiter", at(20 * SEC)));
    assert_eq!(early.start_time(), Some(at(20 * SEC)));
    assert_eq!(early.deadline(), Some(at(50 * SEC)));
    assert_eq!(
        remaining(&early, Color::White, 30 * SEC),
        60 * ms(MIN) - 10 * ms(SEC)
    );
    // After it: the game has started by itself.
    assert_eq!(game.start("arbiter", at(61 * SEC)), Ok(Decision::Unchanged));
}

#[test]
fn a_start_replayed_from_the_log_gives_the_same_game() {
    let (started, events) = changed(awaiting_start().start("arbiter", at(MIN)));
    let (moved, more) = play(&started, "e4", MIN + 10 * SEC);
    let log: Vec<GameEvent> = std::iter::once(
        Game::create(
            moved.id().clone(),
            moved.setup().clone(),
            crate::domain::test_support::seats(),
            moved.created_at(),
        )
        .1,
    )
    .chain(events)
    .chain(more)
    .collect();
    // The game as the public saw it before the move: started, White's
    // clock running from the start.
    let cutoff = at(MIN + 5 * SEC);
    let replayed = crate::domain::public_view(&moved, &log, cutoff).expect("replayed");
    assert_eq!(replayed.clock_view(cutoff), started.clock_view(cutoff));
    assert_eq!(replayed.start_time(), started.start_time());
}

// ---------------------------------------------------------------------------
// The event's rule flags: no abort, no give-time
// ---------------------------------------------------------------------------

fn with_rules(rules: GameRules) -> Game {
    let new = NewGame::new(
        Player {
            id: "w".into(),
            name: "W".into(),
            ..Default::default()
        },
        Player {
            id: "b".into(),
            name: "B".into(),
            ..Default::default()
        },
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        rules,
    )
    .expect("setup")
    .with_clock(Some(fischer(60 * MIN, 0)), Schedule::default());
    Game::create(GameId::parse("rules").expect("id"), new, seats(), at(0)).0
}

#[test]
fn a_game_that_may_not_be_aborted_refuses_an_abort() {
    let strict = with_rules(GameRules {
        no_abort: true,
        ..GameRules::default()
    });
    assert_eq!(
        strict.abort(Color::White, at(SEC)),
        Err(Rejection::AbortNotAllowed)
    );
    assert!(matches!(
        with_rules(GameRules::default()).abort(Color::White, at(SEC)),
        Ok(Decision::Changed { .. })
    ));
}

#[test]
fn a_player_gives_time_unless_the_rules_forbid_it() {
    let open = with_rules(GameRules::default());
    let (given, _) =
        changed(open.give_time(Color::Black, 15 * ms(SEC), "from White", "arbiter", at(SEC)));
    assert_eq!(
        remaining(&given, Color::Black, SEC),
        60 * ms(MIN) + 15 * ms(SEC)
    );
    assert!(matches!(
        open.give_time(Color::Black, -ms(SEC), "a taking", "arbiter", at(SEC)),
        Err(Rejection::InvalidField(_))
    ));
    let strict = with_rules(GameRules {
        no_give_time: true,
        ..GameRules::default()
    });
    assert_eq!(
        strict.give_time(Color::Black, 15 * ms(SEC), "from White", "arbiter", at(SEC)),
        Err(Rejection::GiveTimeNotAllowed)
    );
    // The arbiter's own adjustment is not a player's gift.
    assert!(matches!(
        strict.adjust_clock(Color::Black, 60 * ms(SEC), "penalty", "arbiter", at(SEC)),
        Ok(Decision::Changed { .. })
    ));
}
