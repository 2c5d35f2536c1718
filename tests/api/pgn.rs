//! PGN export over gRPC, on both stores: every way a game can end, an
//! aborted and an unfinished game, Chess960 and a long game, each exported
//! and read back with an independent PGN reader (`pgn-reader`), its moves
//! replayed with `shakmaty` and compared with the arbiter's record; and the
//! export stream itself, one message per game, for a game or a whole event.

use crate::common;

use std::{io::Cursor, ops::ControlFlow};

use arbiter::proto::{
    self, Color, DrawClaimReason, DrawClaimVerdict, GameStatus, Variant,
    create_game_request::Start, export_pgn_request::Target, game_event::Kind,
};
use common::{
    Backend, Client, NewGame, STREAM_PATIENCE, TestApp, abort, accept_draw, claim_draw,
    collect_until_end, create, create_request, expect_code, export_pgn, export_pgn_of, get,
    get_full, make_move, next_event, offer_draw, pairing, play_line, reason, resign, seat, setup,
    token_to_move, watch,
};
use pgn_reader::{RawComment, RawTag, Reader, SanPlus, Visitor};
use shakmaty::{
    CastlingMode, Chess, EnPassantMode, fen::Fen, san::SanPlus as ReplayedSan, uci::UciMove,
};
use tonic::Code;
use tonic_types::StatusExt;

const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const SEVEN_TAG_ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
const SHUFFLE: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];

/// One game as an independent PGN reader sees it.
#[derive(Debug, Default)]
pub(crate) struct ParsedGame {
    pub(crate) tags: Vec<(String, String)>,
    pub(crate) sans: Vec<SanPlus>,
    pub(crate) comments: Vec<String>,
    pub(crate) outcome: Option<String>,
}

impl ParsedGame {
    pub(crate) fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(tag, _)| tag == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Collects tags, mainline SAN, comments and the result token.
struct Collector;

impl Visitor for Collector {
    type Tags = Vec<(String, String)>;
    type Movetext = ParsedGame;
    type Output = ParsedGame;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        ControlFlow::Continue(Vec::new())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        tags.push((
            String::from_utf8(name.to_vec()).expect("UTF-8 tag name"),
            value.decode_utf8().expect("UTF-8 tag value").into_owned(),
        ));
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(ParsedGame {
            tags,
            ..ParsedGame::default()
        })
    }

    fn san(&mut self, movetext: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
        movetext.sans.push(san);
        ControlFlow::Continue(())
    }

    fn comment(
        &mut self,
        movetext: &mut Self::Movetext,
        comment: RawComment<'_>,
    ) -> ControlFlow<Self::Output> {
        movetext.comments.push(
            String::from_utf8_lossy(comment.as_bytes())
                .trim()
                .to_owned(),
        );
        ControlFlow::Continue(())
    }

    fn outcome(
        &mut self,
        movetext: &mut Self::Movetext,
        outcome: pgn_reader::Outcome,
    ) -> ControlFlow<Self::Output> {
        movetext.outcome = Some(outcome.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Self::Movetext) -> Self::Output {
        movetext
    }
}

/// Every game of a multi-game `pgn`, in order.
pub(crate) fn parse_all(pgn: &str) -> Vec<ParsedGame> {
    let mut reader = Reader::new(Cursor::new(pgn.as_bytes()));
    let mut games = Vec::new();
    while let Some(game) = reader.read_game(&mut Collector).expect("readable PGN") {
        games.push(game);
    }
    games
}

/// Reads exactly one game from `pgn`.
fn parse(pgn: &str) -> ParsedGame {
    let mut reader = Reader::new(Cursor::new(pgn.as_bytes()));
    let parsed = reader
        .read_game(&mut Collector)
        .expect("readable PGN")
        .expect("one game");
    assert!(
        reader
            .read_game(&mut Collector)
            .expect("readable")
            .is_none(),
        "exactly one game in:\n{pgn}"
    );
    parsed
}

/// What an export must say about how the game ended.
struct Expected {
    result: &'static str,
    termination: &'static str,
}

const WHITE_WINS: Expected = Expected {
    result: "1-0",
    termination: "normal",
};
const BLACK_WINS: Expected = Expected {
    result: "0-1",
    termination: "normal",
};
const DRAWN: Expected = Expected {
    result: "1/2-1/2",
    termination: "normal",
};
const ABANDONED: Expected = Expected {
    result: "*",
    termination: "abandoned",
};
const UNFINISHED: Expected = Expected {
    result: "*",
    termination: "unterminated",
};

/// The position after each move of `game`, from its `move_made` events
/// (the move records do not carry it), read from its watch stream: exactly
/// the game's events, so that the read ends whether or not the game has.
async fn fens_after_moves(client: &mut Client, game: &proto::Game) -> Vec<String> {
    let mut stream = watch(client, &game.game_id, 1).await;
    let mut fens = Vec::new();
    for version in 2..=game.version {
        let event = next_event(&mut stream).await;
        assert_eq!(event.version, version);
        if let Some(Kind::MoveMade(made)) = event.kind {
            fens.push(made.fen);
        }
    }
    fens
}

/// Exports `game_id`, reads the export back and checks it against the game:
/// tags, the moves replayed from the starting position, and the result.
async fn check_export(client: &mut Client, game_id: &str, expected: &Expected) -> ParsedGame {
    let game = get_full(client, game_id).await;
    let fens_after = fens_after_moves(client, &game).await;
    assert_eq!(fens_after.len(), game.moves.len());
    let pgn = export_pgn(client, game_id).await;
    let parsed = parse(&pgn);
    let context = format!("{pgn}\n{game:#?}");

    // The Seven Tag Roster first, in order, then the others.
    let names: Vec<&str> = parsed.tags.iter().map(|(name, _)| name.as_str()).collect();
    assert!(names.len() >= 7, "{context}");
    assert_eq!(names[..7], SEVEN_TAG_ROSTER, "{context}");
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "no tag twice: {names:?}");
    for name in SEVEN_TAG_ROSTER {
        assert!(
            !parsed.tag(name).expect("roster tag").is_empty(),
            "{name} is empty"
        );
    }
    let game_setup = setup(&game);
    let white = game_setup.white.as_ref().expect("white");
    let black = game_setup.black.as_ref().expect("black");
    assert_eq!(parsed.tag("White"), Some(white.name.as_str()));
    assert_eq!(parsed.tag("Black"), Some(black.name.as_str()));
    assert_eq!(parsed.tag("WhitePlayerId"), Some(white.id.as_str()));
    assert_eq!(parsed.tag("BlackPlayerId"), Some(black.id.as_str()));
    assert_eq!(parsed.tag("GameId"), Some(game.game_id.as_str()));
    let date = parsed.tag("Date").expect("date");
    assert!(
        date.len() == 10 && date.chars().filter(|c| *c == '.').count() == 2,
        "{date}"
    );

    // The result, in the tag and at the end of the movetext.
    assert_eq!(parsed.tag("Result"), Some(expected.result), "{context}");
    assert_eq!(
        parsed.outcome.as_deref(),
        Some(expected.result),
        "{context}"
    );
    assert_eq!(
        parsed.tag("Termination"),
        Some(expected.termination),
        "{context}"
    );
    match game.status() {
        GameStatus::Finished => assert_ne!(expected.result, "*"),
        _ => assert_eq!(expected.result, "*"),
    }

    // The variant and the starting position.
    let chess960 = game_setup.variant == Variant::Chess960 as i32;
    assert_eq!(
        parsed.tag("Variant"),
        chess960.then_some("Chess960"),
        "{context}"
    );
    let standard_start = !chess960 && game_setup.initial_fen == STANDARD_FEN;
    if standard_start {
        assert_eq!(parsed.tag("SetUp"), None, "{context}");
        assert_eq!(parsed.tag("FEN"), None, "{context}");
    } else {
        assert_eq!(parsed.tag("SetUp"), Some("1"), "{context}");
        assert_eq!(
            parsed.tag("FEN"),
            Some(game_setup.initial_fen.as_str()),
            "{context}"
        );
    }

    // The moves, replayed independently from the tags' starting position.
    let mode = if parsed.tag("Variant") == Some("Chess960") {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    };
    let mut position: Chess = match parsed.tag("FEN") {
        Some(fen) => fen
            .parse::<Fen>()
            .expect("FEN tag parses")
            .into_position(mode)
            .expect("FEN tag is a legal position"),
        None => Chess::default(),
    };
    assert_eq!(parsed.sans.len(), game.moves.len(), "{context}");
    for ((san, record), fen_after) in parsed.sans.iter().zip(&game.moves).zip(&fens_after) {
        assert_eq!(san.to_string(), record.san, "as written: {context}");
        let m = san
            .san
            .to_move(&position)
            .unwrap_or_else(|err| panic!("{san} in {position:?}: {err}\n{context}"));
        assert_eq!(
            UciMove::from_move(m, mode).to_string(),
            record.uci,
            "{context}"
        );
        let replayed = ReplayedSan::from_move_and_play_unchecked(&mut position, m);
        assert_eq!(replayed.to_string(), record.san, "{context}");
        assert_eq!(
            Fen::from_position(&position, EnPassantMode::Legal).to_string(),
            *fen_after,
            "{context}"
        );
    }
    assert_eq!(
        Fen::from_position(&position, EnPassantMode::Legal).to_string(),
        game.fen,
        "{context}"
    );

    // Movetext lines stay within 79 columns.
    let (_, movetext) = pgn
        .split_once("\n\n")
        .expect("a blank line before movetext");
    for line in movetext.lines() {
        assert!(line.len() <= 79, "{} columns: {line}", line.len());
    }
    // A comment says how the game ended, or that it was aborted.
    if game.status() == GameStatus::Active {
        assert!(parsed.comments.is_empty(), "{context}");
    } else {
        assert_eq!(parsed.comments.len(), 1, "{context}");
    }
    parsed
}

/// Creates a game from `fen` (standard when empty) and plays `moves`.
async fn game_from(app: &TestApp, client: &mut Client, fen: &str, moves: &[&str]) -> NewGame {
    let game = app.new_game_from(fen).await;
    play_line(client, &game, moves).await;
    game
}

// ---------------------------------------------------------------------------
// Every ending
// ---------------------------------------------------------------------------

async fn decisive_games(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let mate = game_from(
        &app,
        &mut client,
        "",
        &["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"],
    )
    .await;
    let parsed = check_export(&mut client, &mate.id, &WHITE_WINS).await;
    assert!(parsed.comments[0].contains("checkmate"), "{parsed:?}");

    let mate = game_from(&app, &mut client, "", &["f3", "e5", "g4", "Qh4#"]).await;
    check_export(&mut client, &mate.id, &BLACK_WINS).await;

    let resigned = game_from(&app, &mut client, "", &["d4", "d5", "c4"]).await;
    seat(&mut client, &resigned.black, resign(&resigned.id))
        .await
        .expect("resign");
    let parsed = check_export(&mut client, &resigned.id, &WHITE_WINS).await;
    assert_eq!(parsed.comments, ["Black resigns"]);

    let resigned = game_from(&app, &mut client, "", &["e4"]).await;
    seat(&mut client, &resigned.white, resign(&resigned.id))
        .await
        .expect("resign");
    check_export(&mut client, &resigned.id, &BLACK_WINS).await;
}

async fn draws_on_the_board(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let stalemate = game_from(
        &app,
        &mut client,
        "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1",
        &["Qg6"],
    )
    .await;
    let parsed = check_export(&mut client, &stalemate.id, &DRAWN).await;
    assert!(parsed.comments[0].contains("stalemate"), "{parsed:?}");

    let insufficient = game_from(
        &app,
        &mut client,
        "8/8/4k3/1n6/8/3B4/8/4K3 w - - 0 1",
        &["Bxb5"],
    )
    .await;
    check_export(&mut client, &insufficient.id, &DRAWN).await;

    let dead = game_from(
        &app,
        &mut client,
        "8/8/4k3/p1p1p1p1/P1P1P3/6P1/4K3/5B2 w - - 0 1",
        &["g4"],
    )
    .await;
    let parsed = check_export(&mut client, &dead.id, &DRAWN).await;
    assert!(parsed.comments[0].contains("dead position"), "{parsed:?}");

    let fivefold = game_from(&app, &mut client, "", &SHUFFLE.repeat(4)).await;
    let game = get(&mut client, &fivefold.id).await;
    assert_eq!(
        game.result.expect("result").termination,
        proto::Termination::FivefoldRepetition as i32
    );
    check_export(&mut client, &fivefold.id, &DRAWN).await;

    let seventy_five = game_from(
        &app,
        &mut client,
        "8/8/4k3/8/8/3K4/3R4/8 w - - 149 80",
        &["Rd1"],
    )
    .await;
    let parsed = check_export(&mut client, &seventy_five.id, &DRAWN).await;
    assert!(parsed.comments[0].contains("seventy-five"), "{parsed:?}");
}

async fn draws_by_the_players(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let agreed = game_from(&app, &mut client, "", &["e4", "e5", "Nf3"]).await;
    seat(&mut client, &agreed.white, offer_draw(&agreed.id))
        .await
        .expect("offer");
    seat(&mut client, &agreed.black, accept_draw(&agreed.id))
        .await
        .expect("accept");
    let parsed = check_export(&mut client, &agreed.id, &DRAWN).await;
    assert!(parsed.comments[0].contains("agreement"), "{parsed:?}");

    let threefold = game_from(&app, &mut client, "", &[SHUFFLE, SHUFFLE].concat()).await;
    let claim = seat(
        &mut client,
        &threefold.white,
        claim_draw(&threefold.id, DrawClaimReason::ThreefoldRepetition, "", 8),
    )
    .await
    .expect("claim");
    assert_eq!(claim.verdict, DrawClaimVerdict::Upheld as i32);
    check_export(&mut client, &threefold.id, &DRAWN).await;

    let fifty = app.new_game_from("8/8/4k3/8/8/3K4/3R4/8 w - - 99 80").await;
    let claim = seat(
        &mut client,
        &fifty.white,
        claim_draw(&fifty.id, DrawClaimReason::FiftyMoves, "Rd1", 0),
    )
    .await
    .expect("claim");
    assert_eq!(claim.verdict, DrawClaimVerdict::Upheld as i32);
    let parsed = check_export(&mut client, &fifty.id, &DRAWN).await;
    assert!(parsed.comments[0].contains("fifty"), "{parsed:?}");

    // White resigns, although Black has a lone king: Black wins (FIDE
    // 5.1.2), and the PGN says White resigned. The game starts with Black
    // to move, so the movetext opens with "1...".
    let lone_king = game_from(
        &app,
        &mut client,
        "8/8/4k3/8/8/3K4/8/7R b - - 0 1",
        &["Ke5", "Rh2"],
    )
    .await;
    let game = seat(&mut client, &lone_king.white, resign(&lone_king.id))
        .await
        .expect("resign");
    assert_eq!(
        game.result.expect("result").outcome,
        proto::Outcome::BlackWins as i32
    );
    let parsed = check_export(&mut client, &lone_king.id, &BLACK_WINS).await;
    assert!(
        parsed.comments.iter().any(|c| c.contains("White resigns")),
        "{parsed:?}"
    );
    let pgn = export_pgn(&mut client, &lone_king.id).await;
    assert!(pgn.contains("\n\n1... Ke5 2. Rh2 {"), "{pgn}");
}

async fn aborted_and_unfinished_games(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let aborted = game_from(&app, &mut client, "", &["e4"]).await;
    seat(&mut client, &aborted.black, abort(&aborted.id))
        .await
        .expect("abort");
    let parsed = check_export(&mut client, &aborted.id, &ABANDONED).await;
    assert!(parsed.comments[0].contains("aborted"), "{parsed:?}");

    let aborted = app.new_game().await;
    seat(&mut client, &aborted.white, abort(&aborted.id))
        .await
        .expect("abort");
    let parsed = check_export(&mut client, &aborted.id, &ABANDONED).await;
    assert!(parsed.sans.is_empty());

    let unfinished = game_from(&app, &mut client, "", &["e4", "c5", "Nf3"]).await;
    check_export(&mut client, &unfinished.id, &UNFINISHED).await;
    let fresh = app.new_game().await;
    check_export(&mut client, &fresh.id, &UNFINISHED).await;
    // An unfinished game from a position keeps its set-up tags.
    let from_fen = game_from(
        &app,
        &mut client,
        "8/8/4k3/8/8/3K4/3R4/8 w - - 12 40",
        &["Rd1"],
    )
    .await;
    let parsed = check_export(&mut client, &from_fen.id, &UNFINISHED).await;
    assert_eq!(parsed.sans.len(), 1);
}

// ---------------------------------------------------------------------------
// Chess960, awkward tag values and long games
// ---------------------------------------------------------------------------

async fn chess960_games(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    for (number, moves) in [
        (
            10,
            &[
                "Nb3", "g6", "e3", "Bg7", "Be2", "O-O", "d3", "Nb6", "Bd2", "a6", "g1d1",
            ][..],
        ),
        (3, &["f1g1", "Nb6", "Nb3", "Ne6", "Ne3", "O-O-O"][..]),
        (518, &["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "e1h1"][..]),
    ] {
        let mut request = create_request("", "");
        request.variant = Variant::Chess960.into();
        request.start = Some(Start::Chess960Position(number));
        let game = create(&mut admin, request).await.expect("create");
        let played = play_line(&mut client, &game, moves).await;
        assert!(
            get_full(&mut client, &game.id)
                .await
                .moves
                .iter()
                .any(|m| m.san.starts_with("O-O")),
            "{number}"
        );
        check_export(&mut client, &game.id, &UNFINISHED).await;
        let token = token_to_move(&game, &played).to_owned();
        seat(&mut client, &token, resign(&game.id))
            .await
            .expect("resign");
        let expected = if played.side_to_move == Color::White as i32 {
            &BLACK_WINS
        } else {
            &WHITE_WINS
        };
        let parsed = check_export(&mut client, &game.id, expected).await;
        assert_eq!(parsed.tag("Variant"), Some("Chess960"));
    }
}

async fn tag_values_are_escaped(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut request = create_request("", "");
    request.white = Some(proto::Player {
        id: r#"id "with" quotes"#.to_owned(),
        name: r#"Bobby "The Rook" \ Fischer ] [x"#.to_owned(),
        ..Default::default()
    });
    request.black = Some(proto::Player {
        id: "no-name".to_owned(),
        name: String::new(),
        ..Default::default()
    });
    request.pairing = Some(pairing(r#"Open "A" \ 2026"#, 0, 0));
    let game = create(&mut app.admin_client().await, request)
        .await
        .expect("create");
    play_line(&mut client, &game, &["e4", "e5"]).await;
    let pgn = export_pgn(&mut client, &game.id).await;
    let parsed = parse(&pgn);
    assert_eq!(
        parsed.tag("White"),
        Some(r#"Bobby "The Rook" \ Fischer ] [x"#),
        "{pgn}"
    );
    assert_eq!(parsed.tag("WhitePlayerId"), Some(r#"id "with" quotes"#));
    // Without a name, the id stands in.
    assert_eq!(parsed.tag("Black"), Some("no-name"));
    assert_eq!(parsed.tag("Event"), Some(r#"Open "A" \ 2026"#));
    assert_eq!(parsed.tag("Round"), Some("?"));
    assert_eq!(parsed.tag("Board"), None);
    assert_eq!(parsed.sans.len(), 2);
}

/// A deterministic pseudo-random index below `len`.
fn pick(seed: &mut u64, len: usize) -> usize {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    ((*seed >> 33) % len as u64) as usize
}

/// Plays up to `plies` pseudo-random legal moves (from the game's own list
/// of legal moves) until the game ends.
async fn random_game(client: &mut Client, game: &NewGame, plies: usize, mut seed: u64) {
    let mut current = get(client, &game.id).await;
    for _ in 0..plies {
        if current.status != GameStatus::Active as i32 {
            break;
        }
        let mv = current.legal_moves[pick(&mut seed, current.legal_moves.len())].clone();
        let token = token_to_move(game, &current).to_owned();
        current = seat(client, &token, make_move(&game.id, current.ply, &mv))
            .await
            .unwrap_or_else(|status| panic!("{mv} refused: {status:?}"));
    }
}

async fn long_games(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let game = app.new_game().await;
    random_game(&mut client, &game, 200, 7).await;
    let played = get_full(&mut client, &game.id).await;
    assert!(played.moves.len() >= 60, "{}", played.moves.len());
    let expected = match played.result.map(|r| r.outcome) {
        None => &UNFINISHED,
        Some(o) if o == proto::Outcome::WhiteWins as i32 => &WHITE_WINS,
        Some(o) if o == proto::Outcome::BlackWins as i32 => &BLACK_WINS,
        Some(_) => &DRAWN,
    };
    check_export(&mut client, &game.id, expected).await;
    let pgn = export_pgn(&mut client, &game.id).await;
    let (_, movetext) = pgn.split_once("\n\n").expect("movetext");
    assert!(movetext.lines().count() > 5, "{pgn}");

    let mut request = create_request("", "");
    request.variant = Variant::Chess960.into();
    request.start = Some(Start::Chess960Position(249));
    let game = create(&mut app.admin_client().await, request)
        .await
        .expect("create");
    random_game(&mut client, &game, 120, 42).await;
    let played = get_full(&mut client, &game.id).await;
    assert!(played.moves.len() >= 40, "{}", played.moves.len());
    if played.status == GameStatus::Active as i32 {
        let token = token_to_move(&game, &played).to_owned();
        seat(&mut client, &token, resign(&game.id))
            .await
            .expect("resign");
    }
    let ended = get(&mut client, &game.id).await;
    let expected = match ended.result.map(|r| r.outcome) {
        Some(o) if o == proto::Outcome::WhiteWins as i32 => &WHITE_WINS,
        Some(o) if o == proto::Outcome::BlackWins as i32 => &BLACK_WINS,
        _ => &DRAWN,
    };
    check_export(&mut client, &game.id, expected).await;
}

/// Every message of an ExportPgn stream, whole (game id and text).
async fn export_messages(
    client: &mut Client,
    target: Target,
) -> Result<Vec<proto::ExportPgnResponse>, tonic::Status> {
    let mut stream = client
        .export_pgn(proto::ExportPgnRequest {
            target: Some(target),
        })
        .await?
        .into_inner();
    collect_until_end(&mut stream, STREAM_PATIENCE)
        .await
        .into_iter()
        .collect()
}

/// Creates a game of `event` at `round` and `board`.
async fn create_paired(app: &TestApp, event: &str, round: i32, board: i32) -> NewGame {
    let mut request = create_request("", "");
    request.pairing = Some(pairing(event, round, board));
    create(&mut app.admin_client().await, request)
        .await
        .expect("create")
}

/// Asserts that every message's text is one whole game (the game the
/// message names), and that the texts concatenated are a PGN file of as
/// many games. (That each ends with a blank line, as the contract says, is
/// [`every_message_ends_with_a_blank_line`]'s to check.)
#[track_caller]
fn assert_one_game_each(messages: &[proto::ExportPgnResponse]) -> Vec<ParsedGame> {
    for message in messages {
        let parsed = parse(&message.pgn);
        assert_eq!(parsed.tag("GameId"), Some(message.game_id.as_str()));
    }
    let file: String = messages.iter().map(|m| m.pgn.as_str()).collect();
    let games = parse_all(&file);
    assert_eq!(games.len(), messages.len(), "{file}");
    games
}

/// A whole event exports in round and board order, whatever order the games
/// were created in, each with its Event, Round and Board tags.
async fn an_event_exports_in_round_and_board_order(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let event = "Spring {Open} 2026 – A";
    let mut ids = Vec::new();
    for (round, board) in [(2, 1), (1, 2), (1, 1), (2, 2)] {
        ids.push((
            (round, board),
            create_paired(&app, event, round, board).await,
        ));
    }
    // Another event's game never appears.
    app.new_game().await;
    let (_, first) = ids.iter().find(|(order, _)| *order == (1, 1)).expect("1.1");
    play_line(&mut client, first, &["f3", "e5", "g4", "Qh4#"]).await;

    let messages = export_messages(&mut client, Target::EventId(event.to_owned()))
        .await
        .expect("export the event");
    ids.sort_by_key(|(order, _)| *order);
    let expected_ids: Vec<&str> = ids.iter().map(|(_, game)| game.id.as_str()).collect();
    let message_ids: Vec<&str> = messages.iter().map(|m| m.game_id.as_str()).collect();
    assert_eq!(message_ids, expected_ids, "one message per game, in order");
    let games = assert_one_game_each(&messages);
    let order: Vec<(String, String)> = games
        .iter()
        .map(|g| {
            (
                g.tag("Round").unwrap_or_default().to_owned(),
                g.tag("Board").unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [("1", "1"), ("1", "2"), ("2", "1"), ("2", "2")]
        .iter()
        .map(|(r, b)| ((*r).to_owned(), (*b).to_owned()))
        .collect();
    assert_eq!(order, expected);
    assert!(games.iter().all(|g| g.tag("Event") == Some(event)));
    assert_eq!(games[0].tag("Result"), Some("0-1"));
    assert_eq!(games[0].sans.len(), 4);
    assert!(games[1..].iter().all(|g| g.tag("Result") == Some("*")));
    // Each game's message is its single-game export.
    for message in &messages {
        assert_eq!(message.pgn, export_pgn(&mut client, &message.game_id).await);
    }
    let texts = export_pgn_of(&mut client, Target::EventId(event.to_owned()))
        .await
        .expect("export the event again");
    assert_eq!(
        texts,
        messages.iter().map(|m| m.pgn.clone()).collect::<Vec<_>>()
    );
}

/// A game exports as exactly one message, which names it.
async fn a_game_exports_as_one_message(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    for moves in [
        &[][..],
        &["e4", "c5", "Nf3"][..],
        &["f3", "e5", "g4", "Qh4#"][..],
    ] {
        let game = game_from(&app, &mut client, "", moves).await;
        let messages = export_messages(&mut client, Target::GameId(game.id.clone()))
            .await
            .expect("export");
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert_eq!(messages[0].game_id, game.id);
        let games = assert_one_game_each(&messages);
        assert_eq!(games[0].sans.len(), moves.len());
    }
}

/// An event larger than one of the server's internal pages (20 games)
/// streams every game once, in round and board order across the pages, and
/// the messages concatenated are one valid PGN file of all its games.
async fn a_large_event_streams_one_message_per_game(backend: Backend) {
    const ROUNDS: i32 = 3;
    const BOARDS: i32 = 9;
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let event = "Large open";
    let count = ROUNDS * BOARDS;
    let mut games = Vec::new();
    // Created out of order (10 is prime to 27), other events' games among
    // them.
    for index in 0..count {
        let slot = (index * 10) % count;
        let (round, board) = (slot / BOARDS + 1, slot % BOARDS + 1);
        games.push((
            (round, board),
            create_paired(&app, event, round, board).await,
        ));
        if index % 7 == 0 {
            create_paired(&app, "Another event", round, board).await;
        }
    }
    games.sort_by_key(|(order, _)| *order);
    // Some games have moves, one has ended.
    for ((round, board), game) in &games {
        if *board == 1 {
            play_line(&mut client, game, &["d4", "d5"]).await;
        }
        if (*round, *board) == (2, 5) {
            play_line(&mut client, game, &["f3", "e5", "g4", "Qh4#"]).await;
        }
    }

    let messages = export_messages(&mut client, Target::EventId(event.to_owned()))
        .await
        .expect("export the event");
    assert_eq!(messages.len(), games.len());
    let expected_ids: Vec<&str> = games.iter().map(|(_, game)| game.id.as_str()).collect();
    let message_ids: Vec<&str> = messages.iter().map(|m| m.game_id.as_str()).collect();
    assert_eq!(message_ids, expected_ids, "every game once, in order");

    let parsed = assert_one_game_each(&messages);
    assert_eq!(parsed.len(), 27);
    for (((round, board), _), game) in games.iter().zip(&parsed) {
        let context = format!("round {round}, board {board}");
        assert_eq!(game.tag("Event"), Some(event), "{context}");
        assert_eq!(
            game.tag("Round"),
            Some(round.to_string().as_str()),
            "{context}"
        );
        assert_eq!(
            game.tag("Board"),
            Some(board.to_string().as_str()),
            "{context}"
        );
        let (sans, result) = match (round, board) {
            (2, 5) => (4, "0-1"),
            (_, 1) => (2, "*"),
            _ => (0, "*"),
        };
        assert_eq!(game.sans.len(), sans, "{context}");
        assert_eq!(game.tag("Result"), Some(result), "{context}");
        assert_eq!(game.outcome.as_deref(), Some(result), "{context}");
    }
}

/// A request must name what to export; what it names must exist.
async fn export_requests_are_checked(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let field_of = |status: &tonic::Status| -> Vec<String> {
        status
            .get_details_bad_request()
            .expect("a bad request detail")
            .field_violations
            .into_iter()
            .map(|violation| violation.field)
            .collect()
    };
    // No target at all.
    let status = expect_code(
        client
            .export_pgn(proto::ExportPgnRequest::default())
            .await
            .map(|_| ()),
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
    assert_eq!(field_of(&status), ["target"]);
    // Empty or malformed identifiers.
    for (target, field) in [
        (Target::GameId(String::new()), "game_id"),
        (Target::GameId("no spaces allowed".to_owned()), "game_id"),
        (Target::EventId(String::new()), "event_id"),
        (Target::EventId("tab\there".to_owned()), "event_id"),
    ] {
        let status = expect_code(
            export_messages(&mut client, target).await,
            Code::InvalidArgument,
        );
        assert_eq!(reason(&status), "INVALID_FIELD", "{status:?}");
        assert_eq!(field_of(&status), [field]);
    }
    // A game that does not exist.
    let status = expect_code(
        export_messages(&mut client, Target::GameId("no-such-game".to_owned())).await,
        Code::NotFound,
    );
    assert_eq!(reason(&status), "GAME_NOT_FOUND");
    // An event without games exports nothing.
    let messages = export_messages(&mut client, Target::EventId("no-such-event".to_owned()))
        .await
        .expect("an empty export");
    assert!(messages.is_empty(), "{messages:?}");
}

/// Each message's text ends with a blank line (the PGN export format's
/// separator), so that the texts concatenated are a PGN file whose games
/// are apart, as the contract promises.
async fn every_message_ends_with_a_blank_line(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let event = "Blank lines";
    let unfinished = create_paired(&app, event, 1, 1).await;
    play_line(&mut client, &unfinished, &["e4"]).await;
    let finished = create_paired(&app, event, 1, 2).await;
    play_line(&mut client, &finished, &["f3", "e5", "g4", "Qh4#"]).await;
    create_paired(&app, event, 1, 3).await;

    let mut messages = export_messages(&mut client, Target::EventId(event.to_owned()))
        .await
        .expect("export the event");
    assert_eq!(messages.len(), 3);
    for game in [&unfinished, &finished] {
        messages.extend(
            export_messages(&mut client, Target::GameId(game.id.clone()))
                .await
                .expect("export the game"),
        );
    }
    for message in &messages {
        assert!(
            message.pgn.ends_with("\n\n") && !message.pgn.ends_with("\n\n\n"),
            "{}: {:?}",
            message.game_id,
            message.pgn
        );
    }
}

on_every_backend!(
    every_message_ends_with_a_blank_line,
    an_event_exports_in_round_and_board_order,
    a_game_exports_as_one_message,
    a_large_event_streams_one_message_per_game,
    export_requests_are_checked,
    decisive_games,
    draws_on_the_board,
    draws_by_the_players,
    aborted_and_unfinished_games,
    chess960_games,
    tag_values_are_escaped,
    long_games,
);
