//! Seat tokens: the secrets that let a player act for one colour of one game.
//!
//! A token is an HMAC of the game and colour under the server's secret, so
//! a repeated `CreateGame` can hand out the same tokens again without the
//! store ever holding them: games keep only the tokens' hashes.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use rand::Rng;
use sha2::Sha256;

use crate::domain::{Color, GameId, SeatHashes, TokenHash};

/// The secret seat tokens are derived from.
#[derive(Clone)]
pub struct SeatKeys {
    secret: Vec<u8>,
}

impl std::fmt::Debug for SeatKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SeatKeys(<secret>)")
    }
}

/// Both seats' tokens for one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatTokens {
    /// The white seat's token.
    pub white: String,
    /// The black seat's token.
    pub black: String,
}

impl SeatTokens {
    /// The hashes the game stores.
    pub fn hashes(&self) -> SeatHashes {
        SeatHashes {
            white: TokenHash::of(&self.white),
            black: TokenHash::of(&self.black),
        }
    }
}

impl SeatKeys {
    /// Keys from a configured secret (shared by all replicas).
    pub fn from_secret(secret: &[u8]) -> Self {
        Self {
            secret: secret.to_vec(),
        }
    }

    /// Keys from a random secret, for a single process whose tokens need not
    /// be re-issued after a restart.
    pub fn random() -> Self {
        let secret: [u8; 32] = rand::rng().random();
        Self::from_secret(&secret)
    }

    /// The tokens of both seats of `game`.
    pub fn issue(&self, game: &GameId) -> SeatTokens {
        SeatTokens {
            white: self.token(game, Color::White),
            black: self.token(game, Color::Black),
        }
    }

    /// A secret derived from `input` under the server's secret, for the
    /// records (other than seats) that a repeated request must issue
    /// again alike: `label` keeps each use's secrets apart.
    pub fn derive(&self, label: &str, input: &str) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(b"chess-arbiter/");
        mac.update(label.as_bytes());
        mac.update(b"/");
        mac.update(input.as_bytes());
        mac.finalize().into_bytes().into()
    }

    fn token(&self, game: &GameId, color: Color) -> String {
        // HMAC accepts keys of any length, so this cannot fail.
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.secret)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(b"chess-arbiter/seat/");
        mac.update(game.as_str().as_bytes());
        mac.update(color.fold_wb(b"/white", b"/black"));
        URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_stable_per_secret_and_distinct_per_seat() {
        let id = GameId::parse("g1").unwrap();
        let keys = SeatKeys::from_secret(b"secret");
        let tokens = keys.issue(&id);
        assert_eq!(tokens, keys.issue(&id));
        assert_ne!(tokens.white, tokens.black);
        assert_ne!(tokens, SeatKeys::from_secret(b"other").issue(&id));
        assert_ne!(tokens, keys.issue(&GameId::parse("g2").unwrap()));
    }
}
