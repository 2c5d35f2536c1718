//! Validated identifiers that cross the API boundary.

use std::fmt;

use rand::Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::domain::error::FieldError;

/// The identifier of a game: 1 to 64 characters from `[A-Za-z0-9_-]`.
///
/// The character set keeps the identifier safe inside Redis keys (no braces,
/// so it can be a hash tag) and in URLs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct GameId(String);

impl GameId {
    /// Longest accepted identifier.
    pub const MAX_LEN: usize = 64;

    /// Parses a client-supplied identifier.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        if raw.is_empty() {
            return Err(FieldError::new("game_id", "is required"));
        }
        if raw.len() > Self::MAX_LEN {
            return Err(FieldError::new(
                "game_id",
                format!("is longer than {} characters", Self::MAX_LEN),
            ));
        }
        if !raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return Err(FieldError::new(
                "game_id",
                "may contain only letters, digits, '-' and '_'",
            ));
        }
        Ok(Self(raw.to_owned()))
    }

    /// A fresh random identifier (for requests without an idempotency key).
    pub fn random() -> Self {
        let bytes: [u8; 12] = rand::rng().random();
        Self(encode_base32(&bytes))
    }

    /// The identifier that a given idempotency key always maps to, so that a
    /// repeated `CreateGame` finds the game its first attempt created.
    pub fn for_request(request_id: &RequestId) -> Self {
        let digest = Sha256::digest(format!("chess-arbiter/game/{}", request_id.as_str()));
        Self(encode_base32(&digest[..15]))
    }

    /// The identifier of the game on `board` of round `round` of
    /// `event`: every replica that creates a round's games from its record
    /// names each the same.
    pub fn for_board(event: &EventId, round: u32, board: u32) -> Self {
        let digest = Sha256::digest(format!(
            "chess-arbiter/round-game/{round}/{board}/{}",
            event.as_str()
        ));
        Self(encode_base32(&digest[..15]))
    }

    /// The identifier of the tie-break game of the match at `table` of
    /// round `round` of `event`: like a board's, the same on every
    /// replica.
    pub fn for_tie_break(event: &EventId, round: u32, table: u32) -> Self {
        let digest = Sha256::digest(format!(
            "chess-arbiter/match-tie-break/{round}/{table}/{}",
            event.as_str()
        ));
        Self(encode_base32(&digest[..15]))
    }

    /// The identifier as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for GameId {
    type Error = FieldError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<GameId> for String {
    fn from(id: GameId) -> Self {
        id.0
    }
}

/// Lower-case RFC 4648 base32 without padding: compact and unambiguous.
fn encode_base32(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut out = String::with_capacity(bytes.len() * 8 / 5 + 1);
    let mut buffer: u32 = 0;
    let mut bits = 0;
    for &byte in bytes {
        buffer = (buffer << 8) | u32::from(byte);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(char::from(ALPHABET[((buffer >> bits) & 31) as usize]));
        }
    }
    if bits > 0 {
        out.push(char::from(ALPHABET[((buffer << (5 - bits)) & 31) as usize]));
    }
    out
}

/// A caller's idempotency key for `CreateGame`: 1 to 128 printable ASCII
/// characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestId(String);

impl RequestId {
    /// Longest accepted key.
    pub const MAX_LEN: usize = 128;

    /// Parses a key; an empty string means "no key".
    pub fn parse(raw: &str) -> Result<Option<Self>, FieldError> {
        if raw.is_empty() {
            return Ok(None);
        }
        if raw.len() > Self::MAX_LEN {
            return Err(FieldError::new(
                "request_id",
                format!("is longer than {} characters", Self::MAX_LEN),
            ));
        }
        if !raw.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(FieldError::new(
                "request_id",
                "may contain only printable ASCII characters without spaces",
            ));
        }
        Ok(Some(Self(raw.to_owned())))
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The platform's identifier of an event (a tournament, a match): 1 to
/// 128 characters, none of them a control character.
///
/// Games carry an `Option<EventId>`: a game outside any event has none,
/// which is distinct from every valid identifier.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct EventId(String);

impl TryFrom<String> for EventId {
    type Error = FieldError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<EventId> for String {
    fn from(id: EventId) -> Self {
        id.0
    }
}

impl EventId {
    /// Longest accepted identifier, in characters.
    pub const MAX_LEN: usize = 128;

    /// Parses a client-supplied identifier; an empty one is refused as
    /// missing.
    pub fn parse(raw: &str) -> Result<Self, FieldError> {
        Self::parse_optional(raw)?.ok_or_else(|| FieldError::new("event_id", "is required"))
    }

    /// Parses an identifier that may be absent: an empty string means "no
    /// event".
    pub fn parse_optional(raw: &str) -> Result<Option<Self>, FieldError> {
        if raw.is_empty() {
            return Ok(None);
        }
        if raw.chars().count() > Self::MAX_LEN {
            return Err(FieldError::new(
                "event_id",
                format!("is longer than {} characters", Self::MAX_LEN),
            ));
        }
        if raw.chars().any(char::is_control) {
            return Err(FieldError::new("event_id", "contains control characters"));
        }
        Ok(Some(Self(raw.to_owned())))
    }

    /// The identifier as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Stores an optional [`EventId`] as a string, empty for "no event", the
/// form stored games and events have always had.
pub(crate) mod opt_event_id {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::domain::EventId;

    /// Writes the id, or `""` for none.
    pub fn serialize<S: Serializer>(id: &Option<EventId>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(id.as_ref().map_or("", EventId::as_str))
    }

    /// Reads an id, validated as a request's would be; `""` is none.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EventId>, D::Error> {
        let text = String::deserialize(d)?;
        EventId::parse_optional(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_id_accepts_safe_characters_only() {
        assert!(GameId::parse("abc-DEF_123").is_ok());
        assert!(GameId::parse("").is_err());
        assert!(GameId::parse("a{b}").is_err());
        assert!(GameId::parse("a b").is_err());
        assert!(GameId::parse(&"x".repeat(65)).is_err());
    }

    #[test]
    fn request_id_maps_to_a_stable_valid_game_id() {
        let key = RequestId::parse("round-3/board-7").unwrap().unwrap();
        let first = GameId::for_request(&key);
        assert_eq!(first, GameId::for_request(&key));
        assert!(GameId::parse(first.as_str()).is_ok());
        let other = RequestId::parse("round-3/board-8").unwrap().unwrap();
        assert_ne!(first, GameId::for_request(&other));
    }

    #[test]
    fn random_ids_are_valid_and_distinct() {
        let a = GameId::random();
        assert!(GameId::parse(a.as_str()).is_ok());
        assert_ne!(a, GameId::random());
    }

    #[test]
    fn event_id_is_printable_bounded_text_and_empty_means_none() {
        let id = EventId::parse("Club Open 2025 / Group A").unwrap();
        assert_eq!(id.as_str(), "Club Open 2025 / Group A");
        assert_eq!(EventId::parse_optional("").unwrap(), None);
        assert_eq!(
            EventId::parse(""),
            Err(FieldError::new("event_id", "is required"))
        );
        assert_eq!(
            EventId::parse("tab\there"),
            Err(FieldError::new("event_id", "contains control characters"))
        );
        // The limit counts characters, not bytes.
        assert!(EventId::parse(&"é".repeat(EventId::MAX_LEN)).is_ok());
        assert_eq!(
            EventId::parse(&"x".repeat(EventId::MAX_LEN + 1)),
            Err(FieldError::new("event_id", "is longer than 128 characters"))
        );
    }

    #[test]
    fn empty_request_id_means_none() {
        assert_eq!(RequestId::parse("").unwrap(), None);
        assert!(RequestId::parse("has space").is_err());
    }
}
