//! The hashes of the seats' secret tokens: all a game keeps of them.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use shakmaty::Color;
use subtle::ConstantTimeEq;

/// The SHA-256 hash of a seat token. Games store only these, never tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenHash([u8; 32]);

impl TokenHash {
    /// Hashes a presented token.
    pub fn of(token: &str) -> Self {
        Self(Sha256::digest(token.as_bytes()).into())
    }

    /// Compares in constant time, so a timing side channel reveals nothing
    /// about a stored hash.
    pub fn matches(&self, other: &TokenHash) -> bool {
        self.0.ct_eq(&other.0).into()
    }

    fn to_hex(self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(64);
        for byte in self.0 {
            out.push(char::from(DIGITS[usize::from(byte >> 4)]));
            out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
        }
        out
    }

    fn from_hex(text: &str) -> Option<Self> {
        if text.len() != 64 || !text.is_ascii() {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Self(out))
    }
}

/// In hex when readable (JSON), its 32 bytes in a binary form.
impl Serialize for TokenHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            s.serialize_str(&self.to_hex())
        } else {
            s.serialize_bytes(&self.0)
        }
    }
}

impl<'de> Deserialize<'de> for TokenHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let malformed = || serde::de::Error::custom("malformed token hash");
        if !d.is_human_readable() {
            let bytes = serde_bytes::ByteBuf::deserialize(d)?;
            return <[u8; 32]>::try_from(bytes.as_slice())
                .map(Self)
                .map_err(|_| malformed());
        }
        let text = String::deserialize(d)?;
        Self::from_hex(&text).ok_or_else(malformed)
    }
}

/// The token hashes of both seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatHashes {
    /// Hash of the white seat's token.
    pub white: TokenHash,
    /// Hash of the black seat's token.
    pub black: TokenHash,
}

impl SeatHashes {
    /// The seat whose token hashes to `hash`, compared in constant time
    /// with both seats.
    pub fn seat_of(&self, hash: &TokenHash) -> Option<Color> {
        let white = self.white.matches(hash);
        let black = self.black.matches(hash);
        match (white, black) {
            (true, _) => Some(Color::White),
            (false, true) => Some(Color::Black),
            (false, false) => None,
        }
    }
}
