//! Export of a game in PGN (Portable Game Notation).

use std::fmt::Write as _;

use shakmaty::{Chess, Color, Position};

use crate::domain::{Game, GameStatus, MoveRecord, Outcome, Termination, Timestamp, Variant};

/// Longest movetext line, as the PGN standard recommends.
const LINE_WIDTH: usize = 79;

/// The game as PGN: the Seven Tag Roster, then `Termination`, the set-up
/// tags for a non-standard start, the platform's identifiers, and the
/// movetext ending in the result.
pub fn export(game: &Game, moves: &[MoveRecord]) -> String {
    write(game, moves, None)
}

/// The game as a broadcast relays it (lichess's broadcasts, DGT-style
/// relays): as [`export`], but `Round` is `"round.board"` when the game
/// has a board (the relays match games between polls by it), and a timed
/// game still being played also says its clocks as of `as_of` in
/// `WhiteClock` and `BlackClock` (`h:mm:ss`, as `%clk`).
pub fn export_for_broadcast(game: &Game, moves: &[MoveRecord], as_of: Timestamp) -> String {
    write(game, moves, Some(as_of))
}

/// The game as [`export_for_broadcast`] writes it, shown on board `board`
/// of its round (`Round` and `Board` say that board): a match's tie-break
/// game, which a broadcast shows after the round's boards.
pub fn export_for_broadcast_on(
    game: &Game,
    moves: &[MoveRecord],
    as_of: Timestamp,
    board: u32,
) -> String {
    write_with(game, moves, Some((as_of, Some(board))), None)
}

/// Commands added to a game's move comments (`[%emt 0:00:04]`): those
/// before the first move, and those after each move, by index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Annotations {
    /// The commands of the game's opening comment.
    pub before: Vec<String>,
    /// The commands after each move (one list a move).
    pub after: Vec<Vec<String>>,
}

/// The game as [`export`] writes it, with `annotations` in the comments.
pub fn export_annotated(game: &Game, moves: &[MoveRecord], annotations: &Annotations) -> String {
    write_with(game, moves, None, Some(annotations))
}

/// The PGN of `game`; for a broadcast when `broadcast_at` is set (see
/// [`export_for_broadcast`]).
fn write(game: &Game, moves: &[MoveRecord], broadcast_at: Option<Timestamp>) -> String {
    write_with(game, moves, broadcast_at.map(|at| (at, None)), None)
}

/// The PGN of `game`; for a broadcast as of the time `broadcast` gives
/// (and on the board it gives, if any), with `annotations` in the
/// comments.
fn write_with(
    game: &Game,
    moves: &[MoveRecord],
    broadcast: Option<(Timestamp, Option<u32>)>,
    annotations: Option<&Annotations>,
) -> String {
    let result = game.result().map_or("*", |r| r.outcome.pgn());
    let mut pairing = game.pairing().clone();
    let broadcast_at = broadcast.map(|(at, board)| {
        if let Some(board) = board {
            pairing.board = board;
        }
        at
    });
    let round = match (pairing.round, pairing.board, broadcast_at) {
        (0, _, _) => "?".to_owned(),
        (round, board, Some(_)) if board != 0 => format!("{round}.{board}"),
        (round, _, _) => round.to_string(),
    };
    let mut tags: Vec<(&str, String)> = vec![
        (
            "Event",
            pairing
                .event_id
                .as_ref()
                .map_or_else(|| "?".to_owned(), ToString::to_string),
        ),
        ("Site", "?".to_owned()),
        ("Date", pgn_date(game.created_at())),
        ("Round", round),
        ("White", game.white().display_name().to_owned()),
        ("Black", game.black().display_name().to_owned()),
        ("Result", result.to_owned()),
    ];
    // What the platform gave of each player: rating, title, FIDE id, team.
    for (player, [elo, title, fide_id, team]) in [
        (
            game.white(),
            ["WhiteElo", "WhiteTitle", "WhiteFideId", "WhiteTeam"],
        ),
        (
            game.black(),
            ["BlackElo", "BlackTitle", "BlackFideId", "BlackTeam"],
        ),
    ] {
        let details = &player.details;
        let given = [
            (elo, details.rating.map(|r| r.to_string())),
            (title, details.title.clone()),
            (fide_id, details.fide_id.map(|id| id.to_string())),
            (team, details.team.clone()),
        ];
        tags.extend(
            given
                .into_iter()
                .filter_map(|(tag, value)| Some((tag, value?))),
        );
    }
    if pairing.board != 0 {
        tags.push(("Board", pairing.board.to_string()));
    }
    // A match's tie-break game is listed at its match's first board, and
    // says what it is.
    if pairing.tie_break {
        tags.push(("Stage", "Match tie-break".to_owned()));
    }
    tags.push(("GameId", game.id().to_string()));
    tags.push(("WhitePlayerId", game.white().id.clone()));
    tags.push(("BlackPlayerId", game.black().id.clone()));
    let termination = match (game.result(), game.status()) {
        (Some(result), _) => termination_tag(result.termination),
        (None, GameStatus::Aborted) => "abandoned",
        (None, _) => "unterminated",
    };
    tags.push(("Termination", termination.to_owned()));
    if game.variant() == Variant::Chess960 {
        tags.push(("Variant", "Chess960".to_owned()));
    }
    if let Some(clock) = game.clock() {
        let white = clock.control(Color::White).pgn();
        let black = clock.control(Color::Black).pgn();
        if white == black {
            tags.push(("TimeControl", white));
        } else {
            tags.push(("WhiteTimeControl", white));
            tags.push(("BlackTimeControl", black));
        }
    }
    if let Some(at) = broadcast_at
        && game.status() == GameStatus::Active
        && let Some(clock) = game.clock_view(at)
    {
        tags.push(("WhiteClock", clock_text(clock.white_ms)));
        tags.push(("BlackClock", clock_text(clock.black_ms)));
    }
    let standard_start = game.variant() == Variant::Standard
        && game.initial_fen() == crate::domain::game::state::STANDARD_FEN;
    if !standard_start {
        tags.push(("SetUp", "1".to_owned()));
        tags.push(("FEN", game.initial_fen().to_owned()));
    }

    let mut out = String::new();
    for (name, value) in tags {
        let _ = writeln!(out, "[{name} \"{}\"]", escape(&value));
    }
    out.push('\n');
    out.push_str(&movetext(
        game,
        moves,
        &ending_comment(game),
        result,
        annotations,
    ));
    out.push('\n');
    out
}

/// A closing comment saying how the game ended, in words.
fn ending_comment(game: &Game) -> Option<String> {
    if let Some(by) = game.aborted_by() {
        return Some(format!("Game aborted by {}", by.fold_wb("White", "Black")));
    }
    let result = game.result()?;
    let words = result_in_words(result);
    if game.scoring().scored_as(result.outcome) != result.outcome {
        return Some(format!(
            "{words}; under Armageddon it counts as a win for Black"
        ));
    }
    Some(words)
}

fn result_in_words(result: crate::domain::GameResult) -> String {
    let loser = |winner: Color| (!winner).fold_wb("White", "Black");
    match (result.outcome, result.termination) {
        (Outcome::WhiteWins, Termination::Checkmate) => "White wins by checkmate".to_owned(),
        (Outcome::BlackWins, Termination::Checkmate) => "Black wins by checkmate".to_owned(),
        (Outcome::WhiteWins, Termination::Resignation) => {
            format!("{} resigns", loser(Color::White))
        }
        (Outcome::BlackWins, Termination::Resignation) => {
            format!("{} resigns", loser(Color::Black))
        }
        (Outcome::Draw, Termination::Resignation) => {
            "Draw: a player resigned, but the opponent could not checkmate by any series of legal moves".to_owned()
        }
        (Outcome::DoubleForfeit, _) => "Double forfeit".to_owned(),
        (Outcome::Draw, termination) => format!("Draw by {}", termination.describe()),
        (winner, termination) => format!(
            "{} wins: {}",
            if winner == Outcome::WhiteWins { "White" } else { "Black" },
            termination.describe()
        ),
    }
}

/// The PGN standard's `Termination` values; every ending the laws of chess
/// decide on the board or by the players is "normal".
fn termination_tag(termination: Termination) -> &'static str {
    match termination {
        Termination::Checkmate
        | Termination::Resignation
        | Termination::Stalemate
        | Termination::InsufficientMaterial
        | Termination::Agreement
        | Termination::ThreefoldRepetition
        | Termination::FiftyMoves
        | Termination::FivefoldRepetition
        | Termination::SeventyFiveMoves
        | Termination::DeadPosition => "normal",
        Termination::Timeout
        | Termination::TimeoutVsInsufficientMaterial
        | Termination::TimeoutWithPendingDrawOffer => "time forfeit",
        Termination::NoShow | Termination::Forfeit | Termination::OpponentLeft => "abandoned",
        Termination::ArbiterDecision => "adjudication",
    }
}

fn movetext(
    game: &Game,
    moves: &[MoveRecord],
    comment: &Option<String>,
    result: &str,
    annotations: Option<&Annotations>,
) -> String {
    let start: Option<Chess> = game
        .initial_fen()
        .parse::<shakmaty::fen::Fen>()
        .ok()
        .and_then(|fen| fen.into_position(game.variant().castling_mode()).ok());
    let (mut number, mut turn) =
        start.map_or((1, Color::White), |pos| (pos.fullmoves().get(), pos.turn()));
    // A game that compensates lag says how much each timed move got back.
    let compensated = game.setup().lag_compensation().is_some();
    let mut tokens = Vec::with_capacity(moves.len() * 3 / 2 + 1);
    if let Some(before) = annotations.map(|a| &a.before)
        && !before.is_empty()
    {
        tokens.extend(comment_tokens(before));
    }
    for (index, record) in moves.iter().enumerate() {
        // A move number and its move stay on one line.
        if turn == Color::White {
            tokens.push(format!("{number}. {}", record.san));
        } else if index == 0 {
            tokens.push(format!("{number}... {}", record.san));
        } else {
            tokens.push(record.san.clone());
        }
        let mut commands = Vec::new();
        if let Some(time) = record.time {
            commands.push(format!("[%clk {}]", clock_text(time.remaining_ms)));
            if compensated {
                commands.push(format!("[%lagcomp {}]", seconds_text(time.lag_credit_ms)));
            }
        }
        if let Some(more) = annotations.and_then(|a| a.after.get(index)) {
            commands.extend(more.iter().cloned());
        }
        if annotations.is_some() {
            // Longer comments, which may run over lines.
            if !commands.is_empty() {
                tokens.extend(comment_tokens(&commands));
            }
        } else if !commands.is_empty() {
            tokens.push(format!("{{{}}}", commands.join(" ")));
        }
        if turn == Color::Black {
            number += 1;
        }
        turn = !turn;
    }
    if let Some(comment) = comment {
        // Braces cannot be escaped inside a PGN comment.
        let text = comment.replace(['{', '}'], "");
        // After a last move with a clock, one comment holds both (readers
        // such as chess.js take one comment a move): `{[%clk 0:10:09]
        // White resigns}`.
        let clocked = tokens.last().is_some_and(|token| token.ends_with('}'));
        let comment = match tokens.pop_if(|_| clocked) {
            Some(clock) => format!("{} {text}}}", clock.trim_end_matches('}')),
            None => format!("{{{text}}}"),
        };
        tokens.extend(comment.split(' ').map(str::to_owned));
    }
    tokens.push(result.to_owned());
    wrap(&tokens)
}

/// A comment holding `commands`, as tokens: a line may break between
/// two commands, never inside one.
fn comment_tokens(commands: &[String]) -> Vec<String> {
    let mut tokens = commands.to_vec();
    if let Some(first) = tokens.first_mut() {
        first.insert(0, '{');
    }
    if let Some(last) = tokens.last_mut() {
        last.push('}');
    }
    tokens
}

/// `h:mm:ss` (tenths when under a minute), as the `%clk` command writes it.
pub(super) fn clock_text(remaining_ms: i64) -> String {
    let ms = remaining_ms.max(0);
    let seconds = ms / 1000;
    let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60);
    if ms < 60_000 {
        format!("{h}:{m:02}:{s:02}.{}", ms % 1000 / 100)
    } else {
        format!("{h}:{m:02}:{s:02}")
    }
}

/// Seconds with millisecond precision, as the `%lagcomp` command writes
/// the lag credited for a move (`0.250`).
pub(super) fn seconds_text(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

fn wrap(tokens: &[String]) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for token in tokens {
        if line_len > 0 && line_len + 1 + token.len() > LINE_WIDTH {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(token);
        line_len += token.len();
    }
    out
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// `YYYY.MM.DD` (UTC) of a timestamp.
fn pgn_date(at: Timestamp) -> String {
    let (year, month, day) = at.civil_date();
    format!("{year:04}.{month:02}.{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil_utc_dates() {
        assert_eq!(pgn_date(Timestamp::from_unix_millis(0)), "1970.01.01");
        // 2024-02-29T12:00:00Z
        assert_eq!(
            pgn_date(Timestamp::from_unix_millis(1_709_208_000_000)),
            "2024.02.29"
        );
        // 2026-12-31T23:59:59Z
        assert_eq!(
            pgn_date(Timestamp::from_unix_millis(1_798_761_599_000)),
            "2026.12.31"
        );
    }

    #[test]
    fn long_movetext_wraps_below_eighty_columns() {
        let tokens: Vec<String> = (0..100).map(|i| format!("{i}.")).collect();
        assert!(wrap(&tokens).lines().all(|line| line.len() <= LINE_WIDTH));
    }

    #[test]
    fn clock_comments_use_hours_minutes_seconds() {
        assert_eq!(clock_text(5_400_000), "1:30:00");
        assert_eq!(clock_text(61_000), "0:01:01");
        assert_eq!(clock_text(9_250), "0:00:09.2");
        assert_eq!(clock_text(-5), "0:00:00.0");
    }

    #[test]
    fn lag_credits_are_seconds_to_the_millisecond() {
        assert_eq!(seconds_text(0), "0.000");
        assert_eq!(seconds_text(50), "0.050");
        assert_eq!(seconds_text(3_000), "3.000");
        assert_eq!(seconds_text(61_234), "61.234");
    }

    /// A ten-minute game of round 3, board 7, created at `at(0)`.
    fn round_game() -> Game {
        use crate::domain::{
            DelayMode, GameRules, NewGame, Pairing, Period, Schedule, StartPosition, TimeControl,
            Timing, test_support::*,
        };
        let control = TimeControl::new(
            "time_control",
            vec![Period {
                time_ms: 600_000,
                moves: 0,
                increment_ms: 0,
                delay_ms: 0,
            }],
            DelayMode::Simple,
        )
        .expect("control");
        let new = NewGame::new(
            player("w", "White"),
            player("b", "Black"),
            Variant::Standard,
            &StartPosition::Standard,
            Pairing::parse("Open", 3, 7).expect("pairing"),
            GameRules::default(),
        )
        .expect("setup")
        .with_clock(
            Some(Timing {
                white: control.clone(),
                black: control,
                clock_starts_after_first_moves: false,
            }),
            Schedule::default(),
        );
        Game::create(game_id(), new, seats(), at(0)).0
    }

    #[test]
    fn a_broadcast_names_round_and_board_and_the_running_clocks() {
        use crate::domain::test_support::*;
        let game = round_game();
        let plain = export(&game, &[]);
        assert!(plain.contains("[Round \"3\"]\n"), "{plain}");
        assert!(!plain.contains("WhiteClock"));
        let (game, _) = changed(game.play_move(
            Color::White,
            crate::domain::Ply::new(0),
            "e4",
            false,
            at(4_000),
        ));
        let relayed = export_for_broadcast(&game, &[], at(65_000));
        assert!(relayed.contains("[Round \"3.7\"]\n"), "{relayed}");
        // White used 4 s; Black's clock has run 61 s since.
        assert!(relayed.contains("[WhiteClock \"0:09:56\"]"), "{relayed}");
        assert!(relayed.contains("[BlackClock \"0:08:59\"]"), "{relayed}");
        let (over, _) = changed(game.resign(Color::Black, at(70_000)));
        let ended = export_for_broadcast(&over, &[], at(90_000));
        assert!(!ended.contains("WhiteClock"), "{ended}");
        assert!(ended.contains("[Result \"1-0\"]"));
    }

    #[test]
    fn tag_values_are_escaped() {
        assert_eq!(escape(r#"a "b" \c"#), r#"a \"b\" \\c"#);
    }
}
