use shakmaty::Color;

use super::*;
use crate::domain::{
    Decision, DelayMode, MoveReport, Period, Ply, ReportedLag, Schedule, TimeControl, Timing,
    test_support::{at, game_id, plain_setup, seats},
};

/// A 5+0 game with a fair-play record.
fn game() -> (Game, Vec<GameEvent>) {
    let control = TimeControl::new(
        "time_control",
        vec![Period {
            time_ms: 300_000,
            moves: 0,
            increment_ms: 0,
            delay_ms: 0,
        }],
        DelayMode::Bronstein,
    )
    .expect("a control");
    let new = plain_setup()
        .with_clock(
            Some(Timing {
                white: control.clone(),
                black: control,
                clock_starts_after_first_moves: false,
            }),
            Schedule::default(),
        )
        .with_fair_play_record(true);
    let (game, created) = Game::create(game_id(), new, seats(), at(0));
    (game, vec![created])
}

fn apply(game: &mut Game, events: &mut Vec<GameEvent>, decision: Decision) {
    if let Decision::Changed {
        game: next,
        events: produced,
    } = decision
    {
        *game = *next;
        events.extend(produced);
    }
}

fn play(
    game: &mut Game,
    events: &mut Vec<GameEvent>,
    text: &str,
    lag: i64,
    client: Option<i64>,
    ms: u64,
) {
    let report = MoveReport::new(
        ReportedLag::parse("lag_millis", lag).expect("a lag"),
        "client_move_millis",
        client,
    )
    .expect("a report");
    let seat = game.side_to_move();
    let ply: Ply = game.ply();
    let decision = game
        .play_move_with_lag(seat, ply, text, false, report, at(ms))
        .expect("a legal move");
    apply(game, events, decision);
}

fn signal(color: Color, kind: SignalKind, ms: u64) -> ClientSignal {
    ClientSignal {
        color,
        kind,
        client_at: Some(at(ms - 30)),
        received_at: at(ms),
    }
}

/// e4 at 2 s, e5 at 5 s (Black's focus lost at 3 s, regained at 4 s),
/// Nf3 at 9 s (White gone from 6 s by a signal and back by the move), Nc6
/// at 20 s (Black reported gone by the platform at 12 s, back at 15 s).
fn played() -> (Game, Vec<GameEvent>, Vec<ClientSignal>) {
    let (mut game, mut events) = game();
    play(&mut game, &mut events, "e4", 100, Some(1_800), 2_000);
    play(&mut game, &mut events, "e5", 0, None, 5_000);
    play(&mut game, &mut events, "Nf3", 250, Some(2_500), 9_000);
    let gone = game
        .report_connection(Color::Black, false, "platform", at(12_000))
        .expect("reported");
    apply(&mut game, &mut events, gone);
    let back = game
        .report_connection(Color::Black, true, "platform", at(15_000))
        .expect("reported");
    apply(&mut game, &mut events, back);
    play(&mut game, &mut events, "Nc6", 40, Some(4_900), 20_000);
    let signals = vec![
        signal(Color::Black, SignalKind::FocusLost, 3_000),
        signal(Color::Black, SignalKind::FocusRegained, 4_000),
        signal(Color::White, SignalKind::Disconnected, 6_000),
        // White's window out of focus from 21 s on, still at the export.
        signal(Color::White, SignalKind::FocusLost, 21_000),
    ];
    (game, events, signals)
}

#[test]
fn the_summary_counts_each_absence_and_each_focus_loss() {
    let (game, events, signals) = played();
    let record = record(&game, &events, &signals, at(30_000));
    assert_eq!(
        record.summary.white,
        SideSummary {
            disconnections: 1,
            disconnected_ms: 3_000,
            disconnected_now: false,
            focus_losses: 1,
            unfocused_ms: 9_000,
            unfocused_moves: 0,
        }
    );
    assert_eq!(
        record.summary.black,
        SideSummary {
            disconnections: 1,
            disconnected_ms: 3_000,
            disconnected_now: false,
            focus_losses: 1,
            unfocused_ms: 1_000,
            unfocused_moves: 1,
        }
    );
    let unfocused: Vec<bool> = record.moves.iter().map(|m| m.unfocused).collect();
    assert_eq!(unfocused, [false, true, false, false]);
    assert_eq!(record.as_of, "2023-11-14T22:13:50.000Z");
}

#[test]
fn each_move_has_its_receipt_time_its_clock_and_what_was_reported() {
    let (game, events, signals) = played();
    let record = record(&game, &events, &signals, at(30_000));
    let first = &record.moves[0];
    assert_eq!(
        (
            first.ply,
            first.color,
            first.san.as_str(),
            first.uci.as_str()
        ),
        (0, "white", "e4", "e2e4")
    );
    assert_eq!(first.received_at, "2023-11-14T22:13:22.000Z");
    assert_eq!(first.spent_ms, Some(2_000));
    assert_eq!(first.remaining_ms, Some(298_000));
    assert_eq!(first.lag_reported_ms, Some(100));
    assert_eq!(first.lag_credited_ms, Some(0));
    assert_eq!(first.client_ms, Some(1_800));
    let second = &record.moves[1];
    assert_eq!((second.lag_reported_ms, second.client_ms), (Some(0), None));
    assert_eq!(second.spent_ms, Some(3_000));
    assert_eq!(record.signals.len(), 4);
    assert_eq!(record.signals[0].kind, "focus_lost");
    assert_eq!(
        record.signals[0].client_time.as_deref(),
        Some("2023-11-14T22:13:22.970Z")
    );
    let json: serde_json::Value =
        serde_json::from_str(&record.to_json()).expect("the document is JSON");
    assert_eq!(json["schema"], SCHEMA);
    assert_eq!(json["moves"][2]["lag_reported_ms"], 250);
    assert_eq!(json["moves"][1]["client_ms"], serde_json::Value::Null);
    assert_eq!(json["summary"]["black"]["unfocused_moves"], 1);
    assert_eq!(json["status"], "active");
}

#[test]
fn an_absence_still_open_counts_until_the_export_and_is_said_to_be() {
    let (mut game, mut events) = game();
    play(&mut game, &mut events, "d4", 0, None, 1_000);
    let signals = vec![signal(Color::Black, SignalKind::Disconnected, 2_000)];
    let record = record(&game, &events, &signals, at(12_000));
    assert_eq!(record.summary.black.disconnected_ms, 10_000);
    assert!(record.summary.black.disconnected_now);
    // A signal received after the export's time is not counted yet.
    let record = super::record(&game, &events, &signals, at(1_500));
    assert_eq!(record.summary.black.disconnections, 0);
}

#[test]
fn the_pgn_carries_the_record_in_its_comments() {
    let (game, events, signals) = played();
    let record = record(&game, &events, &signals, at(30_000));
    let text = pgn_of(&game, &events, &signals, &record);
    let movetext: String = text
        .lines()
        .skip_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        movetext
            .contains("1. e4 {[%clk 0:04:58] [%emt 0:00:02.0] [%lag 0.100] [%clientemt 0:00:01.8] [%signal black focus_lost"),
        "{movetext}"
    );
    assert!(
        movetext.contains("[%signal black focus_lost 2023-11-14T22:13:23.000Z]"),
        "{movetext}"
    );
    assert!(
        movetext.contains("e5 {[%clk 0:04:57] [%emt 0:00:03.0] [%lag 0.000] [%unfocused]"),
        "{movetext}"
    );
    assert!(
        movetext.contains("[%signal white focus_lost 2023-11-14T22:13:41.000Z]} *"),
        "{movetext}"
    );
    for line in text.lines() {
        assert!(line.len() <= 79, "{line}");
    }
}

#[test]
fn a_signal_before_the_first_move_opens_the_movetext() {
    let (game, events) = game();
    let signals = vec![signal(Color::White, SignalKind::FocusLost, 500)];
    let record = record(&game, &events, &signals, at(1_000));
    let text = pgn_of(&game, &events, &signals, &record);
    assert!(
        text.contains("\n\n{[%signal white focus_lost 2023-11-14T22:13:20.500Z]} *"),
        "{text}"
    );
}
