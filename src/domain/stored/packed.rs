//! The compact binary form of the record a game writes most: a move.
//!
//! A `move_made` event is about 650 bytes as JSON, most of it field names
//! and the position after the move in FEN. Here it is about 60: the move in
//! two bytes (shakmaty's `PackedUciMove`), the position after it in at most
//! 30 (shakmaty's `PackedSetup`, move counters included), and the numbers as
//! LEB128 varints. Everything else the event says follows from those: the
//! side to move after it is the other colour, the ply after it is one more,
//! the move was accepted at the event's time.
//!
//! [`encode_move`] refuses (returns `None`) an event that does not fit
//! those assumptions, or whose packed form would not read back to exactly
//! the same event: the caller then stores it as JSON. So a packed record
//! always decodes to the very event that was written.

use shakmaty::{
    Chess, Color, EnPassantMode, Position, Setup,
    fen::Fen,
    packed::{PackedSetup, PackedUciMove},
    uci::UciMove,
};

use crate::domain::{
    ClockView, EventKind, GameEvent, MoveRecord, MoveReport, MoveTime, Ply, ReportedLag, Timestamp,
    stored::record_error::RecordError,
};

/// The first byte of every binary record: JSON records start with `{`.
pub const BINARY: u8 = 0xA2;

/// The second byte: what the record is.
pub mod kind {
    /// A `move_made` event.
    pub const MOVE: u8 = 1;
    /// A game's state, deflated.
    pub const DEFLATED_STATE: u8 = 2;
    /// The archived log of a game that has ended.
    pub const ARCHIVE: u8 = 3;
    /// The state of a game in progress, in MessagePack (see
    /// [`crate::domain::stored::encoding`]).
    pub const LIVE_STATE: u8 = 4;
}

const COLOR_BLACK: u8 = 1;
const IN_CHECK: u8 = 1 << 1;
const HAS_TIME: u8 = 1 << 2;
const HAS_CLOCK: u8 = 1 << 3;
/// The move's time carries a lag-compensation credit (a varint after the
/// mover's clock). Records written before lag compensation never set it.
const HAS_LAG_CREDIT: u8 = 1 << 4;
/// The move carries the platform's report (a game with a fair-play
/// record): the lag reported, a varint after the move's time.
const HAS_REPORT: u8 = 1 << 5;
/// The report carries the client's move time, a varint after the lag.
const HAS_CLIENT_TIME: u8 = 1 << 6;

/// Appends LEB128 varints and length-prefixed bytes.
#[derive(Default)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    /// A writer whose output starts with `prefix`, with room for
    /// `capacity` bytes in all before it grows.
    pub fn starting_with(prefix: &[u8], capacity: usize) -> Self {
        let mut bytes = Vec::with_capacity(capacity.max(prefix.len()));
        bytes.extend_from_slice(prefix);
        Self { bytes }
    }

    /// One byte.
    pub fn byte(&mut self, byte: u8) {
        self.bytes.push(byte);
    }

    /// An unsigned number, seven bits a byte.
    pub fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.bytes.push((value as u8 & 0x7f) | 0x80);
            value >>= 7;
        }
        self.bytes.push(value as u8);
    }

    /// A signed number, zig-zag encoded so that small magnitudes are short.
    pub fn signed(&mut self, value: i64) {
        self.varint(((value << 1) ^ (value >> 63)) as u64);
    }

    /// Bytes preceded by their length.
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.varint(bytes.len() as u64);
        self.bytes.extend_from_slice(bytes);
    }

    /// Bytes as they are.
    pub fn raw(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// What was written.
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }
}

/// Reads what a [`Writer`] wrote, refusing truncated or oversized input.
pub struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// One byte.
    pub fn byte(&mut self) -> Result<u8, RecordError> {
        let (&first, rest) = self.bytes.split_first().ok_or(RecordError::Truncated)?;
        self.bytes = rest;
        Ok(first)
    }

    /// An unsigned varint.
    pub fn varint(&mut self) -> Result<u64, RecordError> {
        let mut value = 0_u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            let low = u64::from(byte & 0x7f);
            if shift == 63 && low > 1 {
                return Err(RecordError::VarintOverflow);
            }
            value |= low << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(RecordError::VarintTooLong)
    }

    /// An unsigned varint that fits in 32 bits.
    pub fn varint32(&mut self) -> Result<u32, RecordError> {
        u32::try_from(self.varint()?).map_err(|_| RecordError::OutOfRange { what: "a number" })
    }

    /// A zig-zag encoded signed varint.
    pub fn signed(&mut self) -> Result<i64, RecordError> {
        let raw = self.varint()?;
        Ok((raw >> 1) as i64 ^ -((raw & 1) as i64))
    }

    /// `len` bytes as they are.
    pub fn raw(&mut self, len: usize) -> Result<&'a [u8], RecordError> {
        if len > self.bytes.len() {
            return Err(RecordError::Truncated);
        }
        let (head, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(head)
    }

    /// Length-prefixed bytes.
    pub fn bytes(&mut self) -> Result<&'a [u8], RecordError> {
        let len = usize::try_from(self.varint()?)
            .map_err(|_| RecordError::OutOfRange { what: "a length" })?;
        self.raw(len)
    }
}

/// The packed form of a `move_made` event, or `None` when the event does
/// not fit it (see the module documentation).
pub fn encode_move(event: &GameEvent) -> Option<Vec<u8>> {
    encode_move_after(event, None)
}

/// As [`encode_move`], with `after`, the position the move led to, when
/// the caller holds it: packed as it is rather than read again from the
/// record's FEN (the record read back is compared with the event either
/// way).
pub fn encode_move_after(event: &GameEvent, after: Option<&Chess>) -> Option<Vec<u8>> {
    let EventKind::MoveMade {
        record,
        side_to_move,
        ply,
        in_check,
    } = &event.kind
    else {
        return None;
    };
    if *side_to_move != !record.color
        || *ply != record.ply.next()
        || record.played_at != event.at
        || event.clock.is_some_and(|clock| clock.at != event.at)
    {
        return None;
    }
    let uci: UciMove = record.uci.parse().ok()?;
    let packed_move = PackedUciMove::pack(uci);
    let setup = match after {
        Some(after) => after.to_setup(EnPassantMode::Legal),
        None => record.fen_after.parse::<Fen>().ok()?.into_setup(),
    };
    let packed_setup = PackedSetup::pack_standard(&setup).ok()?;
    let mut flags = 0;
    if record.color == Color::Black {
        flags |= COLOR_BLACK;
    }
    if *in_check {
        flags |= IN_CHECK;
    }
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
    // About 60 bytes; the most a move writes, with its clock, its lag
    // credit and a report, stays under this.
    let mut out = Writer::starting_with(&[BINARY, kind::MOVE], MOVE_RECORD_CAPACITY);
    out.varint(event.version);
    out.varint(event.at.unix_millis());
    out.byte(flags);
    out.varint(u64::from(record.ply.count()));
    out.raw(&packed_move.to_bytes());
    out.bytes(record.san.as_bytes());
    out.bytes(packed_setup.as_bytes());
    if let Some(time) = record.time {
        out.varint(time.spent_ms);
        out.signed(time.remaining_ms);
        if time.lag_credit_ms > 0 {
            out.varint(time.lag_credit_ms);
        }
    }
    if let Some(report) = record.report {
        write_report(&mut out, report);
    }
    if let Some(clock) = &event.clock {
        write_clock(&mut out, clock);
    }
    let bytes = out.finish();
    // Read back: only a record that reproduces the event is kept.
    (decode_move(&bytes).ok()?.as_ref() == Some(event)).then_some(bytes)
}

/// Room made for a move's record before it is written (it grew three
/// times a move from an empty buffer).
const MOVE_RECORD_CAPACITY: usize = 128;

/// The event a packed `move_made` record holds; `Ok(None)` when the bytes
/// are not one.
pub fn decode_move(bytes: &[u8]) -> Result<Option<GameEvent>, RecordError> {
    let Some(body) = bytes.strip_prefix(&[BINARY, kind::MOVE]) else {
        return Ok(None);
    };
    let mut input = Reader::new(body);
    let version = input.varint()?;
    let at = Timestamp::from_unix_millis(input.varint()?);
    let flags = input.byte()?;
    let known = COLOR_BLACK | IN_CHECK | HAS_TIME | HAS_CLOCK | HAS_LAG_CREDIT | HAS_REPORT;
    if flags & !(known | HAS_CLIENT_TIME) != 0
        || (flags & HAS_LAG_CREDIT != 0 && flags & HAS_TIME == 0)
        || (flags & HAS_CLIENT_TIME != 0 && flags & HAS_REPORT == 0)
    {
        return Err(RecordError::Unknown {
            what: "move flags",
            value: u64::from(flags),
        });
    }
    let ply = Ply::new(input.varint32()?);
    let uci = PackedUciMove::from_bytes(
        input
            .raw(PackedUciMove::BYTES)?
            .try_into()
            .map_err(|_| RecordError::Truncated)?,
    )
    .unpack();
    let san = std::str::from_utf8(input.bytes()?)
        .map_err(|_| RecordError::SanNotUtf8)?
        .to_owned();
    let fen_after = crate::domain::game::chess_move::fen_text(
        &Fen::try_from_setup(unpack_setup(input.bytes()?)?).map_err(|_| RecordError::Position {
            detail: "it has no FEN".to_owned(),
        })?,
    );
    let time = if flags & HAS_TIME != 0 {
        let spent_ms = input.varint()?;
        let remaining_ms = input.signed()?;
        let lag_credit_ms = if flags & HAS_LAG_CREDIT != 0 {
            input.varint()?
        } else {
            0
        };
        Some(MoveTime {
            spent_ms,
            remaining_ms,
            lag_credit_ms,
        })
    } else {
        None
    };
    let report = if flags & HAS_REPORT != 0 {
        Some(read_report(&mut input, flags & HAS_CLIENT_TIME != 0)?)
    } else {
        None
    };
    let clock = if flags & HAS_CLOCK != 0 {
        Some(read_clock(&mut input, at)?)
    } else {
        None
    };
    if !input.is_empty() {
        return Err(RecordError::Trailing { after: "a move" });
    }
    let color = if flags & COLOR_BLACK != 0 {
        Color::Black
    } else {
        Color::White
    };
    Ok(Some(GameEvent {
        request: None,
        version,
        at,
        kind: EventKind::MoveMade {
            record: MoveRecord {
                ply,
                uci: uci.to_string(),
                san,
                color,
                fen_after,
                played_at: at,
                time,
                report,
            },
            side_to_move: !color,
            ply: ply.next(),
            in_check: flags & IN_CHECK != 0,
        },
        clock,
    }))
}

/// A move's fair-play report: the lag reported, then the client's move
/// time when it has one (varints).
pub fn write_report(out: &mut Writer, report: MoveReport) {
    out.varint(report.lag.millis());
    if let Some(client_ms) = report.client_ms {
        out.varint(client_ms);
    }
}

/// A report as [`write_report`] wrote it; `with_client_time` says whether
/// it has the client's move time.
pub fn read_report(input: &mut Reader, with_client_time: bool) -> Result<MoveReport, RecordError> {
    let lag = ReportedLag::parse("lag_ms", i64::try_from(input.varint()?).unwrap_or(i64::MAX))
        .map_err(|_| RecordError::OutOfRange {
            what: "a reported lag",
        })?;
    let client_ms = if with_client_time {
        Some(input.varint()?)
    } else {
        None
    };
    Ok(MoveReport { lag, client_ms })
}

fn unpack_setup(bytes: &[u8]) -> Result<Setup, RecordError> {
    PackedSetup::try_from_bytes(bytes)
        .map_err(|_| RecordError::Position {
            detail: "too long".to_owned(),
        })?
        .unpack_standard()
        .map_err(|err| RecordError::Position {
            detail: err.to_string(),
        })
}

const RUNNING_WHITE: u8 = 1;
const RUNNING_BLACK: u8 = 2;
const PAUSED: u8 = 4;

/// A clock view whose instant is the event's.
fn write_clock(out: &mut Writer, clock: &ClockView) {
    let mut state = match clock.running {
        None => 0,
        Some(Color::White) => RUNNING_WHITE,
        Some(Color::Black) => RUNNING_BLACK,
    };
    if clock.paused {
        state |= PAUSED;
    }
    out.byte(state);
    out.signed(clock.white_ms);
    out.signed(clock.black_ms);
    out.varint(u64::from(clock.white_period));
    out.varint(u64::from(clock.black_period));
    out.varint(u64::from(clock.white_moves_left));
    out.varint(u64::from(clock.black_moves_left));
    out.varint(clock.delay_left_ms);
}

fn unknown_clock_state(state: u8) -> RecordError {
    RecordError::Unknown {
        what: "clock state",
        value: u64::from(state),
    }
}

fn read_clock(input: &mut Reader<'_>, at: Timestamp) -> Result<ClockView, RecordError> {
    let state = input.byte()?;
    let running = match state & 3 {
        0 => None,
        RUNNING_WHITE => Some(Color::White),
        RUNNING_BLACK => Some(Color::Black),
        _ => return Err(unknown_clock_state(state)),
    };
    if state & !(3 | PAUSED) != 0 {
        return Err(unknown_clock_state(state));
    }
    Ok(ClockView {
        at,
        white_ms: input.signed()?,
        black_ms: input.signed()?,
        running,
        paused: state & PAUSED != 0,
        white_period: input.varint32()?,
        black_period: input.varint32()?,
        white_moves_left: input.varint32()?,
        black_moves_left: input.varint32()?,
        delay_left_ms: input.varint()?,
    })
}

#[cfg(test)]
#[path = "packed_tests.rs"]
mod tests;
