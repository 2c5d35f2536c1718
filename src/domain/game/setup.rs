//! The setup of a game: who plays, where it starts, and the regulations,
//! clocks, schedule and scoring it is played under.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use shakmaty::{Chess, fen::Fen};

use crate::domain::{
    BroadcastDelay, FieldError, GameRules, LagCompensation, Pairing, Player, Rejection, Repetition,
    RequestId, Schedule, ScoringSystem, Termination, Timing, Variant, chess960_fen,
    chess960_position_for, game::endings::automatic_ending, game::serde_chess,
};

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

/// A validated request to create a game: everything about a game that is
/// fixed when it is created. A game keeps it for its whole life, so a
/// repeated creation request is recognised by comparing the two.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewGame {
    white: Player,
    black: Player,
    variant: Variant,
    #[serde(with = "serde_chess::position")]
    start: Chess,
    pairing: Pairing,
    rules: GameRules,
    timing: Option<Timing>,
    schedule: Schedule,
    scoring: ScoringSystem,
    /// Left out of the stored form while live, so that games without a
    /// delay (every game stored before delays existed) keep their bytes.
    #[serde(default, skip_serializing_if = "BroadcastDelay::is_live")]
    broadcast_delay: BroadcastDelay,
    /// Lag compensation for online play; `None` (the default, and every
    /// game stored before it existed) ignores reported lag. Left out of the
    /// stored form while `None`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lag_compensation: Option<LagCompensation>,
    /// Whether the game keeps a fair-play record (see
    /// `domain::game::fair_play`). Left out of the stored form while
    /// false, as in every game stored before the record existed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    fair_play: bool,
}

impl StartPosition {
    /// The start a request asks for: `initial_fen` (blank for none) or a
    /// Chess960 position by number, not both. A Chess960 game that names
    /// neither starts from [`chess960_position_for`] the request's
    /// idempotency key; a standard one from the standard position.
    pub fn requested(
        variant: Variant,
        initial_fen: &str,
        chess960_position: Option<u32>,
        request_id: Option<&RequestId>,
    ) -> Result<Self, FieldError> {
        let fen = initial_fen.trim();
        Ok(match (variant, fen.is_empty(), chess960_position) {
            (_, false, Some(_)) => {
                return Err(FieldError::new(
                    "chess960_position",
                    "cannot be combined with initial_fen",
                ));
            }
            (_, true, Some(number)) => StartPosition::Chess960(number),
            (Variant::Standard, true, None) => StartPosition::Standard,
            (Variant::Chess960, true, None) => {
                StartPosition::Chess960(chess960_position_for(request_id))
            }
            (_, false, None) => StartPosition::Fen(fen.to_owned()),
        })
    }
}

impl NewGame {
    /// Delays the public's view of the game by `delay`.
    pub fn with_broadcast_delay(mut self, delay: BroadcastDelay) -> Self {
        self.broadcast_delay = delay;
        self
    }

    /// How long after it happens the public sees each event of the game.
    pub fn broadcast_delay(&self) -> BroadcastDelay {
        self.broadcast_delay
    }

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

    /// The game on `schedule` instead.
    #[must_use]
    pub fn with_schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = schedule;
        self
    }

    /// Compensates network lag under `policy` (`None`: not at all, the
    /// default). Refused in an untimed game, which has no clock to credit.
    pub fn with_lag_compensation(
        mut self,
        policy: Option<LagCompensation>,
    ) -> Result<Self, FieldError> {
        if policy.is_some() && self.timing.is_none() {
            return Err(FieldError::new("lag_compensation", "needs a time_control"));
        }
        self.lag_compensation = policy;
        Ok(self)
    }

    /// Keeps a fair-play record of the game (`false`: none, the default).
    pub fn with_fair_play_record(mut self, keep: bool) -> Self {
        self.fair_play = keep;
        self
    }

    /// Whether the game keeps a fair-play record.
    pub fn records_fair_play(&self) -> bool {
        self.fair_play
    }

    /// The white player.
    pub fn white(&self) -> &Player {
        &self.white
    }
    /// The black player.
    pub fn black(&self) -> &Player {
        &self.black
    }
    /// The variant.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// The starting position.
    pub fn start(&self) -> &Chess {
        &self.start
    }
    /// The starting position in FEN.
    pub fn initial_fen(&self) -> String {
        use shakmaty::{EnPassantMode, Position, Setup};
        // Nearly every game starts from the standard position: its FEN is
        // known without formatting it (on every reply).
        if self.start.to_setup(EnPassantMode::Legal) == Setup::initial() {
            return crate::domain::game::state::STANDARD_FEN.to_owned();
        }
        Fen::from_position(&self.start, EnPassantMode::Legal).to_string()
    }
    /// Where the game belongs in its event.
    pub fn pairing(&self) -> &Pairing {
        &self.pairing
    }
    /// The regulations the game is played under.
    pub fn rules(&self) -> GameRules {
        self.rules
    }
    /// The time controls, in a timed game.
    pub fn timing(&self) -> Option<&Timing> {
        self.timing.as_ref()
    }
    /// The schedule.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }
    /// How the game is scored.
    pub fn scoring(&self) -> ScoringSystem {
        self.scoring
    }
    /// The lag-compensation policy, when the game compensates lag.
    pub fn lag_compensation(&self) -> Option<LagCompensation> {
        self.lag_compensation
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
            broadcast_delay: BroadcastDelay::LIVE,
            lag_compensation: None,
            fair_play: false,
        })
    }
}

impl NewGame {
    /// The same setup for other players, at another place in an event.
    #[must_use]
    pub(in crate::domain) fn seated(
        mut self,
        white: Player,
        black: Player,
        pairing: Pairing,
    ) -> Self {
        self.white = white;
        self.black = black;
        self.pairing = pairing;
        self
    }

    /// The refusal of a game whose starting position an analysis proved
    /// dead (FIDE 5.2.2): like every other finished position, it cannot
    /// start a game. Material and the other endings are refused when the
    /// position is read; a dead position needs an analysis that may take
    /// longer than a request, which the caller runs within its budget.
    pub fn dead_start(&self) -> Rejection {
        Rejection::InvalidField(finished_start(Termination::DeadPosition))
    }
}

fn finished_start(termination: Termination) -> FieldError {
    FieldError::new(
        "initial_fen",
        format!(
            "is a finished position ({}); a game must start with a move to play",
            termination.describe()
        ),
    )
}

fn parse_start(text: &str, variant: Variant) -> Result<Chess, FieldError> {
    let fen: Fen = text
        .trim()
        .parse()
        .map_err(|err| FieldError::new("initial_fen", format!("is not valid FEN: {err}")))?;
    let pos: Chess = fen
        .into_position(variant.castling_mode())
        .map_err(|err| FieldError::new("initial_fen", format!("is not a legal position: {err}")))?;
    if let Some(ending) = automatic_ending(&pos, &Repetition::starting_at(&pos), false) {
        return Err(finished_start(ending.termination));
    }
    Ok(pos)
}

/// The idempotency digest the first release stored for a game instead of
/// its setup. Kept only to recognise retries of requests that created such
/// games; it leans on the `Debug` form of the setup's parts, which the
/// golden files in `tests/data` pin.
pub fn legacy_fingerprint(request: &NewGame) -> String {
    let mut hasher = Sha256::new();
    let pairing = request.pairing();
    for part in [
        request.white().id.as_str(),
        request.white().name.as_str(),
        request.black().id.as_str(),
        request.black().name.as_str(),
        &Fen::from_position(request.start(), shakmaty::EnPassantMode::Legal).to_string(),
        pairing
            .event_id
            .as_ref()
            .map_or("", crate::domain::EventId::as_str),
        &pairing.round.to_string(),
        &pairing.board.to_string(),
        &format!("{:?}", request.variant()),
        // The rules as the first release's `Debug` wrote them, before rules
        // had more fields.
        &{
            let rules = request.rules();
            format!(
                "GameRules {{ draw_offers_from_move: {:?}, sofia_rules: {:?}, profile: {:?}, \
                 pending_offer_draws_on_flag: {:?} }}",
                rules.draw_offers_from_move,
                rules.sofia_rules,
                rules.profile,
                rules.pending_offer_draws_on_flag
            )
        },
        &format!("{:?}", request.timing()),
        // The schedule as the first release's `Debug` wrote it, before
        // schedules had more fields.
        &format!(
            "Schedule {{ scheduled_start: {:?}, default_time_ms: {:?} }}",
            request.schedule().scheduled_start,
            request.schedule().default_time_ms
        ),
        &format!("{:?}", request.scoring()),
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
