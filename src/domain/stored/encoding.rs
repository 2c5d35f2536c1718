//! The stored form of games and events, versioned.
//!
//! A state or event is either a JSON envelope that names its schema,
//! `{"schema":3,"game":{…}}` or `{"schema":3,"event":{…}}`, or a binary
//! record (first byte [`packed::BINARY`], never `{`):
//! - a move, the event nearly every commit writes, packed in about 60
//!   bytes (see [`crate::domain::stored::packed`]);
//! - the state of a game in progress, read and written on every move: the
//!   kind byte, the schema byte, then the game in MessagePack with its
//!   fields named (so a field added later reads as absent, as in JSON);
//!   the types that know a compact form use it there (a position packed,
//!   the repetition history as packed identities, token hashes as bytes),
//!   see `is_human_readable` in `game::serde_chess` and
//!   `game::repetition`;
//! - the state of a game that has ended, its JSON deflated: it is written
//!   rarely from then on, and a finished game should cost little memory.
//!
//! The admin RPC `InspectGame` returns any game's stored records decoded
//! to JSON (binary records and archives included). The schema
//! number changes whenever the stored form does, so a replica can tell
//! what it reads: a newer schema than it knows is refused with a clear
//! error rather than misread. The golden files in `tests/data` pin each
//! schema's exact bytes, and the files written by earlier releases must
//! keep decoding.
//!
//! Schema 0 is the bare JSON the first release wrote: a state without a
//! setup (its creation request survives only as a digest, see
//! `game::setup::legacy_fingerprint`) and events without an envelope. Schema 1 is
//! schema 2 without binary records; schema 2 is schema 3 with the live state
//! as JSON.

use std::ops::Range;

use serde::{Deserialize, Serialize};
use shakmaty::Color;
use thiserror::Error;

use crate::domain::{
    Board, Clock, ClockView, EventKind, Game, GameEvent, GameId, GameResult, GameRules, NewGame,
    Outcome, Pairing, Player, Ply, Repetition, Schedule, ScoringSystem, SeatHashes, StartPosition,
    Timestamp, Timing, Variant,
    game::serde_chess,
    game::serde_chess::position::StoredPositionError,
    game::state::{EncodedSetup, Progress},
    stored::packed::{self, kind},
    stored::record_error::RecordError,
};

/// The schema this release writes.
pub const SCHEMA: u32 = 3;

/// The most a deflated state may inflate to: far above any real state.
const MAX_STATE_BYTES: usize = 1 << 20;

/// How every envelope starts; serde writes fields in declaration order.
const ENVELOPE_START: &[u8] = b"{\"schema\":";

/// Why stored bytes cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The bytes are not a state or event of any known schema.
    #[error("malformed stored {what}: {detail}")]
    Malformed {
        /// A state or an event.
        what: &'static str,
        /// What the decoder found wrong.
        detail: String,
    },
    /// A binary record that cannot be read.
    #[error("malformed stored {what}: {source}")]
    Record {
        /// A state or an event.
        what: &'static str,
        /// Why.
        source: RecordError,
    },
    /// A binary record of a kind this release does not know.
    #[error("stored {what} is a binary record of unknown kind {kind:?}")]
    UnknownRecordKind {
        /// A state or an event.
        what: &'static str,
        /// The kind byte, if any.
        kind: Option<u8>,
    },
    /// The setup a schema 0 record implies is not valid.
    #[error("stored {what}: the setup: {source}")]
    Setup {
        /// A state or an event.
        what: &'static str,
        /// Why.
        source: crate::domain::FieldError,
    },
    /// A schema 0 state's position cannot be read.
    #[error("malformed stored state: {0}")]
    Position(#[from] StoredPositionError),
    /// Written by a newer release than this one.
    #[error("stored {what} has schema {schema}, newer than the {SCHEMA} this release reads")]
    NewerSchema {
        /// A state or an event.
        what: &'static str,
        /// The schema found.
        schema: u32,
    },
}

#[derive(Serialize)]
struct EnvelopeOut<'a, T> {
    schema: u32,
    #[serde(flatten)]
    body: Body<'a, T>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Body<'a, T> {
    Game(&'a T),
    Event(&'a T),
}

#[derive(Deserialize)]
struct SchemaOnly {
    schema: u32,
}

#[derive(Deserialize)]
struct GameEnvelope {
    game: Game,
}

#[derive(Deserialize)]
struct EventEnvelope {
    event: GameEvent,
}

fn malformed(what: &'static str) -> impl Fn(serde_json::Error) -> DecodeError {
    move |err| DecodeError::Malformed {
        what,
        detail: err.to_string(),
    }
}

/// Reads the schema of an envelope, refusing one newer than [`SCHEMA`].
///
/// Every envelope this project writes starts `{"schema":N,` (serde writes
/// the fields in order), so the number is read from there, without parsing
/// the rest a second time (on every move, the state is decoded once: this
/// check used to parse it in full first). Anything else is parsed in full,
/// for the exact error.
fn check_schema(what: &'static str, bytes: &[u8]) -> Result<(), DecodeError> {
    let schema = match schema_in_prefix(bytes) {
        Some(schema) => schema,
        None => {
            let SchemaOnly { schema } = serde_json::from_slice(bytes).map_err(malformed(what))?;
            schema
        }
    };
    if schema > SCHEMA {
        return Err(DecodeError::NewerSchema { what, schema });
    }
    Ok(())
}

/// The schema number of an envelope that starts exactly as this project
/// writes them, `{"schema":N,`.
fn schema_in_prefix(bytes: &[u8]) -> Option<u32> {
    let rest = bytes.strip_prefix(ENVELOPE_START)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 9 || rest.get(digits) != Some(&b',') {
        return None;
    }
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// A game's state in the current schema: the binary live state while the
/// game is in progress, deflated JSON once it is over.
pub fn encode_game(game: &Game) -> Result<Vec<u8>, DecodeError> {
    Ok(encode_game_after(game, None)?.bytes)
}

/// A game's stored state, and where the setup is in a live state's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedGame {
    /// The stored state.
    pub bytes: Vec<u8>,
    /// Where its setup is in `bytes`, when the state is a live one.
    pub setup: Option<Range<usize>>,
}

/// As [`encode_game`]; a live state takes its setup's bytes from
/// `earlier`'s when the two versions share their setup (see
/// [`Game::write_named`]). The bytes are the same either way.
pub fn encode_game_after(
    game: &Game,
    earlier: Option<EncodedSetup<'_>>,
) -> Result<EncodedGame, DecodeError> {
    if !game.is_over() {
        let mut out = Vec::with_capacity(1024);
        out.extend_from_slice(&LIVE_STATE_START);
        let setup = game
            .write_named(&mut out, earlier)
            .map_err(|err| DecodeError::Malformed {
                what: "state",
                detail: err.to_string(),
            })?;
        debug_assert_eq!(
            out.get(LIVE_STATE_START.len()..),
            rmp_serde::encode::to_vec_named(game).ok().as_deref(),
            "a live state is the game's MessagePack, its fields named"
        );
        return Ok(EncodedGame {
            bytes: out,
            setup: Some(setup),
        });
    }
    let json = serde_json::to_vec(&EnvelopeOut {
        schema: SCHEMA,
        body: Body::Game(game),
    })
    .map_err(malformed("state"))?;
    let mut out = vec![packed::BINARY, kind::DEFLATED_STATE];
    out.extend(miniz_oxide::deflate::compress_to_vec(&json, 6));
    Ok(EncodedGame {
        bytes: out,
        setup: None,
    })
}

/// How a binary live state starts: the binary marker, its kind, and the
/// schema it was written in (one byte).
const LIVE_STATE_START: [u8; 3] = [packed::BINARY, kind::LIVE_STATE, SCHEMA as u8];

/// A game from its binary live state (the bytes after its kind).
fn decode_live_state(rest: &[u8]) -> Result<Game, DecodeError> {
    let Some((&schema, body)) = rest.split_first() else {
        return Err(DecodeError::Malformed {
            what: "state",
            detail: "a live state without its schema".to_owned(),
        });
    };
    if u32::from(schema) > SCHEMA {
        return Err(DecodeError::NewerSchema {
            what: "state",
            schema: u32::from(schema),
        });
    }
    // Read in place (strings borrowed while they are parsed); a state cut
    // short fails, and nothing this release writes follows one.
    let game: Game = rmp_serde::from_slice(body).map_err(|err| DecodeError::Malformed {
        what: "state",
        detail: err.to_string(),
    })?;
    Ok(game)
}

/// A game's state as JSON in the current schema, whatever form it is
/// stored in: for reading, not storing.
pub fn readable_game(game: &Game) -> String {
    serde_json::to_string(&EnvelopeOut {
        schema: SCHEMA,
        body: Body::Game(game),
    })
    .unwrap_or_default()
}

/// An event as JSON in the current schema, whatever form it is stored in.
pub fn readable_event(event: &GameEvent) -> String {
    serde_json::to_string(&EnvelopeOut {
        schema: SCHEMA,
        body: Body::Event(event),
    })
    .unwrap_or_default()
}

/// A game from its stored state, in any schema this release reads.
pub fn decode_game(bytes: &[u8]) -> Result<Game, DecodeError> {
    if let Some(rest) = bytes.strip_prefix(&[packed::BINARY, kind::LIVE_STATE]) {
        return decode_live_state(rest);
    }
    if let Some(deflated) = bytes.strip_prefix(&[packed::BINARY, kind::DEFLATED_STATE]) {
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_STATE_BYTES)
            .map_err(|err| DecodeError::Malformed {
                what: "state",
                detail: format!("deflated state: {err}"),
            })?;
        if !json.starts_with(ENVELOPE_START) {
            return Err(DecodeError::Malformed {
                what: "state",
                detail: "a deflated state holds no envelope".to_owned(),
            });
        }
        return decode_game(&json);
    }
    if bytes.starts_with(ENVELOPE_START) {
        check_schema("state", bytes)?;
        let GameEnvelope { game } = serde_json::from_slice(bytes).map_err(malformed("state"))?;
        return Ok(game);
    }
    let record: LegacyGame = serde_json::from_slice(bytes).map_err(malformed("state"))?;
    record.into_game()
}

/// An event in the current schema: a move packed when it can be, anything
/// else JSON.
pub fn encode_event(event: &GameEvent) -> Result<Vec<u8>, DecodeError> {
    if let Some(bytes) = packed::encode_move(event) {
        return Ok(bytes);
    }
    serde_json::to_vec(&EnvelopeOut {
        schema: SCHEMA,
        body: Body::Event(event),
    })
    .map_err(malformed("event"))
}

/// As [`encode_event`], for an event of a commit that leaves `game`: the
/// game's last move is packed from the game's position (the position it
/// led to) rather than from its record's FEN. The bytes are the same.
pub fn encode_event_of(event: &GameEvent, game: &Game) -> Result<Vec<u8>, DecodeError> {
    let last_move = matches!(
        &event.kind,
        EventKind::MoveMade { record, .. } if record.ply.next() == game.ply()
    );
    if last_move && let Some(bytes) = packed::encode_move_after(event, Some(game.position())) {
        return Ok(bytes);
    }
    encode_event(event)
}

/// An event from the store, in any schema this release reads.
pub fn decode_event(bytes: &[u8]) -> Result<GameEvent, DecodeError> {
    if bytes.first() == Some(&packed::BINARY) {
        return match packed::decode_move(bytes) {
            Ok(Some(event)) => Ok(event),
            Ok(None) => Err(DecodeError::UnknownRecordKind {
                what: "event",
                kind: bytes.get(1).copied(),
            }),
            Err(source) => Err(DecodeError::Record {
                what: "event",
                source,
            }),
        };
    }
    if bytes.starts_with(ENVELOPE_START) {
        check_schema("event", bytes)?;
        let EventEnvelope { event } = serde_json::from_slice(bytes).map_err(malformed("event"))?;
        return Ok(event);
    }
    // Schema 0 events are the same JSON without the envelope, except that
    // game_created carried the players, start and pairing only, and scores
    // did not say who they count as the winner.
    if let Ok(created) = serde_json::from_slice::<LegacyCreated>(bytes) {
        return created.into_event();
    }
    let mut event: serde_json::Value = serde_json::from_slice(bytes).map_err(malformed("event"))?;
    if let Some(kind) = event
        .get_mut("kind")
        .and_then(serde_json::Value::as_object_mut)
    {
        // Schema 0 stored the result as scored (an Armageddon draw as
        // Black's win), so the score counts that outcome.
        // An Armageddon draw was stored as Black's win with the drawing
        // termination: the board result was a draw.
        if let Some(result) = kind
            .get_mut("result")
            .and_then(serde_json::Value::as_object_mut)
            && result.get("outcome").and_then(serde_json::Value::as_str) == Some("black_wins")
            && result
                .get("termination")
                .and_then(serde_json::Value::as_str)
                .is_some_and(is_drawing_termination)
        {
            result.insert("outcome".to_owned(), "draw".into());
            if let Some(score) = kind
                .get_mut("score")
                .and_then(serde_json::Value::as_object_mut)
            {
                score.entry("scored_as").or_insert("black_wins".into());
            }
        }
        let outcome = kind
            .get("result")
            .and_then(|result| result.get("outcome"))
            .cloned();
        if let (Some(score), Some(outcome)) = (
            kind.get_mut("score")
                .and_then(serde_json::Value::as_object_mut),
            outcome,
        ) {
            score.entry("scored_as").or_insert(outcome);
        }
    }
    serde_json::from_value(event).map_err(malformed("event"))
}

/// A schema 0 `game_created` event.
#[derive(Deserialize)]
struct LegacyCreated {
    version: u64,
    at: Timestamp,
    #[serde(default)]
    clock: Option<ClockView>,
    kind: LegacyCreatedKind,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum LegacyCreatedKind {
    GameCreated {
        white: Player,
        black: Player,
        initial_fen: String,
        pairing: Pairing,
        #[serde(default)]
        variant: Variant,
    },
}

impl LegacyCreated {
    /// The event with a setup of what schema 0 recorded: its rules, clocks,
    /// schedule and scoring were not in the event (the game's state has
    /// them), so they read as the defaults.
    fn into_event(self) -> Result<GameEvent, DecodeError> {
        let LegacyCreatedKind::GameCreated {
            white,
            black,
            initial_fen,
            pairing,
            variant,
        } = self.kind;
        let setup = NewGame::new(
            white,
            black,
            variant,
            &StartPosition::Fen(initial_fen),
            pairing,
            GameRules::default(),
        )
        .map_err(|source| DecodeError::Setup {
            what: "event",
            source,
        })?;
        Ok(GameEvent {
            version: self.version,
            at: self.at,
            clock: self.clock,
            kind: EventKind::GameCreated {
                setup: Box::new(setup),
                by: None,
            },
            request: None,
        })
    }
}

/// Whether a termination (in its stored name) only ever ends a game drawn
/// on the board: schema 0 stored an Armageddon draw as Black's win with
/// such a termination.
fn is_drawing_termination(name: &str) -> bool {
    matches!(
        name,
        "stalemate"
            | "insufficient_material"
            | "agreement"
            | "threefold_repetition"
            | "fifty_moves"
            | "fivefold_repetition"
            | "seventy_five_moves"
            | "dead_position"
            | "timeout_vs_insufficient_material"
            | "timeout_with_pending_draw_offer"
    )
}

/// A game state as schema 0 stored it.
#[derive(Deserialize)]
struct LegacyGame {
    id: GameId,
    version: u64,
    created_at: Timestamp,
    updated_at: Timestamp,
    white: Player,
    black: Player,
    pairing: Pairing,
    variant: Variant,
    rules: GameRules,
    initial_fen: String,
    position: String,
    ply: Ply,
    result: Option<GameResult>,
    #[serde(with = "serde_chess::opt_color")]
    aborted_by: Option<Color>,
    #[serde(with = "serde_chess::opt_color")]
    draw_offer: Option<Color>,
    repetition: Repetition,
    #[serde(default)]
    clock: Option<Clock>,
    #[serde(default)]
    schedule: Schedule,
    #[serde(default)]
    scoring: ScoringSystem,
    seats: SeatHashes,
    fingerprint: String,
}

impl LegacyGame {
    fn into_game(self) -> Result<Game, DecodeError> {
        let mode = self.variant.castling_mode();
        let position = serde_chess::position::from_fen(&self.position, mode)?;
        // Schema 0 kept the controls only in the clock, and not whether the
        // clock waited for the first moves; the digest stands in for the
        // request when a retry must be recognised.
        let timing = self.clock.as_ref().map(|clock| Timing {
            white: clock.control(Color::White).clone(),
            black: clock.control(Color::Black).clone(),
            clock_starts_after_first_moves: false,
        });
        let setup = NewGame::new(
            self.white,
            self.black,
            self.variant,
            &StartPosition::Fen(self.initial_fen),
            self.pairing,
            self.rules,
        )
        .map_err(|source| DecodeError::Setup {
            what: "state",
            source,
        })?
        .with_clock(timing, self.schedule)
        .with_scoring(self.scoring);
        let board_result = self.result.map(|result| {
            let drawn_on_the_board = serde_json::to_value(result.termination)
                .ok()
                .and_then(|name| name.as_str().map(is_drawing_termination))
                .unwrap_or(false);
            if self.scoring.armageddon && result.outcome == Outcome::BlackWins && drawn_on_the_board
            {
                GameResult {
                    outcome: Outcome::Draw,
                    ..result
                }
            } else {
                result
            }
        });
        let progress = match (board_result, self.aborted_by) {
            (Some(result), _) => Progress::Finished {
                result,
                by: None,
                review: None,
            },
            (None, Some(by)) => Progress::Aborted { by },
            (None, None) => Progress::Active {
                draw_offer: self.draw_offer,
            },
        };
        Ok(Game::restore_legacy(
            self.id,
            (self.version, self.created_at, self.updated_at),
            setup,
            self.seats,
            Board::restore(self.repetition, position, self.ply),
            self.clock,
            progress,
            self.fingerprint,
        ))
    }
}

#[cfg(test)]
#[path = "encoding_tests.rs"]
mod tests;
