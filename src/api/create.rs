//! Reading a `CreateGameRequest` into a validated new game.

use tonic::Status;

use super::status;
use crate::{
    domain::{
        DelayMode, FieldError, GameRules, NewGame, Pairing, Period, Player, PointTable, RequestId,
        RulesProfile, Schedule, ScoringSystem, StartPosition, TimeControl, Timestamp, Timing,
        Variant,
    },
    proto,
};

fn invalid(field: &'static str, reason: &str) -> Status {
    status::invalid_field(&FieldError::new(field, reason))
}

fn player(field: &'static str, player: Option<&proto::Player>) -> Result<Player, Status> {
    let player = player.ok_or_else(|| invalid(field, "is required"))?;
    Player::parse(field, &player.id, &player.name).map_err(|err| status::invalid_field(&err))
}

fn rules(rules: Option<&proto::GameRules>) -> GameRules {
    rules.map_or_else(GameRules::default, |r| GameRules {
        draw_offers_from_move: r.draw_offers_from_move,
        sofia_rules: r.sofia_rules,
        profile: match r.profile() {
            proto::RulesProfile::Unspecified | proto::RulesProfile::Fide => RulesProfile::Fide,
            proto::RulesProfile::Uscf => RulesProfile::Uscf,
        },
        pending_offer_draws_on_flag: r.pending_offer_draws_on_flag,
    })
}

fn time_control(field: &'static str, control: &proto::TimeControl) -> Result<TimeControl, Status> {
    let periods = control
        .periods
        .iter()
        .map(|p| Period {
            time_ms: p.time_ms,
            moves: p.moves,
            increment_ms: p.increment_ms,
            delay_ms: p.delay_ms,
        })
        .collect();
    let mode = match control.delay_mode() {
        proto::DelayMode::Unspecified | proto::DelayMode::Simple => DelayMode::Simple,
        proto::DelayMode::Bronstein => DelayMode::Bronstein,
    };
    TimeControl::new(field, periods, mode).map_err(|err| status::invalid_field(&err))
}

fn timing(req: &proto::CreateGameRequest) -> Result<Option<Timing>, Status> {
    let white = req
        .time_control
        .as_ref()
        .map(|control| time_control("time_control", control))
        .transpose()?;
    let black = req
        .black_time_control
        .as_ref()
        .map(|control| time_control("black_time_control", control))
        .transpose()?;
    Timing::requested(white, black, req.clock_starts_after_first_moves)
        .map_err(|err| status::invalid_field(&err))
}

fn schedule(req: &proto::CreateGameRequest) -> Result<Schedule, Status> {
    let scheduled_start = match &req.scheduled_start {
        None => None,
        Some(at) => {
            let millis = u64::try_from(at.seconds)
                .ok()
                .and_then(|s| s.checked_mul(1000))
                .and_then(|ms| ms.checked_add(u64::try_from(at.nanos / 1_000_000).ok()?))
                .ok_or_else(|| invalid("scheduled_start", "must be a time after 1970"))?;
            Some(Timestamp::from_unix_millis(millis))
        }
    };
    // 0 is protobuf's "not set".
    let default_time_ms = Some(req.default_time_ms).filter(|&ms| ms > 0);
    Schedule::new(scheduled_start, default_time_ms).map_err(|err| status::invalid_field(&err))
}

fn point_table(field: &'static str, table: &proto::PointTable) -> Result<PointTable, Status> {
    PointTable::parse(field, &table.win, &table.draw, &table.loss)
        .map_err(|err| status::invalid_field(&err))
}

fn scoring(scoring: Option<&proto::Scoring>) -> Result<ScoringSystem, Status> {
    let Some(scoring) = scoring else {
        return Ok(ScoringSystem::default());
    };
    let custom_given = scoring.custom.is_some() || scoring.custom_black.is_some();
    let (white, black) = match scoring.preset() {
        proto::ScoringPreset::Custom => {
            let white = scoring.custom.as_ref().ok_or_else(|| {
                invalid("scoring.custom", "is required for SCORING_PRESET_CUSTOM")
            })?;
            let white = point_table("scoring.custom", white)?;
            let black = match &scoring.custom_black {
                Some(black) => point_table("scoring.custom_black", black)?,
                None => white,
            };
            (white, black)
        }
        _ if custom_given => {
            return Err(invalid(
                "scoring.custom",
                "applies only with SCORING_PRESET_CUSTOM",
            ));
        }
        proto::ScoringPreset::Football => (PointTable::FOOTBALL, PointTable::FOOTBALL),
        proto::ScoringPreset::Unspecified | proto::ScoringPreset::Classic => {
            (PointTable::CLASSIC, PointTable::CLASSIC)
        }
    };
    Ok(ScoringSystem {
        white,
        black,
        armageddon: scoring.armageddon,
    })
}

/// The idempotency key and the validated game a request asks for.
pub fn new_game(req: &proto::CreateGameRequest) -> Result<(Option<RequestId>, NewGame), Status> {
    let request_id = RequestId::parse(&req.request_id).map_err(|e| status::invalid_field(&e))?;
    let white = player("white", req.white.as_ref())?;
    let black = player("black", req.black.as_ref())?;
    let pairing = Pairing::parse(&req.event_id, req.round, req.board)
        .map_err(|e| status::invalid_field(&e))?;
    let variant = match req.variant() {
        proto::Variant::Unspecified | proto::Variant::Standard => Variant::Standard,
        proto::Variant::Chess960 => Variant::Chess960,
    };
    let start = StartPosition::requested(
        variant,
        &req.initial_fen,
        req.chess960_position,
        request_id.as_ref(),
    )
    .map_err(|e| status::invalid_field(&e))?;
    let new = NewGame::new(
        white,
        black,
        variant,
        &start,
        pairing,
        rules(req.rules.as_ref()),
    )
    .map_err(|e| status::invalid_field(&e))?
    .with_clock(timing(req)?, schedule(req)?)
    .with_scoring(scoring(req.scoring.as_ref())?);
    Ok((request_id, new))
}
