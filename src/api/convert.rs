//! Mapping domain values to their protobuf messages.
//!
//! The domain counts milliseconds in 64 bits; the contract carries them as
//! `int32` (about 24 days), so that no client language sees a 64-bit
//! integer for a clock. Values beyond that range (never produced by the
//! rules' own limits) saturate rather than wrap.

use crate::{
    arbiter::{GameView, Heartbeat},
    domain::{
        self, AdjudicationNote, ClaimReason, ClaimVerdict, ClockView, Color, Cut, DelayMode,
        EventKind, Game, GameEvent, GameRules, GameStatus, LagCompensation, MoveRecord, NewGame,
        Outcome, Pace, PointTable, RulesProfile, Score, ScoringSystem, Standing, Termination,
        TieBreak, TimeControl, Timestamp, Timing, Variant,
    },
    proto,
};

/// A protobuf timestamp, never past the year 9999 (a deadline computed
/// from a late scheduled start would be), so that it has an RFC 3339 form.
pub fn timestamp(at: Timestamp) -> prost_types::Timestamp {
    let millis = at.clamped().unix_millis();
    prost_types::Timestamp {
        seconds: i64::try_from(millis / 1000).unwrap_or(i64::MAX),
        // Below 1000 × 1 000 000, so it fits.
        nanos: i32::try_from((millis % 1000) * 1_000_000).unwrap_or(0),
    }
}

/// A count or a duration as the contract's `int32`, saturating.
pub fn int32<T: TryInto<i32>>(value: T, saturated: i32) -> i32 {
    value.try_into().unwrap_or(saturated)
}

/// A signed number of milliseconds as `int32`, saturating either way.
fn signed_millis(value: i64) -> i32 {
    int32(value, if value < 0 { i32::MIN } else { i32::MAX })
}

/// An unsigned number of milliseconds as `int32`, saturating.
fn millis(value: u64) -> i32 {
    int32(value, i32::MAX)
}

/// A protobuf colour.
pub fn color(color: Color) -> proto::Color {
    color.fold_wb(proto::Color::White, proto::Color::Black)
}

fn optional_color(side: Option<Color>) -> Option<i32> {
    side.map(|side| color(side).into())
}

/// The protobuf form of a player.
pub fn player(player: &domain::Player) -> proto::Player {
    let details = &player.details;
    proto::Player {
        id: player.id.clone(),
        name: player.name.clone(),
        rating: details
            .rating
            .map_or(0, |r| i32::try_from(r).unwrap_or(i32::MAX)),
        title: details.title.clone().unwrap_or_default(),
        fide_id: details
            .fide_id
            .map_or(0, |id| i32::try_from(id).unwrap_or(i32::MAX)),
        team: details.team.clone().unwrap_or_default(),
    }
}

fn outcome(outcome: Outcome) -> proto::Outcome {
    match outcome {
        Outcome::WhiteWins => proto::Outcome::WhiteWins,
        Outcome::BlackWins => proto::Outcome::BlackWins,
        Outcome::Draw => proto::Outcome::Draw,
        Outcome::DoubleForfeit => proto::Outcome::DoubleForfeit,
    }
}

fn score(score: &Score) -> proto::Score {
    proto::Score {
        white_points: score.white.to_string(),
        black_points: score.black.to_string(),
        scored_as: outcome(score.scored_as).into(),
        unplayed: !score.played,
    }
}

/// The protobuf form of a result, with its score and review.
pub fn result(
    result: domain::GameResult,
    points: Option<Score>,
    review: Option<AdjudicationNote>,
) -> proto::GameResult {
    proto::GameResult {
        outcome: outcome(result.outcome).into(),
        termination: termination(result.termination).into(),
        score: points.as_ref().map(score),
        needs_review: review.is_some(),
        review_reason: review.map(|note| note.to_string()).unwrap_or_default(),
    }
}

/// The protobuf form of a move.
pub fn move_record(record: &MoveRecord) -> proto::MoveRecord {
    proto::MoveRecord {
        ply: int32(record.ply.count(), i32::MAX),
        uci: record.uci.clone(),
        san: record.san.clone(),
        color: color(record.color).into(),
        move_time: Some(timestamp(record.played_at)),
        time_spent_millis: record.time.map_or(0, |t| millis(t.spent_ms)),
        clock_millis: record.time.map_or(0, |t| signed_millis(t.remaining_ms)),
        lag_credit_millis: record.time.map_or(0, |t| millis(t.lag_credit_ms)),
    }
}

/// The protobuf view of the clocks.
pub fn clock(view: &ClockView) -> proto::ClockState {
    proto::ClockState {
        read_time: Some(timestamp(view.at)),
        white_millis: signed_millis(view.white_ms),
        black_millis: signed_millis(view.black_ms),
        running: optional_color(view.running),
        paused: view.paused,
        white_period: int32(view.white_period, i32::MAX),
        black_period: int32(view.black_period, i32::MAX),
        white_moves_left: int32(view.white_moves_left, i32::MAX),
        black_moves_left: int32(view.black_moves_left, i32::MAX),
        delay_left_millis: millis(view.delay_left_ms),
    }
}

fn time_control(control: &TimeControl) -> proto::TimeControl {
    proto::TimeControl {
        periods: control
            .periods()
            .iter()
            .map(|p| proto::TimeControlPeriod {
                time_millis: millis(p.time_ms),
                moves: int32(p.moves, i32::MAX),
                increment_millis: millis(p.increment_ms),
                delay_millis: millis(p.delay_ms),
            })
            .collect(),
        delay_mode: match control.delay_mode() {
            DelayMode::Simple => proto::DelayMode::Simple,
            DelayMode::Bronstein => proto::DelayMode::Bronstein,
        }
        .into(),
    }
}

fn timing(timing: &Timing) -> proto::Timing {
    proto::Timing {
        white: Some(time_control(&timing.white)),
        black: Some(time_control(&timing.black)),
        clock_starts_after_first_moves: timing.clock_starts_after_first_moves,
        pace: match timing.white.pace() {
            Pace::Standard => proto::Pace::Standard,
            Pace::Rapid => proto::Pace::Rapid,
            Pace::Blitz => proto::Pace::Blitz,
        }
        .into(),
    }
}

/// The protobuf form of a game's setup.
pub fn setup(setup: &NewGame) -> proto::GameSetup {
    let pairing = setup.pairing();
    let schedule = setup.schedule();
    proto::GameSetup {
        white: Some(player(setup.white())),
        black: Some(player(setup.black())),
        pairing: Some(proto::Pairing {
            event_id: pairing
                .event_id
                .as_ref()
                .map(ToString::to_string)
                .unwrap_or_default(),
            round: int32(pairing.round, i32::MAX),
            board: int32(pairing.board, i32::MAX),
            match_tie_break: pairing.tie_break,
        }),
        variant: variant(setup.variant()).into(),
        initial_fen: setup.initial_fen(),
        rules: Some(rules(setup.rules())),
        timing: setup.timing().map(timing),
        scheduled_start_time: schedule.scheduled_start.map(timestamp),
        default_time_millis: schedule.default_time_ms.map_or(0, millis),
        scoring: Some(scoring(setup.scoring())),
        broadcast_delay_millis: millis(setup.broadcast_delay().millis()),
        lag_compensation: setup.lag_compensation().map(lag_compensation),
        record_fair_play: setup.records_fair_play(),
    }
}

/// What a game's fair-play record says of one player, as protobuf.
pub fn fair_play_summary(
    side: &crate::domain::tournament::fair_play_export::SideSummary,
) -> proto::FairPlaySummary {
    let count = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    let ms = |n: u64| i32::try_from(n).unwrap_or(i32::MAX);
    proto::FairPlaySummary {
        disconnections: count(side.disconnections),
        disconnected_millis: ms(side.disconnected_ms),
        disconnected_now: side.disconnected_now,
        focus_losses: count(side.focus_losses),
        unfocused_millis: ms(side.unfocused_ms),
        unfocused_moves: count(side.unfocused_moves),
    }
}

/// The protobuf form of a lag-compensation policy, every value resolved.
fn lag_compensation(policy: LagCompensation) -> proto::LagCompensation {
    proto::LagCompensation {
        initial_quota_millis: millis(policy.initial_quota_ms()),
        max_quota_millis: millis(policy.max_quota_ms()),
        quota_gain_millis: millis(policy.quota_gain_ms()),
        max_move_credit_millis: millis(policy.max_move_credit_ms()),
    }
}

/// The protobuf status of a game as of `now`.
pub fn status(status: GameStatus) -> proto::GameStatus {
    match status {
        GameStatus::Pending => proto::GameStatus::Pending,
        GameStatus::Active => proto::GameStatus::Active,
        GameStatus::Finished => proto::GameStatus::Finished,
        GameStatus::Aborted => proto::GameStatus::Aborted,
    }
}

/// The protobuf view of a game: its state, its clocks as of `view.as_of`,
/// and its moves when the view has them.
pub fn game_view(view: &GameView) -> proto::Game {
    let mut message = game(&view.game, view.as_of);
    message.moves = view.moves.iter().map(move_record).collect();
    message
}

/// The protobuf view of a game without its moves, with its clocks as of
/// `as_of`.
pub fn game(game: &Game, as_of: Timestamp) -> proto::Game {
    game_as(game, as_of, false)
}

/// `game` as of `as_of`; `compact`, without its setup and legal moves
/// (`REPLY_VIEW_COMPACT`), neither of which is then computed.
pub fn game_as(game: &Game, as_of: Timestamp, compact: bool) -> proto::Game {
    proto::Game {
        game_id: game.id().to_string(),
        version: version(game.version()),
        status: status(game.status_at(as_of)).into(),
        setup: (!compact).then(|| setup(game.setup())),
        create_time: Some(timestamp(game.created_at())),
        update_time: Some(timestamp(game.updated_at())),
        fen: game.fen(),
        side_to_move: color(game.side_to_move()).into(),
        ply: int32(game.ply().count(), i32::MAX),
        in_check: game.in_check(),
        legal_moves: if compact {
            Vec::new()
        } else {
            game.legal_moves_uci()
        },
        last_move: game.last_move().map(move_record),
        moves: Vec::new(),
        result: game
            .result()
            .map(|r| result(r, game.score(), game.review())),
        draw_offered_by: optional_color(game.draw_offer()),
        aborted_by: optional_color(game.aborted_by()),
        can_claim_threefold: game.can_claim_threefold(),
        can_claim_fifty_moves: game.can_claim_fifty_moves(),
        halfmove_clock: int32(game.halfmove_clock(), i32::MAX),
        repetition_count: int32(game.repetition_count(), i32::MAX),
        clock: game.clock_view(as_of).as_ref().map(clock),
        white_present: game.present().contains(Color::White),
        black_present: game.present().contains(Color::Black),
        start_time: game.start_time().map(timestamp),
        awaits_start: game.awaits_start(),
        white_left_time: game.departures().left_at(Color::White).map(timestamp),
        black_left_time: game.departures().left_at(Color::Black).map(timestamp),
    }
}

/// A game version as the contract's `int32`.
pub fn version(version: u64) -> i32 {
    int32(version, i32::MAX)
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

fn variant(variant: Variant) -> proto::Variant {
    match variant {
        Variant::Standard => proto::Variant::Standard,
        Variant::Chess960 => proto::Variant::Chess960,
    }
}

fn rules(rules: GameRules) -> proto::GameRules {
    proto::GameRules {
        draw_offers_from_move: int32(rules.draw_offers_from_move, i32::MAX),
        sofia_rules: rules.sofia_rules,
        profile: match rules.profile {
            RulesProfile::Fide => proto::RulesProfile::Fide,
            RulesProfile::Uscf => proto::RulesProfile::Uscf,
        }
        .into(),
        pending_offer_draws_on_flag: rules.pending_offer_draws_on_flag,
        no_abort: rules.no_abort,
        no_give_time: rules.no_give_time,
        claim_after_opponent_left_millis: int32(rules.claim_after_opponent_left_ms, i32::MAX),
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
pub fn claim_verdict(verdict: &ClaimVerdict) -> proto::DrawClaimVerdict {
    match verdict {
        ClaimVerdict::Upheld => proto::DrawClaimVerdict::Upheld,
        ClaimVerdict::Refused(_) => proto::DrawClaimVerdict::Refused,
        ClaimVerdict::Moot => proto::DrawClaimVerdict::Moot,
    }
}

/// The protobuf form of a heartbeat.
pub fn heartbeat(beat: &Heartbeat) -> proto::Heartbeat {
    proto::Heartbeat {
        server_time: Some(timestamp(beat.at)),
        version: version(beat.version),
        clock: beat.clock.as_ref().map(clock),
    }
}

/// The protobuf form of one committed event of game `game_id`.
pub fn game_event(game_id: &str, event: &GameEvent) -> proto::GameEvent {
    proto::GameEvent {
        version: version(event.version),
        game_id: game_id.to_owned(),
        event_time: Some(timestamp(event.at)),
        clock: event.clock_view().as_ref().map(clock),
        kind: Some(event_kind(&event.kind)),
    }
}

/// The protobuf forms of events of game `game_id`.
pub fn game_events(game_id: &str, events: &[GameEvent]) -> Vec<proto::GameEvent> {
    events.iter().map(|e| game_event(game_id, e)).collect()
}

fn event_kind(kind: &EventKind) -> proto::game_event::Kind {
    use proto::game_event::Kind;
    match kind {
        EventKind::GameCreated { setup: s, by } => Kind::GameCreated(proto::GameCreated {
            setup: Some(setup(s)),
            by: by.clone().unwrap_or_default(),
        }),
        EventKind::MoveMade {
            record,
            side_to_move,
            ply,
            in_check,
        } => Kind::MoveMade(proto::MoveMade {
            r#move: Some(move_record(record)),
            fen: record.fen_after.clone(),
            side_to_move: color(*side_to_move).into(),
            ply: int32(ply.count(), i32::MAX),
            in_check: *in_check,
        }),
        EventKind::GameEnded {
            result: r,
            score,
            review,
        } => Kind::GameEnded(proto::GameEnded {
            result: Some(result(*r, *score, *review)),
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
            by,
        } => Kind::ClockAdjusted(proto::ClockAdjusted {
            color: color(*side).into(),
            delta_millis: signed_millis(*delta_ms),
            reason: reason.clone(),
            by: by.clone().unwrap_or_default(),
        }),
        EventKind::ResultSet {
            result: r,
            score,
            reason,
            by,
        } => Kind::ResultDecided(proto::ResultDecided {
            result: Some(result(*r, Some(*score), None)),
            reason: reason.clone(),
            by: by.clone().unwrap_or_default(),
        }),
        EventKind::ClockPaused { reason, by } => Kind::ClockPaused(proto::ClockPaused {
            reason: reason.clone(),
            by: by.clone().unwrap_or_default(),
        }),
        EventKind::ClockResumed { reason, by } => Kind::ClockResumed(proto::ClockResumed {
            reason: reason.clone(),
            by: by.clone().unwrap_or_default(),
        }),
        EventKind::GameStarted { by } => Kind::GameStarted(proto::GameStarted { by: by.clone() }),
        EventKind::PlayerCheckedIn { color: side } => {
            Kind::PlayerCheckedIn(proto::PlayerCheckedIn {
                color: color(*side).into(),
            })
        }
        EventKind::ConnectionReported {
            color: side,
            connected,
            by,
        } => Kind::ConnectionReported(proto::ConnectionReported {
            color: color(*side).into(),
            connected: *connected,
            by: by.clone(),
        }),
    }
}

/// The protobuf form of a standings line.
pub fn standing(row: &Standing) -> proto::Standing {
    proto::Standing {
        rank: int32(row.rank, i32::MAX),
        player: Some(player(&row.player)),
        points: row.points.to_string(),
        games_played: int32(row.played, i32::MAX),
        wins: int32(row.wins, i32::MAX),
        draws: int32(row.draws, i32::MAX),
        losses: int32(row.losses, i32::MAX),
        forfeit_wins: int32(row.forfeit_wins, i32::MAX),
        forfeit_losses: int32(row.forfeit_losses, i32::MAX),
        direct_encounter: row.direct_encounter.to_string(),
        buchholz: row.buchholz.to_string(),
        buchholz_cut1: row.buchholz_cut1.to_string(),
        sonneborn_berger: row.sonneborn_berger.to_string(),
        tie_break_values: row.tie_breaks.iter().map(ToString::to_string).collect(),
    }
}

/// The protobuf form of a tie-break the server offers.
pub fn offered_tie_break(tie_break: TieBreak) -> proto::OfferedTieBreak {
    proto::OfferedTieBreak {
        kind: self::tie_break(tie_break).kind,
        code: tie_break.to_string(),
        takes_cuts: tie_break.cut().is_some(),
    }
}

/// The protobuf form of a tie-break.
pub fn tie_break(tie_break: TieBreak) -> proto::TieBreak {
    use proto::TieBreakKind as Kind;
    let (kind, cut) = match tie_break {
        TieBreak::DirectEncounter => (Kind::DirectEncounter, Cut::NONE),
        TieBreak::Buchholz(cut) => (Kind::Buchholz, cut),
        TieBreak::SonnebornBerger(cut) => (Kind::SonnebornBerger, cut),
        TieBreak::Koya => (Kind::Koya, Cut::NONE),
        TieBreak::AverageOfOpponentsBuchholz(cut) => (Kind::AverageOfOpponentsBuchholz, cut),
        TieBreak::ForeBuchholz(cut) => (Kind::ForeBuchholz, cut),
        TieBreak::Wins => (Kind::Wins, Cut::NONE),
        TieBreak::GamesWon => (Kind::GamesWon, Cut::NONE),
        TieBreak::GamesWithBlack => (Kind::GamesWithBlack, Cut::NONE),
        TieBreak::ProgressiveScore(cut) => (Kind::ProgressiveScore, cut),
        TieBreak::AverageRatingOfOpponents(cut) => (Kind::AverageRatingOfOpponents, cut),
        TieBreak::TournamentPerformanceRating(cut) => (Kind::TournamentPerformanceRating, cut),
        TieBreak::AverageOfOpponentsPerformance(cut) => (Kind::AverageOfOpponentsPerformance, cut),
    };
    proto::TieBreak {
        kind: kind.into(),
        cut_lowest: int32(cut.lowest, i32::MAX),
        cut_highest: int32(cut.highest, i32::MAX),
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
    OpponentLeft,
);

/// The protobuf form of a team match's score.
pub fn match_score(read: &crate::arbiter::MatchScoreRead) -> proto::MatchScore {
    let count = |n: u32| i32::try_from(n).unwrap_or(i32::MAX);
    proto::MatchScore {
        round: count(read.round),
        table: count(read.table),
        first_team_id: read.teams[0].clone(),
        second_team_id: read.teams[1].clone(),
        first_team_points: read.score.points[0].to_string(),
        second_team_points: read.score.points[1].to_string(),
        boards: count(read.score.boards),
        boards_decided: count(read.score.decided),
        game_id: read.game.to_string(),
        tie_break_game_id: read
            .tie_break
            .as_ref()
            .map(|(game, _)| game.to_string())
            .unwrap_or_default(),
        tie_break_winner_team_id: match &read.tie_break {
            Some((_, crate::domain::TieBreakState::Won(side))) => {
                read.teams.get(*side).cloned().unwrap_or_default()
            }
            _ => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_termination_maps_to_its_protobuf_value_and_back() {
        let named: Vec<proto::Termination> = (0..64)
            .filter_map(|n| proto::Termination::try_from(n).ok())
            .filter(|&t| t != proto::Termination::Unspecified)
            .collect();
        assert_eq!(named.len(), 17);
        for value in named {
            let domain = termination_from(value).expect("a named termination");
            assert_eq!(termination(domain), value);
        }
        assert_eq!(termination_from(proto::Termination::Unspecified), None);
    }

    #[test]
    fn milliseconds_saturate_instead_of_wrapping() {
        assert_eq!(signed_millis(-5), -5);
        assert_eq!(signed_millis(i64::MIN), i32::MIN);
        assert_eq!(signed_millis(i64::MAX), i32::MAX);
        assert_eq!(millis(u64::MAX), i32::MAX);
        assert_eq!(millis(86_400_000), 86_400_000);
    }
}
