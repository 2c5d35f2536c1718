//! Reading a `CreateGameRequest` into a validated new game.

use tonic::Status;

use super::{request, status};
use crate::{
    domain::{
        BroadcastDelay, DelayMode, FieldError, GameRules, LagCompensation, NewGame, Pairing,
        Period, Player, PlayerDetails, PointTable, RequestId, RulesProfile, Schedule,
        ScoringSystem, StartPosition, TimeControl, Timing, Variant,
    },
    proto,
};

fn invalid(field: &'static str, reason: &str) -> Status {
    status::invalid_field(&FieldError::new(field, reason))
}

fn player(field: &'static str, player: Option<&proto::Player>) -> Result<Player, Status> {
    let player = player.ok_or_else(|| invalid(field, "is required"))?;
    player_of(field, player).map_err(|err| status::invalid_field(&err))
}

/// A player with the details the platform gave, refused as `field`.
pub fn player_of(field: &'static str, player: &proto::Player) -> Result<Player, FieldError> {
    let details = PlayerDetails::parse(
        field,
        player.rating,
        &player.title,
        player.fide_id,
        &player.team,
    )?;
    Player::parse(field, &player.id, &player.name).map(|parsed| parsed.with_details(details))
}

fn rules(rules: Option<&proto::GameRules>) -> Result<GameRules, Status> {
    let Some(r) = rules else {
        return Ok(GameRules::default());
    };
    Ok(GameRules {
        draw_offers_from_move: request::non_negative(
            "rules.draw_offers_from_move",
            r.draw_offers_from_move,
        )?,
        sofia_rules: r.sofia_rules,
        profile: match r.profile() {
            proto::RulesProfile::Unspecified | proto::RulesProfile::Fide => RulesProfile::Fide,
            proto::RulesProfile::Uscf => RulesProfile::Uscf,
        },
        pending_offer_draws_on_flag: r.pending_offer_draws_on_flag,
        no_abort: r.no_abort,
        no_give_time: r.no_give_time,
        claim_after_opponent_left_ms: request::non_negative(
            "rules.claim_after_opponent_left_millis",
            r.claim_after_opponent_left_millis,
        )?,
    })
}

/// Milliseconds as sent (`int32`), which must not be negative.
fn millis(field: &'static str, value: i32) -> Result<u64, Status> {
    request::non_negative(field, value).map(u64::from)
}

fn time_control(field: &'static str, control: &proto::TimeControl) -> Result<TimeControl, Status> {
    let periods = control
        .periods
        .iter()
        .map(|p| {
            Ok(Period {
                time_ms: millis(field, p.time_millis)?,
                moves: request::non_negative(field, p.moves)?,
                increment_ms: millis(field, p.increment_millis)?,
                delay_ms: millis(field, p.delay_millis)?,
            })
        })
        .collect::<Result<Vec<_>, Status>>()?;
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
    let scheduled_start = match &req.scheduled_start_time {
        None => None,
        Some(at) => Some(super::request::timestamp("scheduled_start_time", at)?),
    };
    // 0 is protobuf's "not set".
    let default_time_ms =
        Some(millis("default_time_millis", req.default_time_millis)?).filter(|&ms| ms > 0);
    Schedule::new(scheduled_start, default_time_ms).map_err(|err| status::invalid_field(&err))
}

fn lag_compensation(
    policy: Option<&proto::LagCompensation>,
) -> Result<Option<LagCompensation>, Status> {
    let Some(p) = policy else {
        return Ok(None);
    };
    LagCompensation::requested(
        millis(
            "lag_compensation.initial_quota_millis",
            p.initial_quota_millis,
        )?,
        millis("lag_compensation.max_quota_millis", p.max_quota_millis)?,
        millis("lag_compensation.quota_gain_millis", p.quota_gain_millis)?,
        millis(
            "lag_compensation.max_move_credit_millis",
            p.max_move_credit_millis,
        )?,
    )
    .map(Some)
    .map_err(|err| status::invalid_field(&err))
}

fn point_table(field: &'static str, table: &proto::PointTable) -> Result<PointTable, Status> {
    PointTable::parse(field, &table.win, &table.draw, &table.loss)
        .map_err(|err| status::invalid_field(&err))
}

fn scoring(scoring: Option<&proto::Scoring>) -> Result<ScoringSystem, Status> {
    use proto::scoring::System;
    let Some(scoring) = scoring else {
        return Ok(ScoringSystem::default());
    };
    let (white, black) = match &scoring.system {
        None => (PointTable::CLASSIC, PointTable::CLASSIC),
        Some(System::Preset(preset)) => match proto::ScoringPreset::try_from(*preset) {
            Ok(proto::ScoringPreset::Football) => (PointTable::FOOTBALL, PointTable::FOOTBALL),
            Ok(proto::ScoringPreset::Unspecified | proto::ScoringPreset::Classic) => {
                (PointTable::CLASSIC, PointTable::CLASSIC)
            }
            Err(_) => return Err(invalid("scoring.preset", "is not a known preset")),
        },
        Some(System::Custom(custom)) => {
            let white = custom
                .white
                .as_ref()
                .ok_or_else(|| invalid("scoring.custom.white", "is required"))?;
            let white = point_table("scoring.custom.white", white)?;
            let black = match &custom.black {
                Some(black) => point_table("scoring.custom.black", black)?,
                None => white,
            };
            (white, black)
        }
    };
    Ok(ScoringSystem {
        white,
        black,
        armageddon: scoring.armageddon,
    })
}

fn pairing(pairing: Option<&proto::Pairing>) -> Result<Pairing, Status> {
    let Some(pairing) = pairing else {
        return Ok(Pairing::default());
    };
    if pairing.match_tie_break {
        return Err(status::invalid_field(&FieldError::new(
            "pairing.match_tie_break",
            "is set on a match's tie-break game only: create it with CreateMatchTieBreak",
        )));
    }
    Pairing::parse(
        &pairing.event_id,
        request::non_negative("pairing.round", pairing.round)?,
        request::non_negative("pairing.board", pairing.board)?,
    )
    .map_err(|err| {
        // The pairing's fields sit in the request's `pairing` message.
        let field = match err.field {
            "event_id" => "pairing.event_id",
            "round" => "pairing.round",
            "board" => "pairing.board",
            other => other,
        };
        status::invalid_field(&FieldError { field, ..err })
    })
}

/// The idempotency key and the validated game a request asks for.
pub fn new_game(req: &proto::CreateGameRequest) -> Result<(Option<RequestId>, NewGame), Status> {
    let request_id = RequestId::parse(&req.request_id).map_err(|e| status::invalid_field(&e))?;
    let white = player("white", req.white.as_ref())?;
    let black = player("black", req.black.as_ref())?;
    let pairing = pairing(req.pairing.as_ref())?;
    let variant = match req.variant() {
        proto::Variant::Unspecified | proto::Variant::Standard => Variant::Standard,
        proto::Variant::Chess960 => Variant::Chess960,
    };
    let (initial_fen, chess960_position) = match &req.start {
        None => ("", None),
        Some(proto::create_game_request::Start::InitialFen(fen)) => (fen.as_str(), None),
        Some(proto::create_game_request::Start::Chess960Position(number)) => (
            "",
            Some(request::non_negative("chess960_position", *number)?),
        ),
    };
    let start =
        StartPosition::requested(variant, initial_fen, chess960_position, request_id.as_ref())
            .map_err(|e| status::invalid_field(&e))?;
    let new = NewGame::new(
        white,
        black,
        variant,
        &start,
        pairing,
        rules(req.rules.as_ref())?,
    )
    .map_err(|e| status::invalid_field(&e))?
    .with_clock(timing(req)?, schedule(req)?)
    .with_scoring(scoring(req.scoring.as_ref())?)
    .with_broadcast_delay(
        BroadcastDelay::parse(
            "broadcast_delay_millis",
            i64::from(req.broadcast_delay_millis),
        )
        .map_err(|e| status::invalid_field(&e))?,
    )
    .with_lag_compensation(lag_compensation(req.lag_compensation.as_ref())?)
    .map_err(|e| status::invalid_field(&e))?
    .with_fair_play_record(req.record_fair_play);
    Ok((request_id, new))
}
