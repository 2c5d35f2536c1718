use proptest::prelude::*;

use super::*;
use crate::domain::test_support::{at, random_game};

#[test]
fn an_eighty_move_timed_game_archives_in_under_two_kilobytes() {
    let mut events = random_game(21, None, true, 3_000, false);
    let mut moves = 0;
    let end = events
        .iter()
        .position(|event| {
            moves += usize::from(event.move_record().is_some());
            moves == 160
        })
        .expect("a game of 80 moves");
    events.truncate(end + 1);
    let archive = pack(&events).expect("packs");
    assert!(
        archive.len() < 2_048,
        "{} bytes for {} events",
        archive.len(),
        events.len()
    );
    assert_eq!(unpack(&archive), Ok(events));
}

#[test]
fn a_log_that_is_not_a_whole_game_is_refused() {
    let events = random_game(5, None, false, 1_000, true);
    assert!(pack(&[]).is_err());
    assert!(pack(&events[1..]).is_err(), "a log without its creation");
    let mut gap = events.clone();
    gap.remove(3);
    assert!(pack(&gap).is_err(), "a log with a hole");
}

#[test]
fn every_kind_of_event_survives_archiving() {
    let events = random_game(8, Some(518), true, 2_000, true);
    let kinds: std::collections::BTreeSet<&str> = events
        .iter()
        .map(|event| match event.kind {
            EventKind::GameCreated { .. } => "created",
            EventKind::MoveMade { .. } => "move",
            EventKind::DrawOffered { .. } => "offer",
            EventKind::DrawDeclined { .. } => "decline",
            EventKind::ClockAdjusted { .. } => "adjust",
            EventKind::ClockPaused { .. } => "pause",
            EventKind::ClockResumed { .. } => "resume",
            _ => "other",
        })
        .collect();
    assert!(kinds.len() >= 6, "{kinds:?}");
    assert_eq!(unpack(&pack(&events).expect("packs")), Ok(events));
}

#[test]
fn events_after_the_last_move_are_archived_with_the_rest() {
    let mut events = random_game(13, None, true, 1_500, true);
    let last = events.last().expect("events").clone();
    let game_over = last.version + 1;
    events.push(GameEvent {
        version: game_over,
        at: at(10_000_000),
        kind: EventKind::ClockPaused {
            reason: "end of round".to_owned(),
            by: Some("arbiter".to_owned()),
        },
        clock: last.clock,
        request: None,
    });
    assert_eq!(unpack(&pack(&events).expect("packs")), Ok(events));
}

#[test]
fn corrupt_archives_are_refused_not_misread() {
    let events = random_game(2, None, true, 2_000, true);
    let archive = pack(&events).expect("packs");
    for len in 0..archive.len() {
        assert!(unpack(&archive[..len]).is_err(), "{len} bytes read");
    }
    assert!(unpack(b"{\"schema\":2}").is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn random_games_read_back_exactly(
        seed in any::<u64>(),
        chess960 in prop::option::of(0_u32..960),
        timed in any::<bool>(),
        spacing_ms in 1_u64..5_000,
    ) {
        let events = random_game(seed, chess960, timed, spacing_ms, true);
        let archive = pack(&events).expect("packs");
        prop_assert_eq!(unpack(&archive).expect("unpacks"), events);
    }

    #[test]
    fn arbitrary_bytes_never_panic(tail in prop::collection::vec(any::<u8>(), 0..128)) {
        let mut deflated = vec![BINARY, kind::ARCHIVE];
        deflated.extend(miniz_oxide::deflate::compress_to_vec(&tail, 1));
        let _ = unpack(&deflated);
        let mut raw = vec![BINARY, kind::ARCHIVE];
        raw.extend(tail);
        let _ = unpack(&raw);
    }
}

#[test]
fn lag_credits_are_archived_with_their_moves() {
    let events = random_game(19, None, true, 3_000, true);
    let credits = |events: &[GameEvent]| -> Vec<u64> {
        events
            .iter()
            .filter_map(GameEvent::move_record)
            .filter_map(|record| record.time)
            .map(|time| time.lag_credit_ms)
            .collect()
    };
    assert!(credits(&events).iter().filter(|&&c| c > 0).count() > 10);
    let archive = pack(&events).expect("packs");
    let read = unpack(&archive).expect("unpacks");
    assert_eq!(credits(&read), credits(&events));
    assert_eq!(read, events);
}

#[test]
fn fair_play_reports_are_archived_with_their_moves_in_their_compact_form() {
    let events = random_game(29, None, true, 3_000, true);
    let reports = |events: &[GameEvent]| -> Vec<Option<MoveReport>> {
        events
            .iter()
            .filter_map(GameEvent::move_record)
            .map(|record| record.report)
            .collect()
    };
    assert!(reports(&events).iter().all(Option::is_some));
    assert!(
        reports(&events)
            .iter()
            .any(|r| r.is_some_and(|r| r.client_ms.is_some()))
    );
    let archive = pack(&events).expect("packs");
    assert_eq!(unpack(&archive).expect("unpacks"), events);
    // Every move is archived as a move, not whole: the reports cost a few
    // bytes a move.
    let mut plain = events.clone();
    for event in &mut plain {
        if let EventKind::MoveMade { record, .. } = &mut event.kind {
            record.report = None;
        }
    }
    let without = pack(&plain).expect("packs");
    let moves = reports(&events).len();
    assert!(
        archive.len() < without.len() + 4 * moves,
        "{} bytes with reports, {} without, {moves} moves",
        archive.len(),
        without.len()
    );
}
