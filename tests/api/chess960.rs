//! Chess960 over gRPC, on both stores: starting positions by number, at
//! random and from FEN; refusals of bad requests; and castling by the
//! Chess960 rules, written in SAN or as king-takes-rook UCI.

use crate::common;

use arbiter::{
    domain::{CHESS960_POSITIONS, RequestId, chess960_fen, chess960_position_for},
    proto::{self, Color, GameStatus, Variant, create_game_request::Start},
};
use common::{
    Backend, TestApp, create, create_request, expect_code, get, get_full, make_move, play_line,
    reason, seat, setup, ucis,
};
use tonic::{Code, Status};
use tonic_types::StatusExt;

const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A Chess960 CreateGame request for position `number` (random when
/// `None`).
fn chess960_request(request_id: &str, number: Option<u32>) -> proto::CreateGameRequest {
    chess960_request_signed(
        request_id,
        number.map(|n| i32::try_from(n).expect("a small number")),
    )
}

/// A Chess960 CreateGame request for position `number` as sent (the field
/// is an int32, so a client may send a negative one).
fn chess960_request_signed(request_id: &str, number: Option<i32>) -> proto::CreateGameRequest {
    let mut request = create_request(request_id, "");
    request.variant = Variant::Chess960.into();
    request.start = number.map(Start::Chess960Position);
    request
}

/// A Chess960 CreateGame request from a FEN.
fn chess960_fen_request(fen: &str) -> proto::CreateGameRequest {
    let mut request = create_request("", fen);
    request.variant = Variant::Chess960.into();
    request
}

/// The white back rank of a FEN.
fn back_rank(fen: &str) -> &str {
    fen.split(' ')
        .next()
        .and_then(|board| board.rsplit('/').next())
        .expect("a FEN board")
}

/// Asserts an INVALID_ARGUMENT naming exactly `field`.
#[track_caller]
fn assert_invalid_field<T: std::fmt::Debug>(result: Result<T, Status>, field: &str) -> Status {
    let status = expect_code(result, Code::InvalidArgument);
    assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
    let fields: Vec<String> = status
        .get_details_bad_request()
        .expect("a bad request detail")
        .field_violations
        .into_iter()
        .map(|violation| violation.field)
        .collect();
    assert_eq!(fields, [field], "{status:?}");
    status
}

// ---------------------------------------------------------------------------
// Starting positions
// ---------------------------------------------------------------------------

async fn positions_by_number(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    assert_eq!(chess960_fen(518).expect("518"), STANDARD_FEN);
    for (number, rank) in [
        (518, "RNBQKBNR"),
        (0, "BBQNNRKR"),
        (959, "RKRNNQBB"),
        (1, "BQNBNRKR"),
        (3, "BQNNRKRB"),
        (10, "QNNRBBKR"),
        (15, "QNNRKRBB"),
        (249, "NRKBBQNR"),
        (700, "RBQKNNBR"),
    ] {
        let game = create(&mut admin, chess960_request("", Some(number)))
            .await
            .unwrap_or_else(|status| panic!("position {number}: {status:?}"));
        let expected = chess960_fen(number).expect("a valid number");
        assert_eq!(back_rank(&expected), rank, "position {number}");
        let created = setup(&game.game);
        assert_eq!(created.initial_fen, expected, "position {number}");
        assert_eq!(game.game.fen, expected, "position {number}");
        assert!(
            created.initial_fen.starts_with(&rank.to_ascii_lowercase()),
            "Black mirrors White: {}",
            created.initial_fen
        );
        assert_eq!(created.variant, Variant::Chess960 as i32);
        assert_eq!(game.game.status, GameStatus::Active as i32);
        assert_eq!(game.game.side_to_move, Color::White as i32);
        // Every start allows the sixteen pawn moves plus knight moves, and
        // no castling yet (pieces stand between kings and rooks).
        assert!(game.game.legal_moves.len() >= 18, "{number}");
        let fetched = get(&mut client, &game.id).await;
        assert_eq!(setup(&fetched).initial_fen, expected);
        assert_eq!(setup(&fetched).variant, Variant::Chess960 as i32);
    }
    // The standard arrangement under Chess960 plays like chess.
    let game = create(&mut admin, chess960_request("", Some(518)))
        .await
        .expect("create");
    assert_eq!(game.game.legal_moves.len(), 20);
    let after = play_line(&mut client, &game, &["e4", "e7e5", "Nf3"]).await;
    assert_eq!(after.last_move.expect("a move").uci, "g1f3");
    assert_eq!(
        ucis(&get_full(&mut client, &game.id).await),
        ["e2e4", "e7e5", "g1f3"]
    );
}

async fn bad_position_numbers_are_refused(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;

    for number in [CHESS960_POSITIONS as i32, 961, 1000, i32::MAX] {
        let status = assert_invalid_field(
            create(&mut admin, chess960_request_signed("", Some(number))).await,
            "chess960_position",
        );
        assert!(status.message().contains("959"), "{}", status.message());
    }
    // The field is an int32: negative numbers are refused too.
    for number in [-1, -518, i32::MIN] {
        let status = assert_invalid_field(
            create(&mut admin, chess960_request_signed("", Some(number))).await,
            "chess960_position",
        );
        assert!(
            status.message().contains("negative"),
            "{}",
            status.message()
        );
    }
    // A number and a FEN together can no longer be asked for: both belong
    // to the request's `start` oneof, so the last one set is the one sent.
    let mut request = chess960_request("", Some(518));
    request.start = Some(Start::InitialFen(STANDARD_FEN.to_owned()));
    let game = create(&mut admin, request).await.expect("a FEN alone");
    assert_eq!(setup(&game.game).initial_fen, STANDARD_FEN);
    assert_eq!(setup(&game.game).variant, Variant::Chess960 as i32);
    // A number for standard chess, whether said or implied.
    for variant in [Variant::Standard, Variant::Unspecified] {
        let mut request = chess960_request("", Some(518));
        request.variant = variant.into();
        let status = assert_invalid_field(create(&mut admin, request).await, "chess960_position");
        assert!(
            status.message().contains("Chess960"),
            "{}",
            status.message()
        );
    }
}

async fn random_positions_follow_the_request_id(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let all: Vec<String> = (0..CHESS960_POSITIONS)
        .map(|n| chess960_fen(n).expect("valid"))
        .collect();

    // Without a request_id: some valid position.
    for _ in 0..3 {
        let game = create(&mut admin, chess960_request("", None))
            .await
            .expect("create");
        let created = setup(&game.game);
        assert!(
            all.contains(&created.initial_fen),
            "{}",
            created.initial_fen
        );
        assert_eq!(created.variant, Variant::Chess960 as i32);
    }

    // With one: the same position every time, derived from the key.
    let first = create(&mut admin, chess960_request("960/round-1/board-1", None))
        .await
        .expect("create");
    let again = create(&mut admin, chess960_request("960/round-1/board-1", None))
        .await
        .expect("repeat");
    assert_eq!(again.id, first.id);
    assert_eq!(again.white, first.white);
    assert_eq!(
        setup(&again.game).initial_fen,
        setup(&first.game).initial_fen
    );
    assert_eq!(
        setup(&get(&mut client, &first.id).await).initial_fen,
        setup(&first.game).initial_fen,
        "the position is stored with the game"
    );
    let key = RequestId::parse("960/round-1/board-1").expect("valid key");
    let derived = chess960_position_for(key.as_ref());
    assert_eq!(
        setup(&first.game).initial_fen,
        chess960_fen(derived).expect("valid")
    );
    // Naming that same number explicitly is the same request.
    let explicit = create(
        &mut admin,
        chess960_request("960/round-1/board-1", Some(derived)),
    )
    .await
    .expect("the same request, spelled out");
    assert_eq!(explicit.id, first.id);
    // Another number under the same key is another request.
    let other = (derived + 1) % CHESS960_POSITIONS;
    let status = expect_code(
        create(
            &mut admin,
            chess960_request("960/round-1/board-1", Some(other)),
        )
        .await,
        Code::AlreadyExists,
    );
    assert_eq!(reason(&status), "REQUEST_ID_REUSED");

    // Different keys spread over different positions.
    let mut seen = std::collections::HashSet::new();
    for board in 1..=8 {
        let game = create(
            &mut admin,
            chess960_request(&format!("960/round-2/board-{board}"), None),
        )
        .await
        .expect("create");
        let initial_fen = setup(&game.game).initial_fen.clone();
        assert!(all.contains(&initial_fen));
        seen.insert(initial_fen);
    }
    assert!(seen.len() > 1, "{seen:?}");
}

async fn chess960_fens_are_accepted(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    let board = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB";

    // Shredder-FEN and X-FEN name the same rights.
    for rights in ["GEge", "KQkq", "EGeg"] {
        let fen = format!("{board} w {rights} - 0 1");
        let game = create(&mut admin, chess960_fen_request(&fen))
            .await
            .unwrap_or_else(|status| panic!("{fen}: {status:?}"));
        assert_eq!(setup(&game.game).variant, Variant::Chess960 as i32);
        assert_eq!(
            setup(&game.game).initial_fen,
            chess960_fen(3).expect("valid")
        );
        // King f1 and rook g1 may castle at once, written king-takes-rook.
        assert!(
            game.game.legal_moves.contains(&"f1g1".to_owned()),
            "{:?}",
            game.game.legal_moves
        );
        let after = play_line(&mut client, &game, &["O-O"]).await;
        assert_eq!(after.last_move.as_ref().expect("a move").uci, "f1g1");
        assert!(
            after
                .fen
                .starts_with(&format!("{}/BQNNRRKB b", &board[..board.len() - 9]))
        );
    }
    // Kingside rights only: castling queenside later is refused.
    let game = create(
        &mut admin,
        chess960_fen_request(&format!("{board} w G - 0 1")),
    )
    .await
    .expect("create");
    assert!(game.game.legal_moves.contains(&"f1g1".to_owned()));
    play_line(&mut client, &game, &["Nb3", "Nb6", "Ne3", "Ne6"]).await;
    let status = expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 4, "O-O-O")).await,
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "ILLEGAL_MOVE");
    expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 4, "f1e1")).await,
        Code::InvalidArgument,
    );
    // A Chess960 position in mid-game with the a-side rook on d1, on its
    // castling square, keeps its rights.
    let fen = "qn1r1bk1/pppbpppp/1n1p4/8/8/1N1PP3/PPPBBPPP/QN1R2KR w Dd - 0 1";
    let game = create(&mut admin, chess960_fen_request(fen))
        .await
        .expect("create");
    let after = play_line(&mut client, &game, &["g1d1"]).await;
    assert_eq!(after.last_move.as_ref().expect("a move").san, "O-O-O");
    assert!(
        after
            .fen
            .starts_with("qn1r1bk1/pppbpppp/1n1p4/8/8/1N1PP3/PPPBBPPP/QNKR3R b"),
        "{}",
        after.fen
    );
}

async fn bad_fens_are_refused_with_the_reason(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let board = "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB";

    let refusals = [
        // Rights for rooks that are not there.
        (
            Variant::Chess960,
            format!("{board} w HAha - 0 1"),
            "castling",
        ),
        (Variant::Chess960, format!("{board} w Bb - 0 1"), "castling"),
        // Chess960 rights in standard chess: the king is not on e1.
        (
            Variant::Standard,
            format!("{board} w KQkq - 0 1"),
            "castling",
        ),
        (
            Variant::Unspecified,
            format!("{board} w GEge - 0 1"),
            "castling",
        ),
        (
            Variant::Standard,
            "rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_owned(),
            "castling",
        ),
        // En passant squares no double step explains.
        (
            Variant::Standard,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1".to_owned(),
            "ep square",
        ),
        (
            Variant::Standard,
            "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 2".to_owned(),
            "ep square",
        ),
        (
            Variant::Chess960,
            "bqnnrkrb/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/BQNNRKRB w KQkq e3 0 2".to_owned(),
            "ep square",
        ),
    ];
    for (variant, fen, expected) in refusals {
        let mut request = create_request("", &fen);
        request.variant = variant.into();
        let status = assert_invalid_field(create(&mut admin, request).await, "initial_fen");
        assert!(
            status.message().contains("not a legal position")
                && status.message().contains(expected),
            "{fen}: {}",
            status.message()
        );
    }
}

// ---------------------------------------------------------------------------
// Castling
// ---------------------------------------------------------------------------

/// A Chess960 game from `number`, its moves in the input notation, the SAN
/// and UCI the arbiter records, and the position after the last move.
struct CastlingLine {
    number: u32,
    why: &'static str,
    moves: &'static [&'static str],
    san: &'static [&'static str],
    uci: &'static [&'static str],
    end: &'static str,
}

const CASTLING_LINES: &[CastlingLine] = &[
    CastlingLine {
        number: 3,
        why: "king f1 and rook g1 swap for O-O; O-O-O from f8 with the rook on e8",
        moves: &["f1g1", "Nb6", "Nb3", "Ne6", "Ne3", "O-O-O"],
        san: &["O-O", "Nb6", "Nb3", "Ne6", "Ne3", "O-O-O"],
        uci: &["f1g1", "c8b6", "c1b3", "d8e6", "d1e3", "f8e8"],
        end: "bqkr2rb/pppppppp/1n2n3/8/8/1N2N3/PPPPPPPP/BQ2RRKB w",
    },
    CastlingLine {
        number: 3,
        why: "the swap in SAN for Black; White's O-O-O as king-takes-rook",
        moves: &["Nb3", "O-O", "Ne3", "Nb6", "f1e1"],
        san: &["Nb3", "O-O", "Ne3", "Nb6", "O-O-O"],
        uci: &["c1b3", "f8g8", "d1e3", "c8b6", "f1e1"],
        end: "bq1nrrkb/pppppppp/1n6/8/8/1N2N3/PPPPPPPP/BQKR2RB b",
    },
    CastlingLine {
        number: 10,
        why: "king already on g1: O-O moves only the rook; Black's a-rook already on d8",
        moves: &[
            "e3", "Nb6", "Be2", "e6", "g1h1", "d6", "Nb3", "Be7", "a3", "Bd7", "a4", "g8d8",
        ],
        san: &[
            "e3", "Nb6", "Be2", "e6", "O-O", "d6", "Nb3", "Be7", "a3", "Bd7", "a4", "O-O-O",
        ],
        uci: &[
            "e2e3", "c8b6", "f1e2", "e7e6", "g1h1", "d7d6", "c1b3", "f8e7", "a2a3", "e8d7", "a3a4",
            "g8d8",
        ],
        end: "qnkr3r/pppbbppp/1n1pp3/8/P7/1N2P3/1PPPBPPP/QN1RBRK1 w",
    },
    CastlingLine {
        number: 10,
        why: "Black's king already on g8 castles in SAN; White's rook stays on d1",
        moves: &[
            "Nb3", "g6", "e3", "Bg7", "Be2", "O-O", "d3", "Nb6", "Bd2", "a6", "g1d1",
        ],
        san: &[
            "Nb3", "g6", "e3", "Bg7", "Be2", "O-O", "d3", "Nb6", "Bd2", "a6", "O-O-O",
        ],
        uci: &[
            "c1b3", "g7g6", "e2e3", "f8g7", "f1e2", "g8h8", "d2d3", "c8b6", "e1d2", "a7a6", "g1d1",
        ],
        end: "qn1rbrk1/1pppppbp/pn4p1/8/8/1N1PP3/PPPBBPPP/QNKR3R b",
    },
    CastlingLine {
        number: 15,
        why: "h-rook already on f1: O-O moves only the king; Black's d-rook stays for O-O-O",
        moves: &["h3", "Nb6", "Bh2", "O-O-O", "e1f1"],
        san: &["h3", "Nb6", "Bh2", "O-O-O", "O-O"],
        uci: &["h2h3", "c8b6", "g1h2", "e8d8", "e1f1"],
        end: "qnkr1rbb/pppppppp/1n6/8/8/7P/PPPPPPPB/QNNR1RKB b",
    },
    CastlingLine {
        number: 15,
        why: "the same in the other notations",
        moves: &["Nb3", "h6", "O-O-O", "Bh7", "Nc5", "e8f8"],
        san: &["Nb3", "h6", "O-O-O", "Bh7", "Nc5", "O-O"],
        uci: &["c1b3", "h7h6", "e1d1", "g8h7", "b3c5", "e8f8"],
        end: "qnnr1rkb/pppppppb/7p/2N5/8/8/PPPPPPPP/QNKR1RBB w",
    },
    CastlingLine {
        number: 249,
        why: "king already on c1 and c8: O-O-O moves only the b-rook",
        moves: &["e3", "e6", "Be2", "Be7", "c1b1", "O-O-O"],
        san: &["e3", "e6", "Be2", "Be7", "O-O-O", "O-O-O"],
        uci: &["e2e3", "e7e6", "d1e2", "d8e7", "c1b1", "c8b8"],
        end: "n1krbqnr/ppppbppp/4p3/8/8/4P3/PPPPBPPP/N1KRBQNR w",
    },
    CastlingLine {
        number: 249,
        why: "O-O from c1 across four squares",
        moves: &[
            "Nh3", "e6", "e3", "Be7", "Be2", "a6", "d3", "a5", "Bd2", "h6", "g3", "h5", "Qg2",
            "c8b8", "c1h1",
        ],
        san: &[
            "Nh3", "e6", "e3", "Be7", "Be2", "a6", "d3", "a5", "Bd2", "h6", "g3", "h5", "Qg2",
            "O-O-O", "O-O",
        ],
        uci: &[
            "g1h3", "e7e6", "e2e3", "d8e7", "d1e2", "a7a6", "d2d3", "a6a5", "e1d2", "h7h6", "g2g3",
            "h6h5", "f1g2", "c8b8", "c1h1",
        ],
        end: "n1krbqnr/1pppbpp1/4p3/p6p/8/3PP1PN/PPPBBPQP/NR3RK1 b",
    },
    CastlingLine {
        number: 518,
        why: "the standard arrangement castles king-takes-rook too",
        moves: &[
            "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "e1h1", "Nf6", "d3", "O-O",
        ],
        san: &[
            "e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O", "Nf6", "d3", "O-O",
        ],
        uci: &[
            "e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5", "e1h1", "g8f6", "d2d3", "e8h8",
        ],
        end: "r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQ1RK1 w",
    },
];

async fn castling_by_the_chess960_rules(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;
    for line in CASTLING_LINES {
        let context = format!("position {} ({})", line.number, line.why);
        let game = create(&mut admin, chess960_request("", Some(line.number)))
            .await
            .unwrap_or_else(|status| panic!("{context}: {status:?}"));
        let mut current = game.game.clone();
        for (index, mv) in line.moves.iter().enumerate() {
            let castling = line.san[index].starts_with("O-O");
            if castling {
                // Listed only in king-takes-rook form.
                let king_takes_rook = line.uci[index].to_owned();
                assert!(
                    current.legal_moves.contains(&king_takes_rook),
                    "{context}: {king_takes_rook} not in {:?}",
                    current.legal_moves
                );
            }
            let token = if current.side_to_move == Color::White as i32 {
                &game.white
            } else {
                &game.black
            };
            current = seat(&mut client, token, make_move(&game.id, current.ply, mv))
                .await
                .unwrap_or_else(|status| panic!("{context}: {mv} refused: {status:?}"));
        }
        let full = get_full(&mut client, &game.id).await;
        let san: Vec<&str> = full.moves.iter().map(|m| m.san.as_str()).collect();
        let uci: Vec<&str> = full.moves.iter().map(|m| m.uci.as_str()).collect();
        assert_eq!(san, line.san, "{context}");
        assert_eq!(uci, line.uci, "{context}");
        assert!(
            current.fen.starts_with(line.end),
            "{context}: {} does not start with {}",
            current.fen,
            line.end
        );
        assert_eq!(current.status, GameStatus::Active as i32);
        // Both sides have castled: no castling rights are left.
        assert_eq!(
            current.fen.split(' ').nth(2),
            Some("-"),
            "{context}: {}",
            current.fen
        );
        // The last move's record in the reply is the one stored.
        assert_eq!(current.last_move.as_ref(), full.moves.last(), "{context}");
        assert_eq!(full.fen, current.fen, "{context}");
    }
}

async fn standard_castling_notation_is_not_listed_in_chess960(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    // The standard arrangement: only e1h1 is listed, never e1g1.
    let game = create(&mut admin, chess960_request("", Some(518)))
        .await
        .expect("create");
    let ready = play_line(
        &mut client,
        &game,
        &["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"],
    )
    .await;
    assert!(ready.legal_moves.contains(&"e1h1".to_owned()));
    assert!(!ready.legal_moves.contains(&"e1g1".to_owned()));
    // The same game in standard chess lists e1g1.
    let standard = app.new_game().await;
    let ready = play_line(
        &mut client,
        &standard,
        &["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"],
    )
    .await;
    assert!(ready.legal_moves.contains(&"e1g1".to_owned()));
    assert!(!ready.legal_moves.contains(&"e1h1".to_owned()));
    let castled = play_line(&mut client, &standard, &["O-O"]).await;
    let castling = castled.last_move.expect("a move");
    assert_eq!(castling.ply, 6);
    assert_eq!(castling.uci, "e1g1");

    // Position 0: king g1 between rooks f1 and h1. O-O needs the f1 rook
    // gone, which costs the queenside right; the king on g1 stays put.
    let game = create(&mut admin, chess960_request("", Some(0)))
        .await
        .expect("create");
    assert!(
        !game.game.legal_moves.iter().any(|m| m.starts_with("g1")),
        "{:?}",
        game.game.legal_moves
    );
    // A king move onto its own rook that is not castling is refused.
    let status = expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "g1h1")).await,
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "ILLEGAL_MOVE");
    let status = expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "O-O")).await,
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "ILLEGAL_MOVE");
}

on_every_backend!(
    positions_by_number,
    bad_position_numbers_are_refused,
    random_positions_follow_the_request_id,
    chess960_fens_are_accepted,
    bad_fens_are_refused_with_the_reason,
    castling_by_the_chess960_rules,
    standard_castling_notation_is_not_listed_in_chess960,
);
