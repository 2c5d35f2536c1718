//! What a move costs the arbiter's rules, without I/O: the dead-position
//! check (chasolver's fast test, run after every move) and a whole move
//! decision (parse, play, record, repetition, endings).
//!
//! `cargo bench --bench per_move` measures; under `cargo test` it runs each
//! case once as a smoke test.

use std::{hint::black_box, time::Instant};

use arbiter::domain::{
    Color, Decision, Game, GameId, GameRules, NewGame, Pairing, Player, Ply, SeatHashes,
    StartPosition, Timestamp, TokenHash, Variant, game::dead_position, stored::encoding,
};

const POSITIONS: [(&str, &str); 6] = [
    (
        "opening (castling rights)",
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
    ),
    (
        "middlegame (castling rights)",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
    ),
    (
        "middlegame (both castled)",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2Q1RK1 w - - 0 10",
    ),
    ("rook endgame", "8/5pk1/6p1/8/3R4/6P1/5PK1/r7 w - - 0 40"),
    (
        "locked wall",
        "8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 w - - 0 1",
    ),
    ("two knights", "8/8/4k3/8/8/3KNN2/8/8 w - - 0 1"),
];

/// Kings, pawns and a bishop: chasolver's fast test takes about a second.
const SLOW_FAST_TEST: &str = "Bk6/1P3p1p/1P6/8/8/8/5P1P/6K1 w - - 0 1";

fn measure(name: &str, iterations: u32, mut f: impl FnMut()) {
    let start = Instant::now();
    for _ in 0..iterations {
        f();
    }
    let per_call = start.elapsed() / iterations;
    println!("{name:<40} {per_call:>12.2?} per call ({iterations} calls)");
}

fn game(start: StartPosition) -> Game {
    let new = NewGame::new(
        Player::parse("white", "w", "").expect("player"),
        Player::parse("black", "b", "").expect("player"),
        Variant::Standard,
        &start,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("new game");
    let seats = SeatHashes {
        white: TokenHash::of("w"),
        black: TokenHash::of("b"),
    };
    let id = GameId::parse("bench").expect("id");
    Game::create(id, new, seats, Timestamp::from_unix_millis(0)).0
}

fn main() {
    let benchmarking = std::env::args().any(|arg| arg == "--bench");
    let iterations = if benchmarking { 20_000 } else { 1 };

    for (name, fen) in POSITIONS {
        let pos = dead_position::position(fen).expect("legal FEN");
        measure(&format!("is_dead: {name}"), iterations, || {
            black_box(dead_position::is_dead(black_box(&pos)));
        });
        measure(
            &format!("full search, both sides: {name}"),
            iterations.min(500),
            || {
                for side in [Color::White, Color::Black] {
                    black_box(dead_position::can_checkmate(black_box(&pos), side));
                }
            },
        );
    }
    // A position on which the fast test is anything but fast.
    let slow = dead_position::position(SLOW_FAST_TEST).expect("legal FEN");
    measure("is_dead: pawns and a bishop", iterations.min(3), || {
        black_box(dead_position::is_dead(black_box(&slow)));
    });

    let mut played = game(StartPosition::Standard);
    let mut ply = 0;
    for mv in [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7",
    ] {
        let seat = if ply % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let decision = played
            .play_move(
                seat,
                Ply::new(ply),
                mv,
                false,
                Timestamp::from_unix_millis(1),
            )
            .expect("legal move");
        let Decision::Changed { game, .. } = decision else {
            unreachable!("a move changes the game")
        };
        played = *game;
        ply += 1;
    }
    // The live state, read and written once a move.
    let stored = encoding::encode_game(&played).expect("a game encodes");
    measure(
        &format!("decode_game: live state, {} bytes", stored.len()),
        iterations,
        || {
            black_box(encoding::decode_game(black_box(&stored)).expect("decodes"));
        },
    );
    measure("encode_game: live state", iterations, || {
        black_box(encoding::encode_game(black_box(&played)).expect("encodes"));
    });
    measure("play_move: Re1 in the Ruy Lopez", iterations, || {
        black_box(
            played
                .play_move(
                    Color::White,
                    Ply::new(ply),
                    "Re1",
                    false,
                    Timestamp::from_unix_millis(2),
                )
                .expect("legal move"),
        );
    });
    let ending = game(StartPosition::Fen(
        "8/5pk1/6p1/8/3R4/6P1/5PK1/r7 w - - 0 40".to_owned(),
    ));
    measure("play_move: Rd7 in a rook endgame", iterations, || {
        black_box(
            ending
                .play_move(
                    Color::White,
                    Ply::START,
                    "Rd7",
                    false,
                    Timestamp::from_unix_millis(2),
                )
                .expect("legal move"),
        );
    });
    let lone_king = dead_position::position("8/8/4k3/8/8/3K4/8/7R w - - 0 1").expect("FEN");
    measure(
        "can_checkmate (full search): lone king",
        iterations.min(2_000),
        || {
            black_box(dead_position::can_checkmate(&lone_king, Color::Black));
        },
    );
}
