//! A game's fair-play record as the people who review fair play read it:
//! every move with the server's receipt time, its thinking time as the
//! clock measured it, the lag and the client's move time the platform
//! reported; every signal the player's client sent; and, per player, the
//! time disconnected and out of focus.
//!
//! Two forms: a JSON document (schema `docs/schemas/fair-play-v1.json`) for
//! fair-play tools, and PGN whose move comments carry the record as
//! commands (`[%emt]`, and the custom ones `docs/fair-play.md` lists).
//!
//! A player counts as disconnected from a report that they are gone (a
//! client's `disconnected` signal, or the platform's `ReportConnection`)
//! until the next that they are back (a `reconnected` signal, a report, or
//! a move of theirs); out of focus from `focus_lost` to `focus_regained`.
//! An interval still open counts until the game ended, or until the export
//! for a game in play. A move is marked `unfocused` when the mover was out
//! of focus at any time since their previous move.

use serde::Serialize;
use shakmaty::Color;

use crate::domain::{
    ClientSignal, EventKind, Game, GameEvent, GameStatus, MoveRecord, SignalKind, Timestamp,
    tournament::pgn,
};

/// The schema the JSON document follows.
pub const SCHEMA: &str = "chess-arbiter/fair-play/v1";

/// One move of the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordedMove {
    /// Half-moves before it.
    pub ply: u32,
    /// Who moved: `white` or `black`.
    pub color: &'static str,
    /// SAN.
    pub san: String,
    /// UCI.
    pub uci: String,
    /// When the server received it (RFC 3339, UTC, milliseconds).
    pub received_at: String,
    /// Thinking time by the game's clock, in a timed game.
    pub spent_ms: Option<u64>,
    /// The mover's clock after it, in a timed game.
    pub remaining_ms: Option<i64>,
    /// The lag the platform reported with it.
    pub lag_reported_ms: Option<u64>,
    /// The lag credited back to the mover's clock (lag compensation).
    pub lag_credited_ms: Option<u64>,
    /// The move time the player's client measured.
    pub client_ms: Option<u64>,
    /// The mover was out of focus at some time since their previous move.
    pub unfocused: bool,
}

/// One signal of the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordedSignal {
    /// Whose client: `white` or `black`.
    pub color: &'static str,
    /// What it signalled (`disconnected`, `reconnected`, `focus_lost`,
    /// `focus_regained`).
    pub kind: &'static str,
    /// When, by the client's clock, if it said.
    pub client_time: Option<String>,
    /// When the server received it.
    pub received_at: String,
}

/// What the record says of one player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SideSummary {
    /// How many times they were reported gone.
    pub disconnections: u32,
    /// How long they were gone, in all.
    pub disconnected_ms: u64,
    /// Whether they are gone now (a game in play).
    pub disconnected_now: bool,
    /// How many times their window lost the focus.
    pub focus_losses: u32,
    /// How long it was out of focus, in all.
    pub unfocused_ms: u64,
    /// How many of their moves are marked unfocused.
    pub unfocused_moves: u32,
}

/// Both players' summaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// White's.
    pub white: SideSummary,
    /// Black's.
    pub black: SideSummary,
}

impl Summary {
    fn side(&mut self, color: Color) -> &mut SideSummary {
        match color {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}

/// A player of the document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecordedPlayer {
    /// The platform's id.
    pub id: String,
    /// The name.
    pub name: String,
}

/// The JSON document of a game's fair-play record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FairPlayRecord {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The game.
    pub game_id: String,
    /// Its event, round and board, when it has them.
    pub event_id: Option<String>,
    /// The round (0: none).
    pub round: u32,
    /// The board (0: none).
    pub board: u32,
    /// White.
    pub white: RecordedPlayer,
    /// Black.
    pub black: RecordedPlayer,
    /// `pending`, `active`, `finished` or `aborted`.
    pub status: &'static str,
    /// The result in PGN (`1-0`, `0-1`, `1/2-1/2`; `*` for a double
    /// forfeit), when decided.
    pub result: Option<&'static str>,
    /// Until when open intervals are counted: the game's end, or the
    /// export's time.
    pub as_of: String,
    /// Every move.
    pub moves: Vec<RecordedMove>,
    /// Every signal, in the order received.
    pub signals: Vec<RecordedSignal>,
    /// Per player.
    pub summary: Summary,
}

/// Until when a record counts: the game's end, or `now` for a game in
/// play.
fn as_of(events: &[GameEvent], now: Timestamp) -> Timestamp {
    events
        .iter()
        .find(|event| event.is_final())
        .map_or(now, |event| event.at)
}

/// Something that happened to a player, on one timeline.
#[derive(Clone, Copy)]
enum Mark {
    Gone,
    Back,
    FocusLost,
    FocusRegained,
    /// Their move (the index of its record).
    Moved(usize),
}

/// Where each player stands along the timeline.
#[derive(Clone, Copy, Default)]
struct Standing {
    gone_since: Option<Timestamp>,
    unfocused_since: Option<Timestamp>,
    unfocused_this_move: bool,
}

/// The record of `game` (as it stands at `now`), from its whole log
/// `events` and its `signals`.
pub fn record(
    game: &Game,
    events: &[GameEvent],
    signals: &[ClientSignal],
    now: Timestamp,
) -> FairPlayRecord {
    let moves: Vec<&MoveRecord> = events.iter().filter_map(GameEvent::move_record).collect();
    let as_of = as_of(events, now);
    // A signal received once the game was over (sent as it ended) is not
    // of the game.
    let signals: Vec<&ClientSignal> = signals.iter().filter(|s| s.received_at <= as_of).collect();
    let mut timeline: Vec<(Timestamp, Color, Mark)> = Vec::new();
    let mut move_index = 0;
    for event in events {
        match &event.kind {
            EventKind::MoveMade { record, .. } => {
                timeline.push((event.at, record.color, Mark::Moved(move_index)));
                move_index += 1;
            }
            EventKind::ConnectionReported {
                color, connected, ..
            } => timeline.push((
                event.at,
                *color,
                if *connected { Mark::Back } else { Mark::Gone },
            )),
            _ => {}
        }
    }
    for signal in &signals {
        let mark = match signal.kind {
            SignalKind::Disconnected => Mark::Gone,
            SignalKind::Reconnected => Mark::Back,
            SignalKind::FocusLost => Mark::FocusLost,
            SignalKind::FocusRegained => Mark::FocusRegained,
        };
        timeline.push((signal.received_at, signal.color, mark));
    }
    // Events before signals at the same instant (a stable sort keeps the
    // log's order and the signals' order).
    timeline.sort_by_key(|(at, _, _)| *at);
    let mut summary = Summary::default();
    let mut standing = [Standing::default(); 2];
    let mut unfocused = vec![false; moves.len()];
    for (at, color, mark) in timeline {
        if at > as_of {
            break;
        }
        let side = summary.side(color);
        let state = &mut standing[color as usize];
        match mark {
            Mark::Gone => {
                if state.gone_since.is_none() {
                    state.gone_since = Some(at);
                    side.disconnections += 1;
                }
            }
            Mark::Back => {
                if let Some(since) = state.gone_since.take() {
                    side.disconnected_ms += at.millis_since(since);
                }
            }
            Mark::Moved(index) => {
                if let Some(since) = state.gone_since.take() {
                    side.disconnected_ms += at.millis_since(since);
                }
                unfocused[index] = state.unfocused_this_move;
                side.unfocused_moves += u32::from(state.unfocused_this_move);
                state.unfocused_this_move = state.unfocused_since.is_some();
            }
            Mark::FocusLost => {
                if state.unfocused_since.is_none() {
                    state.unfocused_since = Some(at);
                    side.focus_losses += 1;
                }
                state.unfocused_this_move = true;
            }
            Mark::FocusRegained => {
                if let Some(since) = state.unfocused_since.take() {
                    side.unfocused_ms += at.millis_since(since);
                }
            }
        }
    }
    let in_play = matches!(game.status(), GameStatus::Active | GameStatus::Pending);
    for color in [Color::White, Color::Black] {
        let state = standing[color as usize];
        let side = summary.side(color);
        if let Some(since) = state.gone_since {
            side.disconnected_ms += as_of.millis_since(since);
            side.disconnected_now = in_play;
        }
        if let Some(since) = state.unfocused_since {
            side.unfocused_ms += as_of.millis_since(since);
        }
    }
    let color_name = |color: Color| color.fold_wb("white", "black");
    let pairing = game.pairing();
    FairPlayRecord {
        schema: SCHEMA,
        game_id: game.id().to_string(),
        event_id: pairing.event_id.as_ref().map(ToString::to_string),
        round: pairing.round,
        board: pairing.board,
        white: RecordedPlayer {
            id: game.white().id.clone(),
            name: game.white().name.clone(),
        },
        black: RecordedPlayer {
            id: game.black().id.clone(),
            name: game.black().name.clone(),
        },
        status: match game.status() {
            GameStatus::Pending => "pending",
            GameStatus::Active => "active",
            GameStatus::Finished => "finished",
            GameStatus::Aborted => "aborted",
        },
        result: game.result().map(|result| result.outcome.pgn()),
        as_of: as_of.rfc3339(),
        moves: moves
            .iter()
            .zip(&unfocused)
            .map(|(record, &unfocused)| RecordedMove {
                ply: record.ply.count(),
                color: color_name(record.color),
                san: record.san.clone(),
                uci: record.uci.clone(),
                received_at: record.played_at.rfc3339(),
                spent_ms: record.time.map(|time| time.spent_ms),
                remaining_ms: record.time.map(|time| time.remaining_ms),
                lag_reported_ms: record.report.map(|report| report.lag.millis()),
                lag_credited_ms: record.time.map(|time| time.lag_credit_ms),
                client_ms: record.report.and_then(|report| report.client_ms),
                unfocused,
            })
            .collect(),
        signals: signals
            .iter()
            .map(|signal| RecordedSignal {
                color: color_name(signal.color),
                kind: signal.kind.name(),
                client_time: signal.client_at.map(Timestamp::rfc3339),
                received_at: signal.received_at.rfc3339(),
            })
            .collect(),
        summary,
    }
}

impl FairPlayRecord {
    /// The JSON document.
    pub fn to_json(&self) -> String {
        // Every field is a string, a number, a bool or a list of them:
        // serialising cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// The game's PGN with the record in its move comments: after each move
/// `[%emt]` (the clock's thinking time) and, as the record has them,
/// `[%lag]` (the lag reported, in seconds), `[%clientemt]` (the client's
/// move time) and `[%unfocused]`; each signal as `[%signal <color> <kind>
/// <received_at>]` in the comment of the move it follows (before the first
/// move: the game's opening comment).
pub fn pgn_of(
    game: &Game,
    events: &[GameEvent],
    signals: &[ClientSignal],
    fair_play: &FairPlayRecord,
) -> String {
    let moves: Vec<MoveRecord> = events
        .iter()
        .filter_map(GameEvent::move_record)
        .cloned()
        .collect();
    let mut annotations = pgn::Annotations {
        before: Vec::new(),
        after: vec![Vec::new(); moves.len()],
    };
    for (commands, (record, recorded)) in annotations
        .after
        .iter_mut()
        .zip(moves.iter().zip(&fair_play.moves))
    {
        if let Some(time) = record.time {
            commands.push(format!(
                "[%emt {}]",
                pgn::clock_text(time.spent_ms.try_into().unwrap_or(i64::MAX))
            ));
        }
        if let Some(report) = record.report {
            commands.push(format!("[%lag {}]", pgn::seconds_text(report.lag.millis())));
            if let Some(client_ms) = report.client_ms {
                commands.push(format!(
                    "[%clientemt {}]",
                    pgn::clock_text(client_ms.try_into().unwrap_or(i64::MAX))
                ));
            }
        }
        if recorded.unfocused {
            commands.push("[%unfocused]".to_owned());
        }
    }
    let as_of = as_of(events, Timestamp::LATEST);
    for signal in signals.iter().filter(|s| s.received_at <= as_of) {
        // After the last move received before it.
        let follows = moves.partition_point(|record| record.played_at <= signal.received_at);
        let command = format!(
            "[%signal {} {} {}]",
            signal.color.fold_wb("white", "black"),
            signal.kind.name(),
            signal.received_at.rfc3339()
        );
        match follows.checked_sub(1) {
            Some(index) => annotations.after[index].push(command),
            None => annotations.before.push(command),
        }
    }
    pgn::export_annotated(game, &moves, &annotations)
}

#[cfg(test)]
#[path = "fair_play_export_tests.rs"]
mod tests;
