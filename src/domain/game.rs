//! A game and the commands that change it.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, fen::Fen, uci::UciMove};
use subtle::ConstantTimeEq;

use super::{
    Clock, EventId, EventKind, FieldError, GameEvent, GameId, GameResult, GameRules, MoveRecord,
    Outcome, Player, Ply, Rejection, Repetition, Schedule, Score, ScoringSystem, Termination,
    Timestamp, Timing, Variant, chess960_fen,
    dead_position::{self, Mating},
    endings::{FIFTY_MOVES, THREEFOLD, automatic_ending},
    parse_move, serde_chess,
};

/// The standard starting position in FEN.
pub(crate) const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Where a game belongs in a tournament. All parts are optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The platform's event, if the game belongs to one (stored as a
    /// string, empty when none).
    #[serde(with = "super::ids::opt_event_id")]
    pub event_id: Option<EventId>,
    /// The round number (0 when none).
    pub round: u32,
    /// The board number within the round (0 when none).
    pub board: u32,
}

impl Pairing {
    /// Highest accepted round and board number.
    pub const MAX_NUMBER: u32 = 100_000;

    /// Validates a pairing taken from a request; an empty `event_id` means
    /// the game belongs to no event.
    pub fn parse(event_id: &str, round: u32, board: u32) -> Result<Self, FieldError> {
        for (field, value) in [("round", round), ("board", board)] {
            if value > Self::MAX_NUMBER {
                return Err(FieldError::new(
                    field,
                    format!("must be at most {}", Self::MAX_NUMBER),
                ));
            }
        }
        Ok(Self {
            event_id: EventId::parse_optional(event_id)?,
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

/// Where a new game starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPosition {
    /// The standard starting position.
    Standard,
    /// A position given in FEN.
    Fen(String),
    /// A Chess960 starting position by number (0 to 959).
    Chess960(u32),
}

/// A validated request to create a game.
#[derive(Clone, Debug)]
pub struct NewGame {
    white: Player,
    black: Player,
    variant: Variant,
    start: Chess,
    pairing: Pairing,
    rules: GameRules,
    timing: Option<Timing>,
    schedule: Schedule,
    scoring: ScoringSystem,
}

impl NewGame {
    /// Scores the game under `scoring` (classic 1/½/0 by default).
    pub fn with_scoring(mut self, scoring: ScoringSystem) -> Self {
        self.scoring = scoring;
        self
    }

    /// Makes the game timed, with an optional schedule.
    pub fn with_clock(mut self, timing: Option<Timing>, schedule: Schedule) -> Self {
        self.timing = timing;
        self.schedule = schedule;
        self
    }

    /// Validates the parts of a new game. A FEN start must be a legal
    /// position of the variant with a move to make; it is refused with the
    /// exact reason otherwise.
    pub fn new(
        white: Player,
        black: Player,
        variant: Variant,
        start: &StartPosition,
        pairing: Pairing,
        rules: GameRules,
    ) -> Result<Self, FieldError> {
        let start = match (variant, start) {
            (Variant::Standard, StartPosition::Standard) => Chess::default(),
            (Variant::Standard, StartPosition::Chess960(_)) => {
                return Err(FieldError::new(
                    "chess960_position",
                    "applies only to the Chess960 variant",
                ));
            }
            (Variant::Chess960, StartPosition::Standard) => {
                return Err(FieldError::new(
                    "chess960_position",
                    "is required for a Chess960 game without an initial_fen",
                ));
            }
            (Variant::Chess960, &StartPosition::Chess960(number)) => {
                let fen = chess960_fen(number)?;
                parse_start(&fen, variant)?
            }
            (_, StartPosition::Fen(fen)) => parse_start(fen, variant)?,
        };
        Ok(Self {
            white,
            black,
            variant,
            start,
            pairing,
            rules,
            timing: None,
            schedule: Schedule::default(),
            scoring: ScoringSystem::default(),
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
            // No event hashes as the empty string it used to be stored as,
            // so a retried request keeps its fingerprint.
            self.pairing.event_id.as_ref().map_or("", EventId::as_str),
            &self.pairing.round.to_string(),
            &self.pairing.board.to_string(),
            &format!("{:?}", self.variant),
            &format!("{:?}", self.rules),
            &format!("{:?}", self.timing),
            &format!("{:?}", self.schedule),
            &format!("{:?}", self.scoring),
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

fn parse_start(text: &str, variant: Variant) -> Result<Chess, FieldError> {
    let fen: Fen = text
        .trim()
        .parse()
        .map_err(|err| FieldError::new("initial_fen", format!("is not valid FEN: {err}")))?;
    let pos: Chess = fen
        .into_position(variant.castling_mode())
        .map_err(|err| FieldError::new("initial_fen", format!("is not a legal position: {err}")))?;
    if let Some(ending) = automatic_ending(&pos, &Repetition::starting_at(&pos)) {
        return Err(FieldError::new(
            "initial_fen",
            format!(
                "is a finished position ({}); a game must start with a move to play",
                ending.termination.describe()
            ),
        ));
    }
    Ok(pos)
}

/// Where a game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    /// Moves are being played.
    Active,
    /// The game has a result.
    Finished,
    /// The game was called off before both players moved: no result.
    Aborted,
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
/// live in the event log, and the repetition history holds only the
/// positions since the last pawn move or capture.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "GameRecord", into = "GameRecord")]
pub struct Game {
    pub(super) id: GameId,
    pub(super) version: u64,
    pub(super) created_at: Timestamp,
    pub(super) updated_at: Timestamp,
    pub(super) white: Player,
    pub(super) black: Player,
    pub(super) pairing: Pairing,
    pub(super) variant: Variant,
    pub(super) rules: GameRules,
    pub(super) initial_fen: String,
    pub(super) position: Chess,
    pub(super) ply: Ply,
    pub(super) result: Option<GameResult>,
    pub(super) aborted_by: Option<Color>,
    pub(super) draw_offer: Option<Color>,
    pub(super) repetition: Repetition,
    pub(super) clock: Option<Clock>,
    pub(super) schedule: Schedule,
    pub(super) scoring: ScoringSystem,
    pub(super) seats: SeatHashes,
    pub(super) fingerprint: String,
}

/// The stored form of a [`Game`]: the position as FEN, read back in the
/// game's variant.
#[derive(Serialize, Deserialize)]
struct GameRecord {
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

impl From<Game> for GameRecord {
    fn from(game: Game) -> Self {
        Self {
            position: fen_of(&game.position),
            id: game.id,
            version: game.version,
            created_at: game.created_at,
            updated_at: game.updated_at,
            white: game.white,
            black: game.black,
            pairing: game.pairing,
            variant: game.variant,
            rules: game.rules,
            initial_fen: game.initial_fen,
            ply: game.ply,
            result: game.result,
            aborted_by: game.aborted_by,
            draw_offer: game.draw_offer,
            repetition: game.repetition,
            clock: game.clock,
            schedule: game.schedule,
            scoring: game.scoring,
            seats: game.seats,
            fingerprint: game.fingerprint,
        }
    }
}

impl TryFrom<GameRecord> for Game {
    type Error = String;

    fn try_from(record: GameRecord) -> Result<Self, Self::Error> {
        let fen: Fen = record
            .position
            .parse()
            .map_err(|err| format!("stored position: {err}"))?;
        let position = fen
            .into_position(record.variant.castling_mode())
            .map_err(|err| format!("stored position: {err}"))?;
        Ok(Self {
            id: record.id,
            version: record.version,
            created_at: record.created_at,
            updated_at: record.updated_at,
            white: record.white,
            black: record.black,
            pairing: record.pairing,
            variant: record.variant,
            rules: record.rules,
            initial_fen: record.initial_fen,
            position,
            ply: record.ply,
            result: record.result,
            aborted_by: record.aborted_by,
            draw_offer: record.draw_offer,
            repetition: record.repetition,
            clock: record.clock,
            schedule: record.schedule,
            scoring: record.scoring,
            seats: record.seats,
            fingerprint: record.fingerprint,
        })
    }
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
        let clock = new.timing.clone().map(|timing| {
            let running = (!timing.clock_starts_after_first_moves).then(|| new.start.turn());
            let starts_at = new.schedule.scheduled_start.unwrap_or(now);
            Clock::new(timing.white, timing.black, running, starts_at)
        });
        let game = Game {
            id,
            version: 1,
            created_at: now,
            updated_at: now,
            white: new.white.clone(),
            black: new.black.clone(),
            pairing: new.pairing.clone(),
            variant: new.variant,
            rules: new.rules,
            initial_fen: initial_fen.clone(),
            repetition: Repetition::starting_at(&new.start),
            position: new.start,
            ply: Ply::START,
            result: None,
            aborted_by: None,
            draw_offer: None,
            clock,
            schedule: new.schedule,
            scoring: new.scoring,
            seats,
            fingerprint,
        };
        let event = GameEvent {
            version: 1,
            at: now,
            clock: game.clock.as_ref().map(|clock| clock.view(now)),
            kind: EventKind::GameCreated {
                white: new.white,
                black: new.black,
                initial_fen,
                pairing: new.pairing,
                variant: new.variant,
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
    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// The regulations the game is played under.
    pub fn rules(&self) -> GameRules {
        self.rules
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
    /// Who aborted the game, if it was aborted.
    pub fn aborted_by(&self) -> Option<Color> {
        self.aborted_by
    }
    /// The side whose draw offer is pending, if any.
    pub fn draw_offer(&self) -> Option<Color> {
        self.draw_offer
    }
    /// Whether the game is being played, over, or aborted.
    pub fn status(&self) -> GameStatus {
        if self.result.is_some() {
            GameStatus::Finished
        } else if self.aborted_by.is_some() {
            GameStatus::Aborted
        } else {
            GameStatus::Active
        }
    }
    /// Half-moves since the last pawn move or capture.
    pub fn halfmove_clock(&self) -> u32 {
        self.position.halfmoves()
    }
    /// How often the current position has appeared (FIDE 9.2.3 identity).
    pub fn repetition_count(&self) -> usize {
        self.repetition.current_count()
    }
    /// Whether the player to move may claim a draw by threefold repetition
    /// on the current position.
    pub fn can_claim_threefold(&self) -> bool {
        self.status() == GameStatus::Active && self.repetition.current_count() >= THREEFOLD
    }
    /// Whether the player to move may claim a draw under the fifty-move rule
    /// on the current position.
    pub fn can_claim_fifty_moves(&self) -> bool {
        self.status() == GameStatus::Active && self.position.halfmoves() >= FIFTY_MOVES
    }
    /// The digest of the request that created the game.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
    /// The token hashes of the seats.
    pub fn seats(&self) -> SeatHashes {
        self.seats
    }
    /// The legal moves in UCI (the variant's castling notation); none once
    /// the game is over.
    pub fn legal_moves_uci(&self) -> Vec<String> {
        if self.status() != GameStatus::Active {
            return Vec::new();
        }
        let mode = self.variant.castling_mode();
        self.position
            .legal_moves()
            .iter()
            .map(|m| UciMove::from_move(*m, mode).to_string())
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

    /// Plays `text` for `seat`, which chose it at `ply`; with `offer_draw`
    /// the seat offers a draw after the move.
    ///
    /// A move for a ply other than the current one is refused as
    /// [`Rejection::StalePly`]; [`Game::confirm_retry`] tells whether it is
    /// a harmless repeat.
    pub fn play_move(
        &self,
        seat: Color,
        ply: Ply,
        text: &str,
        offer_draw: bool,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        self.ensure_turn(seat, ply)?;
        self.ensure_clock_allows(now)?;
        if offer_draw && let Some(reason) = self.rules.draw_offer_refusal(ply.next()) {
            return Err(Rejection::DrawOfferNotAllowed { reason });
        }
        let m = parse_move(&self.position, self.variant.castling_mode(), text)?;
        let mut next = self.clone();
        let mut kinds = Vec::new();
        next.apply_move(m, now, &mut kinds);
        if offer_draw && next.status() == GameStatus::Active && next.draw_offer.is_none() {
            next.draw_offer = Some(seat);
            kinds.push(EventKind::DrawOffered { by: seat });
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

    /// Resigns the game for `seat` (FIDE 5.1.2): the opponent wins, unless
    /// the opponent cannot checkmate by any series of legal moves (decided
    /// by a full helpmate search), in which case the game is drawn.
    pub fn resign(&self, seat: Color, now: Timestamp) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        let outcome = match dead_position::can_checkmate(&self.position, !seat) {
            Mating::Impossible => Outcome::Draw,
            Mating::Possible | Mating::Undecided => Outcome::win_for(!seat),
        };
        let mut next = self.clone();
        let mut kinds = Vec::new();
        next.finish(
            GameResult {
                outcome,
                termination: Termination::Resignation,
            },
            &mut kinds,
        );
        Ok(next.commit(kinds, now))
    }

    /// Calls the game off for `seat`: allowed only before both players have
    /// made their first move. An aborted game has no result.
    pub fn abort(&self, seat: Color, now: Timestamp) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        if self.ply.count() >= 2 {
            return Err(Rejection::AbortTooLate);
        }
        let mut next = self.clone();
        next.aborted_by = Some(seat);
        next.draw_offer = None;
        Ok(next.commit(vec![EventKind::GameAborted { by: seat }], now))
    }

    pub(super) fn ensure_active(&self) -> Result<(), Rejection> {
        match self.status() {
            GameStatus::Active => Ok(()),
            GameStatus::Finished => Err(Rejection::GameOver),
            GameStatus::Aborted => Err(Rejection::GameAborted),
        }
    }

    /// Checks that `seat`, acting at `ply`, is the side to move in an
    /// active game at that ply.
    pub(super) fn ensure_turn(&self, seat: Color, ply: Ply) -> Result<(), Rejection> {
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
        Ok(())
    }

    /// Plays a legal move: a pending offer by the opponent is declined by
    /// it, the position and its history advance, and the position's own
    /// ending (if any) ends the game.
    pub(super) fn apply_move(&mut self, m: Move, now: Timestamp, kinds: &mut Vec<EventKind>) {
        let mover = self.position.turn();
        if self.draw_offer == Some(!mover) {
            self.draw_offer = None;
            kinds.push(EventKind::DrawDeclined { by: mover });
        }
        let (mut record, after) = MoveRecord::play(
            &self.position,
            m,
            self.variant.castling_mode(),
            self.ply,
            now,
        );
        record.time = self.clock_move(now);
        self.position = after;
        self.ply = self.ply.next();
        self.repetition.record(&self.position);
        kinds.push(EventKind::MoveMade {
            record,
            side_to_move: self.position.turn(),
            ply: self.ply,
            in_check: self.position.is_check(),
        });
        if let Some(result) = automatic_ending(&self.position, &self.repetition) {
            self.finish(result, kinds);
        }
    }

    /// Ends the game with `result` as the scoring system reports it (an
    /// Armageddon draw is a win for Black); any pending offer lapses.
    pub(super) fn finish(&mut self, result: GameResult, kinds: &mut Vec<EventKind>) {
        let result = self.scoring.report(result);
        self.result = Some(result);
        self.draw_offer = None;
        kinds.push(EventKind::GameEnded {
            result,
            score: Some(self.scoring.score(result)),
        });
    }

    /// How the game is scored.
    pub fn scoring(&self) -> ScoringSystem {
        self.scoring
    }

    /// Both players' points, once the game has a result.
    pub fn score(&self) -> Option<Score> {
        self.result.map(|result| self.scoring.score(result))
    }

    /// Numbers the events after the current version and stamps the state.
    pub(super) fn commit(mut self, kinds: Vec<EventKind>, now: Timestamp) -> Decision {
        let mut events = Vec::with_capacity(kinds.len());
        let clock = self.clock.as_ref().map(|clock| clock.view(now));
        for kind in kinds {
            self.version += 1;
            events.push(GameEvent {
                version: self.version,
                at: now,
                kind,
                clock,
            });
        }
        self.updated_at = now;
        Decision::Changed {
            game: Box::new(self),
            events,
        }
    }

    /// Whether the side to move is in check in a game still being played.
    pub fn in_check(&self) -> bool {
        self.status() == GameStatus::Active && self.position.is_check()
    }
}

fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
#[path = "game_tests.rs"]
mod tests;
