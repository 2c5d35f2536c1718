//! Unit tests of the pure domain: games, commands, rejections and the
//! validation of new games. Every "now" is an explicit timestamp.

use super::*;
use crate::domain::test_support::*;
use crate::domain::{EventId, FieldError, PointTable, Schedule, StartPosition};

fn pairing() -> Pairing {
    Pairing {
        event_id: Some(EventId::parse("spring-open").unwrap()),
        round: 3,
        board: 7,
        tie_break: false,
    }
}

fn new_game(fen: &str) -> NewGame {
    NewGame::new(
        player("alice", "Alice"),
        player("bob", "Bob"),
        Variant::Standard,
        &start_from(fen),
        pairing(),
        GameRules::default(),
    )
    .unwrap_or_else(|err| panic!("{fen:?} refused: {err}"))
}

/// A game created at `at(0)` from `fen` (empty: the standard start).
fn start(fen: &str) -> Game {
    Game::create(game_id(), new_game(fen), seats(), at(0)).0
}

/// Plays `moves` for whichever side is to move, one second apart after
/// `start_ms`, returning the final game and every event produced.
#[track_caller]
fn play_line(game: &Game, moves: &[&str], start_ms: u64) -> (Game, Vec<GameEvent>) {
    let mut game = game.clone();
    let mut all = Vec::new();
    for (i, text) in moves.iter().enumerate() {
        let now = at(start_ms + 1000 * i as u64);
        let seat = game.side_to_move();
        let (next, events) = match game.play_move(seat, game.ply(), text, false, now) {
            Ok(Decision::Changed { game, events }) => (*game, events),
            other => panic!("move {text} at ply {}: {other:?}", game.ply()),
        };
        game = next;
        all.extend(events);
    }
    (game, all)
}

/// The position after 1. f3 e5 2. g4 Qh4#, with White to move.
const FOOLS_MATE_FEN: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";

fn fools_mate() -> (Game, Vec<GameEvent>) {
    play_line(&start(""), &["f3", "e5", "g4", "Qh4#"], 1000)
}

// ---------------------------------------------------------------------------
// Creation and moves
// ---------------------------------------------------------------------------

#[test]
fn creation_gives_version_one_and_one_created_event() {
    let new = new_game("");
    let (game, event) = Game::create(game_id(), new.clone(), seats(), at(0));

    assert_eq!(game.id(), &game_id());
    assert_eq!(game.version(), 1);
    assert_eq!(game.created_at(), at(0));
    assert_eq!(game.updated_at(), at(0));
    assert_eq!(game.ply(), Ply::START);
    assert_eq!(game.side_to_move(), Color::White);
    assert_eq!(game.status(), GameStatus::Active);
    assert_eq!(game.result(), None);
    assert_eq!(game.initial_fen(), STANDARD_FEN);
    assert_eq!(game.fen(), STANDARD_FEN);
    assert_eq!(game.white(), &player("alice", "Alice"));
    assert_eq!(game.black(), &player("bob", "Bob"));
    assert_eq!(game.pairing(), &pairing());
    assert_eq!(game.seats(), seats());
    assert!(game.was_created_by(&new));
    assert_eq!(game.setup(), &new);
    assert_eq!(game.legal_moves_uci().len(), 20);

    assert_eq!(
        event,
        GameEvent {
            version: 1,
            at: at(0),
            kind: EventKind::GameCreated {
                setup: Box::new(new.clone()),
                by: None,
            },
            clock: None,
            request: None,
        }
    );
    assert!(!event.is_final());
}

#[test]
fn the_standard_setup_alone_reads_as_the_standard_fen() {
    // The standard start, its pieces with other counters, another side to
    // move, other castling rights: only the first is the standard FEN.
    for fen in [
        STANDARD_FEN,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 3 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Kkq - 0 1",
    ] {
        let game = start(fen);
        assert_eq!(game.initial_fen(), fen);
        assert_eq!(game.initial_fen(), fen_of(game.setup().start()));
    }
}

#[test]
fn creation_from_a_fen_keeps_it_as_the_initial_position() {
    let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 5 40";
    let game = start(fen);
    assert_eq!(game.initial_fen(), fen);
    assert_eq!(game.fen(), fen);
    assert_eq!(game.side_to_move(), Color::Black);
    assert_eq!(game.ply(), Ply::START);
}

#[test]
fn each_move_bumps_the_version_by_its_events_and_stamps_the_time() {
    let game = start("");
    let before = game.clone();

    let (after_e4, events) =
        changed(game.play_move(Color::White, Ply::START, "e2e4", false, at(2000)));
    assert_eq!(
        game, before,
        "play_move must not touch the game it was given"
    );
    assert_eq!(events.len(), 1);
    assert_eq!(after_e4.version(), game.version() + events.len() as u64);
    assert_eq!(after_e4.updated_at(), at(2000));
    assert_eq!(after_e4.created_at(), at(0));
    assert_eq!(after_e4.ply(), Ply::new(1));
    assert_eq!(after_e4.side_to_move(), Color::Black);
    assert_eq!(after_e4.status(), GameStatus::Active);
    assert_eq!(
        after_e4.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    let event = &events[0];
    assert_eq!(event.version, 2);
    assert_eq!(event.at, at(2000));
    let EventKind::MoveMade {
        record,
        side_to_move,
        ply,
        in_check,
    } = &event.kind
    else {
        panic!("expected MoveMade, got {event:?}");
    };
    assert_eq!(record.ply, Ply::START);
    assert_eq!(record.uci, "e2e4");
    assert_eq!(record.san, "e4");
    assert_eq!(record.color, Color::White);
    assert_eq!(record.fen_after, after_e4.fen());
    assert_eq!(record.played_at, at(2000));
    assert_eq!(*side_to_move, Color::Black);
    assert_eq!(*ply, Ply::new(1));
    assert!(!in_check);

    // SAN works too, and the version keeps counting one per event.
    let (after_e5, events) =
        changed(after_e4.play_move(Color::Black, Ply::new(1), "e5", false, at(5000)));
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].version, 3);
    assert_eq!(after_e5.version(), 3);
    assert_eq!(after_e5.updated_at(), at(5000));
    assert_eq!(after_e5.ply(), Ply::new(2));
    assert_eq!(
        events[0].move_record().map(|record| record.uci.as_str()),
        Some("e7e5")
    );
}

#[test]
fn a_check_is_reported_in_the_move_event() {
    let (game, events) = play_line(&start(""), &["e4", "e5", "Bc4", "Nc6", "Bxf7+"], 1000);
    let EventKind::MoveMade {
        record, in_check, ..
    } = &events.last().expect("events").kind
    else {
        panic!("expected MoveMade");
    };
    assert_eq!(record.san, "Bxf7+");
    assert!(in_check);
    assert!(game.in_check());
    assert_eq!(game.status(), GameStatus::Active);
    assert_eq!(game.version(), 6);
}

// ---------------------------------------------------------------------------
// Endings
// ---------------------------------------------------------------------------

#[test]
fn fools_mate_is_a_checkmate_win_for_black() {
    let (before_mate, _) = play_line(&start(""), &["f3", "e5", "g4"], 1000);
    let (game, events) =
        changed(before_mate.play_move(Color::Black, before_mate.ply(), "Qh4#", false, at(9000)));

    assert_eq!(game.version(), before_mate.version() + 2);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].version, before_mate.version() + 1);
    assert_eq!(events[1].version, before_mate.version() + 2);
    assert!(events.iter().all(|e| e.at == at(9000)));

    let EventKind::MoveMade {
        record,
        side_to_move,
        ply,
        in_check,
    } = &events[0].kind
    else {
        panic!("expected MoveMade first, got {:?}", events[0]);
    };
    assert_eq!(record.san, "Qh4#");
    assert_eq!(record.uci, "d8h4");
    assert_eq!(record.color, Color::Black);
    assert_eq!(*side_to_move, Color::White);
    assert_eq!(*ply, Ply::new(4));
    assert!(in_check);

    let expected = GameResult {
        outcome: Outcome::BlackWins,
        termination: Termination::Checkmate,
    };
    assert_eq!(events[1].kind, EventKind::ended_classic(expected));
    assert!(events[1].is_final());
    assert_eq!(game.result(), Some(expected));
    assert_eq!(game.status(), GameStatus::Finished);
    assert_eq!(game.fen(), FOOLS_MATE_FEN);
    assert_eq!(game.updated_at(), at(9000));
    assert!(game.legal_moves_uci().is_empty());
}

#[test]
fn a_finished_game_shows_no_check() {
    let (mated, _) = fools_mate();
    assert!(mated.position().is_check());
    assert!(!mated.in_check());
    assert!(!start("").in_check());
}

#[test]
fn stalemate_is_a_draw() {
    // Black king h8; Qg6 leaves it no move and no check.
    let game = start("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1");
    let (end, events) = changed(game.play_move(Color::White, Ply::START, "Qg6", false, at(1000)));
    assert_eq!(end.version(), 3);
    assert_eq!(events.len(), 2);
    let expected = GameResult {
        outcome: Outcome::Draw,
        termination: Termination::Stalemate,
    };
    assert_eq!(events[1].kind, EventKind::ended_classic(expected));
    assert_eq!(end.result(), Some(expected));
    assert_eq!(end.status(), GameStatus::Finished);
    assert!(end.legal_moves_uci().is_empty());
}

#[test]
fn capturing_the_last_mating_material_is_a_draw() {
    // White king takes the lone black rook: king against king.
    let game = start("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1");
    let (end, events) = changed(game.play_move(Color::White, Ply::START, "Kxd2", false, at(1000)));
    let expected = GameResult {
        outcome: Outcome::Draw,
        termination: Termination::InsufficientMaterial,
    };
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].kind, EventKind::ended_classic(expected));
    assert_eq!(end.result(), Some(expected));
    assert_eq!(end.version(), 3);

    // King and bishop against king is no better.
    let game = start("4k3/8/8/8/8/8/3r4/2B1K3 w - - 0 1");
    let (end, _) = changed(game.play_move(Color::White, Ply::START, "Bxd2", false, at(1000)));
    assert_eq!(end.result(), Some(expected));

    // King and rook against king is not a draw.
    let game = start("4k3/8/8/8/8/8/3r4/R3K3 w - - 0 1");
    let (end, events) = changed(game.play_move(Color::White, Ply::START, "Kxd2", false, at(1000)));
    assert_eq!(events.len(), 1);
    assert_eq!(end.status(), GameStatus::Active);
}

#[test]
fn moves_after_the_end_are_refused_as_game_over() {
    let (game, _) = fools_mate();
    for seat in [Color::White, Color::Black] {
        for text in ["e2e4", "a3", "Ke2", "nonsense"] {
            assert_eq!(
                game.play_move(seat, game.ply(), text, false, at(99_000)),
                Err(Rejection::GameOver),
                "{seat} {text}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Rejections
// ---------------------------------------------------------------------------

#[test]
fn the_wrong_seat_is_told_whose_turn_it_is() {
    let game = start("");
    assert_eq!(
        game.play_move(Color::Black, Ply::START, "e5", false, at(1000)),
        Err(Rejection::NotYourTurn {
            seat: Color::Black,
            to_move: Color::White,
        })
    );
    let (game, _) = play_line(&game, &["e4"], 1000);
    assert_eq!(
        game.play_move(Color::White, Ply::new(1), "d4", false, at(3000)),
        Err(Rejection::NotYourTurn {
            seat: Color::White,
            to_move: Color::Black,
        })
    );
}

#[test]
fn a_move_for_another_ply_is_stale() {
    let (game, _) = play_line(&start(""), &["e4", "e5", "Nf3"], 1000);
    assert_eq!(game.ply(), Ply::new(3));
    for requested in [Ply::START, Ply::new(2), Ply::new(4), Ply::new(1000)] {
        assert_eq!(
            game.play_move(Color::Black, requested, "Nc6", false, at(9000)),
            Err(Rejection::StalePly {
                requested,
                current: Ply::new(3),
            }),
            "ply {requested}"
        );
    }
}

#[test]
fn rejected_commands_leave_the_game_as_it_was() {
    let (game, _) = play_line(&start(""), &["e4", "e5"], 1000);
    let original = game.clone();
    let now = at(50_000);
    let refusals = [
        game.play_move(Color::White, Ply::new(1), "Nf3", false, now),
        game.play_move(Color::White, Ply::new(3), "Nf3", false, now),
        game.play_move(Color::Black, Ply::new(2), "Nc6", false, now),
        game.play_move(Color::White, Ply::new(2), "e4e5", false, now),
        game.play_move(Color::White, Ply::new(2), "Ke3", false, now),
        game.play_move(Color::White, Ply::new(2), "zz", false, now),
        game.play_move(Color::White, Ply::new(2), "", false, now),
    ];
    for refusal in refusals {
        assert!(refusal.is_err(), "{refusal:?}");
    }
    assert_eq!(game, original);

    let (ended, _) = fools_mate();
    let original = ended.clone();
    assert_eq!(ended.resign(Color::White, now), Err(Rejection::GameOver));
    assert_eq!(
        ended.play_move(Color::White, ended.ply(), "e4", false, now),
        Err(Rejection::GameOver)
    );
    assert_eq!(ended, original);
}

// ---------------------------------------------------------------------------
// Retries
// ---------------------------------------------------------------------------

#[test]
fn confirm_retry_accepts_the_same_move_by_the_same_seat() {
    let (game, _) = play_line(
        &start(""),
        &["e4", "e5", "Bc4", "Nc6", "Bxf7+", "Ke7"],
        1000,
    );
    assert_eq!(game.ply(), Ply::new(6));
    let original = game.clone();

    for text in ["Bxf7+", "Bxf7", "c4f7", " Bxf7+ "] {
        assert_eq!(
            game.confirm_retry(Color::White, Ply::new(4), text),
            Ok(Decision::Unchanged),
            "{text}"
        );
    }
    assert_eq!(
        game.confirm_retry(Color::Black, Ply::new(5), "Ke7"),
        Ok(Decision::Unchanged)
    );
    assert_eq!(game, original);
}

#[test]
fn confirm_retry_refuses_anything_but_an_exact_repeat() {
    let (game, _) = play_line(
        &start(""),
        &["e4", "e5", "Bc4", "Nc6", "Bxf7+", "Ke7"],
        1000,
    );
    let current = game.ply();
    let stale = |requested| Rejection::StalePly { requested, current };

    // A different move at that ply.
    for text in ["Qh5", "d2d4", "Bb5", "c4b5", "garbage"] {
        assert_eq!(
            game.confirm_retry(Color::White, Ply::new(4), text),
            Err(stale(Ply::new(4))),
            "{text}"
        );
    }
    // The same move text, claimed by the other seat.
    assert_eq!(
        game.confirm_retry(Color::Black, Ply::new(4), "Bxf7+"),
        Err(stale(Ply::new(4)))
    );
    assert_eq!(
        game.confirm_retry(Color::White, Ply::new(1), "e5"),
        Err(stale(Ply::new(1)))
    );
    // The move of another ply by the right seat.
    assert_eq!(
        game.confirm_retry(Color::White, Ply::new(2), "Bxf7+"),
        Err(stale(Ply::new(2)))
    );
    // The current ply and beyond are never retries.
    for requested in [current, current.next(), Ply::new(500)] {
        assert_eq!(
            game.confirm_retry(Color::White, requested, "Bxf7+"),
            Err(stale(requested)),
            "ply {requested}"
        );
        assert_eq!(
            game.confirm_retry(Color::Black, requested, "Ke7"),
            Err(stale(requested)),
            "ply {requested}"
        );
    }
    // Only the two latest moves are kept: an older move, even the right
    // one by the right seat, is stale rather than looked up in the log.
    assert_eq!(
        game.confirm_retry(Color::Black, Ply::new(1), "e5"),
        Err(stale(Ply::new(1)))
    );
    assert_eq!(
        game.confirm_retry(Color::White, Ply::START, "e4"),
        Err(stale(Ply::START))
    );
}

#[test]
fn confirm_retry_works_after_the_game_ended() {
    let (game, _) = fools_mate();
    for text in ["Qh4#", "Qh4+", "Qh4", "d8h4"] {
        assert_eq!(
            game.confirm_retry(Color::Black, Ply::new(3), text),
            Ok(Decision::Unchanged),
            "{text}"
        );
    }
    assert_eq!(
        game.confirm_retry(Color::Black, Ply::new(3), "Qg5"),
        Err(Rejection::StalePly {
            requested: Ply::new(3),
            current: Ply::new(4),
        })
    );
}

// ---------------------------------------------------------------------------
// Resignation
// ---------------------------------------------------------------------------

#[test]
fn resigning_gives_the_opponent_the_win() {
    for (seat, outcome) in [
        (Color::White, Outcome::BlackWins),
        (Color::Black, Outcome::WhiteWins),
    ] {
        // Resigning is allowed whoever is to move.
        let (game, _) = play_line(&start(""), &["d4"], 1000);
        let (end, events) = changed(game.resign(seat, at(7000)));
        let expected = GameResult {
            outcome,
            termination: Termination::Resignation,
        };
        assert_eq!(
            events,
            vec![GameEvent {
                version: game.version() + 1,
                at: at(7000),
                kind: EventKind::ended_classic(expected),
                clock: None,
                request: None,
            }]
        );
        assert_eq!(end.version(), game.version() + 1);
        assert_eq!(end.updated_at(), at(7000));
        assert_eq!(end.result(), Some(expected));
        assert_eq!(end.status(), GameStatus::Finished);
        assert_eq!(end.ply(), game.ply());
        assert_eq!(end.fen(), game.fen());
        assert!(end.legal_moves_uci().is_empty());

        // Once resigned, nothing more happens; a repeat by the seat that
        // resigned is answered as done.
        assert_eq!(end.resign(seat, at(8000)), Ok(Decision::Unchanged));
        assert_eq!(end.resign(!seat, at(8000)), Err(Rejection::GameOver));
        assert_eq!(
            end.play_move(Color::Black, end.ply(), "d5", false, at(8000)),
            Err(Rejection::GameOver)
        );
    }
}

#[test]
fn resigning_after_checkmate_is_refused() {
    let (game, _) = fools_mate();
    for seat in [Color::White, Color::Black] {
        assert_eq!(game.resign(seat, at(60_000)), Err(Rejection::GameOver));
    }
}

// ---------------------------------------------------------------------------
// Seats
// ---------------------------------------------------------------------------

#[test]
fn seat_of_maps_each_token_hash_to_its_seat() {
    let game = start("");
    assert_eq!(
        game.seat_of(&TokenHash::of("white-seat-token")),
        Some(Color::White)
    );
    assert_eq!(
        game.seat_of(&TokenHash::of("black-seat-token")),
        Some(Color::Black)
    );
    for other in ["", "white-seat-token ", "White-seat-token", "admin"] {
        assert_eq!(game.seat_of(&TokenHash::of(other)), None, "{other:?}");
    }
}

#[test]
fn token_hashes_serialize_as_hex_and_refuse_malformed_text() {
    let hash = TokenHash::of("white-seat-token");
    let json = serde_json::to_string(&hash).expect("serialize");
    assert_eq!(json.len(), 64 + 2);
    assert_eq!(
        serde_json::from_str::<TokenHash>(&json).expect("parse"),
        hash
    );
    for bad in ["\"\"", "\"abc\"", &format!("\"{}\"", "zz".repeat(32))] {
        assert!(serde_json::from_str::<TokenHash>(bad).is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------------------
// New games
// ---------------------------------------------------------------------------

#[track_caller]
fn refusal(fen: &str) -> FieldError {
    match NewGame::new(
        player("alice", ""),
        player("bob", ""),
        Variant::Standard,
        &start_from(fen),
        Pairing::default(),
        GameRules::default(),
    ) {
        Ok(_) => panic!("{fen:?} was accepted"),
        Err(err) => {
            assert_eq!(err.field, "initial_fen", "{err}");
            err
        }
    }
}

#[test]
fn illegal_positions_are_refused_with_the_reason() {
    let cases = [
        // Two white kings.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1",
            "too many kings",
        ),
        // Castling rights without the rooks (or kings) to castle with.
        (
            "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w KQkq - 0 1",
            "invalid castling rights",
        ),
        // An en passant square behind no pawn that could just have moved.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1",
            "invalid ep square",
        ),
        // An en passant square on the wrong rank for the side to move.
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1",
            "invalid ep square",
        ),
        // No black king.
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", "missing king"),
        // The side not to move is in check.
        ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", "opposite check"),
    ];
    for (fen, reason) in cases {
        let err = refusal(fen);
        assert!(
            err.reason.starts_with("is not a legal position"),
            "{fen}: {err}"
        );
        assert!(err.reason.contains(reason), "{fen}: {err}");
    }
}

#[test]
fn malformed_fen_is_refused_with_the_parser_reason() {
    for (text, reason) in [
        ("garbage", "invalid"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "invalid turn",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq z9 0 1",
            "invalid ep square in fen",
        ),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "invalid board",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",
            "invalid halfmove clock",
        ),
    ] {
        let err = refusal(text);
        assert!(err.reason.starts_with("is not valid FEN"), "{text}: {err}");
        assert!(err.reason.contains(reason), "{text}: {err}");
    }
}

#[test]
fn finished_positions_cannot_start_a_game() {
    for (fen, reason) in [
        (FOOLS_MATE_FEN, "checkmate"),
        ("7k/8/5KQ1/8/8/8/8/8 b - - 1 1", "stalemate"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", "insufficient material"),
        ("4k3/8/8/8/8/8/8/2B1K3 b - - 0 1", "insufficient material"),
    ] {
        let err = refusal(fen);
        assert!(err.reason.contains("finished position"), "{fen}: {err}");
        assert!(err.reason.contains(reason), "{fen}: {err}");
    }
}

#[test]
fn an_empty_fen_means_the_standard_start() {
    let explicit = new_game(STANDARD_FEN);
    for empty in ["", "   ", "\t\n"] {
        let implicit = new_game(empty);
        assert_eq!(implicit, explicit, "{empty:?}");
        let (game, _) = Game::create(game_id(), implicit, seats(), at(0));
        assert!(game.was_created_by(&explicit));
        assert_eq!(game.initial_fen(), STANDARD_FEN);
        assert_eq!(game.position(), &Chess::default());
    }
    // Surrounding whitespace around a real FEN is tolerated too.
    let (game, _) = Game::create(game_id(), explicit, seats(), at(0));
    assert!(game.was_created_by(&new_game(&format!("  {STANDARD_FEN} \n"))));
}

#[test]
fn a_repeated_creation_request_is_told_from_a_different_one() {
    let base = || {
        (
            player("alice", "Alice"),
            player("bob", "Bob"),
            "",
            pairing(),
        )
    };
    let request = |(white, black, fen, pairing): (Player, Player, &str, Pairing)| {
        NewGame::new(
            white,
            black,
            Variant::Standard,
            &start_from(fen),
            pairing,
            GameRules::default(),
        )
        .expect("valid new game")
    };
    let (game, _) = Game::create(game_id(), request(base()), seats(), at(0));
    assert!(game.was_created_by(&request(base())));

    let mut variants = Vec::new();
    let mut v = base();
    v.0.id = "carol".into();
    variants.push(("white id", v));
    let mut v = base();
    v.0.name = "Alicia".into();
    variants.push(("white name", v));
    let mut v = base();
    v.1.id = "dave".into();
    variants.push(("black id", v));
    let mut v = base();
    v.1.name = "Robert".into();
    variants.push(("black name", v));
    let mut v = base();
    v.2 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    variants.push(("fen", v));
    let mut v = base();
    v.2 = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 7";
    variants.push(("move number", v));
    let mut v = base();
    v.3.event_id = Some(EventId::parse("autumn-open").unwrap());
    variants.push(("event id", v));
    let mut v = base();
    v.3.event_id = None;
    variants.push(("no event", v));
    let mut v = base();
    v.3.round = 4;
    variants.push(("round", v));
    let mut v = base();
    v.3.board = 8;
    variants.push(("board", v));
    let v = base();
    variants.push(("seats swapped", (v.1, v.0, v.2, v.3)));
    // Moving text between adjacent fields is a different request.
    let mut v = base();
    v.0.id = "alic".into();
    v.0.name = "eAlice".into();
    variants.push(("shifted boundary", v));

    for (what, variant) in variants {
        assert!(!game.was_created_by(&request(variant)), "{what}");
    }
    let other_rules = request(base()).with_scoring(ScoringSystem::uniform(PointTable::FOOTBALL));
    assert!(!game.was_created_by(&other_rules), "scoring");
}

// ---------------------------------------------------------------------------
// Persistence
// ---------------------------------------------------------------------------

#[track_caller]
fn round_trip(game: &Game) -> Game {
    let json = serde_json::to_string(game).expect("serialize");
    let back: Game = serde_json::from_str(&json).expect("deserialize");
    assert_eq!(&back, game, "{json}");
    // Position equality ignores the move counters: check them via the FEN.
    assert_eq!(back.fen(), game.fen(), "{json}");
    back
}

#[test]
fn games_survive_a_serde_round_trip() {
    round_trip(&start(""));

    // Castling rights for both sides and a capturable en passant pawn.
    let (game, _) = play_line(&start(""), &["e4", "d5", "e5", "f5"], 1000);
    assert_eq!(
        game.fen(),
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
    );
    let back = round_trip(&game);
    // The restored game still knows en passant is possible right now.
    let (after, _) = changed(back.play_move(Color::White, back.ply(), "exf6", false, at(60_000)));
    assert_eq!(
        after.fen(),
        "rnbqkbnr/ppp1p1pp/5P2/3p4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
    );

    // Partial castling rights and non-trivial move counters.
    let game = start("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 17 42");
    let back = round_trip(&game);
    assert_eq!(back.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 17 42");

    // A finished game keeps its result.
    let (ended, _) = fools_mate();
    let back = round_trip(&ended);
    assert_eq!(back.status(), GameStatus::Finished);
    assert_eq!(
        back.play_move(Color::White, back.ply(), "e4", false, at(0)),
        Err(Rejection::GameOver)
    );
}

#[test]
fn a_pairing_is_stored_with_an_empty_event_id_for_none() {
    let none = Pairing::parse("", 0, 0).unwrap();
    assert_eq!(none.event_id, None);
    assert_eq!(
        serde_json::to_string(&none).unwrap(),
        r#"{"event_id":"","round":0,"board":0}"#
    );
    let stored = r#"{"event_id":"spring-open","round":3,"board":7}"#;
    assert_eq!(serde_json::to_string(&pairing()).unwrap(), stored);
    assert_eq!(serde_json::from_str::<Pairing>(stored).unwrap(), pairing());
    assert_eq!(
        serde_json::from_str::<Pairing>(r#"{"event_id":"","round":0,"board":0}"#).unwrap(),
        Pairing::default()
    );
    assert!(
        serde_json::from_str::<Pairing>(r#"{"event_id":"a\u0007","round":0,"board":0}"#).is_err()
    );
    assert_eq!(
        Pairing::parse("spring-open", 1_001, 0),
        Err(FieldError::new("round", "must be at most 1000"))
    );
    assert_eq!(
        Pairing::parse("spring-open", 1, 10_001),
        Err(FieldError::new("board", "must be at most 10000"))
    );
    assert!(Pairing::parse("spring-open", 1_000, 10_000).is_ok());
    assert_eq!(
        Pairing::parse("bell\u{7}", 1, 1),
        Err(FieldError::new("event_id", "contains control characters"))
    );
}

#[test]
fn legacy_fingerprints_stay_as_the_first_release_computed_them() {
    // A retried CreateGame must match a game the first release created,
    // which kept only this digest of its request.
    let fingerprint = |pairing| {
        let request = NewGame::new(
            player("alice", "Alice"),
            player("bob", "Bob"),
            Variant::Standard,
            &StartPosition::Standard,
            pairing,
            GameRules::default(),
        )
        .expect("valid new game");
        crate::domain::game::setup::legacy_fingerprint(&request)
    };
    assert_eq!(
        fingerprint(Pairing::default()),
        "5c6c82a9b17bf2b08a5514e7567c6c27dbcd2f3cfc56f5b40c3fb2607a14ec64"
    );
    assert_eq!(
        fingerprint(pairing()),
        "fcbfcef9fb58df6bb1ba6ec745fffa927c532d1d14ad3d660ecb430b4682de4e"
    );
}

#[test]
fn events_survive_a_serde_round_trip() {
    let (created, first) = Game::create(game_id(), new_game(""), seats(), at(0));
    let (_, mut events) = play_line(&created, &["f3", "e5", "g4", "Qh4#"], 1000);
    events.insert(0, first);
    let (_, resigned) = changed(created.resign(Color::Black, at(5)));
    events.extend(resigned);
    for event in events {
        let json = serde_json::to_string(&event).expect("serialize");
        let back: GameEvent = serde_json::from_str(&json).expect("deserialize");
        assert_eq!(back, event, "{json}");
    }
}

/// The start a FEN field asks for: empty means the standard position.
fn start_from(fen: &str) -> StartPosition {
    if fen.trim().is_empty() {
        StartPosition::Standard
    } else {
        StartPosition::Fen(fen.to_owned())
    }
}

#[test]
fn an_abort_repeated_by_the_same_seat_changes_nothing() {
    let (aborted, _) = changed(start("").abort(Color::White, at(1)));
    assert_eq!(aborted.abort(Color::White, at(2)), Ok(Decision::Unchanged));
    assert_eq!(
        aborted.abort(Color::Black, at(2)),
        Err(Rejection::GameAborted)
    );
}

#[test]
fn an_armageddon_draw_keeps_the_board_result_and_scores_for_black() {
    let scoring = ScoringSystem {
        armageddon: true,
        ..ScoringSystem::default()
    };
    let game = Game::create(
        game_id(),
        new_game("").with_scoring(scoring),
        seats(),
        at(0),
    )
    .0;
    let (game, _) = play_line(&game, &["e4", "e5"], 1000);
    let (offered, _) = changed(game.offer_draw(Color::White, at(5000)));
    let (drawn, events) = changed(offered.respond_to_draw_offer(Color::Black, true, at(6000)));
    let result = drawn.result().expect("ended");
    assert_eq!(result.outcome, Outcome::Draw);
    let score = drawn.score().expect("scored");
    assert_eq!(score.scored_as, Outcome::BlackWins);
    assert_eq!((score.white.milli(), score.black.milli()), (0, 1000));
    assert!(matches!(
        events.last().map(|e| &e.kind),
        Some(EventKind::GameEnded { result: r, score: Some(s), .. }) if r.outcome == Outcome::Draw && s.scored_as == Outcome::BlackWins
    ));
}

#[test]
fn a_game_is_pending_until_its_scheduled_start() {
    let start_at = at(60_000);
    let schedule = Schedule {
        scheduled_start: Some(start_at),
        default_time_ms: None,
        awaits_start: false,
    };
    let game = Game::create(
        game_id(),
        new_game("").with_clock(None, schedule),
        seats(),
        at(0),
    )
    .0;
    assert_eq!(game.status(), GameStatus::Active);
    assert_eq!(game.status_at(at(59_999)), GameStatus::Pending);
    assert_eq!(game.status_at(start_at), GameStatus::Active);
}
