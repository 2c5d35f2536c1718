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
    fn matches(&self, other: &TokenHash) -> bool {
        self.0.ct_eq(&other.0).into()
    }

    fn to_hex(self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
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

impl Serialize for TokenHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for TokenHash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::from_hex(&text).ok_or_else(|| serde::de::Error::custom("malformed token hash"))
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
