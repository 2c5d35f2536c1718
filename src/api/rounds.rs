//! Rounds on the wire: reading `CreateRound` and `ImportPairings` requests
//! into a plan's boards (each board's game read as `CreateGame` reads one,
//! so a setting means the same in both), and the round's messages.

use sha2::Digest;
use tonic::Status;
use tonic_types::StatusExt;

use super::{convert, create, request, status};
use crate::{
    arbiter::{CreatedRound, RoundPage, RoundSeats},
    domain::{
        Acceleration, BoardRequest, ByeKind, Color, EventId, FieldError, ForbiddenPair,
        MatchForfeit, MatchOutcome, MatchPlan, Player, Points, RecordedTieBreak, Round, RoundBye,
        RoundRequest, RoundViolation, Schedule, TeamByePlan, TeamRegistration, TieBreakRequest,
    },
    proto,
};

/// The request fields a board's overrides may set (the others are the
/// round's alone).
const OVERRIDABLE: [&str; 6] = [
    "initial_fen",
    "chess960_position",
    "rules",
    "time_control",
    "black_time_control",
    "scoring",
];

/// What a refusal of a game's setup named, as `CreateGame` reads it.
fn violation_of(refusal: &Status) -> (String, String) {
    match refusal.get_details_bad_request() {
        Some(bad) if !bad.field_violations.is_empty() => {
            let first = &bad.field_violations[0];
            (first.field.clone(), first.description.clone())
        }
        _ => (String::new(), refusal.message().to_owned()),
    }
}

/// The `CreateGame` request a board amounts to: the round's settings, the
/// board's overrides over them, its players and place.
fn game_request(
    event_id: &EventId,
    round: u32,
    settings: &proto::RoundSettings,
    board: &proto::RoundBoard,
    chess960_key: &str,
) -> proto::CreateGameRequest {
    use proto::{board_overrides, create_game_request::Start, round_settings};
    let overrides = board.overrides.clone().unwrap_or_default();
    let start = match (&overrides.start, &settings.start) {
        (Some(board_overrides::Start::InitialFen(fen)), _) => Some(Start::InitialFen(fen.clone())),
        (Some(board_overrides::Start::Chess960Position(n)), _) => Some(Start::Chess960Position(*n)),
        (None, Some(round_settings::Start::InitialFen(fen))) => {
            Some(Start::InitialFen(fen.clone()))
        }
        (None, Some(round_settings::Start::Chess960Position(n))) => {
            Some(Start::Chess960Position(*n))
        }
        (None, None) => None,
    };
    proto::CreateGameRequest {
        // A Chess960 round without a position draws one for the whole
        // round, the same on every board and every repeat.
        request_id: chess960_key.to_owned(),
        white: board.white.clone(),
        black: board.black.clone(),
        pairing: Some(proto::Pairing {
            event_id: event_id.to_string(),
            round: i32::try_from(round).unwrap_or(i32::MAX),
            board: board.board,
            match_tie_break: false,
        }),
        variant: settings.variant,
        start,
        rules: overrides.rules.or(settings.rules),
        time_control: overrides
            .time_control
            .clone()
            .or_else(|| settings.time_control.clone()),
        black_time_control: match overrides.time_control {
            // A board's own control stands for both colours unless it
            // gives Black's too.
            Some(_) => overrides.black_time_control,
            None => overrides
                .black_time_control
                .or_else(|| settings.black_time_control.clone()),
        },
        clock_starts_after_first_moves: settings.clock_starts_after_first_moves,
        // The round's schedule is read once, by `schedule`.
        scheduled_start_time: None,
        default_time_millis: 0,
        scoring: overrides.scoring.or_else(|| settings.scoring.clone()),
        broadcast_delay_millis: settings.broadcast_delay_millis,
        lag_compensation: settings.lag_compensation,
        record_fair_play: settings.record_fair_play,
    }
}

/// Where a field `CreateGame` names sits in a round request: the board's
/// players or overrides, or the round's settings.
fn field_in_round(field: &str, index: usize, board: &proto::RoundBoard) -> String {
    let top = field.split(['.', '[']).next().unwrap_or(field);
    match top {
        "white" | "black" => format!("boards[{index}].{field}"),
        "pairing" => format!("boards[{index}].board"),
        "request_id" => "request_id".to_owned(),
        _ => {
            let overridden = board.overrides.as_ref().is_some_and(|o| match top {
                "initial_fen" | "chess960_position" => o.start.is_some(),
                "rules" => o.rules.is_some(),
                "time_control" => o.time_control.is_some(),
                "black_time_control" => o.black_time_control.is_some() || o.time_control.is_some(),
                "scoring" => o.scoring.is_some(),
                _ => false,
            });
            if overridden && OVERRIDABLE.contains(&top) {
                format!("boards[{index}].overrides.{field}")
            } else {
                format!("settings.{field}")
            }
        }
    }
}

/// A round's boards read as `CreateGame` reads a game: each board's
/// players (a malformed one refused into `violations`, its board left
/// out), and its setup or why it is refused.
fn boards(
    event_id: &EventId,
    round: u32,
    settings: &proto::RoundSettings,
    schedule: Schedule,
    raw: &[proto::RoundBoard],
    violations: &mut Vec<RoundViolation>,
) -> Vec<BoardRequest> {
    // A key of printable characters whatever the event's id.
    let digest = sha2::Sha256::digest(event_id.as_str().as_bytes());
    let hex: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    let chess960_key = format!("round-{round}-{hex}");
    let mut boards = Vec::with_capacity(raw.len());
    for (index, board) in raw.iter().enumerate() {
        let Ok(number) = u32::try_from(board.board) else {
            violations.push(RoundViolation::new(
                format!("boards[{index}].board"),
                format!("must be from 1 to {}", crate::domain::Pairing::MAX_BOARD),
            ));
            continue;
        };
        let white = player(format!("boards[{index}].white"), board.white.as_ref());
        let black = player(format!("boards[{index}].black"), board.black.as_ref());
        let (white, black) = match (white, black) {
            (Ok(white), Ok(black)) => (white, black),
            (white, black) => {
                violations.extend(white.err().into_iter().chain(black.err()));
                continue;
            }
        };
        let game = game_request(event_id, round, settings, board, &chess960_key);
        let setup = match create::new_game(&game) {
            Ok((_, setup)) => Ok(setup.with_schedule(schedule)),
            Err(refusal) => {
                let (named, reason) = violation_of(&refusal);
                let field = field_in_round(&named, index, board);
                // The description repeats the field as CreateGame names it.
                let reason = reason
                    .strip_prefix(&format!("{named} "))
                    .map_or(reason.clone(), str::to_owned);
                Err(RoundViolation::new(field, reason))
            }
        };
        boards.push(BoardRequest {
            board: number,
            field: format!("boards[{index}]"),
            white,
            black,
            setup,
        });
    }
    boards
}

fn player(field: String, raw: Option<&proto::Player>) -> Result<Player, RoundViolation> {
    let raw = raw.ok_or_else(|| RoundViolation::new(field.clone(), "is required"))?;
    Player::parse("player", &raw.id, &raw.name)
        .map_err(|err: FieldError| RoundViolation::new(field, err.reason))
}

fn bye_kind(kind: i32) -> Option<ByeKind> {
    match proto::ByeKind::try_from(kind).ok()? {
        proto::ByeKind::Unspecified => None,
        proto::ByeKind::PairingAllocated => Some(ByeKind::PairingAllocated),
        proto::ByeKind::FullPoint => Some(ByeKind::FullPoint),
        proto::ByeKind::HalfPoint => Some(ByeKind::HalfPoint),
        proto::ByeKind::ZeroPoint => Some(ByeKind::ZeroPoint),
        proto::ByeKind::ForfeitWin => Some(ByeKind::ForfeitWin),
    }
}

fn proto_bye_kind(kind: ByeKind) -> proto::ByeKind {
    match kind {
        ByeKind::PairingAllocated => proto::ByeKind::PairingAllocated,
        ByeKind::FullPoint => proto::ByeKind::FullPoint,
        ByeKind::HalfPoint => proto::ByeKind::HalfPoint,
        ByeKind::ZeroPoint => proto::ByeKind::ZeroPoint,
        ByeKind::ForfeitWin => proto::ByeKind::ForfeitWin,
    }
}

/// A round's byes, every refusal collected.
fn byes(raw: &[proto::RoundBye], violations: &mut Vec<RoundViolation>) -> Vec<RoundBye> {
    let mut byes = Vec::with_capacity(raw.len());
    for (index, bye) in raw.iter().enumerate() {
        let field = format!("byes[{index}]");
        let player = player(format!("{field}.player"), bye.player.as_ref());
        let kind = bye_kind(bye.kind).ok_or_else(|| {
            RoundViolation::new(format!("{field}.kind"), "must be a known bye kind")
        });
        match (player, kind) {
            (Ok(player), Ok(kind)) => byes.push(RoundBye { player, kind }),
            (player, kind) => violations.extend(player.err().into_iter().chain(kind.err())),
        }
    }
    byes
}

/// The setup every board of a round's matches is played under: the
/// round's settings, read as `CreateGame` reads a game (the players
/// stand in for the line-ups' and are replaced board by board).
fn match_setup(
    event_id: &EventId,
    round: u32,
    settings: &proto::RoundSettings,
    schedule: Schedule,
) -> Result<crate::domain::NewGame, RoundViolation> {
    stand_in_setup(event_id, round, settings, &format!("round-{round}"), |_| {})
        .map(|setup| setup.with_schedule(schedule))
}

/// The setup of the tie-break game of the match at `table` of round
/// `round`: `settings` read as `CreateGame` reads a game, Armageddon's
/// 1 / ½ / 0 when they set no scoring, starting as a `CreateGame` game
/// does (at their scheduled start, if they set one).
pub fn tie_break_setup(
    event_id: &EventId,
    round: u32,
    table: u32,
    settings: &proto::RoundSettings,
) -> Result<crate::domain::NewGame, Status> {
    let mut settings = settings.clone();
    if settings.scoring.is_none() {
        settings.scoring = Some(proto::Scoring {
            armageddon: true,
            ..proto::Scoring::default()
        });
    }
    let key = format!("tie-break-{round}-{table}");
    stand_in_setup(event_id, round, &settings, &key, |game| {
        game.scheduled_start_time = settings.scheduled_start_time;
        game.default_time_millis = settings.default_time_millis;
    })
    .map_err(|violation| refused(vec![violation]))
}

/// `settings` read as `CreateGame` reads a game (after `adjust`), with
/// stand-in players the caller replaces; a Chess960 game without a
/// position draws one from `key` and the event. A refusal names the
/// field of `settings`.
fn stand_in_setup(
    event_id: &EventId,
    round: u32,
    settings: &proto::RoundSettings,
    key: &str,
    adjust: impl FnOnce(&mut proto::CreateGameRequest),
) -> Result<crate::domain::NewGame, RoundViolation> {
    let stand_in = |id: &str| proto::Player {
        id: id.to_owned(),
        ..proto::Player::default()
    };
    let board = proto::RoundBoard {
        board: 1,
        white: Some(stand_in("first-team")),
        black: Some(stand_in("second-team")),
        overrides: None,
    };
    let digest = sha2::Sha256::digest(event_id.as_str().as_bytes());
    let hex: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    let mut game = game_request(event_id, round, settings, &board, &format!("{key}-{hex}"));
    adjust(&mut game);
    match create::new_game(&game) {
        Ok((_, setup)) => Ok(setup),
        Err(refusal) => {
            let (named, reason) = violation_of(&refusal);
            let reason = reason
                .strip_prefix(&format!("{named} "))
                .map_or(reason.clone(), str::to_owned);
            Err(RoundViolation::new(format!("settings.{named}"), reason))
        }
    }
}

/// A round's matches as requested, every refusal collected.
fn matches(raw: &[proto::RoundMatch], violations: &mut Vec<RoundViolation>) -> Vec<MatchPlan> {
    if raw.len() > TeamRegistration::MAX_MATCHES {
        violations.push(RoundViolation::new(
            "matches",
            format!(
                "has {} matches, more than the {} a round may have",
                raw.len(),
                TeamRegistration::MAX_MATCHES
            ),
        ));
        return Vec::new();
    }
    let max_boards = TeamRegistration::MAX_BOARDS as usize;
    let mut read = Vec::with_capacity(raw.len());
    for (index, m) in raw.iter().enumerate() {
        let field = format!("matches[{index}]");
        let forfeit = match proto::MatchForfeit::try_from(m.forfeit) {
            Ok(proto::MatchForfeit::Unspecified) => None,
            Ok(proto::MatchForfeit::FirstTeam) => Some(MatchForfeit::First),
            Ok(proto::MatchForfeit::SecondTeam) => Some(MatchForfeit::Second),
            Ok(proto::MatchForfeit::BothTeams) => Some(MatchForfeit::Both),
            // Refused, and read as none, so that every later match keeps
            // its index.
            Err(_) => {
                violations.push(RoundViolation::new(
                    format!("{field}.forfeit"),
                    "must be a known forfeit",
                ));
                None
            }
        };
        let first_white = match proto::Color::try_from(m.first_team_color) {
            Ok(proto::Color::Unspecified | proto::Color::White) => true,
            Ok(proto::Color::Black) => false,
            Err(_) => {
                violations.push(RoundViolation::new(
                    format!("{field}.first_team_color"),
                    "must be White or Black",
                ));
                true
            }
        };
        // A line-up too long to read is refused, and read cut short.
        let mut line_up = |players: &[String], side: &str| -> Vec<String> {
            if players.len() > max_boards {
                violations.push(RoundViolation::new(
                    format!("{field}.{side}"),
                    format!("names more than the {max_boards} boards a match may have"),
                ));
            }
            players.iter().take(max_boards).cloned().collect()
        };
        let line_ups = [
            line_up(&m.first_team_players, "first_team_players"),
            line_up(&m.second_team_players, "second_team_players"),
        ];
        read.push(MatchPlan {
            table: u32::try_from(m.table).unwrap_or(0),
            teams: [m.first_team_id.clone(), m.second_team_id.clone()],
            line_ups,
            first_white,
            forfeit,
            boards: 0,
        });
    }
    read
}

/// A round's team byes as requested, every refusal collected.
fn team_byes(raw: &[proto::TeamBye], violations: &mut Vec<RoundViolation>) -> Vec<TeamByePlan> {
    if raw.len() > TeamRegistration::MAX_TEAMS {
        violations.push(RoundViolation::new(
            "team_byes",
            format!(
                "lists more than the {} teams an event may have",
                TeamRegistration::MAX_TEAMS
            ),
        ));
        return Vec::new();
    }
    let mut read = Vec::with_capacity(raw.len());
    for (index, bye) in raw.iter().enumerate() {
        let field = format!("team_byes[{index}]");
        let outcome = match proto::MatchOutcome::try_from(bye.outcome) {
            Ok(proto::MatchOutcome::Won) => Some(MatchOutcome::Won),
            Ok(proto::MatchOutcome::Drawn) => Some(MatchOutcome::Drawn),
            Ok(proto::MatchOutcome::Lost) => Some(MatchOutcome::Lost),
            Ok(proto::MatchOutcome::Unspecified) | Err(_) => {
                violations.push(RoundViolation::new(
                    format!("{field}.outcome"),
                    "must be won, drawn or lost",
                ));
                None
            }
        };
        let game_points = Points::parse("game_points", &bye.game_points)
            .map_err(|err| {
                violations.push(RoundViolation::new(
                    format!("{field}.game_points"),
                    err.reason,
                ))
            })
            .ok();
        // A refused field is read as a stand-in, so that every later bye
        // keeps its index (the round is refused for it anyway).
        read.push(TeamByePlan {
            team: bye.team_id.clone(),
            outcome: outcome.unwrap_or(MatchOutcome::Drawn),
            game_points: game_points.unwrap_or(Points::ZERO),
        });
    }
    read
}

/// The protobuf form of a round's team bye.
fn team_bye(plan: &TeamByePlan) -> proto::TeamBye {
    proto::TeamBye {
        team_id: plan.team.clone(),
        outcome: match plan.outcome {
            MatchOutcome::Won => proto::MatchOutcome::Won,
            MatchOutcome::Drawn => proto::MatchOutcome::Drawn,
            MatchOutcome::Lost => proto::MatchOutcome::Lost,
        }
        .into(),
        game_points: plan.game_points.to_string(),
    }
}

/// The protobuf form of a round's match.
fn round_match(plan: &MatchPlan) -> proto::RoundMatch {
    proto::RoundMatch {
        table: i32::try_from(plan.table).unwrap_or(i32::MAX),
        first_team_id: plan.teams[0].clone(),
        second_team_id: plan.teams[1].clone(),
        first_team_players: plan.line_ups[0].clone(),
        second_team_players: plan.line_ups[1].clone(),
        first_team_color: if plan.first_white {
            proto::Color::White
        } else {
            proto::Color::Black
        }
        .into(),
        forfeit: match plan.forfeit {
            None => proto::MatchForfeit::Unspecified,
            Some(MatchForfeit::First) => proto::MatchForfeit::FirstTeam,
            Some(MatchForfeit::Second) => proto::MatchForfeit::SecondTeam,
            Some(MatchForfeit::Both) => proto::MatchForfeit::BothTeams,
        }
        .into(),
    }
}

/// Accelerations, every refusal collected.
fn accelerations(
    raw: &[proto::Acceleration],
    violations: &mut Vec<RoundViolation>,
) -> Vec<Acceleration> {
    if raw.len() > crate::domain::Pairing::MAX_EVENT_GAMES {
        violations.push(RoundViolation::new(
            "accelerations",
            "lists more accelerations than an event may have players",
        ));
        return Vec::new();
    }
    let mut read = Vec::with_capacity(raw.len());
    for (index, acceleration) in raw.iter().enumerate() {
        let field = format!("accelerations[{index}]");
        let points = Points::parse("points", &acceleration.points);
        let rounds = (
            u32::try_from(acceleration.first_round),
            u32::try_from(acceleration.last_round),
        );
        // The report writes points with one decimal in four columns.
        let points = points.and_then(|points| {
            if points.milli() % 100 != 0 || points.milli() >= 100_000 {
                Err(FieldError::new(
                    "points",
                    "must be a multiple of 0.1 below 100, as a TRF writes them",
                ))
            } else {
                Ok(points)
            }
        });
        match (points, rounds) {
            (Ok(points), (Ok(first), Ok(last))) => read.push(Acceleration {
                player: acceleration.player_id.clone(),
                points,
                first,
                last,
            }),
            (Err(err), _) => {
                violations.push(RoundViolation::new(format!("{field}.points"), err.reason))
            }
            (_, _) => violations.push(RoundViolation::new(field, "rounds must not be negative")),
        }
    }
    read
}

/// Players in starting-rank order.
fn roster(raw: &[proto::Player], violations: &mut Vec<RoundViolation>) -> Vec<Player> {
    if raw.len() > crate::domain::Pairing::MAX_EVENT_GAMES {
        violations.push(RoundViolation::new(
            "players",
            format!("lists {} players, more than an event may have", raw.len()),
        ));
        return Vec::new();
    }
    raw.iter()
        .enumerate()
        .filter_map(|(index, p)| {
            player(format!("players[{index}]"), Some(p))
                .map_err(|v| violations.push(v))
                .ok()
        })
        .collect()
}

/// The round's schedule: the games wait for StartRound unless a start is
/// scheduled, and a default time counts from whichever start comes.
fn schedule(settings: &proto::RoundSettings) -> Result<Schedule, Status> {
    let scheduled = settings
        .scheduled_start_time
        .as_ref()
        .map(|at| request::timestamp("settings.scheduled_start_time", at))
        .transpose()?;
    let default_time =
        request::non_negative("settings.default_time_millis", settings.default_time_millis)?;
    let default_time = (default_time > 0).then_some(u64::from(default_time));
    Ok(Schedule::started_by_arbiter(scheduled, default_time))
}

/// The round number a request names, 1 to 1000.
pub fn round_number(value: i32) -> Result<u32, Status> {
    match u32::try_from(value) {
        Ok(n) if (1..=crate::domain::Pairing::MAX_ROUND).contains(&n) => Ok(n),
        _ => Err(status::invalid_field(&FieldError::new(
            "round",
            format!("must be from 1 to {}", crate::domain::Pairing::MAX_ROUND),
        ))),
    }
}

/// The refusal of a round request's fields, every one named.
pub fn refused(violations: Vec<RoundViolation>) -> Status {
    crate::arbiter::ArbiterError::RoundRefused(violations).into()
}

/// The plan a `CreateRound` request asks for.
pub fn create_request(req: &proto::CreateRoundRequest) -> Result<RoundRequest, Status> {
    let request_id = request::request_id(&req.request_id)?;
    let event_id = request::event_id(&req.event_id)?;
    let number = round_number(req.round)?;
    if req.boards.len() > crate::domain::MAX_ROUND_BOARDS {
        // Too large to read board by board.
        return Err(refused(vec![RoundViolation::new(
            "boards",
            format!(
                "has {} boards, more than the {} a round may have",
                req.boards.len(),
                crate::domain::MAX_ROUND_BOARDS
            ),
        )]));
    }
    let settings = req.settings.clone().unwrap_or_default();
    let schedule = schedule(&settings)?;
    let mut refused = Vec::new();
    let boards = boards(
        &event_id,
        number,
        &settings,
        schedule,
        &req.boards,
        &mut refused,
    );
    let byes = byes(&req.byes, &mut refused);
    let roster = roster(&req.players, &mut refused);
    let forbidden_pairs = req
        .forbidden_pairs
        .iter()
        .map(|pair| ForbiddenPair {
            first: pair.first_player_id.clone(),
            second: pair.second_player_id.clone(),
        })
        .collect();
    let accelerations = accelerations(&req.accelerations, &mut refused);
    let matches = matches(&req.matches, &mut refused);
    let team_byes = team_byes(&req.team_byes, &mut refused);
    let match_setup = (!matches.is_empty() || !team_byes.is_empty())
        .then(|| match_setup(&event_id, number, &settings, schedule));
    Ok(RoundRequest {
        event: event_id,
        number,
        request_id: request_id.map(|key| key.as_str().to_owned()),
        boards,
        byes,
        roster,
        forbidden_pairs,
        accelerations,
        refused,
        teams: req.team_round,
        matches,
        match_setup,
        team_byes,
    })
}

/// The protobuf form of a round.
pub fn round(round: &Round) -> proto::Round {
    proto::Round {
        event_id: round.event().to_string(),
        round: i32::try_from(round.number()).unwrap_or(i32::MAX),
        board_count: i32::try_from(round.boards().len()).unwrap_or(i32::MAX),
        byes: round
            .byes()
            .iter()
            .map(|bye| proto::RoundBye {
                player: Some(convert::player(&bye.player)),
                kind: proto_bye_kind(bye.kind).into(),
            })
            .collect(),
        create_time: Some(convert::timestamp(round.created_at())),
        start_time: round.started().map(|s| convert::timestamp(s.at)),
        started_by: round.started().map(|s| s.by.clone()).unwrap_or_default(),
        players: round.roster().iter().map(convert::player).collect(),
        forbidden_pairs: round
            .forbidden_pairs()
            .iter()
            .map(|pair| proto::ForbiddenPair {
                first_player_id: pair.first.clone(),
                second_player_id: pair.second.clone(),
            })
            .collect(),
        accelerations: round
            .accelerations()
            .iter()
            .map(|a| proto::Acceleration {
                player_id: a.player.clone(),
                points: a.points.to_string(),
                first_round: i32::try_from(a.first).unwrap_or(i32::MAX),
                last_round: i32::try_from(a.last).unwrap_or(i32::MAX),
            })
            .collect(),
        matches: round.matches().iter().map(round_match).collect(),
        team_byes: round.team_byes().iter().map(team_bye).collect(),
        tie_breaks: round
            .tie_breaks()
            .iter()
            .map(|tie_break| {
                let teams = round
                    .matches()
                    .iter()
                    .find(|m| m.table == tie_break.plan.table)
                    .map(|m| m.teams.clone())
                    .unwrap_or_default();
                tie_break_game(tie_break, &teams)
            })
            .collect(),
    }
}

/// The protobuf form of a match's tie-break game, `teams` the match's
/// first and second team's ids.
pub fn tie_break_game(
    tie_break: &RecordedTieBreak,
    teams: &[String; 2],
) -> proto::MatchTieBreakGame {
    let [first, second] = teams.clone();
    let (white_team, black_team) = if tie_break.plan.first_white {
        (first, second)
    } else {
        (second, first)
    };
    proto::MatchTieBreakGame {
        table: i32::try_from(tie_break.plan.table).unwrap_or(i32::MAX),
        game_id: tie_break.plan.game.to_string(),
        white: Some(convert::player(&tie_break.white)),
        black: Some(convert::player(&tie_break.black)),
        white_team_id: white_team,
        black_team_id: black_team,
    }
}

/// The tie-break game a `CreateMatchTieBreak` request asks for: its
/// event, round and request.
pub fn tie_break_request(
    req: &proto::CreateMatchTieBreakRequest,
) -> Result<(EventId, u32, TieBreakRequest), Status> {
    let event_id = request::event_id(&req.event_id)?;
    let number = round_number(req.round)?;
    let max_table = u32::try_from(TeamRegistration::MAX_MATCHES).unwrap_or(u32::MAX);
    let table = u32::try_from(req.table)
        .ok()
        .filter(|table| (1..=max_table).contains(table))
        .ok_or_else(|| {
            status::invalid_field(&FieldError::new(
                "table",
                format!("must be from 1 to {max_table}"),
            ))
        })?;
    for (field, id) in [
        ("white_player_id", &req.white_player_id),
        ("black_player_id", &req.black_player_id),
    ] {
        if id.trim().is_empty() {
            return Err(status::invalid_field(&FieldError::new(
                field,
                "is required",
            )));
        }
    }
    let settings = req.settings.clone().unwrap_or_default();
    let settings = tie_break_setup(&event_id, number, table, &settings)?;
    Ok((
        event_id,
        number,
        TieBreakRequest {
            table,
            white: req.white_player_id.clone(),
            black: req.black_player_id.clone(),
            settings,
        },
    ))
}

fn round_game(seats: &RoundSeats) -> proto::RoundGame {
    proto::RoundGame {
        board: i32::try_from(seats.board.board).unwrap_or(i32::MAX),
        game_id: seats.board.game.to_string(),
        white: Some(convert::player(&seats.board.white)),
        black: Some(convert::player(&seats.board.black)),
        white_token: seats.tokens.white.clone(),
        black_token: seats.tokens.black.clone(),
    }
}

/// The protobuf form of a created round.
pub fn created(created: &CreatedRound) -> proto::CreateRoundResponse {
    proto::CreateRoundResponse {
        round: Some(round(&created.round)),
        games: created.games.iter().map(round_game).collect(),
    }
}

/// The protobuf form of a page of a round's boards.
pub fn page(page: &RoundPage, next_page_token: String) -> proto::GetRoundResponse {
    let boards = page
        .boards
        .iter()
        .map(|(board, game)| {
            let mut status = proto::BoardStatus {
                board: i32::try_from(board.board).unwrap_or(i32::MAX),
                game_id: board.game.to_string(),
                white: Some(convert::player(&board.white)),
                black: Some(convert::player(&board.black)),
                ..proto::BoardStatus::default()
            };
            if let Some(game) = game {
                // The board's own fields only: no legal moves or history.
                status.status = convert::status(game.status_at(page.as_of)).into();
                status.ply = convert::int32(game.ply().count(), i32::MAX);
                status.side_to_move = convert::color(game.side_to_move()).into();
                status.clock = game.clock_view(page.as_of).as_ref().map(convert::clock);
                status.white_present = game.present().contains(Color::White);
                status.black_present = game.present().contains(Color::Black);
                let left = |color| game.departures().left_at(color).map(convert::timestamp);
                status.white_left_time = left(Color::White);
                status.black_left_time = left(Color::Black);
                status.result = game
                    .result()
                    .map(|r| convert::result(r, game.score(), game.review()));
            }
            status
        })
        .collect();
    proto::GetRoundResponse {
        round: Some(round(&page.round)),
        boards,
        next_page_token,
        server_time: Some(convert::timestamp(page.as_of)),
    }
}

/// Where the boards and byes of imported pairings came from: the line of
/// each board, and of each bye the engine gave.
#[derive(Clone, Debug, Default)]
pub struct PairingLines {
    boards: Vec<usize>,
    byes: Vec<usize>,
}

impl PairingLines {
    /// A refusal of the round imported pairings make, named in the import
    /// request's terms: a board's or the engine's bye's by its line of
    /// `pairings`, a requested bye by its place in the request's `byes`.
    pub fn rename(&self, violation: RoundViolation) -> RoundViolation {
        let violation = RoundViolation {
            reason: self.rename_mentions(&violation.reason),
            ..violation
        };
        let indexed = |prefix: &str| -> Option<(usize, String)> {
            let rest = violation.field.strip_prefix(prefix)?;
            let (index, rest) = rest.split_once(']')?;
            Some((index.parse().ok()?, rest.to_owned()))
        };
        if let Some((index, rest)) = indexed("boards[")
            && let Some(line) = self.boards.get(index)
        {
            return RoundViolation::new(
                "pairings",
                format!("line {line}{}: {}", described(&rest), violation.reason),
            );
        }
        if let Some((index, rest)) = indexed("byes[") {
            return match self.byes.get(index) {
                Some(line) => RoundViolation::new(
                    "pairings",
                    format!(
                        "line {line} (the bye){}: {}",
                        described(&rest),
                        violation.reason
                    ),
                ),
                None => RoundViolation::new(
                    format!("byes[{}]{rest}", index - self.byes.len()),
                    violation.reason,
                ),
            };
        }
        violation
    }

    /// `text` with the fields it mentions (`boards[3].white`,
    /// `byes[0].player`) named as the import request names them.
    fn rename_mentions(&self, text: &str) -> String {
        /// The index and what follows `prefix[<index>]` at the start of `at`.
        fn indexed<'a>(at: &'a str, prefix: &str) -> Option<(usize, &'a str)> {
            let rest = at.strip_prefix(prefix)?;
            let end = rest.find(']')?;
            Some((rest[..end].parse().ok()?, &rest[end + 1..]))
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            if let Some((index, after)) = indexed(rest, "boards[")
                && let Some(line) = self.boards.get(index)
            {
                let (side, after) = match after {
                    a if a.starts_with(".white") => ("White on ", &a[".white".len()..]),
                    a if a.starts_with(".black") => ("Black on ", &a[".black".len()..]),
                    a => ("", a),
                };
                out.push_str(&format!("{side}line {line}"));
                rest = after;
                continue;
            }
            if let Some((index, after)) = indexed(rest, "byes[") {
                match self.byes.get(index) {
                    Some(line) => out.push_str(&format!("the bye on line {line}")),
                    None => out.push_str(&format!("byes[{}]", index - self.byes.len())),
                }
                rest = after.strip_prefix(".player").map_or(after, |a| {
                    if self.byes.get(index).is_none() {
                        out.push_str(".player");
                    }
                    a
                });
                continue;
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out
    }
}

/// A board's field as words: `.white.id` → ` (White)`.
fn described(rest: &str) -> &'static str {
    if rest.starts_with(".white") {
        " (White)"
    } else if rest.starts_with(".black") {
        " (Black)"
    } else if rest.starts_with(".player") {
        " (the player)"
    } else {
        ""
    }
}

/// The plan an `ImportPairings` request asks for, once the pairings are
/// mapped to `ranks` (the request's players, or the event's ranks), and
/// the lines its boards and byes came from.
pub fn import_request(
    req: &proto::ImportPairingsRequest,
    ranks: &[Player],
) -> Result<(RoundRequest, PairingLines), Status> {
    use crate::domain::EnginePairings;
    let pairings = EnginePairings::parse(&req.pairings)
        .map_err(|err| refused(vec![RoundViolation::new("pairings", err.to_string())]))?;
    if !req.trf.is_empty() {
        check_trf(&req.trf, ranks)?;
    }
    let assigned = pairings.assign(ranks).map_err(refused)?;
    let boards = assigned
        .boards
        .iter()
        .map(|(board, white, black)| proto::RoundBoard {
            board: i32::try_from(*board).unwrap_or(i32::MAX),
            white: Some(convert::player(white)),
            black: Some(convert::player(black)),
            overrides: None,
        })
        .collect();
    let mut byes: Vec<proto::RoundBye> = assigned
        .byes
        .iter()
        .map(|player| proto::RoundBye {
            player: Some(convert::player(player)),
            kind: proto::ByeKind::PairingAllocated.into(),
        })
        .collect();
    byes.extend(req.byes.iter().cloned());
    let lines = PairingLines {
        boards: assigned.board_lines.clone(),
        byes: assigned.bye_lines.clone(),
    };
    let plan = create_request(&proto::CreateRoundRequest {
        request_id: req.request_id.clone(),
        event_id: req.event_id.clone(),
        round: req.round,
        settings: req.settings.clone(),
        boards,
        byes,
        players: req.players.clone(),
        forbidden_pairs: req.forbidden_pairs.clone(),
        accelerations: req.accelerations.clone(),
        team_round: false,
        matches: Vec::new(),
        team_byes: Vec::new(),
    })?;
    Ok((plan, lines))
}

/// Refuses a TRF whose player lines are not `ranks`, name for name: the
/// pairings were made from another report.
fn check_trf(trf: &str, ranks: &[Player]) -> Result<(), Status> {
    if trf.len() > crate::arbiter::MAX_TRF_BYTES {
        return Err(refused(vec![RoundViolation::new(
            "trf",
            format!("is longer than {} bytes", crate::arbiter::MAX_TRF_BYTES),
        )]));
    }
    crate::domain::check_report(trf, ranks).map_err(refused)
}

/// The starting ranks a request lists, if it lists any.
pub fn listed_ranks(raw: &[proto::Player]) -> Result<Vec<Player>, Status> {
    let mut violations = Vec::new();
    let ranks = roster(raw, &mut violations);
    if violations.is_empty() {
        Ok(ranks)
    } else {
        Err(refused(violations))
    }
}
