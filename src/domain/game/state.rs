//! A game and the commands that change it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, EnPassantMode, Move, Position, fen::Fen, uci::UciMove};

use super::chess_move::{fen_text, uci_text};

use crate::domain::{
    AdjudicationNote, AdminRequest, Board, Clock, Departures, DrawRequests, EventKind, GameEvent,
    GameId, GameResult, GameRules, LastClaim, MoveRecord, MoveReport, NewGame, Outcome, Pairing,
    Player, Ply, Presence, Rejection, ReportedLag, Score, ScoringSystem, SeatHashes, Termination,
    Timestamp, TokenHash, Variant,
    game::dead_position::DeadProof,
    game::endings::{FIFTY_MOVES, THREEFOLD, automatic_ending},
    game::serde_chess,
    parse_move,
};

/// The standard starting position in FEN.
pub(crate) const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Where a game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    /// Created, and waiting for its scheduled start (only
    /// [`Game::status_at`] says so; the rules treat it as active and refuse
    /// moves until the start).
    Pending,
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

/// Where a game stands: in play (with a pending draw offer, if any),
/// finished with a result, or aborted. A finished or aborted game has no
/// draw offer, and a game is never both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(in crate::domain) enum Progress {
    /// Moves are being played.
    Active {
        /// The side whose draw offer is pending.
        #[serde(with = "serde_chess::opt_color", default)]
        draw_offer: Option<Color>,
    },
    /// The game has a result.
    Finished {
        /// The result on the board.
        result: GameResult,
        /// The seat whose own action ended the game (a resignation, an
        /// accepted offer, an upheld claim), so that its retry is known.
        #[serde(with = "serde_chess::opt_color", default)]
        by: Option<Color>,
        /// Why the result awaits an arbiter's review, when it rests on an
        /// analysis that did not decide; an arbiter's ruling clears it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        review: Option<AdjudicationNote>,
    },
    /// The game was called off before both players moved.
    Aborted {
        /// Who aborted it.
        #[serde(with = "serde_chess::color")]
        by: Color,
    },
}

/// The complete persistent state of one game: its setup, fixed at
/// creation, and what has happened since. Its size is bounded whatever the
/// game's length (see [`Board`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Game {
    id: GameId,
    version: u64,
    created_at: Timestamp,
    updated_at: Timestamp,
    /// Shared, not copied, by the game's copies: it never changes, and a
    /// move copies the game it plays on.
    setup: Arc<NewGame>,
    seats: SeatHashes,
    board: Board,
    clock: Option<Clock>,
    progress: Progress,
    /// The latest arbiter requests applied, oldest first (at most
    /// [`crate::domain::game::admin_request::REMEMBERED_REQUESTS`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    admin_requests: Vec<AdminRequest>,
    /// The latest draw claim and its ruling, for recognising its repeat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_claim: Option<LastClaim>,
    /// How many draw offers each player made and how many of their claims
    /// were refused, against the caps of [`crate::domain::game::draws`].
    #[serde(default, skip_serializing_if = "DrawRequests::is_empty")]
    draw_requests: DrawRequests,
    /// When the game ended (a flag: when it fell), so that its clocks stay
    /// as they were then, whatever is committed later (a correction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ended_at: Option<Timestamp>,
    /// The idempotency digest of a game stored before setups were kept
    /// (see [`crate::domain::stored::encoding`]); `None` for every game created since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    legacy_fingerprint: Option<String>,
    /// The players who checked in (a move is presence too, but the board
    /// records that).
    #[serde(default, skip_serializing_if = "Presence::is_empty")]
    checked_in: Presence,
    /// When an arbiter started the game (see [`Game::start`]), which
    /// replaces any scheduled start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    started_at: Option<Timestamp>,
    /// Who the platform reported gone, and since when.
    #[serde(default, skip_serializing_if = "Departures::is_empty")]
    departures: Departures,
}

/// The encoded setup of an earlier version of a game, and that version.
#[derive(Clone, Copy, Debug)]
pub struct EncodedSetup<'a> {
    /// The earlier version.
    pub game: &'a Game,
    /// Its setup, as [`Game::write_named`] wrote it.
    pub bytes: &'a [u8],
}

impl Game {
    /// Writes the game as MessagePack with its fields named, the bytes
    /// `rmp_serde::encode::write_named` writes (the live state's schema
    /// checks it on every write in debug builds), and returns where its
    /// setup's bytes are in `out`. A setup never changes, and a game's
    /// versions share it: when `earlier` is a version sharing this one's,
    /// its bytes are copied rather than made again (a setup is about a
    /// third of a state, and a move writes one).
    ///
    /// The fields are those of the derived `Serialize`, in its order, each
    /// optional one left out as its `skip_serializing_if` says.
    pub(in crate::domain) fn write_named(
        &self,
        out: &mut Vec<u8>,
        earlier: Option<EncodedSetup<'_>>,
    ) -> Result<std::ops::Range<usize>, rmp_serde::encode::Error> {
        fn named<T: Serialize + ?Sized>(
            out: &mut Vec<u8>,
            value: &T,
        ) -> Result<(), rmp_serde::encode::Error> {
            value.serialize(&mut rmp_serde::Serializer::new(out).with_struct_map())
        }
        fn field<T: Serialize + ?Sized>(
            out: &mut Vec<u8>,
            name: &str,
            value: &T,
        ) -> Result<(), rmp_serde::encode::Error> {
            named(out, name)?;
            named(out, value)
        }
        // The optional fields, which come last: written first, aside, to
        // count them for the map's header.
        let (mut optional, mut tail) = (0, Vec::new());
        macro_rules! optional {
            ($field:ident if $present:expr) => {
                if $present {
                    optional += 1;
                    field(&mut tail, stringify!($field), &self.$field)?;
                }
            };
        }
        optional!(admin_requests if !self.admin_requests.is_empty());
        optional!(last_claim if self.last_claim.is_some());
        optional!(draw_requests if !self.draw_requests.is_empty());
        optional!(ended_at if self.ended_at.is_some());
        optional!(legacy_fingerprint if self.legacy_fingerprint.is_some());
        optional!(checked_in if !self.checked_in.is_empty());
        optional!(started_at if self.started_at.is_some());
        optional!(departures if !self.departures.is_empty());
        // The map's header, as a struct of that many fields begins (a map
        // of known length writes nothing at its end).
        drop(serde::Serializer::serialize_map(
            &mut rmp_serde::Serializer::new(&mut *out).with_struct_map(),
            Some(9 + optional),
        )?);
        field(out, "id", &self.id)?;
        field(out, "version", &self.version)?;
        field(out, "created_at", &self.created_at)?;
        field(out, "updated_at", &self.updated_at)?;
        named(out, "setup")?;
        let start = out.len();
        match earlier {
            Some(earlier) if Arc::ptr_eq(&earlier.game.setup, &self.setup) => {
                out.extend_from_slice(earlier.bytes);
            }
            _ => named(out, &self.setup)?,
        }
        let setup = start..out.len();
        field(out, "seats", &self.seats)?;
        field(out, "board", &self.board)?;
        field(out, "clock", &self.clock)?;
        field(out, "progress", &self.progress)?;
        out.extend_from_slice(&tail);
        Ok(setup)
    }

    /// Creates a game at version 1, with its `GameCreated` event.
    pub fn create(
        id: GameId,
        new: NewGame,
        seats: SeatHashes,
        now: Timestamp,
    ) -> (Game, GameEvent) {
        let clock = new.timing().map(|timing| {
            // A game that waits for an arbiter's start has no clock running
            // until then.
            let running = (!timing.clock_starts_after_first_moves && !new.schedule().awaits_start)
                .then(|| new.start().turn());
            let starts_at = new.schedule().scheduled_start.unwrap_or(now);
            Clock::new(
                timing.white.clone(),
                timing.black.clone(),
                running,
                starts_at,
            )
            .with_lag_quota(new.lag_compensation().map_or(0, |p| p.initial_quota_ms()))
        });
        let game = Game {
            id,
            version: 1,
            created_at: now,
            updated_at: now,
            board: Board::new(new.start().clone()),
            setup: Arc::new(new),
            seats,
            clock,
            progress: Progress::Active { draw_offer: None },
            admin_requests: Vec::new(),
            last_claim: None,
            draw_requests: DrawRequests::default(),
            ended_at: None,
            legacy_fingerprint: None,
            checked_in: Presence::NOBODY,
            started_at: None,
            departures: Departures::default(),
        };
        let event = GameEvent {
            version: 1,
            at: now,
            clock: game.clock.as_ref().map(|clock| clock.view(now)),
            kind: EventKind::GameCreated {
                setup: Box::new(NewGame::clone(&game.setup)),
                by: None,
            },
            request: None,
        };
        (game, event)
    }

    /// A game as stored by a release that kept no setup: everything the
    /// game needs is there, and `fingerprint` stands for the creation
    /// request when a retry has to be recognised.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::domain) fn restore_legacy(
        id: GameId,
        (version, created_at, updated_at): (u64, Timestamp, Timestamp),
        setup: NewGame,
        seats: SeatHashes,
        board: Board,
        clock: Option<Clock>,
        progress: Progress,
        fingerprint: String,
    ) -> Self {
        Self {
            id,
            version,
            created_at,
            updated_at,
            setup: Arc::new(setup),
            seats,
            board,
            clock,
            progress,
            admin_requests: Vec::new(),
            last_claim: None,
            draw_requests: DrawRequests::default(),
            ended_at: None,
            legacy_fingerprint: Some(fingerprint),
            checked_in: Presence::NOBODY,
            started_at: None,
            departures: Departures::default(),
        }
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
    /// Everything fixed when the game was created.
    pub fn setup(&self) -> &NewGame {
        &self.setup
    }
    /// The white player.
    pub fn white(&self) -> &Player {
        self.setup.white()
    }
    /// The black player.
    pub fn black(&self) -> &Player {
        self.setup.black()
    }
    /// Where the game belongs in its event.
    pub fn pairing(&self) -> &Pairing {
        self.setup.pairing()
    }
    /// The variant.
    pub fn variant(&self) -> Variant {
        self.setup.variant()
    }
    /// The regulations the game is played under.
    pub fn rules(&self) -> GameRules {
        self.setup.rules()
    }
    /// The starting position in FEN.
    pub fn initial_fen(&self) -> String {
        self.setup.initial_fen()
    }
    /// The board: position, half-moves played, repetition history.
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// The last move played, if any.
    pub fn last_move(&self) -> Option<&MoveRecord> {
        self.board.last_move()
    }
    /// The current position.
    pub fn position(&self) -> &Chess {
        self.board.position()
    }
    /// The current position in FEN.
    pub fn fen(&self) -> String {
        fen_of(self.board.position())
    }
    /// Half-moves played.
    pub fn ply(&self) -> Ply {
        self.board.ply()
    }
    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }
    /// The result, once the game has ended.
    pub fn result(&self) -> Option<GameResult> {
        match self.progress {
            Progress::Finished { result, .. } => Some(result),
            _ => None,
        }
    }
    /// Why the result awaits an arbiter's review, if it does: a flag ruled
    /// on an undecided helpmate search (FIDE 6.9). Cleared by an arbiter's
    /// ruling on the result.
    pub fn review(&self) -> Option<AdjudicationNote> {
        match self.progress {
            Progress::Finished { review, .. } => review,
            _ => None,
        }
    }
    /// Who aborted the game, if it was aborted.
    pub fn aborted_by(&self) -> Option<Color> {
        match self.progress {
            Progress::Aborted { by } => Some(by),
            _ => None,
        }
    }
    /// The side whose draw offer is pending, if any.
    pub fn draw_offer(&self) -> Option<Color> {
        match self.progress {
            Progress::Active { draw_offer } => draw_offer,
            _ => None,
        }
    }
    /// Whether the game is being played, over, or aborted.
    pub fn status(&self) -> GameStatus {
        match self.progress {
            Progress::Active { .. } => GameStatus::Active,
            Progress::Finished { .. } => GameStatus::Finished,
            Progress::Aborted { .. } => GameStatus::Aborted,
        }
    }
    /// How many draw offers and refused claims each player has made.
    pub fn draw_requests(&self) -> &DrawRequests {
        &self.draw_requests
    }

    /// Whether the game has ended (with a result, or aborted).
    pub fn is_over(&self) -> bool {
        !matches!(self.progress, Progress::Active { .. })
    }
    /// Where the game is as of `now`: [`GameStatus::Pending`] until it
    /// starts (its scheduled start, or an arbiter's start when it awaits
    /// one), [`Game::status`] otherwise.
    pub fn status_at(&self, now: Timestamp) -> GameStatus {
        let before_start = match self.start_time() {
            Some(start) => now < start,
            None => self.awaits_start(),
        };
        match self.status() {
            GameStatus::Active if before_start && self.ply() == Ply::START => GameStatus::Pending,
            status => status,
        }
    }
    /// Half-moves since the last pawn move or capture.
    pub fn halfmove_clock(&self) -> u32 {
        self.position().halfmoves()
    }
    /// How often the current position has appeared (FIDE 9.2.3 identity).
    pub fn repetition_count(&self) -> usize {
        self.board.repetition().current_count()
    }
    /// Whether the player to move may claim a draw by threefold repetition
    /// on the current position.
    pub fn can_claim_threefold(&self) -> bool {
        self.status() == GameStatus::Active && self.repetition_count() >= THREEFOLD
    }
    /// Whether the player to move may claim a draw under the fifty-move rule
    /// on the current position.
    pub fn can_claim_fifty_moves(&self) -> bool {
        self.status() == GameStatus::Active && self.halfmove_clock() >= FIFTY_MOVES
    }
    /// Whether `request` asks for exactly this game, so that a creation
    /// request repeated with the same idempotency key gets it back.
    pub fn was_created_by(&self, request: &NewGame) -> bool {
        match &self.legacy_fingerprint {
            Some(fingerprint) => {
                *fingerprint == crate::domain::game::setup::legacy_fingerprint(request)
            }
            // `Chess` equality is position identity; the FEN also compares
            // the move counters a request may set.
            None => {
                *self.setup == *request && fen_of(self.setup.start()) == fen_of(request.start())
            }
        }
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
        let mode = self.variant().castling_mode();
        self.position()
            .legal_moves()
            .iter()
            .map(|m| uci_text(UciMove::from_move(*m, mode)))
            .collect()
    }

    /// The seat whose token hashes to `hash`, compared in constant time.
    pub fn seat_of(&self, hash: &TokenHash) -> Option<Color> {
        self.seats.seat_of(hash)
    }

    /// Plays `text` for `seat`, which chose it at `ply`; with `offer_draw`
    /// the seat offers a draw after the move. No lag is reported (see
    /// [`Game::play_move_with_lag`]).
    ///
    /// Of the dead positions, only those with too little material end the
    /// game here: see [`Game::play_move_given`] for the others.
    pub fn play_move(
        &self,
        seat: Color,
        ply: Ply,
        text: &str,
        offer_draw: bool,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        self.play_move_given(seat, ply, text, offer_draw, ReportedLag::NONE, now, None)
    }

    /// Plays `text` for `seat`, which chose it at `ply`, with the network
    /// `lag` the platform measured for it (or a whole [`MoveReport`],
    /// which a game with a fair-play record keeps); with `offer_draw` the seat
    /// offers a draw after the move.
    ///
    /// A game with a lag-compensation policy credits the lag back within
    /// the mover's quota (see `domain::game::lag`); a game without one ignores
    /// it. The move is judged against the flag first, uncompensated: a
    /// move arriving after the flag fell is refused whatever its lag.
    ///
    /// A move for a past ply that repeats this seat's latest move (a client
    /// retry) changes nothing, whatever lag it reports
    /// ([`Game::confirm_retry`]); any other move for a ply other than the
    /// current one is refused as [`Rejection::StalePly`].
    pub fn play_move_with_lag(
        &self,
        seat: Color,
        ply: Ply,
        text: &str,
        offer_draw: bool,
        lag: impl Into<MoveReport>,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        self.play_move_given(seat, ply, text, offer_draw, lag, now, None)
    }

    /// Like [`Game::play_move_with_lag`], given a proof (when the caller
    /// has one) that the position the move leads to is dead (FIDE 5.2.2):
    /// the move then ends the game as drawn. The analysis that makes such
    /// a proof may take far longer than a move, so the caller runs it on
    /// the position the move led to without one, within its own time
    /// budget, and decides again with the proof.
    #[allow(clippy::too_many_arguments)]
    pub fn play_move_given(
        &self,
        seat: Color,
        ply: Ply,
        text: &str,
        offer_draw: bool,
        report: impl Into<MoveReport>,
        now: Timestamp,
        dead: Option<&DeadProof>,
    ) -> Result<Decision, Rejection> {
        if ply < self.ply() {
            // A move for a past ply is either a retry of this seat's latest
            // move or stale.
            return self.confirm_retry(seat, ply, text);
        }
        self.ensure_turn(seat, ply)?;
        self.ensure_clock_allows(now)?;
        if offer_draw && let Some(reason) = self.rules().draw_offer_refusal(ply.next()) {
            return Err(Rejection::DrawOfferNotAllowed { reason });
        }
        if offer_draw {
            self.draw_requests.ensure_may_offer(seat)?;
        }
        let m = parse_move(self.position(), self.variant().castling_mode(), text)?;
        let mut next = self.clone();
        let mut kinds = Vec::new();
        let report = report.into();
        let recorded = self.setup().records_fair_play().then_some(report);
        next.apply_move(m, report.lag, recorded, now, dead, &mut kinds);
        if offer_draw && next.status() == GameStatus::Active && next.draw_offer().is_none() {
            next.set_draw_offer(Some(seat));
            kinds.push(EventKind::DrawOffered { by: seat });
        }
        Ok(next.commit(kinds, now))
    }

    /// Decides whether a move refused as stale repeats this seat's latest
    /// move (a client retry, perhaps after the opponent answered): then
    /// nothing changes. Older moves are not looked up, so the answer costs
    /// nothing however long the game.
    pub fn confirm_retry(&self, seat: Color, ply: Ply, text: &str) -> Result<Decision, Rejection> {
        let stale = Rejection::StalePly {
            requested: ply,
            current: self.ply(),
        };
        if ply >= self.ply() {
            return Err(stale);
        }
        match self.board.recent_moves().find(|record| record.ply == ply) {
            Some(record) if record.color == seat && record.is_written_as(text) => {
                Ok(Decision::Unchanged)
            }
            _ => Err(stale),
        }
    }

    /// Resigns the game for `seat` (FIDE 5.1.2): the opponent wins, even one
    /// who could not checkmate by any series of legal moves, and under every
    /// scoring a resignation counts as the resigning player's loss
    /// (Armageddon included: a draw there would be Black's win).
    ///
    /// A repeat by the seat that resigned changes nothing.
    pub fn resign(&self, seat: Color, now: Timestamp) -> Result<Decision, Rejection> {
        if self.ended_by(Termination::Resignation, Some(seat)) {
            return Ok(Decision::Unchanged);
        }
        self.ensure_active()?;
        let outcome = Outcome::win_for(!seat);
        let mut next = self.clone();
        let mut kinds = Vec::new();
        next.finish(
            GameResult {
                outcome,
                termination: Termination::Resignation,
            },
            Some(seat),
            &mut kinds,
        );
        Ok(next.commit(kinds, now))
    }

    /// Ends the game as drawn by a dead position (FIDE 5.2.2) on a proof
    /// that its position at the proof's ply was dead, made after that
    /// position arose (by an analysis that did not fit in the move's time
    /// budget). A dead position stays dead whatever is played from it, so
    /// the proof holds at any later ply: the game ends now, drawn, as it
    /// would have when the position arose.
    ///
    /// A proof that does not apply changes nothing: the game is already
    /// over (it ended otherwise first), the proof is about a ply this game
    /// has not reached, or the game's position at that ply is another one.
    pub fn rule_dead_position(&self, proof: &DeadProof, now: Timestamp) -> Decision {
        let applies = match proof.ply().cmp(&self.ply()) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Equal => proof.proves(self.position(), self.ply()),
            std::cmp::Ordering::Greater => false,
        };
        if !applies || self.ensure_active().is_err() {
            return Decision::Unchanged;
        }
        let mut next = self.clone();
        let mut kinds = Vec::new();
        next.finish(
            GameResult {
                outcome: Outcome::Draw,
                termination: Termination::DeadPosition,
            },
            None,
            &mut kinds,
        );
        next.commit(kinds, now)
    }

    /// Calls the game off for `seat`: allowed only before both players have
    /// made their first move. An aborted game has no result.
    /// A repeat by the seat that aborted it changes nothing.
    pub fn abort(&self, seat: Color, now: Timestamp) -> Result<Decision, Rejection> {
        if self.aborted_by() == Some(seat) {
            return Ok(Decision::Unchanged);
        }
        self.ensure_active()?;
        if self.rules().no_abort {
            return Err(Rejection::AbortNotAllowed);
        }
        if self.ply().count() >= 2 {
            return Err(Rejection::AbortTooLate);
        }
        let mut next = self.clone();
        next.progress = Progress::Aborted { by: seat };
        Ok(next.commit(vec![EventKind::GameAborted { by: seat }], now))
    }

    /// Declares `seat` present at the board (FIDE 6.7.1), before or after
    /// the scheduled start: a player who has checked in does not lose when
    /// the default time runs out. A seat already present (checked in, or
    /// having moved) changes nothing; a game that is over refuses it.
    pub fn check_in(&self, seat: Color, now: Timestamp) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        if self.present().contains(seat) {
            return Ok(Decision::Unchanged);
        }
        let mut next = self.clone();
        next.checked_in = next.checked_in.with(seat);
        Ok(next.commit(vec![EventKind::PlayerCheckedIn { color: seat }], now))
    }

    /// When the game starts or started: an arbiter's start, else the
    /// scheduled one; `None` when it started at creation, or awaits an
    /// arbiter's start.
    pub fn start_time(&self) -> Option<Timestamp> {
        self.started_at.or(self.schedule().scheduled_start)
    }

    /// When an arbiter started the game, if one did.
    pub fn started_at(&self) -> Option<Timestamp> {
        self.started_at
    }

    /// Whether the game still waits for an arbiter to start it: nothing
    /// may be played and no clock runs until then.
    pub fn awaits_start(&self) -> bool {
        self.schedule().awaits_start && self.started_at.is_none()
    }

    pub(in crate::domain) fn set_started_at(&mut self, at: Timestamp) {
        self.started_at = Some(at);
    }

    /// Who the platform reported gone, and since when.
    pub fn departures(&self) -> Departures {
        self.departures
    }

    /// Records `color` gone since `at` (`None`: connected again).
    pub(in crate::domain) fn set_departure(&mut self, color: Color, at: Option<Timestamp>) {
        self.departures = self.departures.with(color, at);
    }

    /// The players who checked in.
    pub fn checked_in(&self) -> Presence {
        self.checked_in
    }

    /// The players who have arrived at the board: checked in, or made a
    /// move (the side that moves first, once a move has been made; both
    /// once two have).
    pub fn present(&self) -> Presence {
        let first = self.setup.start().turn();
        let moved = match self.ply().count() {
            0 => Presence::NOBODY,
            1 => Presence::NOBODY.with(first),
            _ => Presence::NOBODY.with(first).with(!first),
        };
        self.checked_in.union(moved)
    }

    /// Whether the game ended with `termination`, by the action of `seat`
    /// when one is given.
    pub(in crate::domain) fn ended_by(
        &self,
        termination: Termination,
        seat: Option<Color>,
    ) -> bool {
        match self.progress {
            Progress::Finished { result, by, .. } => {
                result.termination == termination && seat.is_none_or(|seat| by == Some(seat))
            }
            _ => false,
        }
    }

    pub(in crate::domain) fn ensure_active(&self) -> Result<(), Rejection> {
        match self.status() {
            GameStatus::Active | GameStatus::Pending => Ok(()),
            GameStatus::Finished => Err(Rejection::GameOver),
            GameStatus::Aborted => Err(Rejection::GameAborted),
        }
    }

    /// Checks that `seat`, acting at `ply`, is the side to move in an
    /// active game at that ply.
    pub(in crate::domain) fn ensure_turn(&self, seat: Color, ply: Ply) -> Result<(), Rejection> {
        if ply != self.ply() {
            return Err(Rejection::StalePly {
                requested: ply,
                current: self.ply(),
            });
        }
        self.ensure_active()?;
        let to_move = self.side_to_move();
        if seat != to_move {
            return Err(Rejection::NotYourTurn { seat, to_move });
        }
        Ok(())
    }

    /// Plays a legal move, reported with `lag`: a pending offer by the
    /// opponent is declined by it, the clock is charged (and the lag
    /// compensated, under the game's policy), the position and its history
    /// advance, and the position's own ending (if any) ends the game. The
    /// move's record keeps `report` (in a game with a fair-play record).
    ///
    /// `dead` is a proof, when the caller has one, that the position the
    /// move leads to is dead; without one only material decides a dead
    /// position here (see [`automatic_ending`]).
    pub(in crate::domain) fn apply_move(
        &mut self,
        m: Move,
        lag: ReportedLag,
        report: Option<MoveReport>,
        now: Timestamp,
        dead: Option<&DeadProof>,
        kinds: &mut Vec<EventKind>,
    ) {
        let mover = self.side_to_move();
        // A player who moves is connected, whatever was reported.
        self.set_departure(mover, None);
        if self.draw_offer() == Some(!mover) {
            self.set_draw_offer(None);
            kinds.push(EventKind::DrawDeclined { by: mover });
        }
        let time = self.clock_move(lag, now);
        let record = self
            .board
            .play(m, self.variant().castling_mode(), now, time, report);
        kinds.push(EventKind::MoveMade {
            record,
            side_to_move: self.side_to_move(),
            ply: self.ply(),
            in_check: self.position().is_check(),
        });
        let proven_dead = dead.is_some_and(|proof| proof.proves(self.position(), self.ply()));
        if let Some(result) =
            automatic_ending(self.position(), self.board.repetition(), proven_dead)
        {
            self.finish(result, None, kinds);
        }
    }

    /// Makes `offer` the pending draw offer (`None`: no offer) of a game in
    /// play; a finished or aborted game has none to change.
    pub(in crate::domain) fn set_draw_offer(&mut self, offer: Option<Color>) {
        if let Progress::Active { draw_offer } = &mut self.progress {
            *draw_offer = offer;
        }
    }

    /// Ends the game with `result`, by the action of seat `by` (if a seat
    /// ended it); any pending offer lapses.
    pub(in crate::domain) fn finish(
        &mut self,
        result: GameResult,
        by: Option<Color>,
        kinds: &mut Vec<EventKind>,
    ) {
        self.end(result, by, None, kinds);
    }

    /// Ends the game with a `result` that awaits an arbiter's review for
    /// the reason `review` (when given), nobody's action having ended it.
    pub(in crate::domain) fn finish_for_review(
        &mut self,
        result: GameResult,
        review: Option<AdjudicationNote>,
        kinds: &mut Vec<EventKind>,
    ) {
        self.end(result, None, review, kinds);
    }

    /// Ends the game with `result`, by the action of seat `by` (if a seat
    /// ended it), awaiting an arbiter's review for the reason `review`
    /// (when given); any pending offer lapses.
    pub(in crate::domain) fn end(
        &mut self,
        result: GameResult,
        by: Option<Color>,
        review: Option<AdjudicationNote>,
        kinds: &mut Vec<EventKind>,
    ) {
        self.progress = Progress::Finished { result, by, review };
        kinds.push(EventKind::GameEnded {
            result,
            score: Some(self.scoring().score(result)),
            review,
        });
    }

    /// Puts an arbiter's `result` in force, whatever the game's state was;
    /// it needs no review.
    pub(in crate::domain) fn impose_result(&mut self, result: GameResult) {
        self.progress = Progress::Finished {
            result,
            by: None,
            review: None,
        };
    }

    /// The arbiter requests the game remembers, oldest first.
    pub(in crate::domain) fn admin_requests(&self) -> &[AdminRequest] {
        &self.admin_requests
    }

    /// Remembers an applied arbiter request, forgetting the oldest beyond
    /// the limit.
    pub(in crate::domain) fn remember_admin_request(&mut self, request: AdminRequest) {
        if self.admin_requests.len() == crate::domain::game::admin_request::REMEMBERED_REQUESTS {
            self.admin_requests.remove(0);
        }
        self.admin_requests.push(request);
    }

    /// The latest draw claim and its ruling.
    pub(in crate::domain) fn last_claim(&self) -> Option<&LastClaim> {
        self.last_claim.as_ref()
    }

    /// Remembers the latest draw claim.
    pub(in crate::domain) fn set_last_claim(&mut self, claim: LastClaim) {
        self.last_claim = Some(claim);
    }

    /// When the game ended, once it has (a game the first release stored
    /// does not know it).
    pub fn ended_at(&self) -> Option<Timestamp> {
        self.ended_at
    }

    /// Records that the game ended at `at` (before the commit that ends it:
    /// a flag ends it when it fell, not when that was noticed).
    pub(in crate::domain) fn set_ended_at(&mut self, at: Timestamp) {
        self.ended_at = Some(at);
    }

    /// The clock, in a timed game.
    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    /// The clock, for a command that changes it.
    pub(in crate::domain) fn clock_mut(&mut self) -> Option<&mut Clock> {
        self.clock.as_mut()
    }

    /// How the game is scored.
    pub fn scoring(&self) -> ScoringSystem {
        self.setup.scoring()
    }

    /// Both players' points, once the game has a result.
    pub fn score(&self) -> Option<Score> {
        self.result().map(|result| self.scoring().score(result))
    }

    /// Numbers the events after the current version and stamps the state.
    pub(in crate::domain) fn commit(mut self, kinds: Vec<EventKind>, now: Timestamp) -> Decision {
        if self.status() != GameStatus::Active && self.ended_at.is_none() {
            self.ended_at = Some(now);
        }
        let mut events = Vec::with_capacity(kinds.len());
        for kind in &kinds {
            self.draw_requests.count(kind);
        }
        // Once the game has ended its clocks stay as they were then.
        let clock_at = self.ended_at.map_or(now, |ended| ended.min(now));
        let clock = self.clock.as_ref().map(|clock| clock.view(clock_at));
        for kind in kinds {
            self.version += 1;
            events.push(GameEvent {
                version: self.version,
                at: now,
                kind,
                clock,
                request: None,
            });
        }
        self.updated_at = now;
        Decision::Changed {
            game: Box::new(self),
            events,
        }
    }

    /// Records that `seat` aborted the game (replaying its event).
    pub(in crate::domain) fn set_aborted(&mut self, seat: Color) {
        self.progress = Progress::Aborted { by: seat };
    }

    /// Records that `seat` checked in (replaying its event).
    pub(in crate::domain) fn set_checked_in(&mut self, seat: Color) {
        self.checked_in = self.checked_in.with(seat);
    }

    /// Stamps the game as [`Game::commit`] did when it committed `event`:
    /// its version and time, the draw requests it counts, and, for the
    /// event that ended the game, when it ended (the time its clocks were
    /// read at: a flag's fall).
    pub(in crate::domain) fn stamp_replayed(&mut self, event: &GameEvent) {
        self.draw_requests.count(&event.kind);
        if self.status() != GameStatus::Active && self.ended_at.is_none() {
            self.ended_at = Some(event.clock.map_or(event.at, |clock| clock.at));
        }
        self.version = event.version;
        self.updated_at = event.at;
    }

    /// Whether the side to move is in check in a game still being played.
    pub fn in_check(&self) -> bool {
        self.status() == GameStatus::Active && self.position().is_check()
    }
}

pub(in crate::domain) fn fen_of(pos: &Chess) -> String {
    fen_text(&Fen::from_position(pos, EnPassantMode::Legal))
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
