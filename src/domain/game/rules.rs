//! Per-game rules a tournament's regulations may set.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::domain::{Ply, RulesProfile};

/// When players may agree a draw (FIDE Art. 9.1.1: an event's regulations
/// may forbid agreed draws before a given move, or altogether).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameRules {
    /// No draw may be offered or agreed until both players have made this
    /// many moves. 0 (like 1) means as soon as both have made a move.
    pub draw_offers_from_move: u32,
    /// "Sofia rules": no draw by agreement at all; draws come only from a
    /// claim or from the position on the board.
    pub sofia_rules: bool,
    /// Whose laws adjudicate a fallen flag.
    pub profile: RulesProfile,
    /// Whether a flag that falls while the opponent's draw offer is pending
    /// is a draw (some servers do this; the FIDE Laws do not).
    pub pending_offer_draws_on_flag: bool,
    /// Whether the game may not be aborted (an event's regulation: every
    /// paired game is played or forfeited). Left out of the stored form
    /// while false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_abort: bool,
    /// Whether a player may not give the opponent time (the "give time"
    /// an online platform relays as an arbiter's clock adjustment). The
    /// arbiter's own adjustments are not affected. Left out of the stored
    /// form while false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_give_time: bool,
    /// How long (in milliseconds) the platform must have reported a
    /// player gone before the opponent may claim the game (see
    /// `departure_commands`); 0: no such claim. Left out of the stored
    /// form while 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub claim_after_opponent_left_ms: u32,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// Why the regulations forbid a draw offer (FIDE 9.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawOfferRefusal {
    /// The game is played under Sofia rules: no draw by agreement at all.
    SofiaRules,
    /// No draw before both players have made `moves` moves (at least 1).
    TooEarly {
        /// The moves each player must have made first.
        moves: u32,
    },
}

impl fmt::Display for DrawOfferRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DrawOfferRefusal::SofiaRules => f.write_str(
                "this game is played under Sofia rules: draws only by claim or on the board",
            ),
            DrawOfferRefusal::TooEarly { moves: 1 } => {
                f.write_str("a draw can be agreed only once both players have made a move")
            }
            DrawOfferRefusal::TooEarly { moves } => write!(
                f,
                "no draw can be agreed before both players have made {moves} moves"
            ),
        }
    }
}

impl GameRules {
    /// Why a draw offer is not allowed at `ply` (half-moves played), or
    /// `None` when it is.
    pub fn draw_offer_refusal(&self, ply: Ply) -> Option<DrawOfferRefusal> {
        if self.sofia_rules {
            return Some(DrawOfferRefusal::SofiaRules);
        }
        let moves = self.draw_offers_from_move.max(1);
        (u64::from(ply.count()) < 2 * u64::from(moves))
            .then_some(DrawOfferRefusal::TooEarly { moves })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_needs_both_players_to_have_moved() {
        let rules = GameRules::default();
        let too_early = Some(DrawOfferRefusal::TooEarly { moves: 1 });
        assert_eq!(rules.draw_offer_refusal(Ply::new(0)), too_early);
        assert_eq!(rules.draw_offer_refusal(Ply::new(1)), too_early);
        assert_eq!(rules.draw_offer_refusal(Ply::new(2)), None);
        assert_eq!(
            too_early.map(|r| r.to_string()).as_deref(),
            Some("a draw can be agreed only once both players have made a move")
        );
    }

    #[test]
    fn regulations_can_delay_or_forbid_agreement() {
        let rules = GameRules {
            draw_offers_from_move: 30,
            ..GameRules::default()
        };
        assert_eq!(
            rules.draw_offer_refusal(Ply::new(59)),
            Some(DrawOfferRefusal::TooEarly { moves: 30 })
        );
        assert_eq!(rules.draw_offer_refusal(Ply::new(60)), None);
        assert_eq!(
            DrawOfferRefusal::TooEarly { moves: 30 }.to_string(),
            "no draw can be agreed before both players have made 30 moves"
        );
        let sofia = GameRules {
            sofia_rules: true,
            ..GameRules::default()
        };
        assert_eq!(
            sofia.draw_offer_refusal(Ply::new(200)),
            Some(DrawOfferRefusal::SofiaRules)
        );
    }
}
