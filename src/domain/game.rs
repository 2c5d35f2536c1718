//! A game and the commands that change it.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, fen::Fen, uci::UciMove};
use subtle::ConstantTimeEq;

use super::{
    EventKind, FieldError, GameEvent, GameId, GameResult, MoveRecord, Outcome, Player, Ply,
    Rejection, Termination, Timestamp, parse_move, serde_chess,
};

/// The standard starting position in FEN.
pub(crate) const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Where a game belongs in a tournament. All parts are optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The platform's event identifier (empty when none).
    pub event_id: String,
    /// The round number (0 when none).
    pub round: u32,
    /// The board number within the round (0 when none).
    pub board: u32,
}

impl Pairing {
    /// Longest accepted event identifier.
    pub const MAX_EVENT_ID_LEN: usize = 128;

    /// Validates a pairing taken from a request.
    pub fn parse(event_id: &str, round: u32, board: u32) -> Result<Self, FieldError> {
        if event_id.chars().count() > Self::MAX_EVENT_ID_LEN {
            return Err(FieldError::new(
                "event_id",
                format!("is longer than {} characters", Self::MAX_EVENT_ID_LEN),
            ));
        }
        if event_id.chars().any(char::is_control) {
            return Err(FieldError::new("event_id", "contains control characters"));
        }
        Ok(Self {
            event_id: event_id.to_owned(),
            round,
            board,
        })
    }
}

/// The SHA-256 hash of a seat token. Games store only these, never tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    /// Hashes a presented token.
    pub fn of(token: &str) -> Self {
        Self(Sha256::digest(token.as_bytes()).into())
    }

    /// Compares in constant time, so a timing side channel reveals nothing
    /// about a stored hash.
    fn matches(&self, other: &TokenHash) -> bool {
        self.0.ct_eq(&other.0).into()
    }

    fn to_hex(self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn from_hex(text: &str) -> Option<Self> {
        if text.len() != 64 || !text.is_ascii() {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Self(out))
    }
}

impl Serialize for TokenHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for TokenHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::from_hex(&text).ok_or_else(|| serde::de::Error::custom("malformed token hash"))
    }
}

/// The token hashes of both seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatHashes {
    /// Hash of the white seat's token.
    pub white: TokenHash,
    /// Hash of the black seat's token.
    pub black: TokenHash,
}

/// A validated request to create a game.
#[derive(Clone, Debug)]
pub struct NewGame {
    white: Player,
    black: Player,
    start: Chess,
    pairing: Pairing,
}

impl NewGame {
    /// Validates the parts of a new game. An empty `initial_fen` means the
    /// standard starting position; any other must be a legal position with
    /// a legal move to make, which is refused with the exact reason otherwise.
    pub fn new(
        white: Player,
        black: Player,
        initial_fen: &str,
        pairing: Pairing,
    ) -> Result<Self, FieldError> {
        let start = if initial_fen.trim().is_empty() {
            Chess::default()
        } else {
            let fen: Fen = initial_fen.trim().parse().map_err(|err| {
                FieldError::new("initial_fen", format!("is not valid FEN: {err}"))
            })?;
            let pos: Chess = fen.into_position(CastlingMode::Standard).map_err(|err| {
                FieldError::new("initial_fen", format!("is not a legal position: {err}"))
            })?;
            if let Some(ending) = ending_of(&pos) {
                return Err(FieldError::new(
                    "initial_fen",
                    format!(
                        "is a finished position ({}); a game must start with a move to play",
                        ending.termination.describe()
                    ),
                ));
            }
            pos
        };
        Ok(Self {
            white,
            black,
            start,
            pairing,
        })
    }

    /// A digest of everything the request asked for, so a reused
    /// idempotency key with different contents can be told apart.
    pub fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        for part in [
            self.white.id.as_str(),
            self.white.name.as_str(),
            self.black.id.as_str(),
            self.black.name.as_str(),
            &fen_of(&self.start),
            self.pairing.event_id.as_str(),
            &self.pairing.round.to_string(),
            &self.pairing.board.to_string(),
        ] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// Whether a game is being played or over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    /// Moves are being played.
    Active,
    /// The game has a result.
    Finished,
}

/// What a command did to a game.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// The game changed: commit the new state and its events together.
    Changed {
        /// The game after the command.
        game: Box<Game>,
        /// The events the command produced, in version order.
        events: Vec<GameEvent>,
    },
    /// The command was a repeat of one already applied: nothing to commit.
    Unchanged,
}

/// The complete persistent state of one game.
///
/// Its size is bounded whatever the game's length: the moves themselves
/// live in the event log, not here.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Game {
    id: GameId,
    version: u64,
    created_at: Timestamp,
    updated_at: Timestamp,
    white: Player,
    black: Player,
    pairing: Pairing,
    initial_fen: String,
    #[serde(with = "serde_chess::position")]
    position: Chess,
    ply: Ply,
    result: Option<GameResult>,
    seats: SeatHashes,
    fingerprint: String,
}

impl Game {
    /// Creates a game at version 1, with its `GameCreated` event.
    pub fn create(
        id: GameId,
        new: NewGame,
        seats: SeatHashes,
        now: Timestamp,
    ) -> (Game, GameEvent) {
        let fingerprint = new.fingerprint();
        let initial_fen = fen_of(&new.start);
        let game = Game {
            id,
            version: 1,
            created_at: now,
            updated_at: now,
            white: new.white.clone(),
            black: new.black.clone(),
            pairing: new.pairing.clone(),
            initial_fen: initial_fen.clone(),
            position: new.start,
            ply: Ply::START,
            result: None,
            seats,
            fingerprint,
        };
        let event = GameEvent {
            version: 1,
            at: now,
            kind: EventKind::GameCreated {
                white: new.white,
                black: new.black,
                initial_fen,
                pairing: new.pairing,
            },
        };
        (game, event)
    }

    /// The game's identifier.
    pub fn id(&self) -> &GameId {
        &self.id
    }
    /// The version of the game's latest event.
    pub fn version(&self) -> u64 {
        self.version
    }
    /// When the game was created.
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }
    /// When the game last changed.
    pub fn updated_at(&self) -> Timestamp {
        self.updated_at
    }
    /// The white player.
    pub fn white(&self) -> &Player {
        &self.white
    }
    /// The black player.
    pub fn black(&self) -> &Player {
        &self.black
    }
    /// Where the game belongs in its event.
    pub fn pairing(&self) -> &Pairing {
        &self.pairing
    }
    /// The starting position in FEN.
    pub fn initial_fen(&self) -> &str {
        &self.initial_fen
    }
    /// The current position.
    pub fn position(&self) -> &Chess {
        &self.position
    }
    /// The current position in FEN.
    pub fn fen(&self) -> String {
        fen_of(&self.position)
    }
    /// Half-moves played.
    pub fn ply(&self) -> Ply {
        self.ply
    }
    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.position.turn()
    }
    /// The result, once the game has ended.
    pub fn result(&self) -> Option<GameResult> {
        self.result
    }
    /// Whether the game is still being played.
    pub fn status(&self) -> GameStatus {
        if self.result.is_some() {
            GameStatus::Finished
        } else {
            GameStatus::Active
        }
    }
    /// The digest of the request that created the game.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
    /// The token hashes of the seats.
    pub fn seats(&self) -> SeatHashes {
        self.seats
    }
    /// The legal moves in UCI; none once the game is over.
    pub fn legal_moves_uci(&self) -> Vec<String> {
        if self.result.is_some() {
            return Vec::new();
        }
        self.position
            .legal_moves()
            .iter()
            .map(|m| UciMove::from_move(*m, CastlingMode::Standard).to_string())
            .collect()
    }

    /// The seat whose token hashes to `hash`, compared in constant time.
    pub fn seat_of(&self, hash: &TokenHash) -> Option<Color> {
        let white = self.seats.white.matches(hash);
        let black = self.seats.black.matches(hash);
        match (white, black) {
            (true, _) => Some(Color::White),
            (false, true) => Some(Color::Black),
            (false, false) => None,
        }
    }

    /// Plays `text` for `seat`, which chose it at `ply`.
    ///
    /// A move for a ply other than the current one is refused as
    /// [`Rejection::StalePly`]; [`Game::confirm_retry`] tells whether it is
    /// a harmless repeat.
    pub fn play_move(
        &self,
        seat: Color,
        ply: Ply,
        text: &str,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        if ply != self.ply {
            return Err(Rejection::StalePly {
                requested: ply,
                current: self.ply,
            });
        }
        self.ensure_active()?;
        let to_move = self.position.turn();
        if seat != to_move {
            return Err(Rejection::NotYourTurn { seat, to_move });
        }
        let m = parse_move(&self.position, text)?;
        let (record, after) = MoveRecord::play(&self.position, m, self.ply, now);
        let mut next = self.clone();
        next.position = after;
        next.ply = self.ply.next();
        let ending = ending_of(&next.position);
        let mut kinds = vec![EventKind::MoveMade {
            record,
            side_to_move: next.position.turn(),
            ply: next.ply,
            in_check: next.position.is_check(),
        }];
        if let Some(result) = ending {
            next.result = Some(result);
            kinds.push(EventKind::GameEnded { result });
        }
        Ok(next.commit(kinds, now))
    }

    /// Decides whether a move refused as stale repeats one this seat
    /// already made at that ply (a client retry): then nothing changes.
    /// `history` is the game's move list.
    pub fn confirm_retry(
        &self,
        seat: Color,
        ply: Ply,
        text: &str,
        history: &[MoveRecord],
    ) -> Result<Decision, Rejection> {
        let stale = Rejection::StalePly {
            requested: ply,
            current: self.ply,
        };
        if ply >= self.ply {
            return Err(stale);
        }
        match history.iter().find(|record| record.ply == ply) {
            Some(record) if record.color == seat && record.is_written_as(text) => {
                Ok(Decision::Unchanged)
            }
            _ => Err(stale),
        }
    }

    /// Resigns the game for `seat` (FIDE 5.1.2): the opponent wins.
    pub fn resign(&self, seat: Color, now: Timestamp) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        let result = GameResult {
            outcome: Outcome::win_for(!seat),
            termination: Termination::Resignation,
        };
        let mut next = self.clone();
        next.result = Some(result);
        Ok(next.commit(vec![EventKind::GameEnded { result }], now))
    }

    fn ensure_active(&self) -> Result<(), Rejection> {
        match self.status() {
            GameStatus::Active => Ok(()),
            GameStatus::Finished => Err(Rejection::GameOver),
        }
    }

    /// Numbers the events after the current version and stamps the state.
    fn commit(mut self, kinds: Vec<EventKind>, now: Timestamp) -> Decision {
        let mut events = Vec::with_capacity(kinds.len());
        for kind in kinds {
            self.version += 1;
            events.push(GameEvent {
                version: self.version,
                at: now,
                kind,
            });
        }
        self.updated_at = now;
        Decision::Changed {
            game: Box::new(self),
            events,
        }
    }
}

/// The ending the position itself decides, if any: checkmate, stalemate or
/// insufficient material.
fn ending_of(pos: &Chess) -> Option<GameResult> {
    if pos.is_checkmate() {
        Some(GameResult {
            outcome: Outcome::win_for(!pos.turn()),
            termination: Termination::Checkmate,
        })
    } else if pos.is_stalemate() {
        Some(GameResult {
            outcome: Outcome::Draw,
            termination: Termination::Stalemate,
        })
    } else if pos.is_insufficient_material() {
        Some(GameResult {
            outcome: Outcome::Draw,
            termination: Termination::InsufficientMaterial,
        })
    } else {
        None
    }
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
#[path = "game_tests.rs"]
mod tests;
