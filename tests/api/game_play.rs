//! Playing games over gRPC: the rules of play, on both stores.

use crate::common;

use arbiter::proto::{self, GameStatus, Outcome, Termination, game_event::Kind};
use common::{
    Backend, TestApp, drain, expect_code, get, get_full, kinds, make_move, make_move_offering_draw,
    next_snapshot, play_line, reason, resign, seat, token_to_move, watch, with_token,
};
use tonic::{Code, Status};
use tonic_types::StatusExt;

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

// ---------------------------------------------------------------------------
// What a move's response carries
// ---------------------------------------------------------------------------

/// Sends a move for the side to move in `current` and returns the whole
/// response.
async fn move_response(
    client: &mut common::Client,
    game: &common::NewGame,
    current: &proto::Game,
    request: proto::MakeMoveRequest,
) -> proto::MakeMoveResponse {
    let token = token_to_move(game, current);
    let what = request.r#move.clone();
    client
        .make_move(with_token(token, request))
        .await
        .unwrap_or_else(|status| panic!("move {what} refused: {status:?}"))
        .into_inner()
}

/// Asserts that `response` is the move `san` at `ply`: its game without
/// the move list but with the move as `last_move`, and its events (of
/// `expected` kinds) numbered up to the game's version, the `move_made`
/// one describing the position after the move.
#[track_caller]
fn assert_move_response(
    response: &proto::MakeMoveResponse,
    ply: i32,
    san: &str,
    expected: &[&str],
) -> proto::Game {
    let game = response.game.clone().expect("game in response");
    assert!(game.moves.is_empty(), "no move list: {:?}", game.moves);
    let last = game.last_move.clone().expect("the last move");
    assert_eq!((last.ply, last.san.as_str()), (ply, san));
    assert_eq!(game.ply, ply + 1);
    assert_eq!(kinds(&response.events), expected, "{:?}", response.events);
    let versions: Vec<i32> = response.events.iter().map(|e| e.version).collect();
    let first = game.version - i32::try_from(versions.len()).expect("few events") + 1;
    assert_eq!(versions, (first..=game.version).collect::<Vec<_>>());
    for event in &response.events {
        assert_eq!(event.game_id, game.game_id);
        assert!(event.event_time.is_some(), "{event:?}");
        if let Some(Kind::MoveMade(made)) = &event.kind {
            assert_eq!(made.r#move.as_ref(), Some(&last));
            assert_eq!(made.fen, game.fen);
            assert_eq!(made.ply, game.ply);
            assert_eq!(made.side_to_move, game.side_to_move);
            // A finished game reports no check to answer; the move that
            // ended it still says whether it gave check.
            if game.status == GameStatus::Active as i32 {
                assert_eq!(made.in_check, game.in_check);
            } else {
                assert_eq!(made.in_check, san.ends_with(['+', '#']), "{san}");
            }
        }
    }
    *game
}

/// A move's response carries the events the move produced and the game
/// without its move list but with the move just played; the full view has
/// every move.
async fn a_move_response_carries_its_events_and_the_last_move(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let start = get(&mut client, &game.id).await;
    assert!(start.last_move.is_none(), "no move yet");

    let response = move_response(&mut client, &game, &start, make_move(&game.id, 0, "e4")).await;
    let current = assert_move_response(&response, 0, "e4", &["move_made"]);
    assert_eq!(current.version, 2);
    let response = move_response(&mut client, &game, &current, make_move(&game.id, 1, "e5")).await;
    let current = assert_move_response(&response, 1, "e5", &["move_made"]);

    // A move that offers a draw: the move, then the offer.
    let request = make_move_offering_draw(&game.id, 2, "Bc4");
    let response = move_response(&mut client, &game, &current, request).await;
    let current = assert_move_response(&response, 2, "Bc4", &["move_made", "draw_offered"]);
    assert_eq!(current.draw_offered_by, Some(proto::Color::White as i32));
    let Some(Kind::DrawOffered(offer)) = &response.events[1].kind else {
        panic!("{:?}", response.events);
    };
    assert_eq!(offer.by, proto::Color::White as i32);

    // Moving on declines the offer, which comes first.
    let response = move_response(&mut client, &game, &current, make_move(&game.id, 3, "Nc6")).await;
    let current = assert_move_response(&response, 3, "Nc6", &["draw_declined", "move_made"]);
    assert_eq!(current.draw_offered_by, None);

    let current = play_line(&mut client, &game, &["Qh5", "Nf6"]).await;
    // A move that ends the game: the move, then the end.
    let response = move_response(
        &mut client,
        &game,
        &current,
        make_move(&game.id, 6, "Qxf7#"),
    )
    .await;
    let end = assert_move_response(&response, 6, "Qxf7#", &["move_made", "game_ended"]);
    let Some(Kind::GameEnded(ended)) = &response.events[1].kind else {
        panic!("{:?}", response.events);
    };
    assert_eq!(ended.result, end.result);
    assert_eq!(
        end.result.as_ref().map(|r| r.termination),
        Some(Termination::Checkmate as i32)
    );

    // The basic view has only the last move; the full view has every move,
    // in order.
    let basic = get(&mut client, &game.id).await;
    assert!(basic.moves.is_empty());
    assert_eq!(basic.last_move, end.last_move);
    let full = get_full(&mut client, &game.id).await;
    let sans: Vec<&str> = full.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    for (ply, record) in full.moves.iter().enumerate() {
        assert_eq!(record.ply, i32::try_from(ply).expect("few plies"));
        let colour = if ply % 2 == 0 {
            proto::Color::White
        } else {
            proto::Color::Black
        };
        assert_eq!(record.color, colour as i32);
        assert!(record.move_time.is_some());
    }
    assert_eq!(full.moves.last(), end.last_move.as_ref());
    assert_eq!(full.version, end.version);

    // A resignation's response carries its ending too.
    let game = app.new_game().await;
    play_line(&mut client, &game, &["d4"]).await;
    let response = client
        .resign_game(with_token(&game.black, resign(&game.id)))
        .await
        .expect("resign")
        .into_inner();
    assert_eq!(kinds(&response.events), ["game_ended"]);
    let resigned = response.game.expect("game");
    assert!(resigned.moves.is_empty());
    assert_eq!(
        resigned.last_move.as_ref().map(|m| m.san.as_str()),
        Some("d4")
    );
    assert_eq!(response.events[0].version, resigned.version);
}

// ---------------------------------------------------------------------------
// ListMoves
// ---------------------------------------------------------------------------

/// A 64-ply game without a capture, a check or a repeated position: pawn
/// steps on both wings, knights going out and back between them, then the
/// bishops.
fn long_line() -> Vec<&'static str> {
    let white = [
        "a3", "a4", "b3", "b4", "c3", "c4", "h3", "h4", "g3", "g4", "d3", "d4", "e3", "e4", "Be2",
        "Bd3",
    ];
    let black = [
        "a6", "a5", "b6", "b5", "c6", "c5", "h6", "h5", "g6", "g5", "d6", "d5", "e6", "e5", "Be7",
        "Bd6",
    ];
    let mut line = Vec::new();
    for (round, (w, b)) in white.into_iter().zip(black).enumerate() {
        line.extend([w, b]);
        if round % 2 == 0 {
            line.extend(["Nf3", "Nf6"]);
        } else {
            line.extend(["Ng1", "Ng8"]);
        }
    }
    line
}

async fn list_moves(
    client: &mut common::Client,
    game_id: &str,
    page_size: i32,
    page_token: &str,
    start_ply: i32,
) -> Result<proto::ListMovesResponse, Status> {
    client
        .list_moves(proto::ListMovesRequest {
            game_id: game_id.to_owned(),
            page_size,
            page_token: page_token.to_owned(),
            start_ply,
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Every page of a game's moves from `start_ply`, `page_size` at a time.
async fn every_page(
    client: &mut common::Client,
    game_id: &str,
    page_size: i32,
    start_ply: i32,
) -> Vec<proto::ListMovesResponse> {
    let mut pages = Vec::new();
    let mut token = String::new();
    for _ in 0..200 {
        let start = if token.is_empty() { start_ply } else { 0 };
        let page = list_moves(client, game_id, page_size, &token, start)
            .await
            .expect("a page of moves");
        let last = page.next_page_token.is_empty();
        token = page.next_page_token.clone();
        pages.push(page);
        if last {
            return pages;
        }
    }
    panic!("the pages never end");
}

/// Asserts an INVALID_ARGUMENT (INVALID_FIELD) naming `field`.
#[track_caller]
fn assert_invalid_field<T: std::fmt::Debug>(result: Result<T, Status>, field: &str) {
    let status = expect_code(result, Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
    let fields: Vec<String> = status
        .get_details_bad_request()
        .map(|bad| bad.field_violations.into_iter().map(|v| v.field).collect())
        .unwrap_or_default();
    assert_eq!(fields, [field], "{status:?}");
}

/// ListMoves pages through a long game: every move once and in order, a
/// token on every page but the last, from any start ply; tokens belong to
/// their game and sizes must not be negative.
async fn list_moves_pages_through_a_long_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let line = long_line();
    let end = play_line(&mut client, &game, &line).await;
    assert_eq!(end.ply, 64);
    assert_eq!(end.status, GameStatus::Active as i32);
    let full = get_full(&mut client, &game.id).await;
    let sans: Vec<&str> = full.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, line);

    let pages = every_page(&mut client, &game.id, 7, 0).await;
    assert!(pages.len() >= 10, "64 moves, 7 at most a page: {pages:?}");
    for page in &pages {
        assert!(page.moves.len() <= 7, "{page:?}");
    }
    let listed: Vec<proto::MoveRecord> = pages.iter().flat_map(|p| p.moves.clone()).collect();
    assert_eq!(listed, full.moves, "every move once, in order");

    // From a start ply, on the first page only.
    let pages = every_page(&mut client, &game.id, 7, 20).await;
    let listed: Vec<proto::MoveRecord> = pages.iter().flat_map(|p| p.moves.clone()).collect();
    assert_eq!(listed, full.moves[20..]);
    // The default size holds the whole game.
    let whole = list_moves(&mut client, &game.id, 0, "", 0)
        .await
        .expect("default size");
    assert_eq!(whole.moves, full.moves);
    assert!(whole.next_page_token.is_empty());

    // A token belongs to its game.
    let token = list_moves(&mut client, &game.id, 7, "", 0)
        .await
        .expect("first page")
        .next_page_token;
    assert!(!token.is_empty());
    let other = app.new_game().await;
    play_line(&mut client, &other, &line[..16]).await;
    assert_invalid_field(
        list_moves(&mut client, &other.id, 7, &token, 0).await,
        "page_token",
    );
    assert_invalid_field(
        list_moves(&mut client, &game.id, 7, "not-a-token", 0).await,
        "page_token",
    );
    // Sizes and plies are not negative.
    assert_invalid_field(
        list_moves(&mut client, &game.id, -7, "", 0).await,
        "page_size",
    );
    assert_invalid_field(
        list_moves(&mut client, &game.id, 7, "", -1).await,
        "start_ply",
    );
}

/// Paging from a start ply deep into a game lists exactly the moves from
/// there on, however many pages it takes.
async fn list_moves_starts_at_any_ply(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    play_line(&mut client, &game, &long_line()).await;
    let full = get_full(&mut client, &game.id).await;
    assert_eq!(full.moves.len(), 64);
    for start_ply in [1, 7, 30, 60, 63, 64, 100] {
        let pages = every_page(&mut client, &game.id, 7, start_ply).await;
        let listed: Vec<proto::MoveRecord> = pages.iter().flat_map(|p| p.moves.clone()).collect();
        let from = usize::try_from(start_ply).expect("positive").min(64);
        let plies: Vec<i32> = listed.iter().map(|m| m.ply).collect();
        let expected: Vec<i32> = full.moves[from..].iter().map(|m| m.ply).collect();
        assert_eq!(plies, expected, "the plies listed from ply {start_ply}");
        assert_eq!(listed, full.moves[from..], "from ply {start_ply}");
    }
}

/// A move asked with `REPLY_VIEW_COMPACT` is answered with the game without
/// its setup and legal moves, the rest as in the whole reply; a view the
/// contract does not define is refused, and the move is not played.
async fn a_compact_reply_leaves_out_the_setup_and_the_legal_moves(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let compact = proto::MakeMoveRequest {
        reply_view: proto::ReplyView::Compact.into(),
        ..make_move(&game.id, 0, "e4")
    };
    let (moved, events) = common::seat_with_events(&mut client, &game.white, compact)
        .await
        .expect("e4");
    assert!(moved.setup.is_none(), "{moved:?}");
    assert!(moved.legal_moves.is_empty(), "{moved:?}");
    let whole = get(&mut client, &game.id).await;
    assert_eq!(
        proto::Game {
            setup: None,
            legal_moves: Vec::new(),
            clock: None,
            ..whole.clone()
        },
        proto::Game {
            clock: None,
            ..moved.clone()
        },
        "the rest as the game reads"
    );
    assert_eq!(moved.last_move.as_ref().map(|m| m.san.as_str()), Some("e4"));
    assert_eq!(events.len(), 1);

    let refused = proto::MakeMoveRequest {
        reply_view: 9,
        ..make_move(&game.id, 1, "e5")
    };
    let status = seat(&mut client, &game.black, refused)
        .await
        .expect_err("refused");
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD");
    assert!(
        status.message().contains("reply_view"),
        "{}",
        status.message()
    );
    assert_eq!(get(&mut client, &game.id).await.version, whole.version);

    // Not set: the whole game.
    let moved = seat(&mut client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect("e5");
    assert!(moved.setup.is_some() && !moved.legal_moves.is_empty());
}

on_every_backend!(
    a_compact_reply_leaves_out_the_setup_and_the_legal_moves,
    a_move_response_carries_its_events_and_the_last_move,
    list_moves_pages_through_a_long_game,
    list_moves_starts_at_any_ply,
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
