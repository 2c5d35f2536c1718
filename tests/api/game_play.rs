//! Playing games over gRPC: the rules of play, on both stores.

use crate::common;

use arbiter::proto::{self, GameStatus, Outcome, Termination};
use common::{
    Backend, TestApp, drain, expect_code, get, get_full, make_move, next_snapshot, play_line,
    reason, seat, watch,
};
use tonic::Code;

/// Plays `moves` and reads the game back with every move (a move's
/// response carries only the last one).
async fn play_and_read(
    client: &mut common::Client,
    game: &common::NewGame,
    moves: &[&str],
) -> proto::Game {
    let after = play_line(client, game, moves).await;
    let full = get_full(client, &game.id).await;
    assert_eq!(full.version, after.version);
    assert_eq!(full.fen, after.fen);
    assert_eq!(full.moves.last(), after.last_move.as_ref());
    full
}

/// A full game to checkmate, played by the two seat holders while a third
/// client watches the whole stream.
async fn scholars_mate_with_a_watcher(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 0).await;
    let snapshot = next_snapshot(&mut stream).await;
    assert_eq!(snapshot.version, 1);
    assert_eq!(snapshot.ply, 0);

    let mut client = app.client().await;
    let end = play_line(
        &mut client,
        &game,
        &["e4", "e7e5", "Bc4", "Nc6", "Qh5", "g8f6", "Qxf7#"],
    )
    .await;
    assert_eq!(end.status, GameStatus::Finished as i32);
    let result = end.result.clone().expect("result");
    assert_eq!(result.outcome, Outcome::WhiteWins as i32);
    assert_eq!(result.termination, Termination::Checkmate as i32);
    assert_eq!(end.ply, 7);
    assert!(end.moves.is_empty(), "a move's response has no move list");
    let last = end.last_move.as_ref().expect("the last move");
    assert_eq!((last.ply, last.san.as_str()), (6, "Qxf7#"));
    assert!(end.legal_moves.is_empty());
    assert!(!end.in_check, "a finished game reports no check to answer");

    let full = get_full(&mut client, &game.id).await;
    assert_eq!(full.moves.len(), 7);
    assert_eq!(full.moves[6].san, "Qxf7#");
    assert_eq!(full.moves[6].uci, "h5f7");
    assert_eq!(full.moves[1].uci, "e7e5");
    assert_eq!(full.moves[1].san, "e5");
    assert_eq!(full.last_move, end.last_move);

    let seen = drain(&mut stream).await;
    use proto::game_event::Kind;
    let moves: Vec<String> = seen
        .iter()
        .filter_map(|e| match &e.kind {
            Some(Kind::MoveMade(m)) => Some(m.r#move.as_ref().expect("move").san.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(moves, ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    let last = seen.last().expect("events");
    assert!(matches!(last.kind, Some(Kind::GameEnded(_))), "{last:?}");
    assert_eq!(last.version, end.version);
    let versions: Vec<i32> = seen.iter().map(|e| e.version).collect();
    let expected: Vec<i32> = (snapshot.version + 1..=end.version).collect();
    assert_eq!(versions, expected, "every event after the snapshot, once");
    assert!(seen.iter().all(|e| e.game_id == game.id));

    // After the end, every move is refused.
    let refused = seat(&mut client, &game.black, make_move(&game.id, 7, "Ke7")).await;
    let status = expect_code(refused, Code::FailedPrecondition);
    assert_eq!(reason(&status), "GAME_OVER");
}

async fn stalemate_is_a_draw(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    // Black king h8, White queen and king: Qg6 stalemates.
    let game = app.new_game_from("7k/8/5K2/8/8/8/8/6Q1 w - - 0 1").await;
    let mut client = app.client().await;
    let end = play_line(&mut client, &game, &["Qg6"]).await;
    let result = end.result.expect("result");
    assert_eq!(result.outcome, Outcome::Draw as i32);
    assert_eq!(result.termination, Termination::Stalemate as i32);
    assert_eq!(end.status, GameStatus::Finished as i32);
}

async fn insufficient_material_ends_the_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    // The last white piece besides the king is captured: K+N v K remains.
    let game = app.new_game_from("8/8/8/3k4/8/8/3r4/1N2K3 w - - 0 1").await;
    let mut client = app.client().await;
    let mid = play_line(&mut client, &game, &["Nc3+"]).await;
    assert_eq!(mid.status, GameStatus::Active as i32);
    assert!(mid.in_check);
    let end = play_line(&mut client, &game, &["Kc4"]).await;
    assert_eq!(
        end.status,
        GameStatus::Active as i32,
        "K+N v K+R is not dead yet"
    );
    let end = play_line(&mut client, &game, &["Kxd2"]).await;
    let result = end.result.expect("result");
    assert_eq!(result.outcome, Outcome::Draw as i32);
    assert_eq!(result.termination, Termination::InsufficientMaterial as i32);
}

async fn castling_both_ways_and_not_through_check(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    // Both sides may castle both ways here.
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let game = app.new_game_from(fen).await;
    let after = play_and_read(&mut client, &game, &["O-O", "e8c8"]).await;
    assert_eq!(after.moves[0].uci, "e1g1");
    assert_eq!(after.moves[0].san, "O-O");
    assert_eq!(after.moves[1].san, "O-O-O");
    assert!(
        after
            .fen
            .starts_with("2kr3r/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w"),
        "{}",
        after.fen
    );

    let game = app.new_game_from(fen).await;
    let after = play_and_read(&mut client, &game, &["e1c1", "O-O"]).await;
    assert_eq!(after.moves[0].san, "O-O-O");
    assert!(
        after
            .fen
            .starts_with("r4rk1/pppppppp/8/8/8/8/PPPPPPPP/2KR3R w"),
        "{}",
        after.fen
    );

    // A black rook on the f-file attacks f1: no castling through it.
    let game = app.new_game_from("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1").await;
    let status = expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "O-O")).await,
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "ILLEGAL_MOVE");
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "e1g1")).await,
        Code::InvalidArgument,
    );
    // Queenside is still fine.
    seat(&mut client, &game.white, make_move(&game.id, 0, "O-O-O"))
        .await
        .expect("queenside castling");

    // Not out of check.
    let game = app
        .new_game_from("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1")
        .await;
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "O-O")).await,
        Code::InvalidArgument,
    );
    // Not into check.
    let game = app
        .new_game_from("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1")
        .await;
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "O-O")).await,
        Code::InvalidArgument,
    );
}

async fn castling_rights_are_lost_for_good(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";

    // The king walks out and back: no castling either way.
    let game = app.new_game_from(fen).await;
    play_line(&mut client, &game, &["Kf1", "a6", "Ke1", "a5"]).await;
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 4, "O-O")).await,
        Code::InvalidArgument,
    );
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 4, "O-O-O")).await,
        Code::InvalidArgument,
    );

    // The h-rook moves and returns: kingside lost, queenside kept.
    let game = app.new_game_from(fen).await;
    play_line(&mut client, &game, &["Rg1", "a6", "Rh1", "a5"]).await;
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 4, "O-O")).await,
        Code::InvalidArgument,
    );
    seat(&mut client, &game.white, make_move(&game.id, 4, "O-O-O"))
        .await
        .expect("queenside still allowed");

    // The rook is captured on its square.
    let game = app
        .new_game_from("r3k2r/pppppppp/8/8/8/8/PPPPPPPB/R3K2R b KQkq - 0 1")
        .await;
    // Black's a8 rook cannot reach a1 through its pawn; use a bishop line:
    // White's h2 bishop is irrelevant; instead Black gives up kingside by
    // moving the king's rook, and White checks its own rights afterwards.
    let after = play_line(&mut client, &game, &["Rg8", "Bg3", "Rh8"]).await;
    assert!(
        after.fen.contains(" KQq "),
        "black lost kingside castling: {}",
        after.fen
    );
    let game = app
        .new_game_from("r3k2r/8/8/8/8/8/8/R3K1BR b KQkq - 0 1")
        .await;
    let after = play_line(&mut client, &game, &["Rxa1"]).await;
    assert!(
        after.fen.contains(" Kk "),
        "white lost queenside by the capture: {}",
        after.fen
    );
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 1, "O-O-O")).await,
        Code::InvalidArgument,
    );
}

async fn en_passant_only_immediately(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let game = app.new_game().await;
    let after = play_and_read(&mut client, &game, &["e4", "a6", "e5", "d5", "exd6"]).await;
    assert_eq!(after.moves[4].uci, "e5d6");
    assert_eq!(after.moves[4].san, "exd6");
    assert!(
        after
            .fen
            .starts_with("rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b"),
        "the captured pawn is gone: {}",
        after.fen
    );

    // One move later the right is gone.
    let game = app.new_game().await;
    play_line(&mut client, &game, &["e4", "a6", "e5", "d5", "h3", "h6"]).await;
    let status = expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 6, "exd6")).await,
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "ILLEGAL_MOVE");
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 6, "e5d6")).await,
        Code::InvalidArgument,
    );
}

async fn every_promotion_piece(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let fen = "7k/P7/8/8/8/8/8/K7 w - - 0 1";
    for (input, san, piece) in [
        ("a7a8q", "a8=Q+", 'Q'),
        ("a8=R+", "a8=R+", 'R'),
        ("a7a8b", "a8=B", 'B'),
        ("a8=N", "a8=N", 'N'),
    ] {
        let game = app.new_game_from(fen).await;
        let after = play_and_read(&mut client, &game, &[input]).await;
        assert_eq!(after.moves[0].san, san, "{input}");
        assert!(
            after.fen.starts_with(&format!("{piece}6k/")),
            "{input}: {}",
            after.fen
        );
    }
    // Reaching the last rank without choosing a piece is refused.
    let game = app.new_game_from(fen).await;
    let status = expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "a7a8")).await,
        Code::InvalidArgument,
    );
    assert!(status.message().contains("promote"), "{}", status.message());
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "a8")).await,
        Code::InvalidArgument,
    );
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "a7a8k")).await,
        Code::InvalidArgument,
    );
    assert_eq!(
        get(&mut client, &game.id).await.ply,
        0,
        "refusals change nothing"
    );
}

async fn no_move_may_leave_the_king_in_check(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    // The e2 knight is pinned by the e8 rook.
    let game = app.new_game_from("4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1").await;
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "Nc3")).await,
        Code::InvalidArgument,
    );
    // In check, only answers to the check are legal.
    let game = app.new_game_from("4r1k1/8/8/8/8/8/3P4/4K3 w - - 0 1").await;
    let current = get(&mut client, &game.id).await;
    assert!(current.in_check);
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "d3")).await,
        Code::InvalidArgument,
    );
    let mut legal = current.legal_moves.clone();
    legal.sort();
    assert_eq!(legal, ["e1d1", "e1f1", "e1f2"]);
    seat(&mut client, &game.white, make_move(&game.id, 0, "Kf2"))
        .await
        .expect("king steps aside");
}

async fn uci_and_san_inputs_are_equivalent(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let after = play_and_read(
        &mut client,
        &game,
        &["g1f3", "Nc6", "Nc3", "g8f6", "d4", "d7d5", "Bf4", "Bf5"],
    )
    .await;
    let san: Vec<&str> = after.moves.iter().map(|m| m.san.as_str()).collect();
    let uci: Vec<&str> = after.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(san, ["Nf3", "Nc6", "Nc3", "Nf6", "d4", "d5", "Bf4", "Bf5"]);
    assert_eq!(
        uci,
        [
            "g1f3", "b8c6", "b1c3", "g8f6", "d2d4", "d7d5", "c1f4", "c8f5"
        ]
    );
    // SAN disambiguation: both knights can reach d2 after Nb1-… no: use e5.
    let game = app.new_game_from("4k3/8/8/8/8/2N3N1/8/4K3 w - - 0 1").await;
    let status = expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "Ne4")).await,
        Code::InvalidArgument,
    );
    assert!(
        status.message().contains("ambiguous"),
        "{}",
        status.message()
    );
    let after = play_and_read(&mut client, &game, &["Nce4"]).await;
    assert_eq!(after.moves[0].san, "Nce4");
    assert_eq!(after.moves[0].uci, "c3e4");
}

on_every_backend!(
    scholars_mate_with_a_watcher,
    stalemate_is_a_draw,
    insufficient_material_ends_the_game,
    castling_both_ways_and_not_through_check,
    castling_rights_are_lost_for_good,
    en_passant_only_immediately,
    every_promotion_piece,
    no_move_may_leave_the_king_in_check,
    uci_and_san_inputs_are_equivalent,
);
