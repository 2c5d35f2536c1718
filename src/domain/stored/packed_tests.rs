use proptest::prelude::*;

use super::*;
use crate::domain::{
    stored::encoding::{decode_event, encode_event},
    test_support::random_game,
};

#[test]
fn numbers_round_trip_at_every_width() {
    let unsigned = [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
    let signed = [
        0,
        1,
        -1,
        63,
        -64,
        64,
        i64::from(i32::MIN),
        i64::MAX,
        i64::MIN,
    ];
    let mut out = Writer::default();
    unsigned.iter().for_each(|&n| out.varint(n));
    signed.iter().for_each(|&n| out.signed(n));
    out.bytes(b"abc");
    let bytes = out.finish();
    let mut input = Reader::new(&bytes);
    for n in unsigned {
        assert_eq!(input.varint(), Ok(n));
    }
    for n in signed {
        assert_eq!(input.signed(), Ok(n));
    }
    assert_eq!(input.bytes(), Ok(&b"abc"[..]));
    assert!(input.is_empty());
    assert!(input.byte().is_err());
    assert!(Reader::new(&[0xff; 11]).varint().is_err());
    assert!(
        Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02])
            .varint()
            .is_err()
    );
    assert!(Reader::new(&[5, 1]).bytes().is_err());
}

#[test]
fn a_move_is_packed_in_a_tenth_of_its_json() {
    let events = random_game(7, None, true, 5_000, true);
    let moves: Vec<&GameEvent> = events
        .iter()
        .filter(|e| e.move_record().is_some())
        .collect();
    assert!(moves.len() > 20);
    for event in moves {
        let packed = encode_move(event).expect("every move of a game packs");
        let json = serde_json::to_vec(event).expect("json");
        assert!(
            packed.len() * 6 < json.len(),
            "{} bytes packed against {} as JSON",
            packed.len(),
            json.len()
        );
        assert!(packed.len() <= 80, "{} bytes", packed.len());
        assert_eq!(decode_move(&packed), Ok(Some(event.clone())));
    }
}

#[test]
fn events_that_do_not_fit_the_packed_form_stay_json() {
    let events = random_game(3, None, false, 1_000, true);
    let EventKind::MoveMade { .. } = events[1].kind else {
        panic!("the second event is a move");
    };
    let mut odd = events[1].clone();
    odd.at = odd.at.plus_millis(1);
    assert_eq!(encode_move(&odd), None);
    let bytes = encode_event(&odd).expect("encodes");
    assert_eq!(bytes.first(), Some(&b'{'));
    assert_eq!(decode_event(&bytes), Ok(odd));
    assert_eq!(encode_move(&events[0]), None, "a creation is not a move");
}

#[test]
fn truncated_and_corrupt_moves_are_refused_not_misread() {
    let events = random_game(11, None, true, 2_000, true);
    let packed = encode_move(&events[5]).expect("packs");
    for len in 2..packed.len() {
        assert!(decode_event(&packed[..len]).is_err(), "{len} bytes decoded");
    }
    let mut trailing = packed.clone();
    trailing.push(0);
    assert!(decode_event(&trailing).is_err());
    // The flags byte follows the version and the time, one and six bytes.
    let mut flags = packed;
    flags[9] |= 0x40;
    assert!(decode_event(&flags).is_err());
    assert!(decode_event(&[BINARY, 99]).is_err());
}

/// The flags byte of a packed move (after its version and time).
fn flags_of(packed: &[u8]) -> u8 {
    let mut input = Reader::new(&packed[2..]);
    input.varint().expect("version");
    input.varint().expect("time");
    input.byte().expect("flags")
}

#[test]
fn a_lag_credit_is_packed_and_a_move_without_one_keeps_its_old_bytes() {
    let events = random_game(17, None, true, 3_000, true);
    let credited: Vec<&GameEvent> = events
        .iter()
        .filter(|e| {
            e.move_record()
                .and_then(|r| r.time)
                .is_some_and(|t| t.lag_credit_ms > 0)
        })
        .collect();
    assert!(credited.len() > 10, "{} moves credited", credited.len());
    for event in credited {
        let packed = encode_move(event).expect("a credited move packs");
        assert_eq!(flags_of(&packed) & HAS_LAG_CREDIT, HAS_LAG_CREDIT);
        assert_eq!(decode_move(&packed), Ok(Some(event.clone())));
        // Without its credit the record is the form written before lag
        // compensation: no flag, no trailing number.
        let mut plain = event.clone();
        if let EventKind::MoveMade { record, .. } = &mut plain.kind
            && let Some(time) = &mut record.time
        {
            time.lag_credit_ms = 0;
        }
        let old = encode_move(&plain).expect("packs");
        assert_eq!(flags_of(&old) & HAS_LAG_CREDIT, 0);
        assert!(old.len() < packed.len());
        assert_eq!(decode_move(&old), Ok(Some(plain)));
    }
}

#[test]
fn a_lag_credit_without_a_time_is_refused() {
    let events = random_game(3, None, false, 1_000, false);
    let mut packed = encode_move(&events[1]).expect("packs");
    packed[9] |= HAS_LAG_CREDIT;
    packed.push(5);
    assert!(decode_event(&packed).is_err());
}

#[test]
fn a_fair_play_report_is_packed_and_a_move_without_one_keeps_its_old_bytes() {
    let events = random_game(23, None, true, 3_000, true);
    let reported: Vec<&GameEvent> = events
        .iter()
        .filter(|e| e.move_record().is_some_and(|r| r.report.is_some()))
        .collect();
    let with_client_time = reported
        .iter()
        .filter(|e| e.move_record().and_then(|r| r.report?.client_ms).is_some())
        .count();
    assert!(reported.len() > 10, "{} moves reported", reported.len());
    assert!(with_client_time > 2 && with_client_time < reported.len());
    for event in reported {
        let packed = encode_move(event).expect("a reported move packs");
        assert_eq!(flags_of(&packed) & HAS_REPORT, HAS_REPORT);
        assert_eq!(decode_move(&packed), Ok(Some(event.clone())));
        let mut plain = event.clone();
        if let EventKind::MoveMade { record, .. } = &mut plain.kind {
            record.report = None;
        }
        let old = encode_move(&plain).expect("packs");
        assert_eq!(flags_of(&old) & (HAS_REPORT | HAS_CLIENT_TIME), 0);
        assert!(old.len() < packed.len());
        assert_eq!(decode_move(&old), Ok(Some(plain)));
    }
}

#[test]
fn a_client_time_without_a_report_is_refused() {
    let events = random_game(3, None, false, 1_000, false);
    let mut packed = encode_move(&events[1]).expect("packs");
    packed[9] |= HAS_CLIENT_TIME;
    packed.push(5);
    assert!(decode_event(&packed).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every event of random games, timed or not, standard or Chess960
    /// (castling into the corner included), reads back exactly, and every
    /// move is packed.
    #[test]
    fn every_event_of_random_games_round_trips(
        seed in any::<u64>(),
        chess960 in prop::option::of(0_u32..960),
        timed in any::<bool>(),
        spacing_ms in 1_u64..4_000,
    ) {
        for event in random_game(seed, chess960, timed, spacing_ms, true) {
            let bytes = encode_event(&event).expect("encodes");
            prop_assert_eq!(bytes.first() == Some(&BINARY), event.move_record().is_some());
            prop_assert_eq!(decode_event(&bytes).expect("decodes"), event);
        }
    }

    /// A move packed from the position it led to is the move packed from
    /// its record's FEN, byte for byte, standard or Chess960.
    #[test]
    fn a_move_packed_from_its_position_is_the_move_packed_from_its_fen(
        seed in any::<u64>(),
        chess960 in prop::option::of(0_u32..960),
    ) {
        let mut moves = 0;
        for event in random_game(seed, chess960, true, 1_000, true) {
            let Some(record) = event.move_record() else { continue };
            let after: Chess = record
                .fen_after
                .parse::<Fen>()
                .expect("a record's FEN")
                .into_position(shakmaty::CastlingMode::Chess960)
                .expect("a legal position");
            let packed = encode_move(&event).expect("every move packs");
            prop_assert_eq!(encode_move_after(&event, Some(&after)), Some(packed));
            moves += 1;
        }
        prop_assert!(moves > 0);
    }

    /// No input makes the decoder panic.
    #[test]
    fn arbitrary_bytes_never_panic(tail in prop::collection::vec(any::<u8>(), 0..96)) {
        let mut bytes = vec![BINARY, kind::MOVE];
        bytes.extend(tail);
        let _ = decode_event(&bytes);
        let _ = crate::domain::stored::encoding::decode_game(&bytes);
    }
}
