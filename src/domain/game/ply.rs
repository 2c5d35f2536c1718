//! Half-move counting.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A count of half-moves played in a game (0 before White's first move).
///
/// A `MakeMove` carries the ply at which the mover chose the move, which
/// makes retries idempotent and stale moves detectable.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Ply(u32);

impl Ply {
    /// The ply before any move.
    pub const START: Ply = Ply(0);

    /// A ply from its count.
    pub const fn new(count: u32) -> Self {
        Self(count)
    }

    /// The number of half-moves.
    pub const fn count(self) -> u32 {
        self.0
    }

    /// The ply after one more half-move.
    pub const fn next(self) -> Self {
        Self(self.0 + 1)
    }
}

impl fmt::Display for Ply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}
