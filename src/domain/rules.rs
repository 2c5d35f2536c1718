//! Per-game rules a tournament's regulations may set.

use serde::{Deserialize, Serialize};

use super::{Ply, RulesProfile};

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
}

impl GameRules {
    /// Why a draw offer is not allowed at `ply` (half-moves played), or
    /// `None` when it is.
    pub fn draw_offer_refusal(&self, ply: Ply) -> Option<String> {
        if self.sofia_rules {
            return Some(
                "this game is played under Sofia rules: draws only by claim or on the board"
                    .to_owned(),
            );
        }
        let moves = self.draw_offers_from_move.max(1);
        if u64::from(ply.count()) < 2 * u64::from(moves) {
            return Some(if moves == 1 {
                "a draw can be agreed only once both players have made a move".to_owned()
            } else {
                format!("no draw can be agreed before both players have made {moves} moves")
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_needs_both_players_to_have_moved() {
        let rules = GameRules::default();
        assert!(rules.draw_offer_refusal(Ply::new(0)).is_some());
        assert!(rules.draw_offer_refusal(Ply::new(1)).is_some());
        assert!(rules.draw_offer_refusal(Ply::new(2)).is_none());
    }

    #[test]
    fn regulations_can_delay_or_forbid_agreement() {
        let rules = GameRules {
            draw_offers_from_move: 30,
            ..GameRules::default()
        };
        assert!(rules.draw_offer_refusal(Ply::new(59)).is_some());
        assert!(rules.draw_offer_refusal(Ply::new(60)).is_none());
        let sofia = GameRules {
            sofia_rules: true,
            ..GameRules::default()
        };
        assert!(sofia.draw_offer_refusal(Ply::new(200)).is_some());
    }
}
