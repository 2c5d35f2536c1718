//! Position identity and repetition counting (FIDE Art. 9.2.3).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer, de, ser::SerializeSeq};
use shakmaty::{Chess, EnPassantMode, Position, Setup, fen::Epd, packed::PackedSetup};

/// The positions since the last pawn move or capture, oldest first, ending
/// with the current one. Earlier positions can never recur, so this is all
/// repetition needs; the 75-move rule bounds it to 151 entries.
///
/// Each position is kept as its identity in the sense of FIDE 9.2.3: side to
/// move, pieces on squares, castling rights, and an en passant square only
/// when an en passant capture is actually legal. Comparing identities is
/// full position equality, not a hash that might collide.
///
/// An identity is the position packed as shakmaty's `PackedSetup` without
/// its move counters: at most 24 bytes for a legal position, the side to
/// move, the castling rooks and a capturable en passant pawn being in the
/// pieces' nibbles. All identities live in one buffer, each after a byte
/// that gives its length, so comparing two is comparing bytes and a history
/// is one allocation. The binary live state stores that buffer as it is;
/// the readable form (JSON, as schema 2 stored it) is a list of EPD strings.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Repetition {
    /// Identities, each as its header (see [`Identity::header`]) then its
    /// bytes.
    entries: Vec<u8>,
}

/// The header of an identity kept as EPD text (see [`Identity::Text`]):
/// its length plus this, above any packing's length.
const TEXT: u8 = 0x80;

/// A setup's EPD, whatever it cannot represent dropped (nothing, for a
/// setup a legal position gives).
fn epd_text(setup: Setup) -> String {
    Epd::try_from_setup(setup)
        .unwrap_or_else(|lossy| lossy.ignore())
        .to_string()
}

/// A position's identity.
enum Identity {
    /// Packed, as every legal position packs.
    Packed(PackedSetup),
    /// Its EPD text, for a setup shakmaty refuses to pack (castling rights
    /// without their rook, an en passant square without its pawn), which a
    /// legal position never is: kept apart from every packed identity by
    /// its header.
    Text(String),
}

impl Identity {
    fn of(pos: &Chess) -> Self {
        Self::of_setup(pos.to_setup(EnPassantMode::Legal))
    }

    fn of_setup(setup: Setup) -> Self {
        match PackedSetup::pack_standard_normalized(&setup) {
            Ok(packed) => Identity::Packed(packed),
            Err(_) => Identity::Text(epd_text(setup)),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Identity::Packed(packed) => packed.as_bytes(),
            Identity::Text(text) => text.as_bytes(),
        }
    }

    /// The byte before the identity's bytes: their length, plus [`TEXT`]
    /// for a text identity. Packed identities are at most 64 bytes and an
    /// EPD at most about 90, both below 128.
    fn header(&self) -> u8 {
        let len = u8::try_from(self.bytes().len()).unwrap_or(u8::MAX) & !TEXT;
        match self {
            Identity::Packed(_) => len,
            Identity::Text(_) => len | TEXT,
        }
    }

    /// The identity as EPD, for the readable form.
    fn epd(header: u8, bytes: &[u8]) -> Result<String, String> {
        if header & TEXT != 0 {
            return String::from_utf8(bytes.to_vec()).map_err(|err| err.to_string());
        }
        let packed = PackedSetup::try_from_bytes(bytes).map_err(|err| err.to_string())?;
        let setup = packed.unpack_standard().map_err(|err| err.to_string())?;
        Ok(epd_text(setup))
    }
}

/// The FIDE identity of a position in its readable form, the EPD with an
/// en passant square only when the capture is legal.
#[cfg(test)]
pub fn identity(pos: &Chess) -> String {
    Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

impl Repetition {
    /// The history of a game starting at `start`.
    pub fn starting_at(start: &Chess) -> Self {
        let mut history = Self::default();
        history.push(&Identity::of(start));
        history
    }

    fn push(&mut self, identity: &Identity) {
        self.entries.push(identity.header());
        self.entries.extend_from_slice(identity.bytes());
    }

    /// Each identity, as its header and bytes, oldest first. A buffer cut
    /// short (never written so: see [`Repetition::from_entries`]) ends the
    /// walk.
    fn iter(&self) -> impl Iterator<Item = (u8, &[u8])> + '_ {
        let mut rest = self.entries.as_slice();
        std::iter::from_fn(move || {
            let (&header, tail) = rest.split_first()?;
            let len = usize::from(header & !TEXT);
            let bytes = tail.get(..len)?;
            rest = &tail[len..];
            Some((header, bytes))
        })
    }

    /// How many times the identity of `header` and `bytes` is in the
    /// history.
    fn occurrences(&self, header: u8, bytes: &[u8]) -> usize {
        self.iter()
            .filter(|&(h, b)| h == header && b == bytes)
            .count()
    }

    /// Records the position reached by a move.
    pub fn record(&mut self, after: &Chess) {
        if after.halfmoves() == 0 {
            // A pawn move or capture: nothing before it can recur.
            self.entries.clear();
        }
        self.push(&Identity::of(after));
    }

    /// How often `pos` has appeared, counting the current position.
    pub fn count(&self, pos: &Chess) -> usize {
        let identity = Identity::of(pos);
        self.occurrences(identity.header(), identity.bytes())
    }

    /// How often the current position has appeared (at least 1).
    pub fn current_count(&self) -> usize {
        self.iter()
            .last()
            .map_or(0, |(header, bytes)| self.occurrences(header, bytes))
    }

    /// How often the position after a move would have appeared, counting
    /// that occurrence (history plus one when it matches).
    pub fn count_after(&self, after: &Chess) -> usize {
        if after.halfmoves() == 0 {
            1
        } else {
            self.count(after) + 1
        }
    }

    /// The history as stored in binary, checked to be whole: identities
    /// are only ever compared, so their bytes need no further reading.
    fn from_entries(entries: Vec<u8>) -> Result<Self, String> {
        let mut rest = entries.as_slice();
        while let Some((&header, tail)) = rest.split_first() {
            let len = usize::from(header & !TEXT);
            if header & TEXT == 0 && len > PackedSetup::MAX_BYTES {
                return Err(format!("a packed position identity of {len} bytes"));
            }
            rest = tail
                .get(len..)
                .ok_or_else(|| "a position identity cut short".to_owned())?;
        }
        Ok(Self { entries })
    }

    /// The history from its readable form: each position's EPD.
    fn from_epds<'a>(epds: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut history = Self::default();
        for text in epds {
            let epd: Epd = text
                .parse()
                .map_err(|err| format!("identity {text:?}: {err}"))?;
            // The text was written from a legal position: it packs.
            history.push(&Identity::of_setup(epd.into_setup()));
        }
        Ok(history)
    }
}

impl fmt::Debug for Repetition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(
                self.iter()
                    .map(|(header, bytes)| Identity::epd(header, bytes).unwrap_or_default()),
            )
            .finish()
    }
}

impl Serialize for Repetition {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !s.is_human_readable() {
            return serde_bytes::Bytes::new(&self.entries).serialize(s);
        }
        // Readable: `{"positions": [EPD, …]}`, as schema 2 stored it.
        #[derive(Serialize)]
        struct Readable<'a> {
            positions: Epds<'a>,
        }
        struct Epds<'a>(&'a Repetition);
        impl Serialize for Epds<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut seq = s.serialize_seq(None)?;
                for (header, bytes) in self.0.iter() {
                    let epd = Identity::epd(header, bytes).map_err(serde::ser::Error::custom)?;
                    seq.serialize_element(&epd)?;
                }
                seq.end()
            }
        }
        Readable {
            positions: Epds(self),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Repetition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if !d.is_human_readable() {
            let entries = serde_bytes::ByteBuf::deserialize(d)?.into_vec();
            return Repetition::from_entries(entries).map_err(de::Error::custom);
        }
        #[derive(Deserialize)]
        struct Readable {
            #[serde(default)]
            positions: Vec<String>,
        }
        let readable = Readable::deserialize(d)?;
        Repetition::from_epds(readable.positions.iter().map(String::as_str))
            .map_err(de::Error::custom)
    }
}
