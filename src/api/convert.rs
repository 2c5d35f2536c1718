//! Mapping domain values to their protobuf messages.

use crate::{
    arbiter::{GameView, WatchItem},
    domain::{
        self, ClaimReason, ClaimVerdict, ClockView, Color, DelayMode, EventId, EventKind,
        GameEvent, GameRules, GameStatus, MoveRecord, Outcome, Pace, PointTable, RulesProfile,
        Score, ScoringSystem, Standing, Termination, TimeControl, Timestamp, Variant,
    },
    proto,
};

/// A protobuf timestamp.
pub fn timestamp(at: Timestamp) -> prost_types::Timestamp {
    let millis = at.unix_millis();
    prost_types::Timestamp {
        seconds: i64::try_from(millis / 1000).unwrap_or(i64::MAX),
        // Below 1000 × 1 000 000, so it fits.
        nanos: i32::try_from((millis % 1000) * 1_000_000).unwrap_or(0),
    }
}

/// A protobuf colour.
pub fn color(color: Color) -> proto::Color {
    color.fold_wb(proto::Color::White, proto::Color::Black)
}

fn player(player: &domain::Player) -> proto::Player {
    proto::Player {
        id: player.id.clone(),
        name: player.name.clone(),
    }
}

fn result(result: domain::GameResult, score: Option<Score>) -> proto::GameResult {
    let outcome = match result.outcome {
        Outcome::WhiteWins => proto::Outcome::WhiteWins,
        Outcome::BlackWins => proto::Outcome::BlackWins,
        Outcome::Draw => proto::Outcome::Draw,
        Outcome::DoubleForfeit => proto::Outcome::DoubleForfeit,
    };
    proto::GameResult {
        outcome: outcome.into(),
        termination: termination(result.termination).into(),
        white_points: score.map(|s| s.white.to_string()).unwrap_or_default(),
        black_points: score.map(|s| s.black.to_string()).unwrap_or_default(),
        unplayed: score.is_some_and(|s| !s.played),
    }
}

fn move_record(record: &MoveRecord) -> proto::MoveRecord {
    proto::MoveRecord {
        ply: record.ply.count(),
        uci: record.uci.clone(),
        san: record.san.clone(),
        color: color(record.color).into(),
        fen_after: record.fen_after.clone(),
        played_at: Some(timestamp(record.played_at)),
        time_spent_ms: record.time.map_or(0, |t| t.spent_ms),
        clock_ms: record.time.map_or(0, |t| t.remaining_ms),
    }
}

/// The protobuf view of the clocks.
pub fn clock(view: &ClockView) -> proto::ClockState {
    proto::ClockState {
        as_of: Some(timestamp(view.at)),
        white_ms: view.white_ms,
        black_ms: view.black_ms,
        running: optional_color(view.running).into(),
        paused: view.paused,
        white_period: view.white_period,
        black_period: view.black_period,
        white_moves_left: view.white_moves_left,
        black_moves_left: view.black_moves_left,
        delay_left_ms: view.delay_left_ms,
    }
}

fn time_control(control: &TimeControl) -> proto::TimeControl {
    proto::TimeControl {
        periods: control
            .periods()
            .iter()
            .map(|p| proto::Period {
                time_ms: p.time_ms,
                moves: p.moves,
                increment_ms: p.increment_ms,
                delay_ms: p.delay_ms,
            })
            .collect(),
        delay_mode: match control.delay_mode() {
            DelayMode::Simple => proto::DelayMode::Simple,
            DelayMode::Bronstein => proto::DelayMode::Bronstein,
        }
        .into(),
    }
}

/// The protobuf view of a game, with its clocks as of `now`.
pub fn game(view: &GameView) -> proto::Game {
    let game = &view.game;
    let status = match game.status() {
        GameStatus::Active | GameStatus::Pending => proto::GameStatus::Active,
        GameStatus::Finished => proto::GameStatus::Finished,
        GameStatus::Aborted => proto::GameStatus::Aborted,
    };
    proto::Game {
        game_id: game.id().to_string(),
        version: game.version(),
        status: status.into(),
        fen: game.fen(),
        side_to_move: color(game.side_to_move()).into(),
        ply: game.ply().count(),
        moves: view.moves.iter().map(move_record).collect(),
        white: Some(player(game.white())),
        black: Some(player(game.black())),
        result: game.result().map(|r| result(r, game.score())),
        event_id: event_id(&game.pairing().event_id),
        round: game.pairing().round,
        board: game.pairing().board,
        initial_fen: game.initial_fen().to_owned(),
        legal_moves: game.legal_moves_uci(),
        in_check: game.in_check(),
        created_at: Some(timestamp(game.created_at())),
        updated_at: Some(timestamp(game.updated_at())),
        variant: variant(game.variant()).into(),
        rules: Some(rules(game.rules())),
        draw_offer: optional_color(game.draw_offer()).into(),
        can_claim_threefold: game.can_claim_threefold(),
        can_claim_fifty_moves: game.can_claim_fifty_moves(),
        halfmove_clock: game.halfmove_clock(),
        repetition_count: u32::try_from(game.repetition_count()).unwrap_or(u32::MAX),
        aborted_by: optional_color(game.aborted_by()).into(),
        clock: game.clock_view(view.as_of).as_ref().map(clock),
        time_control: game.clock().map(|c| time_control(c.control(Color::White))),
        black_time_control: game.clock().map(|c| time_control(c.control(Color::Black))),
        pace: match game.pace() {
            None => proto::Pace::Unspecified,
            Some(Pace::Standard) => proto::Pace::Standard,
            Some(Pace::Rapid) => proto::Pace::Rapid,
            Some(Pace::Blitz) => proto::Pace::Blitz,
        }
        .into(),
        scheduled_start: game.schedule().scheduled_start.map(timestamp),
        default_time_ms: game.schedule().default_time_ms.unwrap_or(0),
        scoring: Some(scoring(game.scoring())),
    }
}

fn point_table(table: &PointTable) -> proto::PointTable {
    proto::PointTable {
        win: table.win().to_string(),
        draw: table.draw().to_string(),
        loss: table.loss().to_string(),
    }
}

fn scoring(system: ScoringSystem) -> proto::ResolvedScoring {
    proto::ResolvedScoring {
        white: Some(point_table(&system.white)),
        black: Some(point_table(&system.black)),
        armageddon: system.armageddon,
    }
}

/// An event id as the API carries it: empty for none.
fn event_id(id: &Option<EventId>) -> String {
    id.as_ref().map(ToString::to_string).unwrap_or_default()
}

fn optional_color(side: Option<Color>) -> proto::Color {
    side.map_or(proto::Color::Unspecified, color)
}

fn variant(variant: Variant) -> proto::Variant {
    match variant {
        Variant::Standard => proto::Variant::Standard,
        Variant::Chess960 => proto::Variant::Chess960,
    }
}

fn rules(rules: GameRules) -> proto::GameRules {
    proto::GameRules {
        draw_offers_from_move: rules.draw_offers_from_move,
        sofia_rules: rules.sofia_rules,
        profile: match rules.profile {
            RulesProfile::Fide => proto::RulesProfile::Fide,
            RulesProfile::Uscf => proto::RulesProfile::Uscf,
        }
        .into(),
        pending_offer_draws_on_flag: rules.pending_offer_draws_on_flag,
    }
}

/// The protobuf form of a claim reason.
pub fn claim_reason(reason: ClaimReason) -> proto::DrawClaimReason {
    match reason {
        ClaimReason::ThreefoldRepetition => proto::DrawClaimReason::ThreefoldRepetition,
        ClaimReason::FiftyMoves => proto::DrawClaimReason::FiftyMoves,
    }
}

/// The protobuf form of a claim's verdict.
pub fn claim_verdict(verdict: ClaimVerdict) -> proto::DrawClaimVerdict {
    match verdict {
        ClaimVerdict::Upheld => proto::DrawClaimVerdict::Upheld,
        ClaimVerdict::Refused(_) => proto::DrawClaimVerdict::Refused,
        ClaimVerdict::Moot => proto::DrawClaimVerdict::Moot,
    }
}

/// The protobuf form of one watch item.
pub fn watch_item(item: &WatchItem) -> proto::GameEvent {
    match item {
        WatchItem::Snapshot(view) => {
            let snapshot = game(view);
            proto::GameEvent {
                version: view.game.version(),
                timestamp: Some(timestamp(view.as_of)),
                clock: snapshot.clock,
                kind: Some(proto::game_event::Kind::Snapshot(snapshot)),
            }
        }
        WatchItem::Event(event) => game_event(event),
    }
}

/// The protobuf form of one committed event.
pub fn game_event(event: &GameEvent) -> proto::GameEvent {
    use proto::game_event::Kind;
    let kind = match &event.kind {
        EventKind::GameCreated { setup } => Kind::GameCreated(proto::GameCreated {
            white: Some(player(setup.white())),
            black: Some(player(setup.black())),
            initial_fen: setup.initial_fen(),
            event_id: event_id(&setup.pairing().event_id),
            round: setup.pairing().round,
            board: setup.pairing().board,
            variant: variant(setup.variant()).into(),
        }),
        EventKind::MoveMade {
            record,
            side_to_move,
            ply,
            in_check,
        } => Kind::MoveMade(proto::MoveMade {
            r#move: Some(move_record(record)),
            side_to_move: color(*side_to_move).into(),
            ply: ply.count(),
            in_check: *in_check,
        }),
        EventKind::GameEnded { result: r, score } => Kind::GameEnded(proto::GameEnded {
            result: Some(result(*r, *score)),
        }),
        EventKind::DrawOffered { by } => Kind::DrawOffered(proto::DrawOffered {
            by: color(*by).into(),
        }),
        EventKind::DrawDeclined { by } => Kind::DrawDeclined(proto::DrawDeclined {
            by: color(*by).into(),
        }),
        EventKind::DrawClaimRefused {
            by,
            reason,
            explanation,
        } => Kind::DrawClaimRefused(proto::DrawClaimRefused {
            by: color(*by).into(),
            reason: claim_reason(*reason).into(),
            explanation: explanation.clone(),
        }),
        EventKind::GameAborted { by } => Kind::GameAborted(proto::GameAborted {
            by: color(*by).into(),
        }),
        EventKind::ClockAdjusted {
            color: side,
            delta_ms,
            reason,
        } => Kind::ClockAdjusted(proto::ClockAdjusted {
            color: color(*side).into(),
            delta_ms: *delta_ms,
            reason: reason.clone(),
        }),
        EventKind::ResultSet {
            result: r,
            score,
            reason,
        } => Kind::ResultSet(proto::ResultSet {
            result: Some(result(*r, Some(*score))),
            reason: reason.clone(),
        }),
        EventKind::ClockPaused { reason } => Kind::ClockPaused(proto::ClockPaused {
            reason: reason.clone(),
        }),
        EventKind::ClockResumed { reason } => Kind::ClockResumed(proto::ClockResumed {
            reason: reason.clone(),
        }),
    };
    proto::GameEvent {
        version: event.version,
        timestamp: Some(timestamp(event.at)),
        clock: event.clock_view().as_ref().map(clock),
        kind: Some(kind),
    }
}

/// The protobuf form of a standings line.
pub fn standing(row: &Standing) -> proto::Standing {
    proto::Standing {
        rank: row.rank,
        player: Some(player(&row.player)),
        points: row.points.to_string(),
        games_played: row.played,
        wins: row.wins,
        draws: row.draws,
        losses: row.losses,
        forfeit_wins: row.forfeit_wins,
        forfeit_losses: row.forfeit_losses,
        direct_encounter: row.direct_encounter.to_string(),
        buchholz: row.buchholz.to_string(),
        buchholz_cut1: row.buchholz_cut1.to_string(),
        sonneborn_berger: row.sonneborn_berger.to_string(),
    }
}

/// One table of terminations, read in both directions: the domain and the
/// protobuf enums name them alike, and both generated `match`es are
/// exhaustive, so a termination added to either side without the other
/// does not compile.
macro_rules! terminations {
    ($($name:ident),* $(,)?) => {
        /// The protobuf form of a termination.
        fn termination(termination: Termination) -> proto::Termination {
            match termination {
                $(Termination::$name => proto::Termination::$name,)*
            }
        }

        /// The domain termination a protobuf one names, if any.
        pub fn termination_from(termination: proto::Termination) -> Option<Termination> {
            match termination {
                proto::Termination::Unspecified => None,
                $(proto::Termination::$name => Some(Termination::$name),)*
            }
        }
    };
}

terminations!(
    Checkmate,
    Resignation,
    Stalemate,
    InsufficientMaterial,
    Agreement,
    ThreefoldRepetition,
    FiftyMoves,
    FivefoldRepetition,
    SeventyFiveMoves,
    DeadPosition,
    Timeout,
    TimeoutVsInsufficientMaterial,
    TimeoutWithPendingDrawOffer,
    NoShow,
    Forfeit,
    ArbiterDecision,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_termination_maps_to_its_protobuf_value_and_back() {
        let named: Vec<proto::Termination> = (0..64)
            .filter_map(|n| proto::Termination::try_from(n).ok())
            .filter(|&t| t != proto::Termination::Unspecified)
            .collect();
        assert_eq!(named.len(), 16);
        for value in named {
            let domain = termination_from(value).expect("a named termination");
            assert_eq!(termination(domain), value);
        }
        assert_eq!(termination_from(proto::Termination::Unspecified), None);
    }
}
