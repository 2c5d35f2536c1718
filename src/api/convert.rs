//! Mapping domain values to their protobuf messages.

use shakmaty::Position;

use crate::{
    arbiter::{GameView, WatchItem},
    domain::{
        self, ClaimReason, Color, EventKind, GameEvent, GameRules, GameStatus, MoveRecord, Outcome,
        Termination, Timestamp, Variant,
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

fn result(result: domain::GameResult) -> proto::GameResult {
    let outcome = match result.outcome {
        Outcome::WhiteWins => proto::Outcome::WhiteWins,
        Outcome::BlackWins => proto::Outcome::BlackWins,
        Outcome::Draw => proto::Outcome::Draw,
    };
    let termination = match result.termination {
        Termination::Checkmate => proto::Termination::Checkmate,
        Termination::Resignation => proto::Termination::Resignation,
        Termination::Stalemate => proto::Termination::Stalemate,
        Termination::InsufficientMaterial => proto::Termination::InsufficientMaterial,
        Termination::Agreement => proto::Termination::Agreement,
        Termination::ThreefoldRepetition => proto::Termination::ThreefoldRepetition,
        Termination::FiftyMoves => proto::Termination::FiftyMoves,
        Termination::FivefoldRepetition => proto::Termination::FivefoldRepetition,
        Termination::SeventyFiveMoves => proto::Termination::SeventyFiveMoves,
        Termination::DeadPosition => proto::Termination::DeadPosition,
    };
    proto::GameResult {
        outcome: outcome.into(),
        termination: termination.into(),
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
    }
}

/// The protobuf view of a game.
pub fn game(view: &GameView) -> proto::Game {
    let game = &view.game;
    let status = match game.status() {
        GameStatus::Active => proto::GameStatus::Active,
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
        result: game.result().map(result),
        event_id: game.pairing().event_id.clone(),
        round: game.pairing().round,
        board: game.pairing().board,
        initial_fen: game.initial_fen().to_owned(),
        legal_moves: game.legal_moves_uci(),
        in_check: game.status() == GameStatus::Active && game.position().is_check(),
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
    }
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
    }
}

/// The protobuf form of a claim reason.
pub fn claim_reason(reason: ClaimReason) -> proto::DrawClaimReason {
    match reason {
        ClaimReason::ThreefoldRepetition => proto::DrawClaimReason::ThreefoldRepetition,
        ClaimReason::FiftyMoves => proto::DrawClaimReason::FiftyMoves,
    }
}

/// The protobuf form of one watch item.
pub fn watch_item(item: &WatchItem) -> proto::GameEvent {
    match item {
        WatchItem::Snapshot(view) => proto::GameEvent {
            version: view.game.version(),
            timestamp: Some(timestamp(view.game.updated_at())),
            kind: Some(proto::game_event::Kind::Snapshot(game(view))),
        },
        WatchItem::Event(event) => game_event(event),
    }
}

fn game_event(event: &GameEvent) -> proto::GameEvent {
    use proto::game_event::Kind;
    let kind = match &event.kind {
        EventKind::GameCreated {
            white,
            black,
            initial_fen,
            pairing,
            variant: v,
        } => Kind::GameCreated(proto::GameCreated {
            white: Some(player(white)),
            black: Some(player(black)),
            initial_fen: initial_fen.clone(),
            event_id: pairing.event_id.clone(),
            round: pairing.round,
            board: pairing.board,
            variant: variant(*v).into(),
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
        EventKind::GameEnded { result: r } => Kind::GameEnded(proto::GameEnded {
            result: Some(result(*r)),
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
    };
    proto::GameEvent {
        version: event.version,
        timestamp: Some(timestamp(event.at)),
        kind: Some(kind),
    }
}
