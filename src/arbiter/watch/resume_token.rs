//! Resume tokens: a watcher's position in a game's history that names the
//! event it last saw exactly, not only by version.
//!
//! Redis replicates asynchronously: a failover can lose a game's latest
//! commits, and the next moves then reuse their versions for different
//! events. A watcher that resumed by version alone would silently skip the
//! replacements. A token carries a digest of the event (its canonical
//! JSON, whatever form the store keeps it in: a live entry or an archive)
//! and of the game's id, so resuming after an event that is no longer in the
//! history is refused, and the watcher starts again from a snapshot.

use std::{fmt, str::FromStr};

use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::domain::{GameEvent, GameId};

/// Bytes of the digest a token keeps: enough that a replaced event is
/// told apart from the original but for a chance of one in 2^64.
const DIGEST_BYTES: usize = 8;

/// One event of one game's history: `<version>.<digest in hex>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResumeToken {
    version: u64,
    digest: [u8; DIGEST_BYTES],
}

/// Why a resume token cannot be read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("a resume token is <version>.<16 hexadecimal digits>, as a watch stream sends it")]
pub struct InvalidResumeToken;

impl ResumeToken {
    /// The token of `event` of game `id`.
    pub fn of(id: &GameId, event: &GameEvent) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(id.as_str().as_bytes());
        hasher.update([0]);
        hasher.update(event.version.to_be_bytes());
        // Serialising an event cannot fail (no maps with non-string keys).
        hasher.update(serde_json::to_vec(event).unwrap_or_default());
        let hash = hasher.finalize();
        let mut digest = [0; DIGEST_BYTES];
        digest.copy_from_slice(&hash[..DIGEST_BYTES]);
        Self {
            version: event.version,
            digest,
        }
    }

    /// The version of the event it names.
    pub fn version(&self) -> u64 {
        self.version
    }
}

impl fmt::Display for ResumeToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.", self.version)?;
        for byte in self.digest {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl FromStr for ResumeToken {
    type Err = InvalidResumeToken;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (version, hex) = text.split_once('.').ok_or(InvalidResumeToken)?;
        if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
            return Err(InvalidResumeToken);
        }
        let version: u64 = version.parse().map_err(|_| InvalidResumeToken)?;
        if version == 0 || hex.len() != DIGEST_BYTES * 2 || !hex.is_ascii() {
            return Err(InvalidResumeToken);
        }
        let mut digest = [0; DIGEST_BYTES];
        for (i, byte) in digest.iter_mut().enumerate() {
            let pair = hex.get(2 * i..2 * i + 2).ok_or(InvalidResumeToken)?;
            if !pair.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
                return Err(InvalidResumeToken);
            }
            *byte = u8::from_str_radix(pair, 16).map_err(|_| InvalidResumeToken)?;
        }
        Ok(Self { version, digest })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::domain::{Color, EventKind, Timestamp};

    /// A draw offer, at version `version`, by White or Black as `by` says.
    fn event(version: u64, by: &[u8]) -> GameEvent {
        GameEvent {
            request: None,
            version,
            at: Timestamp::from_unix_millis(1_800_000_000_000),
            kind: EventKind::DrawOffered {
                by: if by == b"e4" {
                    Color::White
                } else {
                    Color::Black
                },
            },
            clock: None,
        }
    }

    fn game(id: &str) -> GameId {
        GameId::parse(id).expect("game id")
    }

    #[test]
    fn a_token_reads_back_as_itself() {
        let token = ResumeToken::of(&game("g1"), &event(7, b"e4"));
        let text = token.to_string();
        assert!(text.starts_with("7."), "{text}");
        assert_eq!(text.len(), 2 + 16);
        assert_eq!(text.parse::<ResumeToken>(), Ok(token));
        assert_eq!(token.version(), 7);
    }

    #[test]
    fn another_event_game_or_version_gives_another_token() {
        let token = ResumeToken::of(&game("g1"), &event(7, b"e4"));
        assert_ne!(token, ResumeToken::of(&game("g1"), &event(7, b"d4")));
        assert_ne!(token, ResumeToken::of(&game("g2"), &event(7, b"e4")));
        assert_ne!(token, ResumeToken::of(&game("g1"), &event(8, b"e4")));
        assert_eq!(token, ResumeToken::of(&game("g1"), &event(7, b"e4")));
    }

    #[test]
    fn malformed_tokens_are_refused() {
        for bad in [
            "",
            "7",
            "7.",
            ".0123456789abcdef",
            "0.0123456789abcdef",
            "-7.0123456789abcdef",
            "+7.0123456789abcdef",
            "7.0123456789abcde",
            "7.0123456789abcdef0",
            "7.0123456789ABCDEF",
            "7.0123456789abcdeg",
            "7.01234567é9abcde",
            "99999999999999999999.0123456789abcdef",
        ] {
            assert_eq!(bad.parse::<ResumeToken>(), Err(InvalidResumeToken), "{bad}");
        }
    }
}
