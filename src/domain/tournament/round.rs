//! A round of an event: its games, planned together and created all or
//! nothing, the byes it gives, the starting ranks it brings, and its
//! start.
//!
//! A round is planned from a request (boards with both players and each
//! board's setup, byes) and refused whole, with every offending board
//! named, when anything in it is wrong: a player paired twice, a board
//! number repeated, a board the event already holds with other players.
//! The plan is recorded before any of its games is created; the games are
//! then created from the record, by whichever replica gets there, so a
//! round interrupted half-way is completed from its record (see
//! `docs/rounds.md`).

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::domain::{
    Bye, ByeKind, EventId, GameId, GameRecordForStandings, MatchPlan, MatchTieBreak, NewGame,
    Pairing, Player, Points, RecordedTieBreak, TeamByePlan, TeamRegistration, Timestamp,
    tournament::team_matches::team_round_offences,
};

/// The most boards a round may have: a round of 4,000 players, far above
/// the largest opens, and a `CreateRound` answer of a few hundred KB.
pub const MAX_ROUND_BOARDS: usize = 2_000;

/// The most byes a round may give.
pub const MAX_ROUND_BYES: usize = MAX_ROUND_BOARDS;

/// One refusal in a round request: the request field (as the API names it,
/// with the board's index, e.g. `boards[3].black.id`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoundViolation {
    /// The field.
    pub field: String,
    /// Why it is refused.
    pub reason: String,
}

impl RoundViolation {
    /// A refusal of `field` for `reason`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// One board of a round request: its number, its players, and its game's
/// setup (the rules, the clocks) from the round's settings and the board's
/// own overrides, or why that setup is refused.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardRequest {
    /// The board number, from 1.
    pub board: u32,
    /// The request field it was read from (`boards[3]`, `matches[1]`).
    pub field: String,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// The game's setup, with these players; its pairing is the round's
    /// and the board's. A refusal is reported with the round's others.
    pub setup: Result<NewGame, RoundViolation>,
}

/// What a round request asks for, its fields read: the plan
/// [`Round::plan`] checks whole.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundRequest {
    /// The event.
    pub event: EventId,
    /// The round number.
    pub number: u32,
    /// The request's idempotency key.
    pub request_id: Option<String>,
    /// The boards, in the request's order.
    pub boards: Vec<BoardRequest>,
    /// The byes.
    pub byes: Vec<RoundBye>,
    /// The starting ranks the round brings.
    pub roster: Vec<Player>,
    /// Pairs the pairing engine must not pair, from this round on.
    pub forbidden_pairs: Vec<ForbiddenPair>,
    /// Accelerations the pairing engine applies.
    pub accelerations: Vec<Acceleration>,
    /// The fields refused while reading the request (a malformed player,
    /// an unknown bye kind): reported with the plan's own refusals.
    pub refused: Vec<RoundViolation>,
    /// Whether the boards are team matches, to be checked as such.
    pub teams: bool,
    /// The matches between registered teams, made into boards by
    /// [`RoundRequest::lined_up`].
    pub matches: Vec<MatchPlan>,
    /// The setup of every match board's game (the round's settings), or
    /// why it is refused; `None` without matches.
    pub match_setup: Option<Result<NewGame, RoundViolation>>,
    /// The registered teams' pairing-allocated byes.
    pub team_byes: Vec<TeamByePlan>,
}

impl RoundRequest {
    /// The request with its matches made into boards and forfeit wins
    /// from the line-ups, checked against the event's registered `teams`;
    /// every refusal kept for [`Round::plan`] to report.
    #[must_use]
    pub fn lined_up(mut self, teams: Option<&TeamRegistration>) -> Self {
        if self.matches.is_empty() && self.team_byes.is_empty() {
            return self;
        }
        if !self.boards.is_empty() {
            self.refused.push(RoundViolation::new(
                "boards",
                "must be empty in a round of matches: its boards come from the line-ups",
            ));
        }
        let Some(teams) = teams else {
            self.refused.push(RoundViolation::new(
                "matches",
                "the event has no registered teams: RegisterTeams first",
            ));
            self.matches.clear();
            self.team_byes.clear();
            return self;
        };
        let setup = self.match_setup.clone().unwrap_or_else(|| {
            Err(RoundViolation::new(
                "settings",
                "no setup for the matches' games",
            ))
        });
        // A bye's game points are ones the boards' results add up to, under
        // the round's game points.
        let table = match &setup {
            Ok(setup) => setup.scoring().white,
            Err(_) => crate::domain::PointTable::CLASSIC,
        };
        teams.check_byes(&self.team_byes, &self.matches, &table, &mut self.refused);
        // The settings are refused even when no match has a game.
        if let Err(refused) = &setup
            && !self.matches.is_empty()
        {
            self.refused.push(refused.clone());
        }
        let line_up = teams.line_up(
            &self.event,
            self.number,
            std::mem::take(&mut self.matches),
            &setup,
        );
        self.refused.extend(line_up.violations);
        self.boards.extend(line_up.boards);
        // A forfeit win is the line-up's: a bye the request also gives the
        // player is refused there.
        for (bye, field) in line_up.byes {
            if let Some(index) = self.byes.iter().position(|b| b.player.id == bye.player.id) {
                self.refused.push(RoundViolation::new(
                    field,
                    format!(
                        "player {:?} is also in byes[{index}]: a player plays once a round",
                        bye.player.id
                    ),
                ));
            } else {
                self.byes.push(bye);
            }
        }
        self.matches = line_up.matches;
        self
    }
}

/// A bye the round gives a player who has no game in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundBye {
    /// The player.
    pub player: Player,
    /// What the bye is.
    pub kind: ByeKind,
}

/// Two players a pairing engine must never pair (TRF `XXP`): family
/// members, clubmates in a junior event, as the event's regulations say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForbiddenPair {
    /// One player's id.
    pub first: String,
    /// The other's.
    pub second: String,
}

/// Points a pairing engine adds to a player's score for pairing only,
/// from round `first` to round `last` (accelerated pairings, TRF `XXA`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acceleration {
    /// The player's id.
    pub player: String,
    /// The points added.
    pub points: Points,
    /// The first round they count in.
    pub first: u32,
    /// The last round they count in.
    pub last: u32,
}

/// A game the event already holds in the round being planned (made by
/// `CreateGame`, or by an earlier request for the round).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExistingGame {
    /// The game.
    pub game: GameId,
    /// Its board.
    pub board: u32,
    /// White's id.
    pub white: String,
    /// Black's id.
    pub black: String,
}

/// One board of a round as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedBoard {
    /// The board number.
    pub board: u32,
    /// The board's game.
    pub game: GameId,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
    /// Which of the round's settings the game is played under.
    settings: usize,
}

/// How a round was started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundStart {
    /// When.
    pub at: Timestamp,
    /// By whom.
    pub by: String,
}

/// A round as recorded: what it is (its boards and byes), and where its
/// creation and start stand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Round {
    event: EventId,
    number: u32,
    /// The idempotency key of the request that planned it, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    request_id: Option<String>,
    /// The distinct setups of the round's games, each with neutral players
    /// and pairing: most rounds have one.
    settings: Vec<NewGame>,
    boards: Vec<PlannedBoard>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    byes: Vec<RoundBye>,
    /// Players in starting-rank order that the round brings to the event
    /// (its first round's, usually), for the event's reports.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    roster: Vec<Player>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    forbidden_pairs: Vec<ForbiddenPair>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    accelerations: Vec<Acceleration>,
    /// Its matches between registered teams.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    matches: Vec<MatchPlan>,
    /// Its registered teams' pairing-allocated byes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    team_byes: Vec<TeamByePlan>,
    /// Its matches' tie-break games, in the order they were made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tie_breaks: Vec<RecordedTieBreak>,
    created_at: Timestamp,
    /// Who planned it (a principal's name); `None` in rounds recorded
    /// before names were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    created_by: Option<String>,
    /// Whether every board's game has been created.
    complete: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    started: Option<RoundStart>,
}

/// The part of a round every event-wide read takes: the byes it gives and
/// the players it ranks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundSummary {
    /// The round.
    pub number: u32,
    /// Its byes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub byes: Vec<RoundBye>,
    /// The starting ranks it brings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roster: Vec<Player>,
    /// The pairs it forbids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forbidden_pairs: Vec<ForbiddenPair>,
    /// The accelerations it sets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accelerations: Vec<Acceleration>,
    /// Its matches between registered teams.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matches: Vec<MatchPlan>,
    /// Its registered teams' pairing-allocated byes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub team_byes: Vec<TeamByePlan>,
    /// Its matches' tie-break games.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tie_breaks: Vec<MatchTieBreak>,
    /// Whether the round's games are still being created: event-wide reads
    /// leave them out until every one exists, so that a round interrupted
    /// half-way is never seen in part.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub incomplete: bool,
}

/// A player without an identity or name: the settings a round keeps are
/// its games' setups with the players taken out.
fn nobody() -> Player {
    Player {
        id: String::new(),
        name: String::new(),
        ..Default::default()
    }
}

impl Round {
    /// Plans a round from a request: the boards, the byes and the starting
    /// ranks it brings, checked together, and against the games the event
    /// already holds in that round (`existing`, which are refused).
    /// Anything wrong is refused, every offence named.
    pub fn plan(
        request: RoundRequest,
        existing: &[ExistingGame],
        now: Timestamp,
    ) -> Result<Self, Vec<RoundViolation>> {
        let RoundRequest {
            event,
            number,
            request_id,
            boards,
            byes,
            roster,
            forbidden_pairs,
            accelerations,
            refused,
            teams,
            matches,
            match_setup: _,
            team_byes,
        } = request;
        let mut violations = Vec::new();
        if number == 0 || number > Pairing::MAX_ROUND {
            violations.push(RoundViolation::new(
                "round",
                format!("must be from 1 to {}", Pairing::MAX_ROUND),
            ));
        }
        // (A round of matches forfeited whole has neither; a request whose
        // matches were refused is refused for them.)
        if boards.is_empty()
            && byes.is_empty()
            && matches.is_empty()
            && team_byes.is_empty()
            && refused.is_empty()
        {
            violations.push(RoundViolation::new(
                "boards",
                "is empty: a round needs a board, a bye or a match",
            ));
        }
        if boards.len() > MAX_ROUND_BOARDS {
            violations.push(RoundViolation::new(
                "boards",
                format!(
                    "has {} boards, more than the {MAX_ROUND_BOARDS} a round may have",
                    boards.len()
                ),
            ));
        }
        if byes.len() > MAX_ROUND_BYES {
            violations.push(RoundViolation::new(
                "byes",
                format!(
                    "has {} byes, more than the {MAX_ROUND_BYES} a round may give",
                    byes.len()
                ),
            ));
        }
        if forbidden_pairs.len() > MAX_ROUND_BOARDS * 5
            || accelerations.len() > MAX_ROUND_BOARDS * 2
        {
            violations.push(RoundViolation::new(
                "forbidden_pairs",
                format!(
                    "a round may forbid at most {} pairs and accelerate at most {} players",
                    MAX_ROUND_BOARDS * 5,
                    MAX_ROUND_BOARDS * 2
                ),
            ));
        }
        if !violations.is_empty() {
            // Too large to check board by board, or not a round at all.
            return Err(violations);
        }
        violations.extend(refused);

        // Each board number once; each player once, in a game or a bye.
        let mut board_at: HashMap<u32, usize> = HashMap::new();
        let mut seat_of: HashMap<String, String> = HashMap::new();
        let mut seat =
            |id: &str, field: String, violations: &mut Vec<RoundViolation>| match seat_of.get(id) {
                Some(first) => violations.push(RoundViolation::new(
                    format!("{field}.id"),
                    format!("player {id:?} is also in {first}: a player plays once a round"),
                )),
                None => {
                    seat_of.insert(id.to_owned(), field);
                }
            };
        if matches.iter().any(|m| m.boards == 0) {
            violations.push(RoundViolation::new(
                "matches",
                "were not lined up against the event's teams",
            ));
        }
        for (index, request) in boards.iter().enumerate() {
            let field = request.field.clone();
            if request.board == 0 || request.board > Pairing::MAX_BOARD {
                violations.push(RoundViolation::new(
                    format!("{field}.board"),
                    format!("must be from 1 to {}", Pairing::MAX_BOARD),
                ));
            } else if let Some(first) = board_at.get(&request.board) {
                violations.push(RoundViolation::new(
                    format!("{field}.board"),
                    format!(
                        "board {} is also {}'s: a board has one game",
                        request.board, boards[*first].field
                    ),
                ));
            } else {
                board_at.insert(request.board, index);
            }
            seat(&request.white.id, format!("{field}.white"), &mut violations);
            seat(&request.black.id, format!("{field}.black"), &mut violations);
            // A refusal of the round's settings is the same on every
            // board: reported once.
            if let Err(refused) = &request.setup
                && !violations.contains(refused)
            {
                violations.push(refused.clone());
            }
        }
        // A team round: every player of a team, each team in one match
        // (the teams as the games' setups carry them).
        if teams {
            let seats = boards.iter().map(|b| match &b.setup {
                Ok(setup) => (setup.white(), setup.black()),
                Err(_) => (&b.white, &b.black),
            });
            violations.extend(
                team_round_offences(seats)
                    .into_iter()
                    .map(|(field, reason)| RoundViolation::new(field, reason)),
            );
        }
        for (index, bye) in byes.iter().enumerate() {
            seat(
                &bye.player.id,
                format!("byes[{index}].player"),
                &mut violations,
            );
        }
        let mut ranked: HashMap<&str, usize> = HashMap::new();
        for (index, player) in roster.iter().enumerate() {
            if let Some(first) = ranked.insert(&player.id, index) {
                violations.push(RoundViolation::new(
                    format!("players[{index}].id"),
                    format!("player {:?} is also players[{first}]", player.id),
                ));
            }
        }

        // Pairs and accelerations name players the round knows.
        let known = |id: &str| seat_of.contains_key(id) || ranked.contains_key(id);
        for (index, pair) in forbidden_pairs.iter().enumerate() {
            let field = format!("forbidden_pairs[{index}]");
            if pair.first == pair.second {
                violations.push(RoundViolation::new(field, "names one player twice"));
                continue;
            }
            for id in [&pair.first, &pair.second] {
                if !known(id) {
                    violations.push(RoundViolation::new(
                        field.clone(),
                        format!("names {id:?}, who is neither paired, given a bye nor ranked in the round"),
                    ));
                }
            }
        }
        for (index, acceleration) in accelerations.iter().enumerate() {
            let field = format!("accelerations[{index}]");
            if !known(&acceleration.player) {
                violations.push(RoundViolation::new(
                    field.clone(),
                    format!(
                        "names {:?}, who is neither paired, given a bye nor ranked in the round",
                        acceleration.player
                    ),
                ));
            }
            if acceleration.first == 0
                || acceleration.first > acceleration.last
                || acceleration.last > Pairing::MAX_ROUND
            {
                violations.push(RoundViolation::new(
                    field.clone(),
                    format!(
                        "rounds must run from 1 to at most {}, first to last",
                        Pairing::MAX_ROUND
                    ),
                ));
            }
            if acceleration.points < Points::ZERO {
                violations.push(RoundViolation::new(field, "points must not be negative"));
            }
        }

        // A game the event already has in this round (made by CreateGame)
        // is refused, whoever plays it: it was created with its own setup
        // and its clock may be running, so it cannot be one of the round's.
        for game in existing {
            let field = match board_at.get(&game.board) {
                Some(index) => boards[*index].field.clone(),
                None => "boards".to_owned(),
            };
            violations.push(RoundViolation::new(
                field,
                format!(
                    "board {} of round {number} already has game {} ({} v {}), made outside \
                     the round: end or move it first",
                    game.board, game.game, game.white, game.black
                ),
            ));
        }
        if !violations.is_empty() {
            return Err(violations);
        }

        let mut settings: Vec<NewGame> = Vec::new();
        let planned = boards
            .into_iter()
            .filter_map(|request| Some((request.setup.ok()?, request.board)))
            .map(|(setup, board)| {
                let neutral = setup.clone().seated(nobody(), nobody(), Pairing::default());
                let index = match settings.iter().position(|s| *s == neutral) {
                    Some(index) => index,
                    None => {
                        settings.push(neutral);
                        settings.len() - 1
                    }
                };
                PlannedBoard {
                    board,
                    game: GameId::for_board(&event, number, board),
                    white: setup.white().clone(),
                    black: setup.black().clone(),
                    settings: index,
                }
            })
            .collect();
        Ok(Self {
            event,
            number,
            request_id,
            settings,
            boards: planned,
            byes,
            roster,
            forbidden_pairs,
            accelerations,
            matches,
            team_byes,
            tie_breaks: Vec::new(),
            created_at: now,
            created_by: None,
            complete: false,
            started: None,
        })
    }

    /// The round as planned by `name` (a principal's name).
    pub fn planned_by(mut self, name: &str) -> Self {
        self.created_by = Some(name.to_owned());
        self
    }
    /// Who planned it, when recorded.
    pub fn created_by(&self) -> Option<&str> {
        self.created_by.as_deref()
    }

    /// The event.
    pub fn event(&self) -> &EventId {
        &self.event
    }
    /// The round number.
    pub fn number(&self) -> u32 {
        self.number
    }
    /// The idempotency key of the request that planned it.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }
    /// When it was planned.
    pub fn created_at(&self) -> Timestamp {
        self.created_at
    }
    /// Its boards, in the request's order.
    pub fn boards(&self) -> &[PlannedBoard] {
        &self.boards
    }
    /// Its byes.
    pub fn byes(&self) -> &[RoundBye] {
        &self.byes
    }
    /// The starting ranks it brings.
    pub fn roster(&self) -> &[Player] {
        &self.roster
    }
    /// The pairs it forbids.
    pub fn forbidden_pairs(&self) -> &[ForbiddenPair] {
        &self.forbidden_pairs
    }
    /// The accelerations it sets.
    pub fn accelerations(&self) -> &[Acceleration] {
        &self.accelerations
    }
    /// Its matches between registered teams.
    pub fn matches(&self) -> &[MatchPlan] {
        &self.matches
    }
    /// Its registered teams' pairing-allocated byes.
    pub fn team_byes(&self) -> &[TeamByePlan] {
        &self.team_byes
    }

    /// Its matches' tie-break games.
    pub fn tie_breaks(&self) -> &[RecordedTieBreak] {
        &self.tie_breaks
    }

    /// The round with `tie_break` recorded, unless its match has one
    /// already: then that one.
    pub fn with_tie_break(&self, tie_break: RecordedTieBreak) -> Result<Self, &RecordedTieBreak> {
        if let Some(existing) = self
            .tie_breaks
            .iter()
            .find(|t| t.plan.table == tie_break.plan.table)
        {
            return Err(existing);
        }
        let mut round = self.clone();
        round.tie_breaks.push(tie_break);
        Ok(round)
    }
    /// Whether every board's game has been created.
    pub fn is_complete(&self) -> bool {
        self.complete
    }
    /// How it was started, if it was.
    pub fn started(&self) -> Option<&RoundStart> {
        self.started.as_ref()
    }

    /// Whether `other` plans the same round: the same boards, players,
    /// setups, byes and starting ranks (whatever the games' identifiers
    /// and where creation stands).
    pub fn same_plan(&self, other: &Round) -> bool {
        // A round of matches takes its players from the teams' rosters,
        // whose names and ratings may change once it exists: it is the
        // same round with the same line-ups, player for player by id.
        let by_id = !self.matches.is_empty() || !self.team_byes.is_empty();
        let same_player = |a: &Player, b: &Player| if by_id { a.id == b.id } else { a == b };
        let same_boards = self.boards.len() == other.boards.len()
            && self.boards.iter().zip(&other.boards).all(|(a, b)| {
                a.board == b.board
                    && same_player(&a.white, &b.white)
                    && same_player(&a.black, &b.black)
                    && self.settings.get(a.settings) == other.settings.get(b.settings)
            });
        let same_byes = self.byes.len() == other.byes.len()
            && self
                .byes
                .iter()
                .zip(&other.byes)
                .all(|(a, b)| a.kind == b.kind && same_player(&a.player, &b.player));
        self.event == other.event
            && self.number == other.number
            && same_byes
            && self.roster == other.roster
            && self.forbidden_pairs == other.forbidden_pairs
            && self.accelerations == other.accelerations
            && self.matches == other.matches
            && self.team_byes == other.team_byes
            && same_boards
    }

    /// The setup of `board`'s game: the round's settings for it, with its
    /// players and its place in the event; `None` when the record names
    /// settings it does not hold (a record `plan` did not write).
    pub fn setup(&self, board: &PlannedBoard) -> Option<NewGame> {
        let settings = self.settings.get(board.settings)?.clone();
        Some(settings.seated(
            board.white.clone(),
            board.black.clone(),
            Pairing {
                event_id: Some(self.event.clone()),
                round: self.number,
                board: board.board,
                tie_break: false,
            },
        ))
    }

    /// The round with every game created.
    #[must_use]
    pub fn completed(mut self) -> Self {
        self.complete = true;
        self
    }

    /// The round started at `at` by `by`; a round already started keeps
    /// its first start.
    #[must_use]
    pub fn started_by(mut self, by: &str, at: Timestamp) -> Self {
        if self.started.is_none() {
            self.started = Some(RoundStart {
                at,
                by: by.to_owned(),
            });
        }
        self
    }

    /// What event-wide reads take of the round.
    pub fn summary(&self) -> RoundSummary {
        RoundSummary {
            number: self.number,
            byes: self.byes.clone(),
            roster: self.roster.clone(),
            forbidden_pairs: self.forbidden_pairs.clone(),
            accelerations: self.accelerations.clone(),
            matches: self.matches.clone(),
            team_byes: self.team_byes.clone(),
            tie_breaks: self.tie_breaks.iter().map(|t| t.plan.clone()).collect(),
            incomplete: !self.complete,
        }
    }
}

impl RoundSummary {
    /// The round's byes, as standings and reports take them.
    pub fn byes(&self) -> impl Iterator<Item = Bye> + '_ {
        self.byes.iter().map(|bye| Bye {
            player: bye.player.clone(),
            round: self.number,
            kind: bye.kind,
        })
    }
}

/// The byes standings and reports count: the rounds' own, except in a
/// round where the player has a game (created outside the round since) or
/// where the request names the player's bye itself, then the request's.
pub fn counted_byes(
    summaries: &[RoundSummary],
    requested: Vec<Bye>,
    games: &[GameRecordForStandings],
) -> Vec<Bye> {
    let playing: HashSet<(&str, u32)> = games
        .iter()
        .filter(|g| !g.aborted)
        .flat_map(|g| {
            [
                (g.white.id.as_str(), g.round),
                (g.black.id.as_str(), g.round),
            ]
        })
        .collect();
    let named: HashSet<(&str, u32)> = requested
        .iter()
        .map(|b| (b.player.id.as_str(), b.round))
        .collect();
    // A round still being created counts nothing yet.
    let rounds: Vec<Bye> = summaries
        .iter()
        .filter(|s| !s.incomplete)
        .flat_map(RoundSummary::byes)
        .collect();
    let mut byes: Vec<Bye> = rounds
        .iter()
        .filter(|b| {
            let key = (b.player.id.as_str(), b.round);
            !playing.contains(&key) && !named.contains(&key)
        })
        .cloned()
        .collect();
    // A request's bye keeps the name the round knows the player by.
    byes.extend(requested.into_iter().map(|bye| {
        match rounds
            .iter()
            .find(|r| r.player.id == bye.player.id && r.round == bye.round)
        {
            Some(known) => Bye {
                player: known.player.clone(),
                ..bye
            },
            None => bye,
        }
    }));
    byes
}

#[cfg(test)]
#[path = "round_tests.rs"]
mod tests;
