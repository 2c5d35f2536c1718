//! The archived log of a game that has ended: every event in one record of
//! a few kilobytes.
//!
//! A live log keeps each event on its own (a move in about 60 bytes, see
//! [`crate::domain::stored::packed`]), so that any one of them can be read without the
//! others. Once a game is over its log is read whole or not at all, so it
//! can be smaller still: a move is kept as its two-byte UCI form and the
//! differences from the event before it (time, clocks), while its SAN, the
//! position after it, the side to move, the ply and check are replayed from
//! the start position when the archive is read. Every other event keeps its
//! stored form. The whole is deflated.
//!
//! [`pack`] reads its own output back and refuses to return an archive
//! that does not reproduce the events exactly, so an archive never changes
//! what a game's history says.

use shakmaty::{Chess, Color, Position, packed::PackedUciMove, uci::UciMove};

use crate::domain::{
    ClockView, EventKind, GameEvent, MoveRecord, MoveReport, MoveTime, Ply, Timestamp,
    stored::encoding::{decode_event, encode_event},
    stored::packed::{BINARY, Reader, Writer, kind, read_report, write_report},
    stored::record_error::RecordError,
};

/// The most an archive may inflate to: far above any real game's.
const MAX_ARCHIVE_BYTES: usize = 16 << 20;

/// An event kept in its stored form.
const STORED: u8 = 0;
/// A move replayed from its UCI form.
const MOVE: u8 = 1;

const HAS_TIME: u8 = 1;
const HAS_CLOCK: u8 = 1 << 1;
/// The move's time carries a lag-compensation credit.
const HAS_LAG_CREDIT: u8 = 1 << 2;
/// The move carries the platform's report (a game with a fair-play
/// record): the lag reported, a varint after the clocks.
const HAS_REPORT: u8 = 1 << 3;
/// The report carries the client's move time, a varint after the lag.
const HAS_CLIENT_TIME: u8 = 1 << 4;

/// The archive of `events`, a whole log from version 1: `Err` with the
/// reason when they are not one, or when the archive would not read back
/// to exactly the same events.
pub fn pack(events: &[GameEvent]) -> Result<Vec<u8>, RecordError> {
    let mut replay = Replay::start(events)?;
    let mut out = Writer::default();
    out.varint(events.len() as u64);
    for (expected, event) in (1..).zip(events) {
        if event.version != expected {
            return Err(RecordError::LogGap {
                from: expected - 1,
                to: event.version,
            });
        }
        match replay.compact_move(event) {
            Some(uci) => {
                out.byte(MOVE);
                out.raw(&PackedUciMove::pack(uci).to_bytes());
                out.signed(delta(event.at.unix_millis(), replay.at.unix_millis()));
                let record = event.move_record().ok_or(RecordError::StoredEvent {
                    version: event.version,
                    detail: "a move without a record".to_owned(),
                })?;
                let mut flags = 0;
                if record.time.is_some() {
                    flags |= HAS_TIME;
                }
                if record.time.is_some_and(|time| time.lag_credit_ms > 0) {
                    flags |= HAS_LAG_CREDIT;
                }
                if event.clock.is_some() {
                    flags |= HAS_CLOCK;
                }
                if let Some(report) = record.report {
                    flags |= HAS_REPORT;
                    if report.client_ms.is_some() {
                        flags |= HAS_CLIENT_TIME;
                    }
                }
                out.byte(flags);
                // The thinking time is usually the time since the last
                // event, and the mover's clock what it was less that time
                // plus the increment (and any lag credit): written as
                // differences from those, they are small and repeat, which
                // deflate makes nearly free.
                let elapsed = delta(event.at.unix_millis(), replay.at.unix_millis());
                if let Some(time) = record.time {
                    out.signed((time.spent_ms as i64).wrapping_sub(elapsed));
                    if time.lag_credit_ms > 0 {
                        out.varint(time.lag_credit_ms);
                    }
                    let before = mover_ms(replay.clock.as_ref(), record.color);
                    let expected = before
                        .wrapping_sub(time.spent_ms as i64)
                        .wrapping_add(time.lag_credit_ms as i64);
                    out.signed(time.remaining_ms.wrapping_sub(expected));
                }
                if let Some(clock) = &event.clock {
                    let base =
                        clock_base(replay.clock.as_ref(), event.at, record.color, record.time);
                    write_clock_change(&mut out, clock, &base, event.at);
                }
                if let Some(report) = record.report {
                    write_report(&mut out, report);
                }
            }
            None => {
                out.byte(STORED);
                out.bytes(
                    &encode_event(event).map_err(|err| RecordError::StoredEvent {
                        version: event.version,
                        detail: err.to_string(),
                    })?,
                );
            }
        }
        replay.advance(event)?;
    }
    let mut archive = vec![BINARY, kind::ARCHIVE];
    archive.extend(miniz_oxide::deflate::compress_to_vec(&out.finish(), 9));
    match unpack(&archive) {
        Ok(read) if read == events => Ok(archive),
        Ok(_) => Err(RecordError::NotReadBack),
        Err(err) => Err(err),
    }
}

/// The events an archive holds, versions 1 onwards.
pub fn unpack(bytes: &[u8]) -> Result<Vec<GameEvent>, RecordError> {
    let deflated = bytes
        .strip_prefix(&[BINARY, kind::ARCHIVE])
        .ok_or(RecordError::NotAnArchive)?;
    let payload = miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_ARCHIVE_BYTES)
        .map_err(|err| RecordError::Inflate {
        detail: err.to_string(),
    })?;
    let mut input = Reader::new(&payload);
    let count = input.varint()?;
    let mut events: Vec<GameEvent> = Vec::new();
    let mut replay: Option<Replay> = None;
    for version in 1..=count {
        let event = match input.byte()? {
            STORED => decode_event(input.bytes()?).map_err(|err| RecordError::StoredEvent {
                version,
                detail: err.to_string(),
            })?,
            MOVE => {
                let replay = replay.as_ref().ok_or(RecordError::MoveBeforeCreation)?;
                replay.read_move(&mut input, version)?
            }
            tag => {
                return Err(RecordError::Unknown {
                    what: "archive entry",
                    value: u64::from(tag),
                });
            }
        };
        if event.version != version {
            return Err(RecordError::EntryVersion {
                entry: version,
                event: event.version,
            });
        }
        let replay = match &mut replay {
            Some(replay) => replay,
            None => replay.insert(Replay::start(std::slice::from_ref(&event))?),
        };
        replay.advance(&event)?;
        events.push(event);
    }
    if !input.is_empty() {
        return Err(RecordError::Trailing {
            after: "the last event",
        });
    }
    Ok(events)
}

/// `value - base` as a signed difference.
fn delta(value: u64, base: u64) -> i64 {
    value.wrapping_sub(base) as i64
}

/// What reading the log so far has established: the position, the last
/// event's time and the last clocks shown.
struct Replay {
    position: Chess,
    ply: Ply,
    mode: shakmaty::CastlingMode,
    at: Timestamp,
    clock: Option<ClockView>,
}

impl Replay {
    /// The replay of a log that starts with `events[0]`, its creation.
    fn start(events: &[GameEvent]) -> Result<Self, RecordError> {
        let first = events.first().ok_or(RecordError::EmptyLog)?;
        let EventKind::GameCreated { setup, .. } = &first.kind else {
            return Err(RecordError::NoCreation);
        };
        Ok(Self {
            position: setup.start().clone(),
            ply: Ply::START,
            mode: setup.variant().castling_mode(),
            at: first.at,
            clock: None,
        })
    }

    /// The move of `event` when replaying it from the position reproduces
    /// the event's record exactly (so it can be archived as the move alone).
    fn compact_move(&self, event: &GameEvent) -> Option<UciMove> {
        let record = event.move_record()?;
        let uci: UciMove = record.uci.parse().ok()?;
        let replayed = self.replay_move(
            uci,
            event.version,
            event.at,
            (record.time, record.report),
            event.clock,
        )?;
        (replayed == *event).then_some(uci)
    }

    /// The event of move `uci` played at `at` in the current position.
    fn replay_move(
        &self,
        uci: UciMove,
        version: u64,
        at: Timestamp,
        (time, report): (Option<MoveTime>, Option<MoveReport>),
        clock: Option<ClockView>,
    ) -> Option<GameEvent> {
        let m = uci.to_move(&self.position).ok()?;
        let (mut record, after): (MoveRecord, Chess) =
            MoveRecord::play(&self.position, m, self.mode, self.ply, at);
        record.time = time;
        record.report = report;
        Some(GameEvent {
            request: None,
            version,
            at,
            kind: EventKind::MoveMade {
                record,
                side_to_move: after.turn(),
                ply: self.ply.next(),
                in_check: after.is_check(),
            },
            clock,
        })
    }

    /// Reads a move entry as [`pack`] wrote it.
    fn read_move(&self, input: &mut Reader<'_>, version: u64) -> Result<GameEvent, RecordError> {
        let uci = PackedUciMove::from_bytes(
            input
                .raw(PackedUciMove::BYTES)?
                .try_into()
                .map_err(|_| RecordError::Truncated)?,
        )
        .unpack();
        let at =
            Timestamp::from_unix_millis(self.at.unix_millis().wrapping_add(input.signed()? as u64));
        let flags = input.byte()?;
        let known = HAS_TIME | HAS_CLOCK | HAS_LAG_CREDIT | HAS_REPORT | HAS_CLIENT_TIME;
        if flags & !known != 0
            || (flags & HAS_LAG_CREDIT != 0 && flags & HAS_TIME == 0)
            || (flags & HAS_CLIENT_TIME != 0 && flags & HAS_REPORT == 0)
        {
            return Err(RecordError::Unknown {
                what: "archived move flags",
                value: u64::from(flags),
            });
        }
        let mover = self.position.turn();
        let elapsed = delta(at.unix_millis(), self.at.unix_millis());
        let time = if flags & HAS_TIME != 0 {
            let spent_ms = elapsed.wrapping_add(input.signed()?) as u64;
            let lag_credit_ms = if flags & HAS_LAG_CREDIT != 0 {
                input.varint()?
            } else {
                0
            };
            let before = mover_ms(self.clock.as_ref(), mover);
            let expected = before
                .wrapping_sub(spent_ms as i64)
                .wrapping_add(lag_credit_ms as i64);
            Some(MoveTime {
                spent_ms,
                remaining_ms: expected.wrapping_add(input.signed()?),
                lag_credit_ms,
            })
        } else {
            None
        };
        let clock = if flags & HAS_CLOCK != 0 {
            let base = clock_base(self.clock.as_ref(), at, mover, time);
            Some(read_clock_change(input, base, at)?)
        } else {
            None
        };
        let report = if flags & HAS_REPORT != 0 {
            Some(read_report(input, flags & HAS_CLIENT_TIME != 0)?)
        } else {
            None
        };
        self.replay_move(uci, version, at, (time, report), clock)
            .ok_or_else(|| RecordError::IllegalMove {
                version,
                uci: uci.to_string(),
            })
    }

    /// Follows `event`: a move moves the position on.
    fn advance(&mut self, event: &GameEvent) -> Result<(), RecordError> {
        if let Some(record) = event.move_record() {
            let uci: UciMove = record
                .uci
                .parse()
                .map_err(|_| RecordError::UnreadableMove {
                    version: event.version,
                    uci: record.uci.clone(),
                })?;
            let m = uci
                .to_move(&self.position)
                .map_err(|_| RecordError::IllegalMove {
                    version: event.version,
                    uci: uci.to_string(),
                })?;
            self.position.play_unchecked(m);
            self.ply = self.ply.next();
        }
        self.at = event.at;
        if event.clock.is_some() {
            self.clock = event.clock;
        }
        Ok(())
    }
}

/// The mover's time as a clock view shows it (0 without one).
fn mover_ms(clock: Option<&ClockView>, mover: Color) -> i64 {
    clock.map_or(0, |clock| match mover {
        Color::White => clock.white_ms,
        Color::Black => clock.black_ms,
    })
}

// Which parts of a clock view differ from the last one shown.
const AT_DIFFERS: u64 = 1;
const WHITE_MS: u64 = 1 << 1;
const BLACK_MS: u64 = 1 << 2;
const RUNNING: u64 = 1 << 3;
const PAUSED: u64 = 1 << 4;
const WHITE_PERIOD: u64 = 1 << 5;
const BLACK_PERIOD: u64 = 1 << 6;
const WHITE_MOVES_LEFT: u64 = 1 << 7;
const BLACK_MOVES_LEFT: u64 = 1 << 8;
const DELAY_LEFT: u64 = 1 << 9;

/// What a move's clock view is expected to be: the last one shown, with
/// the mover's time as the move left it (nothing, before any clock).
fn clock_base(
    last: Option<&ClockView>,
    at: Timestamp,
    mover: Color,
    time: Option<MoveTime>,
) -> ClockView {
    let mut base = last.copied().unwrap_or(ClockView {
        at,
        white_ms: 0,
        black_ms: 0,
        running: None,
        paused: false,
        white_period: 0,
        black_period: 0,
        white_moves_left: 0,
        black_moves_left: 0,
        delay_left_ms: 0,
    });
    base.at = at;
    if let Some(time) = time {
        match mover {
            Color::White => base.white_ms = time.remaining_ms,
            Color::Black => base.black_ms = time.remaining_ms,
        }
    }
    base
}

/// `clock` as its differences from `base`, for an event at `at`.
fn write_clock_change(out: &mut Writer, clock: &ClockView, base: &ClockView, at: Timestamp) {
    let mut mask = 0;
    let mut set = |bit: u64, differs: bool| {
        if differs {
            mask |= bit;
        }
    };
    set(AT_DIFFERS, clock.at != at);
    set(WHITE_MS, clock.white_ms != base.white_ms);
    set(BLACK_MS, clock.black_ms != base.black_ms);
    set(RUNNING, clock.running != base.running);
    set(PAUSED, clock.paused != base.paused);
    set(WHITE_PERIOD, clock.white_period != base.white_period);
    set(BLACK_PERIOD, clock.black_period != base.black_period);
    set(
        WHITE_MOVES_LEFT,
        clock.white_moves_left != base.white_moves_left,
    );
    set(
        BLACK_MOVES_LEFT,
        clock.black_moves_left != base.black_moves_left,
    );
    set(DELAY_LEFT, clock.delay_left_ms != base.delay_left_ms);
    out.varint(mask);
    if mask & AT_DIFFERS != 0 {
        out.signed(delta(clock.at.unix_millis(), at.unix_millis()));
    }
    if mask & WHITE_MS != 0 {
        out.signed(clock.white_ms.wrapping_sub(base.white_ms));
    }
    if mask & BLACK_MS != 0 {
        out.signed(clock.black_ms.wrapping_sub(base.black_ms));
    }
    if mask & RUNNING != 0 {
        out.byte(match clock.running {
            None => 0,
            Some(Color::White) => 1,
            Some(Color::Black) => 2,
        });
    }
    if mask & PAUSED != 0 {
        out.byte(u8::from(clock.paused));
    }
    for (bit, value) in [
        (WHITE_PERIOD, clock.white_period),
        (BLACK_PERIOD, clock.black_period),
        (WHITE_MOVES_LEFT, clock.white_moves_left),
        (BLACK_MOVES_LEFT, clock.black_moves_left),
    ] {
        if mask & bit != 0 {
            out.varint(u64::from(value));
        }
    }
    if mask & DELAY_LEFT != 0 {
        out.varint(clock.delay_left_ms);
    }
}

fn read_clock_change(
    input: &mut Reader<'_>,
    base: ClockView,
    at: Timestamp,
) -> Result<ClockView, RecordError> {
    let mask = input.varint()?;
    if mask >= DELAY_LEFT << 1 {
        return Err(RecordError::Unknown {
            what: "clock changes",
            value: mask,
        });
    }
    let mut clock = base;
    clock.at = at;
    if mask & AT_DIFFERS != 0 {
        clock.at =
            Timestamp::from_unix_millis(at.unix_millis().wrapping_add(input.signed()? as u64));
    }
    if mask & WHITE_MS != 0 {
        clock.white_ms = clock.white_ms.wrapping_add(input.signed()?);
    }
    if mask & BLACK_MS != 0 {
        clock.black_ms = clock.black_ms.wrapping_add(input.signed()?);
    }
    if mask & RUNNING != 0 {
        clock.running = match input.byte()? {
            0 => None,
            1 => Some(Color::White),
            2 => Some(Color::Black),
            other => {
                return Err(RecordError::Unknown {
                    what: "running clock",
                    value: u64::from(other),
                });
            }
        };
    }
    if mask & PAUSED != 0 {
        clock.paused = match input.byte()? {
            0 => false,
            1 => true,
            other => {
                return Err(RecordError::Unknown {
                    what: "paused flag",
                    value: u64::from(other),
                });
            }
        };
    }
    for (bit, value) in [
        (WHITE_PERIOD, &mut clock.white_period),
        (BLACK_PERIOD, &mut clock.black_period),
        (WHITE_MOVES_LEFT, &mut clock.white_moves_left),
        (BLACK_MOVES_LEFT, &mut clock.black_moves_left),
    ] {
        if mask & bit != 0 {
            *value = input.varint32()?;
        }
    }
    if mask & DELAY_LEFT != 0 {
        clock.delay_left_ms = input.varint()?;
    }
    Ok(clock)
}

#[cfg(test)]
#[path = "archive_tests.rs"]
mod tests;
