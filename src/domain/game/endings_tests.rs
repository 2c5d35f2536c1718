//! Unit tests of the endings the board decides (FIDE Art. 5.1.1, 5.2.1,
//! 5.2.2, 9.6), resignation (5.1.2), abort, Chess960 castling (Appendix
//! "Chess960 rules") and the PGN export of every kind of ending. Every "now"
//! is an explicit timestamp; nothing reads a clock.

use std::{collections::HashMap, io::Cursor, ops::ControlFlow};

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::{CastlingMode, Color, EnPassantMode, File, Rank, Role, Square, fen::Fen};

use super::*;
use crate::domain::ReportedLag;
use crate::domain::test_support::*;
use crate::domain::{
    ClaimReason, ClaimVerdict, DeadProof, Decision, DelayMode, EventKind, Game, GameEvent, GameId,
    GameRules, GameStatus, MoveRecord, NewGame, Pairing, Period, Player, Ply, Rejection, Schedule,
    SeatHashes, StartPosition, TimeControl, Timestamp, Timing, TokenHash, Variant, chess960_fen,
    game::dead_position, parse_move, tournament::pgn,
};

fn create(variant: Variant, start: StartPosition) -> Game {
    let new = NewGame::new(
        Player::parse("white", "w-1", "Wilma White").unwrap(),
        Player::parse("black", "b-1", "Bert Black").unwrap(),
        variant,
        &start,
        Pairing::parse("club-open", 2, 5).unwrap(),
        GameRules::default(),
    )
    .unwrap_or_else(|err| panic!("{start:?} refused: {err}"));
    let seats = SeatHashes {
        white: TokenHash::of("white-seat-token"),
        black: TokenHash::of("black-seat-token"),
    };
    Game::create(GameId::parse("endings").unwrap(), new, seats, at(0)).0
}

fn standard() -> Game {
    create(Variant::Standard, StartPosition::Standard)
}

/// A game with one minute a side, under `rules` and `schedule`.
fn timed(start: StartPosition, rules: GameRules, schedule: Schedule) -> Game {
    let minute = TimeControl::new(
        "time_control",
        vec![Period {
            time_ms: 60_000,
            moves: 0,
            increment_ms: 0,
            delay_ms: 0,
        }],
        DelayMode::Simple,
    )
    .unwrap();
    let new = NewGame::new(
        Player::parse("white", "w-1", "Wilma White").unwrap(),
        Player::parse("black", "b-1", "Bert Black").unwrap(),
        Variant::Standard,
        &start,
        Pairing::parse("club-open", 2, 5).unwrap(),
        rules,
    )
    .unwrap()
    .with_clock(
        Some(Timing {
            white: minute.clone(),
            black: minute,
            clock_starts_after_first_moves: false,
        }),
        schedule,
    );
    let seats = SeatHashes {
        white: TokenHash::of("white-seat-token"),
        black: TokenHash::of("black-seat-token"),
    };
    Game::create(GameId::parse("endings").unwrap(), new, seats, at(0)).0
}

/// Applies the time check at `now`, which must end the game.
fn run_out(p: Played, now: Timestamp) -> Played {
    let (decision, _) = p.game.check_time(now).expect("time decides the game");
    p.apply(Ok(decision))
}

fn from_fen(fen: &str) -> Game {
    create(Variant::Standard, StartPosition::Fen(fen.to_owned()))
}

fn chess960(number: u32) -> Game {
    create(Variant::Chess960, StartPosition::Chess960(number))
}

/// A game together with every event since its creation.
#[derive(Clone)]
struct Played {
    game: Game,
    events: Vec<GameEvent>,
}

impl Played {
    fn new(game: Game) -> Self {
        Self {
            game,
            events: Vec::new(),
        }
    }

    #[track_caller]
    fn apply(mut self, decision: Result<Decision, Rejection>) -> Self {
        let (game, events) = changed(decision);
        self.game = game;
        self.events.extend(events);
        self
    }

    /// Plays `moves` as the arbiter does: each move decided, the position
    /// it leads to given to the fast dead-position test, and the move
    /// decided again with the proof when the test finds one.
    #[track_caller]
    fn play(self, moves: &[&str]) -> Self {
        moves.iter().fold(self, |p, text| {
            let g = &p.game;
            let now = at(1000 * u64::from(g.ply().count() + 1));
            let (seat, ply) = (g.side_to_move(), g.ply());
            let mut decision = g.play_move(seat, ply, text, false, now);
            if let Ok(Decision::Changed { game: next, .. }) = &decision
                && next.status() == GameStatus::Active
                && let Some(proof) = DeadProof::fast(next.position(), next.ply())
            {
                decision =
                    g.play_move_given(seat, ply, text, false, ReportedLag::NONE, now, Some(&proof));
            }
            p.apply(decision)
        })
    }

    fn moves(&self) -> Vec<MoveRecord> {
        self.events
            .iter()
            .filter_map(GameEvent::move_record)
            .cloned()
            .collect()
    }

    fn last_kinds(&self, n: usize) -> Vec<EventKind> {
        self.events[self.events.len() - n..]
            .iter()
            .map(|e| e.kind.clone())
            .collect()
    }
}

fn play(game: Game, moves: &[&str]) -> Played {
    Played::new(game).play(moves)
}

fn result(outcome: Outcome, termination: Termination) -> Option<GameResult> {
    Some(GameResult {
        outcome,
        termination,
    })
}

fn draw(termination: Termination) -> Option<GameResult> {
    result(Outcome::Draw, termination)
}

fn pos(fen: &str) -> Chess {
    dead_position::position(fen).expect("legal FEN")
}

// ---------------------------------------------------------------------------
// automatic_ending itself
// ---------------------------------------------------------------------------

#[test]
fn automatic_ending_ranks_checkmate_first_and_leaves_live_positions_alone() {
    let none = |fen: &str| {
        let p = pos(fen);
        automatic_ending(&p, &Repetition::starting_at(&p), false)
    };
    assert_eq!(none(crate::domain::game::state::STANDARD_FEN), None);
    // 5.1.1 and 9.6.2: a mate on the 75th move is still a mate.
    assert_eq!(
        none("R5k1/5ppp/8/8/8/8/8/6K1 b - - 150 80"),
        result(Outcome::WhiteWins, Termination::Checkmate)
    );
    // 5.2.1: stalemate likewise outranks the clock.
    assert_eq!(
        none("7k/5Q2/8/8/8/8/8/K7 b - - 150 80"),
        draw(Termination::Stalemate)
    );
    assert_eq!(
        none("8/8/4k3/8/8/3K4/8/3R4 b - - 150 80"),
        draw(Termination::SeventyFiveMoves)
    );
    assert_eq!(none("8/8/4k3/8/8/3K4/8/3R4 b - - 149 80"), None);
    // 5.2.2: no material beats the clock too.
    assert_eq!(
        none("8/8/4k3/8/8/3K4/8/8 b - - 150 80"),
        draw(Termination::InsufficientMaterial)
    );
}

// ---------------------------------------------------------------------------
// Art. 9.6.1: fivefold repetition
// ---------------------------------------------------------------------------

#[test]
fn art_9_6_1_the_fifth_occurrence_ends_the_game_without_a_claim() {
    let mut p = Played::new(standard());
    for round in 1..=3 {
        p = p.play(&SHUFFLE);
        assert_eq!(p.game.repetition_count(), round + 1);
        assert_eq!(p.game.status(), GameStatus::Active, "round {round}");
    }
    p = p.play(&SHUFFLE[..3]);
    assert_eq!(p.game.status(), GameStatus::Active);
    assert_eq!(p.game.repetition_count(), 4, "Ng1 position a 4th time");
    p = p.play(&SHUFFLE[3..]);
    assert_eq!(p.game.ply(), Ply::new(16));
    assert_eq!(p.game.result(), draw(Termination::FivefoldRepetition));
    assert_eq!(p.game.repetition_count(), 5);
    assert!(!p.game.can_claim_threefold());
    let tail = p.last_kinds(2);
    assert!(matches!(tail[0], EventKind::MoveMade { .. }));
    assert_eq!(
        tail[1],
        EventKind::ended_classic(draw(Termination::FivefoldRepetition).unwrap())
    );
    assert!(
        !p.events
            .iter()
            .any(|e| matches!(e.kind, EventKind::DrawClaimRefused { .. })),
        "nobody claimed"
    );
    assert!(matches!(
        p.game
            .play_move(Color::White, p.game.ply(), "Nf3", false, at(99_000)),
        Err(Rejection::GameOver)
    ));
}

// ---------------------------------------------------------------------------
// Art. 9.6.2: the 75-move rule
// ---------------------------------------------------------------------------

#[test]
fn art_9_6_2_the_150th_quiet_half_move_ends_the_game() {
    let game = from_fen("8/8/4k3/8/8/3K4/3R4/8 w - - 149 80");
    assert_eq!(game.status(), GameStatus::Active);
    assert!(game.can_claim_fifty_moves());
    let p = play(game, &["Rd1"]);
    assert_eq!(p.game.halfmove_clock(), 150);
    assert_eq!(p.game.result(), draw(Termination::SeventyFiveMoves));
    assert!(p.events.last().unwrap().is_final());
}

#[test]
fn art_9_6_2_checkmate_with_the_150th_half_move_takes_precedence() {
    let game = from_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 80");
    let p = play(game, &["Ra8#"]);
    assert_eq!(p.game.halfmove_clock(), 150);
    assert_eq!(
        p.game.result(),
        result(Outcome::WhiteWins, Termination::Checkmate)
    );
}

#[test]
fn art_9_6_2_a_capture_as_the_150th_half_move_resets_the_count() {
    let game = from_fen("8/8/4k3/8/8/3K4/3R2n1/8 w - - 149 80");
    let p = play(game, &["Rxg2"]);
    assert_eq!(p.game.halfmove_clock(), 0);
    assert_eq!(p.game.status(), GameStatus::Active);
}

// ---------------------------------------------------------------------------
// Art. 5.2.1 and 5.2.2: stalemate, insufficient material, dead positions
// ---------------------------------------------------------------------------

#[test]
fn art_5_2_1_stalemate_by_a_move_is_a_draw() {
    let p = play(from_fen("7k/8/6Q1/8/8/8/8/K7 w - - 0 1"), &["Qf7"]);
    assert_eq!(p.game.result(), draw(Termination::Stalemate));
}

#[test]
fn art_5_2_2_captures_leaving_no_mating_material_are_insufficient_material() {
    for (fen, capture, what) in [
        ("8/8/4k3/8/8/3K4/3r4/8 w - - 0 1", "Kxd2", "K v K"),
        ("8/8/4k3/8/8/3K4/3r4/5B2 w - - 0 1", "Kxd2", "K+B v K"),
        ("8/8/4k3/8/8/3K4/3r4/6N1 w - - 0 1", "Kxd2", "K+N v K"),
        (
            "6b1/8/4k3/8/8/8/2B1K3/3r4 w - - 0 1",
            "Kxd1",
            "bishops on light squares only",
        ),
    ] {
        let game = from_fen(fen);
        assert_eq!(game.status(), GameStatus::Active, "{what}");
        let p = play(game, &[capture]);
        assert!(p.game.position().is_insufficient_material(), "{what}");
        assert_eq!(
            p.game.result(),
            draw(Termination::InsufficientMaterial),
            "{what}"
        );
    }
}

#[test]
fn art_5_2_2_moves_that_lock_the_pawns_leave_a_dead_position() {
    for (fen, m) in [
        // g3-g4 closes the last gap of the wall.
        ("8/8/4k3/p1p1p1p1/P1P1P3/6P1/4K3/8 w - - 0 1", "g4"),
        // The same on the other files, with the kings elsewhere.
        ("8/2k5/8/1p1p1p1p/1P1P1P2/7P/5K2/8 w - - 0 1", "h4"),
        // Taking the knight leaves a light-squared bishop that can never
        // attack the dark-square pawns nor mate alone.
        ("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/4nB2 w - - 0 1", "Kxe1"),
        // Black takes the last piece that could get through the wall.
        ("8/1Nk5/p1p1p1p1/P1P1P1P1/8/8/4K3/8 b - - 0 1", "Kxb7"),
    ] {
        assert!(!dead_position::is_dead(&pos(fen)), "{fen} is alive");
        let game = from_fen(fen);
        let p = play(game, &[m]);
        assert!(
            !p.game.position().is_insufficient_material(),
            "not a material case: {fen}"
        );
        assert!(dead_position::is_dead(p.game.position()), "{fen} {m}");
        assert_eq!(
            p.game.result(),
            draw(Termination::DeadPosition),
            "{fen} {m}"
        );
    }
}

#[test]
fn art_5_2_2_a_move_ends_the_game_in_a_dead_position_given_the_proof() {
    // g3-g4 closes the wall: a dead position that only an analysis shows.
    let game = from_fen("8/8/4k3/p1p1p1p1/P1P1P3/6P1/4K3/8 w - - 0 1");
    let (seat, ply, now) = (Color::White, Ply::START, at(1_000));
    let (without, _) = changed(game.play_move(seat, ply, "g4", false, now));
    assert_eq!(without.status(), GameStatus::Active);
    let proof = DeadProof::fast(without.position(), without.ply()).expect("dead");
    let (with, events) =
        changed(game.play_move_given(seat, ply, "g4", false, ReportedLag::NONE, now, Some(&proof)));
    assert_eq!(with.result(), draw(Termination::DeadPosition));
    assert!(matches!(
        events.last().map(|e| &e.kind),
        Some(EventKind::GameEnded { .. })
    ));
    // A proof about another position changes nothing.
    let other = DeadProof::fast(
        &pos("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 w - - 0 1"),
        without.ply(),
    )
    .expect("dead");
    let (ignored, _) =
        changed(game.play_move_given(seat, ply, "g4", false, ReportedLag::NONE, now, Some(&other)));
    assert_eq!(ignored.status(), GameStatus::Active);
}

#[test]
fn art_5_2_2_a_proof_found_later_ends_the_game_then() {
    let game = from_fen("8/8/4k3/p1p1p1p1/P1P1P3/6P1/4K3/8 w - - 0 1");
    let (dead, _) = changed(game.play_move(Color::White, Ply::START, "g4", false, at(1_000)));
    let proof = DeadProof::fast(dead.position(), dead.ply()).expect("dead");
    // Two more moves were played before the proof was found: it still
    // holds, as a dead position stays dead.
    let (later, _) = changed(dead.play_move(Color::Black, dead.ply(), "Kd6", false, at(2_000)));
    let (later, _) = changed(later.play_move(Color::White, later.ply(), "Kd2", false, at(3_000)));
    assert_eq!(later.status(), GameStatus::Active);
    let (ended, events) = changed(Ok(later.rule_dead_position(&proof, at(9_000))));
    assert_eq!(ended.result(), draw(Termination::DeadPosition));
    assert_eq!(events.len(), 1);
    assert!(matches!(events[0].kind, EventKind::GameEnded { .. }));
    assert_eq!(ended.ply(), later.ply());
    // Once over, the game ignores it; a proof about a ply the game has not
    // reached, or about another position at its ply, does not apply.
    assert!(matches!(
        ended.rule_dead_position(&proof, at(10_000)),
        Decision::Unchanged
    ));
    assert!(matches!(
        game.rule_dead_position(&proof, at(10_000)),
        Decision::Unchanged
    ));
    let elsewhere = DeadProof::fast(
        &pos("8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 w - - 0 1"),
        dead.ply(),
    )
    .expect("dead");
    assert!(matches!(
        dead.rule_dead_position(&elsewhere, at(10_000)),
        Decision::Unchanged
    ));
}

#[test]
fn art_5_2_2_positions_that_only_look_dead_go_on() {
    for (fen, m, what) in [
        ("4k3/8/8/8/8/3KNN2/8/6r1 w - - 0 1", "Nxg1", "two knights"),
        ("4k3/8/8/8/8/3KN3/6rp/8 w - - 0 1", "Nxg2", "K+N v K+P"),
        (
            "8/8/4k3/2b5/8/8/2B1K3/3r4 w - - 0 1",
            "Kxd1",
            "opposite-coloured bishops",
        ),
        (
            "8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/2B1n3 w - - 0 1",
            "Kxe1",
            "a wall with a bishop that can attack it",
        ),
    ] {
        let p = play(from_fen(fen), &[m]);
        assert!(!dead_position::is_dead(p.game.position()), "{what}");
        assert_eq!(p.game.status(), GameStatus::Active, "{what}");
        assert_eq!(p.game.result(), None, "{what}");
    }
}

// ---------------------------------------------------------------------------
// Art. 5.1.2: resignation
// ---------------------------------------------------------------------------

#[test]
fn art_5_1_2_resigning_gives_the_opponent_the_win() {
    let game = play(standard(), &["e4", "e5"]).game;
    for (seat, winner) in [
        (Color::White, Outcome::BlackWins),
        (Color::Black, Outcome::WhiteWins),
    ] {
        let (over, events) = changed(game.resign(seat, at(5)));
        let expected = result(winner, Termination::Resignation);
        assert_eq!(over.result(), expected);
        assert_eq!(
            events.iter().map(|e| e.kind.clone()).collect::<Vec<_>>(),
            [EventKind::ended_classic(expected.unwrap())]
        );
        assert!(events[0].is_final());
        assert_eq!(over.resign(!seat, at(6)), Err(Rejection::GameOver));
    }
}

#[test]
fn art_5_1_2_a_resignation_is_a_loss_even_against_a_side_that_cannot_mate() {
    // Black has a lone king: White's resignation still gives Black the win.
    let game = from_fen("8/8/4k3/8/8/3K4/3R4/8 w - - 0 1");
    let (over, _) = changed(game.resign(Color::White, at(1)));
    assert_eq!(
        over.result(),
        result(Outcome::BlackWins, Termination::Resignation)
    );
    let (over, _) = changed(game.resign(Color::Black, at(1)));
    assert_eq!(
        over.result(),
        result(Outcome::WhiteWins, Termination::Resignation)
    );

    // Colours reversed: Black with a rook resigns against a lone king.
    let game = from_fen("8/r7/4k3/8/8/3K4/8/8 b - - 0 1");
    let (over, _) = changed(game.resign(Color::Black, at(1)));
    assert_eq!(
        over.result(),
        result(Outcome::WhiteWins, Termination::Resignation)
    );
}

#[test]
fn an_armageddon_resignation_never_scores_better_than_a_loss() {
    use crate::domain::ScoringSystem;
    for (fen, resigning) in [
        // Black resigns against White's lone king: Black loses, although a
        // draw would have counted as Black's win.
        ("8/r7/4k3/8/8/3K4/8/8 b - - 0 1", Color::Black),
        ("8/8/4k3/8/8/3K4/3R4/8 w - - 0 1", Color::White),
    ] {
        let game = from_fen(fen);
        let (over, _) = changed(game.resign(resigning, at(1)));
        let scoring = ScoringSystem {
            armageddon: true,
            ..ScoringSystem::default()
        };
        let score = scoring.score(over.result().expect("a result"));
        let (mine, theirs) =
            resigning.fold_wb((score.white, score.black), (score.black, score.white));
        assert!(mine < theirs, "{fen}: {score:?}");
    }
}

// ---------------------------------------------------------------------------
// Abort
// ---------------------------------------------------------------------------

#[test]
fn abort_is_allowed_until_both_players_have_moved() {
    let start = standard();
    let after_one = play(start.clone(), &["e4"]).game;
    let after_two = play(start.clone(), &["e4", "e5"]).game;
    for seat in [Color::White, Color::Black] {
        for game in [&start, &after_one] {
            let (aborted, events) = changed(game.abort(seat, at(9)));
            assert_eq!(aborted.status(), GameStatus::Aborted);
            assert_eq!(aborted.aborted_by(), Some(seat));
            assert_eq!(aborted.result(), None);
            assert_eq!(events.len(), 1);
            assert_eq!(events[0].kind, EventKind::GameAborted { by: seat });
            assert_eq!(events[0].version, game.version() + 1);
            assert!(events[0].is_final());
        }
        assert_eq!(after_two.abort(seat, at(9)), Err(Rejection::AbortTooLate));
    }
}

#[test]
fn an_aborted_game_refuses_everything() {
    let game = play(standard(), &["e4"]).game;
    let (aborted, _) = changed(game.abort(Color::Black, at(9)));
    assert_eq!(
        aborted.play_move(Color::Black, aborted.ply(), "e5", false, at(10)),
        Err(Rejection::GameAborted)
    );
    assert_eq!(
        aborted.abort(Color::White, at(10)),
        Err(Rejection::GameAborted)
    );
    assert_eq!(
        aborted.resign(Color::White, at(10)),
        Err(Rejection::GameAborted)
    );
    assert_eq!(
        aborted.offer_draw(Color::White, at(10)),
        Err(Rejection::GameAborted)
    );
    assert_eq!(
        aborted.respond_to_draw_offer(Color::White, true, at(10)),
        Err(Rejection::GameAborted)
    );
    assert_eq!(
        aborted.claim_draw(
            Color::Black,
            aborted.ply(),
            ClaimReason::FiftyMoves,
            None,
            at(10)
        ),
        Err(Rejection::GameAborted)
    );
    assert!(aborted.legal_moves_uci().is_empty());
    assert!(!aborted.can_claim_threefold());
    assert!(!aborted.can_claim_fifty_moves());
    // A finished game cannot be aborted either.
    let mated = play(standard(), &["f3", "e5", "g4", "Qh4#"]).game;
    assert_eq!(mated.abort(Color::White, at(10)), Err(Rejection::GameOver));
}

// ---------------------------------------------------------------------------
// Chess960 castling (FIDE Laws, Chess960 rules)
// ---------------------------------------------------------------------------

fn back_rank(game: &Game, rank: Rank) -> String {
    let board = game.position().board();
    let mut out = String::new();
    for file in File::ALL {
        out.push(
            board
                .piece_at(Square::from_coords(file, rank))
                .map_or('.', |p| p.char()),
        );
    }
    out
}

/// Castles for the side to move with `san`, and again (from the same game)
/// with the king-takes-rook UCI `uci`; both must give the same game, whose
/// record names the move as `uci`.
#[track_caller]
fn castle_both_ways(game: &Game, san: &str, uci: &str) -> Game {
    let seat = game.side_to_move();
    let (by_san, events) = changed(game.play_move(seat, game.ply(), san, false, at(77)));
    let (by_uci, _) = changed(game.play_move(seat, game.ply(), uci, false, at(77)));
    assert_eq!(by_san, by_uci, "{san} and {uci} differ");
    let record = events[0].move_record().expect("a move");
    assert_eq!(record.uci, uci);
    assert_eq!(record.san, san);
    assert!(record.is_written_as(uci) && record.is_written_as(san));
    by_san
}

#[test]
fn chess960_king_already_on_its_castling_square() {
    // No. 96, BBQNRNKR: the king is on g1 already; O-O only moves the rook.
    let game = chess960(96);
    assert!(game.initial_fen().starts_with("bbqnrnkr/"));
    let ready = play(game, &["Nfe3", "Nfe6"]).game;
    let castled = castle_both_ways(&ready, "O-O", "g1h1");
    assert_eq!(back_rank(&castled, Rank::First), "BBQNRRK.");
    let castled = castle_both_ways(&castled, "O-O", "g8h8");
    assert_eq!(back_rank(&castled, Rank::Eighth), "bbqnrrk.");
    assert!(!castled.position().castles().any());

    // No. 266, NRKNBBQR: the king is on c1 already; O-O-O only moves the
    // rook from b1 to d1.
    let game = chess960(266);
    let ready = play(game, &["Ne3", "Ne6"]).game;
    let castled = castle_both_ways(&ready, "O-O-O", "c1b1");
    assert_eq!(back_rank(&castled, Rank::First), "N.KRBBQR");
    let castled = castle_both_ways(&castled, "O-O-O", "c8b8");
    assert_eq!(back_rank(&castled, Rank::Eighth), "n.krbbqr");
}

#[test]
fn chess960_rook_already_on_its_castling_square() {
    // No. 291, BQNRKRNB: both rooks stand where castling puts them.
    let game = chess960(291);
    assert!(game.initial_fen().starts_with("bqnrkrnb/"));
    let ready = play(game, &["Nf3", "Nf6"]).game;
    let short = castle_both_ways(&ready, "O-O", "e1f1");
    assert_eq!(back_rank(&short, Rank::First), "BQNR.RKB");
    let ready = play(ready, &["Nd3", "Nd6"]).game;
    let long = castle_both_ways(&ready, "O-O-O", "e1d1");
    assert_eq!(back_rank(&long, Rank::First), "BQKR.R.B");
    let long = castle_both_ways(&long, "O-O-O", "e8d8");
    assert_eq!(back_rank(&long, Rank::Eighth), "bqkr.r.b");
}

#[test]
fn chess960_number_518_castles_with_king_takes_rook_notation() {
    let ready = play(chess960(518), &["e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5"]).game;
    assert!(ready.legal_moves_uci().contains(&"e1h1".to_owned()));
    let castled = castle_both_ways(&ready, "O-O", "e1h1");
    assert_eq!(back_rank(&castled, Rank::First), "RNBQ.RK.");
}

/// The Chess960 start `number` with every back-rank piece but king and
/// rooks taken off, so castling depends only on where those stand.
fn kings_and_rooks_only(number: u32) -> (String, String) {
    let fen = chess960_fen(number).unwrap();
    let back = fen.split([' ', '/']).nth(7).unwrap().to_owned();
    let mut rank = String::new();
    let mut empty = 0;
    for c in back.chars() {
        if c == 'K' || c == 'R' {
            if empty > 0 {
                rank.push_str(&empty.to_string());
                empty = 0;
            }
            rank.push(c);
        } else {
            empty += 1;
        }
    }
    if empty > 0 {
        rank.push_str(&empty.to_string());
    }
    let fen = format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{rank} w KQkq - 0 1",
        rank.to_ascii_lowercase()
    );
    (back, fen)
}

#[test]
fn chess960_castling_from_every_arrangement_follows_the_vacancy_rule() {
    let file = |i: usize| File::new(i as u32);
    let (mut castled_count, mut refused_count) = (0, 0);
    for number in 0..960 {
        let (back, fen) = kings_and_rooks_only(number);
        let king = back.find('K').unwrap();
        let rooks: Vec<usize> = back.match_indices('R').map(|(i, _)| i).collect();
        let game = create(Variant::Chess960, StartPosition::Fen(fen.clone()));
        for (long, rook, king_to, rook_to) in [(false, rooks[1], 6, 5), (true, rooks[0], 2, 3)] {
            let other = if long { rooks[1] } else { rooks[0] };
            let span = |a: usize, b: usize| a.min(b)..=a.max(b);
            // Every square the king and rook pass or land on must be empty
            // but for themselves: here only the other rook can be in the way.
            let legal =
                !span(king, king_to).contains(&other) && !span(rook, rook_to).contains(&other);
            let san = if long { "O-O-O" } else { "O-O" };
            let uci = format!("{}1{}1", file(king).char(), file(rook).char());
            if !legal {
                for text in [san, uci.as_str()] {
                    assert!(
                        matches!(
                            game.play_move(Color::White, Ply::START, text, false, at(1)),
                            Err(Rejection::IllegalMove { .. })
                        ),
                        "{number} {back}: {text} accepted"
                    );
                }
                refused_count += 1;
                continue;
            }
            let castled = castle_both_ways(&game, san, &uci);
            castled_count += 1;
            let board = castled.position().board();
            let on = |i: usize| board.piece_at(Square::from_coords(file(i), Rank::First));
            assert_eq!(
                on(king_to).map(|p| p.role),
                Some(Role::King),
                "{number} {back} {san}"
            );
            assert_eq!(
                on(rook_to).map(|p| p.role),
                Some(Role::Rook),
                "{number} {back} {san}"
            );
            assert!(on(other).is_some(), "{number} {back}: the other rook stays");
            assert!(
                (castled.position().castles().castling_rights()
                    & shakmaty::Bitboard::from_rank(Rank::First))
                .is_empty(),
                "{number}: White keeps no castling right"
            );
            // Black, to move, still has both rights and castles the other way.
            let (bsan, brook) = if long {
                ("O-O", rooks[1])
            } else {
                ("O-O-O", rooks[0])
            };
            let blong = !long;
            let (bking_to, brook_to) = if blong { (2, 3) } else { (6, 5) };
            let bother = if blong { rooks[1] } else { rooks[0] };
            let blegal =
                !span(king, bking_to).contains(&bother) && !span(brook, brook_to).contains(&bother);
            let buci = format!("{}8{}8", file(king).char(), file(brook).char());
            if blegal {
                castle_both_ways(&castled, bsan, &buci);
            }
        }
    }
    // Some arrangements block one castling (e.g. ...RKR on f, g, h).
    assert!(
        refused_count > 0 && castled_count > 1800,
        "{castled_count} {refused_count}"
    );
}

#[test]
fn chess960_castling_rights_survive_a_serde_round_trip() {
    let game = play(chess960(291), &["Nf3", "Nf6"]).game;
    let json = serde_json::to_string(&game).unwrap();
    let back: Game = serde_json::from_str(&json).unwrap();
    assert_eq!(back, game);
    assert_eq!(back.variant(), Variant::Chess960);
    assert_eq!(back.legal_moves_uci(), game.legal_moves_uci());
    assert!(back.legal_moves_uci().contains(&"e1f1".to_owned()));
    castle_both_ways(&back, "O-O", "e1f1");

    // A castling right on a rook that is not the outermost one (Shredder
    // notation "F") is kept exactly: h1 has none, a1 has none.
    let game = create(
        Variant::Chess960,
        StartPosition::Fen("4k3/8/8/8/8/8/8/R3KR1R w F - 0 1".to_owned()),
    );
    let back: Game = serde_json::from_str(&serde_json::to_string(&game).unwrap()).unwrap();
    assert_eq!(back, game);
    let castling: Vec<String> = back
        .legal_moves_uci()
        .into_iter()
        .filter(|m| ["e1a1", "e1f1", "e1h1"].contains(&m.as_str()))
        .collect();
    assert_eq!(castling, ["e1f1"]);
    let castled = castle_both_ways(&back, "O-O", "e1f1");
    assert_eq!(back_rank(&castled, Rank::First), "R....RKR");
}

// ---------------------------------------------------------------------------
// PGN export, read back with pgn-reader
// ---------------------------------------------------------------------------

/// What pgn-reader saw in one game.
#[derive(Debug, Default)]
struct ReadBack {
    tags: HashMap<String, String>,
    sans: Vec<SanPlus>,
    comments: Vec<String>,
    outcome: Option<pgn_reader::Outcome>,
}

struct Collect;

impl Visitor for Collect {
    type Tags = HashMap<String, String>;
    type Movetext = ReadBack;
    type Output = ReadBack;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(HashMap::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.insert(
            String::from_utf8_lossy(name).into_owned(),
            value.decode_utf8_lossy().into_owned(),
        );
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(ReadBack {
            tags,
            ..ReadBack::default()
        })
    }

    fn san(&mut self, movetext: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        movetext.sans.push(san);
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        movetext: &mut Self::Movetext,
        comment: pgn_reader::RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        movetext
            .comments
            .push(String::from_utf8_lossy(comment.as_bytes()).into_owned());
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        movetext: &mut Self::Movetext,
        outcome: pgn_reader::Outcome,
    ) -> ControlFlow<Self::Output> {
        movetext.outcome = Some(outcome);
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        movetext
    }
}

/// Exports `p`, reads it back and replays it: the same moves, the same
/// final position, and the result it should have.
#[track_caller]
fn check_pgn(p: &Played, expected_result: &str, expected_termination: &str) -> ReadBack {
    let game = &p.game;
    let moves = p.moves();
    let text = pgn::export(game, &moves);
    let mut reader = Reader::new(Cursor::new(text.as_bytes()));
    let read = reader
        .read_game(&mut Collect)
        .expect("readable")
        .expect("one game");
    assert!(reader.read_game(&mut Collect).unwrap().is_none(), "{text}");

    let tag = |name: &str| read.tags.get(name).map(String::as_str);
    assert_eq!(tag("Result"), Some(expected_result), "{text}");
    assert_eq!(
        read.outcome.map(|o| o.to_string()).as_deref(),
        Some(expected_result),
        "{text}"
    );
    assert_eq!(tag("Termination"), Some(expected_termination), "{text}");
    assert_eq!(tag("White"), Some("Wilma White"));
    assert_eq!(tag("Black"), Some("Bert Black"));
    assert_eq!(tag("Event"), Some("club-open"));
    assert_eq!(tag("Round"), Some("2"));
    assert_eq!(tag("Board"), Some("5"));
    assert_eq!(tag("GameId"), Some("endings"));
    assert_eq!(tag("Date"), Some("2023.11.14"));
    for line in text.lines() {
        assert!(line.len() <= 79 || line.starts_with('['), "{line}");
    }

    let chess960 = tag("Variant") == Some("Chess960");
    assert_eq!(chess960, game.variant() == Variant::Chess960, "{text}");
    let mode = if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let mut replay: Chess = match tag("FEN") {
        Some(fen) => {
            assert_eq!(tag("SetUp"), Some("1"), "{text}");
            assert_eq!(fen, game.initial_fen());
            fen.parse::<Fen>().unwrap().into_position(mode).unwrap()
        }
        None => {
            assert!(!chess960, "Chess960 needs its FEN");
            assert_eq!(tag("SetUp"), None);
            Chess::default()
        }
    };
    if chess960 {
        assert_eq!(tag("SetUp"), Some("1"));
    }
    assert_eq!(
        read.sans
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        moves.iter().map(|m| m.san.clone()).collect::<Vec<_>>(),
        "{text}"
    );
    for (san, record) in read.sans.iter().zip(&moves) {
        let m = san
            .san
            .to_move(&replay)
            .unwrap_or_else(|err| panic!("{san}: {err}\n{text}"));
        assert_eq!(
            shakmaty::uci::UciMove::from_move(m, mode).to_string(),
            record.uci
        );
        replay.play_unchecked(m);
        assert_eq!(
            Fen::from_position(&replay, EnPassantMode::Legal).to_string(),
            record.fen_after
        );
    }
    assert_eq!(
        Fen::from_position(&replay, EnPassantMode::Legal).to_string(),
        game.fen()
    );
    read
}

/// A game ending by `termination`. The match is exhaustive, so a new kind
/// of ending cannot go untested.
fn ended_by(termination: Termination) -> Played {
    let p = match termination {
        Termination::Checkmate => play(standard(), &["f3", "e5", "g4", "Qh4#"]),
        Termination::Resignation => {
            let p = play(standard(), &["e4", "e5", "Qh5"]);
            let d = p.game.resign(Color::Black, at(9_000));
            p.apply(d)
        }
        Termination::Stalemate => play(from_fen("7k/8/6Q1/8/8/8/8/K7 w - - 0 1"), &["Qf7"]),
        Termination::InsufficientMaterial => {
            play(from_fen("8/8/4k3/8/8/3K4/3r4/5B2 w - - 0 1"), &["Kxd2"])
        }
        Termination::Agreement => {
            let p = play(standard(), &["d4", "d5", "c4"]);
            let d = p.game.offer_draw(Color::White, at(9_000));
            let p = p.apply(d);
            let d = p.game.respond_to_draw_offer(Color::Black, true, at(9_500));
            p.apply(d)
        }
        Termination::ThreefoldRepetition => {
            let p = play(standard(), &[&SHUFFLE[..], &SHUFFLE[..3]].concat());
            let (d, verdict) = p
                .game
                .claim_draw(
                    Color::Black,
                    p.game.ply(),
                    ClaimReason::ThreefoldRepetition,
                    Some("Ng8"),
                    at(9_000),
                )
                .unwrap();
            assert_eq!(verdict, ClaimVerdict::Upheld);
            p.apply(Ok(d))
        }
        Termination::FiftyMoves => {
            let p = play(from_fen("8/8/4k3/8/8/3K4/3R4/8 w - - 99 80"), &[]);
            let (d, verdict) = p
                .game
                .claim_draw(
                    Color::White,
                    Ply::START,
                    ClaimReason::FiftyMoves,
                    Some("Rd1"),
                    at(9_000),
                )
                .unwrap();
            assert_eq!(verdict, ClaimVerdict::Upheld);
            p.apply(Ok(d))
        }
        Termination::FivefoldRepetition => play(standard(), &[SHUFFLE; 4].concat()),
        Termination::SeventyFiveMoves => {
            play(from_fen("8/8/4k3/8/8/3K4/3R4/8 b - - 149 80"), &["Ke5"])
        }
        Termination::DeadPosition => play(
            from_fen("8/1Nk5/p1p1p1p1/P1P1P1P1/8/8/4K3/8 b - - 0 1"),
            &["Kxb7"],
        ),
        Termination::Timeout => {
            let game = timed(
                StartPosition::Standard,
                GameRules::default(),
                Schedule::default(),
            );
            run_out(play(game, &["e4", "e5"]), at(600_000))
        }
        Termination::TimeoutVsInsufficientMaterial => {
            let start = StartPosition::Fen("8/8/4k3/8/8/3K4/8/7R w - - 0 1".to_owned());
            let game = timed(start, GameRules::default(), Schedule::default());
            run_out(play(game, &["Rh2", "Ke5"]), at(600_000))
        }
        Termination::TimeoutWithPendingDrawOffer => {
            let rules = GameRules {
                pending_offer_draws_on_flag: true,
                ..GameRules::default()
            };
            let game = timed(StartPosition::Standard, rules, Schedule::default());
            let p = play(game, &["e4", "e5", "Nf3", "Nc6"]);
            let d = p.game.offer_draw(Color::Black, at(5_000));
            run_out(p.apply(d), at(600_000))
        }
        Termination::Forfeit => {
            let p = play(standard(), &["e4"]);
            let d = p.game.set_result(
                crate::domain::Ruling::Forfeit {
                    loser: Color::Black,
                },
                "left the playing hall",
                "arbiter",
                at(9_000),
            );
            p.apply(d)
        }
        Termination::ArbiterDecision => {
            let p = play(standard(), &["e4", "e5"]);
            let d = p.game.set_result(
                crate::domain::Ruling::Played {
                    outcome: Outcome::Draw,
                    termination: None,
                },
                "adjourned game adjudicated",
                "arbiter",
                at(9_000),
            );
            p.apply(d)
        }
        Termination::NoShow => {
            let schedule = Schedule {
                scheduled_start: Some(at(0)),
                default_time_ms: Some(30_000),
                awaits_start: false,
            };
            let game = timed(StartPosition::Standard, GameRules::default(), schedule);
            run_out(play(game, &[]), at(30_000))
        }
        Termination::OpponentLeft => {
            let rules = GameRules {
                claim_after_opponent_left_ms: 10_000,
                ..GameRules::default()
            };
            let game = timed(StartPosition::Standard, rules, Schedule::default());
            let p = play(game, &["e4", "e5"]);
            let d = p
                .game
                .report_connection(Color::White, false, "platform", at(9_000));
            let p = p.apply(d);
            let d = p.game.claim_victory(Color::Black, at(19_000));
            p.apply(d)
        }
    };
    assert_eq!(
        p.game.result().map(|r| r.termination),
        Some(termination),
        "{termination:?}"
    );
    p
}

#[test]
fn pgn_export_of_every_ending_reads_back_with_the_same_moves_and_result() {
    for termination in [
        Termination::Checkmate,
        Termination::Resignation,
        Termination::Stalemate,
        Termination::InsufficientMaterial,
        Termination::Agreement,
        Termination::ThreefoldRepetition,
        Termination::FiftyMoves,
        Termination::FivefoldRepetition,
        Termination::SeventyFiveMoves,
        Termination::DeadPosition,
    ] {
        let p = ended_by(termination);
        let outcome = p.game.result().unwrap().outcome;
        let read = check_pgn(&p, outcome.pgn(), "normal");
        assert!(
            read.comments
                .iter()
                .any(|c| c.contains(termination.describe()) || c.contains("resigns")),
            "{termination:?}: {:?}",
            read.comments
        );
    }
}

#[test]
fn pgn_export_of_time_endings_reads_back_with_clock_comments() {
    for (termination, tag) in [
        (Termination::Timeout, "time forfeit"),
        (Termination::TimeoutVsInsufficientMaterial, "time forfeit"),
        (Termination::TimeoutWithPendingDrawOffer, "time forfeit"),
        (Termination::NoShow, "abandoned"),
    ] {
        let p = ended_by(termination);
        let outcome = p.game.result().unwrap().outcome;
        let read = check_pgn(&p, outcome.pgn(), tag);
        assert_eq!(
            read.tags.get("TimeControl").map(String::as_str),
            Some("60"),
            "{termination:?}"
        );
        let clocks = read
            .comments
            .iter()
            .filter(|c| c.contains("[%clk "))
            .count();
        assert_eq!(
            clocks,
            p.moves().len(),
            "{termination:?}: one clock per move"
        );
    }
}

#[test]
fn pgn_export_of_a_resignation_names_who_resigned() {
    // White resigns against a lone king: Black wins, and the PGN says White
    // resigned.
    let game = from_fen("8/8/4k3/8/8/3K4/3R4/8 w - - 0 1");
    let p = play(game, &["Rd1", "Ke5"]);
    let d = p.game.resign(Color::White, at(9_000));
    let p = p.apply(d);
    assert_eq!(
        p.game.result(),
        result(Outcome::BlackWins, Termination::Resignation)
    );
    let read = check_pgn(&p, "0-1", "normal");
    assert!(
        read.comments.iter().any(|c| c.contains("White resigns")),
        "{:?}",
        read.comments
    );
}

#[test]
fn pgn_export_of_an_aborted_or_unfinished_game_has_no_result() {
    let p = play(standard(), &["e4"]);
    let d = p.game.abort(Color::Black, at(9_000));
    let aborted = p.clone().apply(d);
    let read = check_pgn(&aborted, "*", "abandoned");
    assert!(read.comments.iter().any(|c| c.contains("aborted by Black")));
    assert_eq!(read.sans.len(), 1);

    let read = check_pgn(&p, "*", "unterminated");
    assert!(read.comments.is_empty());
}

#[test]
fn pgn_export_of_a_chess960_game_carries_variant_setup_and_fen() {
    // Castling short for White and long for Black, from a start where the
    // rooks already stand on their castling squares.
    let p = play(chess960(291), &["Nf3", "Nf6", "O-O", "Nd6", "Nd3", "O-O-O"]);
    let sans: Vec<String> = p.moves().iter().map(|m| m.san.clone()).collect();
    assert_eq!(sans, ["Nf3", "Nf6", "O-O", "Nd6", "Nd3", "O-O-O"]);
    let d = p.game.resign(Color::White, at(9_000));
    let p = p.apply(d);
    let read = check_pgn(&p, "0-1", "normal");
    assert_eq!(read.tags["Variant"], "Chess960");
    assert_eq!(read.tags["SetUp"], "1");
    assert_eq!(read.tags["FEN"], chess960_fen(291).unwrap());

    // Number 518 is the standard arrangement but still a Chess960 game.
    let p = play(
        chess960(518),
        &["e4", "e5", "Nf3", "Nf6", "Bc4", "Bc5", "e1h1"],
    );
    let read = check_pgn(&p, "*", "unterminated");
    assert_eq!(read.tags["Variant"], "Chess960");
    assert_eq!(read.sans.last().unwrap().to_string(), "O-O");
}

#[test]
fn pgn_export_from_a_position_with_black_to_move_numbers_the_first_move() {
    let p = ended_by(Termination::DeadPosition);
    let text = pgn::export(&p.game, &p.moves());
    assert!(text.contains("\n1... Kxb7 {"), "{text}");
    let p = ended_by(Termination::SeventyFiveMoves);
    let text = pgn::export(&p.game, &p.moves());
    assert!(text.contains("\n80... Ke5 {"), "{text}");
    let p = play(
        from_fen("8/8/4k3/8/8/3K4/3R4/8 b - - 10 40"),
        &["Ke5", "Rd1", "Ke6", "Rd2"],
    );
    let text = pgn::export(&p.game, &p.moves());
    assert!(text.contains("\n40... Ke5 41. Rd1 Ke6 42. Rd2 *"), "{text}");
    check_pgn(&p, "*", "unterminated");
}

#[test]
fn chess960_parse_move_reads_king_takes_rook_and_castling_san_alike() {
    let game = play(chess960(291), &["Nf3", "Nf6"]).game;
    let mode = CastlingMode::Chess960;
    assert_eq!(
        parse_move(game.position(), mode, "e1f1"),
        parse_move(game.position(), mode, "O-O")
    );
}
