//! The stored encoding: what earlier releases wrote keeps decoding, and the
//! current schema's bytes are pinned by golden files.

use std::path::PathBuf;

use shakmaty::{CastlingMode, Chess, Position, fen::Fen, uci::UciMove};

use super::*;
use crate::domain::{
    BroadcastDelay, Decision, DelayMode, EventId, EventKind, GameStatus, LagCompensation, Outcome,
    Period, PointTable, ReportedLag, RulesProfile, Termination, TimeControl, TokenHash,
};

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(data(path)).unwrap_or_else(|err| panic!("{path}: {err}"))
}

/// A schema 0 fixture: the state and every event, decoded.
fn legacy(name: &str) -> (Game, Vec<GameEvent>) {
    let game = decode_game(&read(&format!("stored-v0/{name}.state.json")))
        .unwrap_or_else(|err| panic!("{name} state: {err}"));
    let log = String::from_utf8(read(&format!("stored-v0/{name}.events.tsv"))).expect("utf-8");
    let events: Vec<GameEvent> = log
        .lines()
        .map(|line| {
            let (version, json) = line.split_once('\t').expect("version<TAB>event");
            let event = decode_event(json.as_bytes())
                .unwrap_or_else(|err| panic!("{name} event {version}: {err}"));
            assert_eq!(event.version.to_string(), version, "{name}");
            event
        })
        .collect();
    (game, events)
}

/// Checks that the log explains the state: versions 1..=version with no
/// gap, the moves replayed from the created position reach the stored one,
/// and the state survives a round trip through the current schema.
#[track_caller]
fn consistent(name: &str, game: &Game, events: &[GameEvent]) {
    let versions: Vec<u64> = events.iter().map(|e| e.version).collect();
    assert_eq!(versions, (1..=game.version()).collect::<Vec<_>>(), "{name}");
    let EventKind::GameCreated { setup, .. } = &events[0].kind else {
        panic!("{name}: the log starts with {:?}", events[0].kind);
    };
    let initial_fen = setup.initial_fen();
    assert_eq!(initial_fen, game.initial_fen(), "{name}");
    let mode = game.variant().castling_mode();
    let fen: Fen = initial_fen.parse().expect("created FEN");
    let mut pos: Chess = fen.into_position(mode).expect("created position");
    for record in events.iter().filter_map(GameEvent::move_record) {
        let uci: UciMove = record.uci.parse().expect("uci");
        let m = uci.to_move(&pos).expect("a legal move");
        pos.play_unchecked(m);
        assert_eq!(
            record.fen_after,
            crate::domain::game::state::fen_of(&pos),
            "{name}"
        );
    }
    assert_eq!(
        game.fen(),
        crate::domain::game::state::fen_of(&pos),
        "{name}"
    );
    assert_eq!(
        game.ply().count() as usize,
        events.iter().filter_map(GameEvent::move_record).count()
    );
    let again = decode_game(&encode_game(game).expect("encode")).expect("decode");
    assert_eq!(&again, game, "{name}");
    assert_eq!(again.fen(), game.fen(), "{name}");
    for event in events {
        let again = decode_event(&encode_event(event).expect("encode")).expect("decode");
        assert_eq!(&again, event, "{name}");
    }
}

fn alice_bob(pairing: Pairing) -> (Player, Player, Pairing) {
    let player = |id: &str, name: &str| Player {
        id: id.to_owned(),
        name: name.to_owned(),
        ..Default::default()
    };
    (player("alice", "Alice"), player("bob", "Bob"), pairing)
}

fn test_pairing() -> Pairing {
    Pairing {
        event_id: Some(EventId::parse("test-event").expect("event id")),
        round: 1,
        board: 1,
        tie_break: false,
    }
}

#[test]
fn schema_0_untimed_games_decode_and_recognise_their_request() {
    let (game, events) = legacy("untimed-in-progress");
    consistent("untimed-in-progress", &game, &events);
    assert_eq!(game.status(), GameStatus::Active);
    assert_eq!(game.ply().count(), 6);
    // Black's refused claim stands as its offer, White's lapsed by the move.
    assert_eq!(game.draw_offer(), Some(Color::Black));
    assert!(
        events
            .iter()
            .any(|e| matches!(e.kind, EventKind::DrawClaimRefused { .. }))
    );

    let (white, black, pairing) = alice_bob(test_pairing());
    let request = NewGame::new(
        white,
        black,
        Variant::Standard,
        &StartPosition::Standard,
        pairing,
        GameRules::default(),
    )
    .expect("request");
    assert!(game.was_created_by(&request));
    assert!(
        !game.was_created_by(
            &request
                .clone()
                .with_scoring(ScoringSystem::uniform(PointTable::FOOTBALL))
        )
    );

    let (game, events) = legacy("untimed-checkmate");
    consistent("untimed-checkmate", &game, &events);
    assert_eq!(
        game.result(),
        Some(GameResult {
            outcome: Outcome::WhiteWins,
            termination: Termination::Checkmate
        })
    );
    assert!(game.was_created_by(&request));
}

#[test]
fn schema_0_timed_games_keep_their_clock_controls_and_corrections() {
    let (game, events) = legacy("timed-paused");
    consistent("timed-paused", &game, &events);
    let clock = game.clock().expect("timed");
    assert!(clock.is_paused());
    assert_eq!(game.draw_offer(), None);

    let white = TimeControl::new(
        "time_control",
        vec![
            Period {
                time_ms: 5_400_000,
                moves: 40,
                increment_ms: 30_000,
                delay_ms: 0,
            },
            Period {
                time_ms: 1_800_000,
                moves: 0,
                increment_ms: 30_000,
                delay_ms: 0,
            },
        ],
        DelayMode::Simple,
    )
    .expect("control");
    let black = TimeControl::new(
        "black_time_control",
        vec![Period {
            time_ms: 3_000_000,
            moves: 0,
            increment_ms: 0,
            delay_ms: 5_000,
        }],
        DelayMode::Bronstein,
    )
    .expect("control");
    assert_eq!(clock.control(Color::White), &white);
    assert_eq!(clock.control(Color::Black), &black);

    let (p_white, p_black, pairing) = alice_bob(Pairing {
        event_id: Some(EventId::parse("fixture-open").expect("event id")),
        round: 2,
        board: 3,
        tie_break: false,
    });
    let request = NewGame::new(
        p_white,
        p_black,
        Variant::Standard,
        &StartPosition::Standard,
        pairing,
        GameRules {
            draw_offers_from_move: 30,
            sofia_rules: false,
            profile: RulesProfile::Uscf,
            pending_offer_draws_on_flag: true,
            ..GameRules::default()
        },
    )
    .expect("request")
    .with_clock(
        Some(Timing {
            white,
            black,
            clock_starts_after_first_moves: false,
        }),
        Schedule::default(),
    )
    .with_scoring(ScoringSystem::uniform(PointTable::FOOTBALL));
    assert!(game.was_created_by(&request));

    let (game, events) = legacy("timed-corrected");
    consistent("timed-corrected", &game, &events);
    assert_eq!(
        game.result(),
        Some(GameResult {
            outcome: Outcome::Draw,
            termination: Termination::ArbiterDecision
        })
    );
    assert!(matches!(
        events.last().map(|e| &e.kind),
        Some(EventKind::ResultSet { .. })
    ));
    assert!(game.was_created_by(&request));
}

#[test]
fn schema_0_chess960_scheduled_and_fen_games_decode() {
    let (game, events) = legacy("chess960-flag");
    consistent("chess960-flag", &game, &events);
    assert_eq!(game.variant(), Variant::Chess960);
    assert_eq!(game.position().castles().mode(), CastlingMode::Chess960);
    let result = game.result().expect("ended on time");
    assert_eq!(result.termination, Termination::Timeout);
    assert!(game.scoring().armageddon);

    let (game, events) = legacy("scheduled-aborted");
    consistent("scheduled-aborted", &game, &events);
    assert_eq!(game.status(), GameStatus::Aborted);
    assert_eq!(game.aborted_by(), Some(Color::White));
    assert_eq!(game.schedule().default_time_ms, Some(900_000));

    let (game, events) = legacy("fen-start-repetition");
    consistent("fen-start-repetition", &game, &events);
    assert_eq!(game.repetition_count(), 2);
    assert_eq!(game.position().turn(), Color::Black);
}

/// A game that exercises every part of the state: a clock with two
/// periods, a schedule, custom scoring, moves, a pending offer.
fn golden_game() -> (Game, Vec<GameEvent>) {
    let t0 = Timestamp::from_unix_millis(1_800_000_000_000);
    let control = TimeControl::new(
        "time_control",
        vec![
            Period {
                time_ms: 600_000,
                moves: 40,
                increment_ms: 2_000,
                delay_ms: 0,
            },
            Period {
                time_ms: 300_000,
                moves: 0,
                increment_ms: 0,
                delay_ms: 3_000,
            },
        ],
        DelayMode::Bronstein,
    )
    .expect("control");
    let (white, black, pairing) = alice_bob(Pairing {
        event_id: Some(EventId::parse("golden-open").expect("event id")),
        round: 4,
        board: 2,
        tie_break: false,
    });
    let request = NewGame::new(
        white,
        black,
        Variant::Standard,
        &StartPosition::Standard,
        pairing,
        GameRules::default(),
    )
    .expect("request")
    .with_clock(
        Some(Timing {
            white: control.clone(),
            black: control,
            clock_starts_after_first_moves: true,
        }),
        Schedule {
            scheduled_start: Some(t0),
            default_time_ms: Some(900_000),
            awaits_start: false,
        },
    )
    .with_scoring(ScoringSystem::uniform(PointTable::FOOTBALL));
    let seats = SeatHashes {
        white: TokenHash::of("golden-white"),
        black: TokenHash::of("golden-black"),
    };
    let id = GameId::parse("golden-game").expect("id");
    let (mut game, created) = Game::create(id, request, seats, t0);
    let mut events = vec![created];
    for (i, text) in ["e4", "c5", "Nf3", "d6"].iter().enumerate() {
        let now = t0.plus_millis(1_000 * (i as u64 + 1));
        let offer = i == 3;
        let Ok(Decision::Changed {
            game: next,
            events: produced,
        }) = game.play_move(game.side_to_move(), game.ply(), text, offer, now)
        else {
            panic!("{text} refused");
        };
        game = *next;
        events.extend(produced);
    }
    (game, events)
}

/// Compares `bytes` with a golden file; `ARBITER_BLESS=1` rewrites it.
#[track_caller]
fn golden(path: &str, bytes: &[u8]) {
    if std::env::var_os("ARBITER_BLESS").is_some() {
        std::fs::write(data(path), bytes).expect("write golden file");
    }
    assert_eq!(
        String::from_utf8_lossy(&read(path)),
        String::from_utf8_lossy(bytes),
        "the stored form changed: bump encoding::SCHEMA, keep decoding the old one, \
         and add its files under tests/data (ARBITER_BLESS=1 rewrites the golden files)"
    );
}

#[test]
fn schema_1_records_still_decode() {
    let (game, events) = golden_game();
    // Schema 1 did not count draw offers and refused claims: a game read
    // from it starts counting from zero, and is otherwise the same.
    let decoded = decode_game(&read("stored-v1/game.state.json")).expect("state");
    assert!(decoded.draw_requests().is_empty());
    let counted = readable_game(&game);
    let start = counted
        .find(",\"draw_requests\":")
        .expect("the golden game offered a draw");
    let end = start + counted[start..].find('}').expect("its end") + 1;
    let uncounted = format!("{}{}", &counted[..start], &counted[end..]);
    assert_eq!(readable_game(&decoded), uncounted);
    let log = read("stored-v1/game.events.jsonl");
    let stored: Vec<GameEvent> = log
        .split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| decode_event(line).expect("event"))
        .collect();
    assert_eq!(stored, events);
}

/// Hex, one record a line: binary records in a reviewable file.
fn hex_lines(records: &[Vec<u8>]) -> Vec<u8> {
    let mut out = String::new();
    for record in records {
        for byte in record {
            out.push_str(&format!("{byte:02x}"));
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// Records from a hex file, one a line.
fn from_hex_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|line| {
            (0..line.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&line[i..i + 2], 16).expect("hex"))
                .collect()
        })
        .collect()
}

/// Checks that the schema 2 files `name` (a JSON state and hex events)
/// still decode to `game` and `events`.
#[track_caller]
fn schema_2_decodes(name: &str, game: &Game, events: &[GameEvent]) {
    let state = read(&format!("stored-v2/{name}.state.json"));
    assert!(state.starts_with(br#"{"schema":2,"#));
    assert_eq!(&decode_game(&state).expect("decode"), game, "{name}");
    let log = from_hex_lines(&read(&format!("stored-v2/{name}.events.hex")));
    assert_eq!(log.len(), events.len(), "{name}");
    for (bytes, event) in log.iter().zip(events) {
        assert_eq!(&decode_event(bytes).expect("decode"), event, "{name}");
    }
}

/// Pins the current schema's bytes of `game` (binary, hex) and `events`
/// under `stored-v3/{name}`, and checks that they read back.
#[track_caller]
fn schema_3_pinned(name: &str, game: &Game, events: &[GameEvent]) -> Vec<Vec<u8>> {
    let state = encode_game(game).expect("encode");
    assert_eq!(&state[..3], &[0xA2, 4, 3], "a live state, schema 3");
    golden(
        &format!("stored-v3/{name}.state.hex"),
        &hex_lines(std::slice::from_ref(&state)),
    );
    assert_eq!(&decode_game(&state).expect("decode"), game, "{name}");
    let log: Vec<Vec<u8>> = events
        .iter()
        .map(|event| encode_event(event).expect("encode"))
        .collect();
    golden(&format!("stored-v3/{name}.events.hex"), &hex_lines(&log));
    for (bytes, event) in log.iter().zip(events) {
        assert_eq!(&decode_event(bytes).expect("decode"), event, "{name}");
    }
    log
}

#[test]
fn schema_2_records_still_decode() {
    let (game, events) = golden_game();
    schema_2_decodes("game", &game, &events);
    let (game, events) = lag_golden_game();
    schema_2_decodes("lag", &game, &events);
    let (game, events) = delayed_golden_game();
    schema_2_decodes("delayed", &game, &events);
    let (game, _) = golden_game();
    let over = finished_golden_game(&game);
    let finished = from_hex_lines(&read("stored-v2/finished.state.hex"));
    assert_eq!(decode_game(&finished[0]).expect("decode"), over);
}

#[test]
fn schema_3_bytes_are_pinned() {
    let (game, events) = golden_game();
    let log = schema_3_pinned("game", &game, &events);
    for (bytes, event) in log.iter().zip(&events) {
        assert_eq!(&decode_event(bytes).expect("decode"), event);
    }
    // The moves are packed; the creation and the draw offer stay JSON.
    for (bytes, event) in log.iter().zip(&events) {
        let packed = bytes.first() == Some(&0xA2);
        assert_eq!(packed, event.move_record().is_some(), "{event:?}");
    }
    // Readable through InspectGame as JSON, the history as EPDs.
    let readable = readable_game(&game);
    assert!(readable.starts_with(r#"{"schema":3,"game":"#), "{readable}");
    assert!(
        readable.contains(
            r#""positions":["rnbqkbnr/pp2pppp/3p4/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq -"]"#
        ),
        "{readable}"
    );
    assert_eq!(decode_game(readable.as_bytes()).expect("readable"), game);
}

/// A blitz game that compensates lag: the state keeps the policy and each
/// player's quota, and the moves their credits.
fn lag_golden_game() -> (Game, Vec<GameEvent>) {
    let t0 = Timestamp::from_unix_millis(1_800_000_000_000);
    let control = TimeControl::new(
        "time_control",
        vec![Period {
            time_ms: 180_000,
            moves: 0,
            increment_ms: 2_000,
            delay_ms: 0,
        }],
        DelayMode::Simple,
    )
    .expect("control");
    let (white, black, pairing) = alice_bob(Pairing::default());
    let request = NewGame::new(
        white,
        black,
        Variant::Standard,
        &StartPosition::Standard,
        pairing,
        GameRules::default(),
    )
    .expect("request")
    .with_clock(
        Some(Timing {
            white: control.clone(),
            black: control,
            clock_starts_after_first_moves: false,
        }),
        Schedule::default(),
    )
    .with_lag_compensation(Some(
        LagCompensation::requested(2_000, 5_000, 500, 1_500).expect("policy"),
    ))
    .expect("timed");
    let seats = SeatHashes {
        white: TokenHash::of("golden-white"),
        black: TokenHash::of("golden-black"),
    };
    let id = GameId::parse("golden-lag").expect("id");
    let (mut game, created) = Game::create(id, request, seats, t0);
    let mut events = vec![created];
    // The lags: credited in full, capped per move, none, cut to the move's
    // short time.
    for (i, (text, lag)) in [("d4", 300), ("Nf6", 2_500), ("c4", 0), ("e6", 900)]
        .into_iter()
        .enumerate()
    {
        let now = t0.plus_millis(4_000 * (i as u64 + 1) - if i == 3 { 3_500 } else { 0 });
        let lag = ReportedLag::parse("lag_millis", lag).expect("lag");
        let Ok(Decision::Changed {
            game: next,
            events: produced,
        }) = game.play_move_with_lag(game.side_to_move(), game.ply(), text, false, lag, now)
        else {
            panic!("{text} refused");
        };
        game = *next;
        events.extend(produced);
    }
    (game, events)
}

#[test]
fn schema_3_bytes_with_lag_compensation_are_pinned() {
    let (game, events) = lag_golden_game();
    let credits: Vec<u64> = events
        .iter()
        .filter_map(GameEvent::move_record)
        .filter_map(|record| record.time)
        .map(|time| time.lag_credit_ms)
        .collect();
    assert_eq!(credits, [300, 1_500, 0, 500]);
    let log = schema_3_pinned("lag", &game, &events);
    for (bytes, event) in log.iter().zip(&events) {
        let packed = bytes.first() == Some(&0xA2);
        assert_eq!(packed, event.move_record().is_some(), "{event:?}");
    }
}

/// The golden game, resigned by Black.
fn finished_golden_game(game: &Game) -> Game {
    let now = Timestamp::from_unix_millis(1_800_000_005_000);
    changed_game(game.resign(Color::Black, now))
}

#[test]
fn a_finished_game_is_stored_deflated_and_reads_back() {
    let (game, _) = golden_game();
    let over = finished_golden_game(&game);
    let json_len = readable_game(&game).len();
    let bytes = encode_game(&over).expect("encode");
    assert_eq!(&bytes[..2], &[0xA2, 2]);
    assert!(
        bytes.len() * 2 < json_len,
        "{} bytes against {json_len}",
        bytes.len()
    );
    assert_eq!(decode_game(&bytes).expect("decode"), over);
    golden(
        "stored-v3/finished.state.hex",
        &hex_lines(std::slice::from_ref(&bytes)),
    );
    for len in 2..bytes.len() {
        assert!(decode_game(&bytes[..len]).is_err(), "{len} bytes decoded");
    }
}

#[test]
fn newer_and_malformed_records_are_refused_with_the_reason() {
    assert_eq!(
        decode_game(br#"{"schema":4,"game":{}}"#),
        Err(DecodeError::NewerSchema {
            what: "state",
            schema: 4
        })
    );
    assert_eq!(
        decode_game(&[0xA2, 4, 4, 0x80]),
        Err(DecodeError::NewerSchema {
            what: "state",
            schema: 4
        })
    );
    assert_eq!(
        decode_event(br#"{"schema":7,"event":{}}"#),
        Err(DecodeError::NewerSchema {
            what: "event",
            schema: 7
        })
    );
    for junk in [
        &b""[..],
        b"{",
        b"[]",
        br#"{"schema":1,"game":{"id":"x"}}"#,
        b"\xff",
    ] {
        assert!(matches!(
            decode_game(junk),
            Err(DecodeError::Malformed { what: "state", .. })
        ));
        assert!(matches!(
            decode_event(junk),
            Err(DecodeError::Malformed { what: "event", .. })
        ));
    }
    // A live state cut short or empty.
    let (game, _) = golden_game();
    let state = encode_game(&game).expect("encode");
    for junk in [&b"\xa2\x04"[..], b"\xa2\x04\x03", b"\xa2\x04\x03\x80"] {
        assert!(
            matches!(
                decode_game(junk),
                Err(DecodeError::Malformed { what: "state", .. })
            ),
            "{junk:?}"
        );
    }
    for len in 3..state.len() {
        assert!(decode_game(&state[..len]).is_err(), "{len} bytes decoded");
    }
}

#[test]
fn schema_0_armageddon_draws_read_back_as_draws_on_the_board() {
    // Schema 0 stored an Armageddon draw as Black's win with the drawing
    // termination; no fixture game was one, so one is made from a fixture.
    let mut state: serde_json::Value =
        serde_json::from_slice(&read("stored-v0/untimed-checkmate.state.json")).expect("json");
    state["scoring"]["armageddon"] = true.into();
    state["result"] = serde_json::json!({"outcome": "black_wins", "termination": "agreement"});
    let game = decode_game(&serde_json::to_vec(&state).expect("json")).expect("decodes");
    assert_eq!(
        game.result(),
        Some(GameResult {
            outcome: Outcome::Draw,
            termination: Termination::Agreement
        })
    );
    assert_eq!(game.score().map(|s| s.scored_as), Some(Outcome::BlackWins));
    // A real win for Black stays one.
    state["result"] = serde_json::json!({"outcome": "black_wins", "termination": "resignation"});
    let game = decode_game(&serde_json::to_vec(&state).expect("json")).expect("decodes");
    assert_eq!(game.result().map(|r| r.outcome), Some(Outcome::BlackWins));

    let event = serde_json::json!({
        "version": 9, "at": 1, "kind": {
            "type": "game_ended",
            "result": {"outcome": "black_wins", "termination": "stalemate"},
            "score": {"white": 0, "black": 1000, "played": true}
        }
    });
    let event = decode_event(&serde_json::to_vec(&event).expect("json")).expect("decodes");
    let EventKind::GameEnded { result, score, .. } = event.kind else {
        panic!("{:?}", event.kind);
    };
    assert_eq!(result.outcome, Outcome::Draw);
    assert_eq!(score.map(|s| s.scored_as), Some(Outcome::BlackWins));
}

/// The golden game's setup with a 15-minute broadcast delay, after 1. e4.
fn delayed_golden_game() -> (Game, Vec<GameEvent>) {
    let (original, _) = golden_game();
    let t0 = original.created_at();
    let delay = BroadcastDelay::parse("broadcast_delay_millis", 900_000).expect("15 minutes");
    let setup = original.setup().clone().with_broadcast_delay(delay);
    let id = GameId::parse("golden-delayed").expect("id");
    let (game, created) = Game::create(id, setup, original.seats(), t0);
    let Ok(Decision::Changed {
        game,
        events: moved,
    }) = game.play_move(Color::White, Ply::START, "e4", false, t0.plus_millis(1_000))
    else {
        panic!("e4 refused");
    };
    (*game, std::iter::once(created).chain(moved).collect())
}

#[test]
fn a_delayed_game_keeps_its_delay_and_games_without_one_their_bytes() {
    // Games stored before delays existed (and every live game) read as live.
    for path in ["stored-v2/game.state.json", "stored-v1/game.state.json"] {
        let game = decode_game(&read(path)).expect("state");
        assert!(game.setup().broadcast_delay().is_live(), "{path}");
    }
    let (original, _) = golden_game();
    assert!(!readable_game(&original).contains("broadcast_delay"));

    let delay = BroadcastDelay::parse("broadcast_delay_millis", 900_000).expect("15 minutes");
    let (game, events) = delayed_golden_game();
    let t0 = game.created_at();
    let log = schema_3_pinned("delayed", &game, &events);
    assert!(
        readable_game(&game).contains("\"broadcast_delay\":900000"),
        "the setup keeps the delay"
    );
    let decoded = decode_game(&encode_game(&game).expect("encode")).expect("decode");
    assert_eq!(decoded.setup().broadcast_delay(), delay);
    let EventKind::GameCreated { setup, .. } = &decode_event(&log[0]).expect("created").kind else {
        panic!("the log starts with the creation");
    };
    assert_eq!(
        setup.broadcast_delay(),
        delay,
        "the creation event keeps it too"
    );
    // An archive keeps the creation as stored, delay included.
    let over = changed_game(game.resign(Color::Black, t0.plus_millis(2_000)));
    assert_eq!(
        decode_game(&encode_game(&over).expect("encode"))
            .expect("decode")
            .setup()
            .broadcast_delay(),
        delay
    );
}

fn changed_game(decision: Result<Decision, crate::domain::Rejection>) -> Game {
    match decision {
        Ok(Decision::Changed { game, .. }) => *game,
        other => panic!("expected a change, got {other:?}"),
    }
}

#[test]
fn the_schema_is_read_from_the_envelope_s_start() {
    assert_eq!(schema_in_prefix(br#"{"schema":2,"game":{}}"#), Some(2));
    assert_eq!(schema_in_prefix(br#"{"schema":17,"event":{}}"#), Some(17));
    // Anything else is left to the full parse.
    for other in [
        &br#"{"schema":,"game":{}}"#[..],
        br#"{"schema":2}"#,
        br#"{"schema":1234567890,"game":{}}"#,
        br#"{"schema": 2,"game":{}}"#,
        br#"{"game":{},"schema":2}"#,
        b"{\"schema\":",
    ] {
        assert_eq!(
            schema_in_prefix(other),
            None,
            "{}",
            String::from_utf8_lossy(other)
        );
    }
}

#[test]
fn the_binary_live_state_keeps_the_repetition_history_and_the_castling_rules() {
    // Knights out and back twice: the position after 2... d6 recurs, and
    // the history must say so after a round trip in either form.
    let (mut game, _) = golden_game();
    let t0 = game.created_at();
    for (i, text) in ["Nc3", "Nc6", "Nb1", "Nb8", "Nc3", "Nc6", "Nb1", "Nb8"]
        .iter()
        .enumerate()
    {
        let now = t0.plus_millis(10_000 + 1_000 * i as u64);
        game = changed_game(game.play_move(game.side_to_move(), game.ply(), text, false, now));
    }
    assert_eq!(game.repetition_count(), 3);
    assert!(game.can_claim_threefold());
    let binary = decode_game(&encode_game(&game).expect("encode")).expect("binary");
    let readable = decode_game(readable_game(&game).as_bytes()).expect("readable");
    for decoded in [&binary, &readable] {
        assert_eq!(decoded, &game);
        assert_eq!(decoded.repetition_count(), 3);
        assert!(decoded.can_claim_threefold());
    }

    // A Chess960 game keeps its castling rules and rooks.
    let (white, black, pairing) = alice_bob(Pairing::default());
    let request = NewGame::new(
        white,
        black,
        Variant::Chess960,
        &StartPosition::Chess960(0),
        pairing,
        GameRules::default(),
    )
    .expect("request");
    let (game, _) = Game::create(
        GameId::parse("golden-960").expect("id"),
        request,
        game.seats(),
        t0,
    );
    let game = changed_game(game.play_move(Color::White, Ply::START, "g3", false, t0));
    let bytes = encode_game(&game).expect("encode");
    assert_eq!(&bytes[..2], &[0xA2, 4], "a game in progress");
    let decoded = decode_game(&bytes).expect("binary");
    assert_eq!(decoded, game);
    assert_eq!(decoded.position().castles().mode(), CastlingMode::Chess960);
    assert_eq!(decoded.fen(), game.fen());
}

/// A live state that copies its setup's bytes from an earlier version is
/// the state encoded afresh, byte for byte, and the setup's place in it
/// names the setup's own bytes; an earlier state of another game (another
/// setup) lends it nothing.
#[test]
fn a_setup_copied_from_an_earlier_version_writes_the_same_state() {
    let (game, _) = golden_game();
    let first = encode_game_after(&game, None).expect("encoded");
    let setup = first.setup.clone().expect("a live state's setup");
    assert_eq!(
        first.bytes.get(setup.clone()),
        rmp_serde::encode::to_vec_named(game.setup())
            .ok()
            .as_deref()
    );
    let earlier = EncodedSetup {
        game: &game,
        bytes: &first.bytes[setup],
    };
    let Ok(Decision::Changed { game: next, .. }) = game.play_move(
        game.side_to_move(),
        game.ply(),
        "d4",
        false,
        Timestamp::from_unix_millis(1_800_000_010_000),
    ) else {
        panic!("a legal move refused");
    };
    let copied = encode_game_after(&next, Some(earlier)).expect("encoded");
    assert_eq!(copied, encode_game_after(&next, None).expect("encoded"));
    assert_ne!(copied.bytes, first.bytes);

    // Another game's setup: its bytes are not taken.
    let other = Game::create(
        GameId::parse("another-game").expect("id"),
        crate::domain::test_support::plain_setup(),
        crate::domain::test_support::seats(),
        Timestamp::from_unix_millis(1_800_000_000_000),
    )
    .0;
    let lent = EncodedSetup {
        game: &other,
        bytes: b"not this game's setup",
    };
    assert_eq!(
        encode_game_after(&next, Some(lent)).expect("encoded"),
        copied
    );
}
