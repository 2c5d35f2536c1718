//! Helpers shared by the domain's unit tests: fixed times, seats, players,
//! and unwrapping decisions.

use super::{
    Decision, Game, GameEvent, GameId, Player, Rejection, SeatHashes, Timestamp, TokenHash,
};

/// An arbitrary creation time; tests add offsets to it.
pub const T0: u64 = 1_700_000_000_000;

/// `offset_ms` after [`T0`].
pub fn at(offset_ms: u64) -> Timestamp {
    Timestamp::from_unix_millis(T0 + offset_ms)
}

/// A player.
pub fn player(id: &str, name: &str) -> Player {
    Player {
        id: id.to_owned(),
        name: name.to_owned(),
    }
}

/// The id every test game has.
pub fn game_id() -> GameId {
    GameId::parse("game-1").expect("valid id")
}

/// The seats of every test game: "white-seat-token" and "black-seat-token".
pub fn seats() -> SeatHashes {
    SeatHashes {
        white: TokenHash::of("white-seat-token"),
        black: TokenHash::of("black-seat-token"),
    }
}

/// The game and events of a decision that must be a change.
#[track_caller]
pub fn changed(decision: Result<Decision, Rejection>) -> (Game, Vec<GameEvent>) {
    match decision {
        Ok(Decision::Changed { game, events }) => (*game, events),
        other => panic!("expected a change, got {other:?}"),
    }
}

/// Knights out and back: after these four half-moves the position is the
/// one they started from.
pub const SHUFFLE: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];
