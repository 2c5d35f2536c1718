//! Rounds a player has no game in, as the tournament's regulations score
//! them (FIDE Tie-Break Regulations 2023, Art. 16; TRF-16 result codes).

use std::collections::HashSet;

use crate::domain::{FieldError, Player, PointTable, Points};

/// What a round without a game was for a player. A round with neither a
/// game nor a declared bye is an absence, scored as a zero-point bye.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ByeKind {
    /// The bye the pairing gave the player left over (TRF `U`): a win's
    /// points; not voluntary.
    PairingAllocated,
    /// A requested bye scored as a win (TRF `F`); not voluntarily
    /// unplayed (Art. 16.2.2).
    FullPoint,
    /// A requested bye scored as a draw (TRF `H`); voluntary.
    HalfPoint,
    /// A requested bye, or a known absence, scoring nothing (TRF `Z`);
    /// voluntary.
    ZeroPoint,
    /// A forfeit win without a game (TRF `+` against no opponent): in a
    /// team match, the board facing one the other team left empty. A
    /// win's points; not voluntary, as FIDE's reference implementation
    /// reads `+` and `F` alike.
    ForfeitWin,
}

impl ByeKind {
    /// The points the bye scores under `table`.
    pub fn points(self, table: &PointTable) -> Points {
        match self {
            Self::PairingAllocated | Self::FullPoint | Self::ForfeitWin => table.win(),
            Self::HalfPoint => table.draw(),
            Self::ZeroPoint => Points::ZERO,
        }
    }

    /// Whether the round is voluntarily unplayed (VUR, Art. 16.2.5): a
    /// half- or zero-point bye. A pairing-allocated and a full-point bye
    /// are not (Art. 16.2.1 and 16.2.2), as FIDE's reference
    /// implementation reads them.
    pub fn voluntary(self) -> bool {
        matches!(self, Self::HalfPoint | Self::ZeroPoint)
    }

    /// Its weight in Sonneborn-Berger against the dummy opponent: the
    /// result it counts as, 1, ½ or 0.
    pub fn weight(self) -> Points {
        self.points(&PointTable::CLASSIC)
    }

    /// The TRF-16 result code.
    pub fn trf_code(self) -> char {
        match self {
            Self::PairingAllocated => 'U',
            Self::FullPoint => 'F',
            Self::HalfPoint => 'H',
            Self::ZeroPoint => 'Z',
            Self::ForfeitWin => '+',
        }
    }
}

/// A player's bye in one round, declared with a request (the arbiter stores
/// no byes: its games are all it knows of a round).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bye {
    /// The player.
    pub player: Player,
    /// The round (from 1).
    pub round: u32,
    /// What the bye was.
    pub kind: ByeKind,
}

impl Bye {
    /// Refuses (as `byes`) a second bye for the same player and round, a
    /// round beyond the tournament's `rounds` when the number is known, or
    /// a round after the next to be played (the one after `played`, the
    /// highest round with games): a bye of a later round cannot count yet,
    /// and this bounds the rounds a report shows to those of its games.
    pub fn check_all(byes: &[Bye], rounds: Option<u32>, played: u32) -> Result<(), FieldError> {
        let next = played.saturating_add(1);
        let mut seen = HashSet::with_capacity(byes.len());
        for bye in byes {
            if bye.round == 0 {
                return Err(FieldError::new("byes", "a bye needs a round from 1"));
            }
            if let Some(rounds) = rounds
                && bye.round > rounds
            {
                return Err(FieldError::new(
                    "byes",
                    format!(
                        "round {} is beyond the tournament's {rounds} rounds",
                        bye.round
                    ),
                ));
            }
            if bye.round > next {
                return Err(FieldError::new(
                    "byes",
                    format!(
                        "round {} is after round {next}, the next to be played",
                        bye.round
                    ),
                ));
            }
            if !seen.insert((bye.player.id.as_str(), bye.round)) {
                return Err(FieldError::new(
                    "byes",
                    format!("'{}' has two byes in round {}", bye.player.id, bye.round),
                ));
            }
        }
        Ok(())
    }
}
