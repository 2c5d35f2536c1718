//! Who wins when a flag falls (FIDE Art. 6.9, USCF rule 14E).

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Position, Role};

use crate::domain::{
    GameResult, Outcome, Termination,
    game::dead_position::{self, Mating},
    game::serde_chess,
};

/// Whose laws adjudicate flags.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RulesProfile {
    /// FIDE Laws of Chess.
    #[default]
    Fide,
    /// US Chess Federation rules.
    Uscf,
}

/// A flag ruling, with a note when the ruling rests on an analysis that
/// did not decide: the result then awaits an arbiter's review.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagRuling {
    /// The result.
    pub result: GameResult,
    /// Set when the helpmate search was undecided.
    pub note: Option<AdjudicationNote>,
}

/// Why an automatic ruling needs an arbiter's review: the game's result
/// stands, marked as provisional, until an arbiter confirms or corrects it
/// (`SetGameResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdjudicationNote {
    /// The helpmate search for `opponent` (the side with time) did not
    /// decide, so the flag fell in its favour without proof that it could
    /// checkmate (FIDE 6.9).
    HelpmateSearchUndecided {
        /// The flagging player's opponent.
        #[serde(with = "serde_chess::color")]
        opponent: Color,
    },
}

impl fmt::Display for AdjudicationNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdjudicationNote::HelpmateSearchUndecided { opponent } => write!(
                f,
                "the helpmate search did not decide whether {opponent} can checkmate; the \
                 flag falls in {opponent}'s favour until an arbiter reviews it"
            ),
        }
    }
}

/// The result when `flagger`'s time has run out in `pos`.
///
/// FIDE 6.9: the opponent wins, unless the opponent cannot checkmate by any
/// possible series of legal moves (decided by a full helpmate search) — then
/// it is a draw. An undecided search favours the player with time, and the
/// ruling carries a note asking for an arbiter's review.
///
/// USCF 14E: a draw when the opponent has only a king; only a king and a
/// bishop or knight; or two knights while the flagging player has no pawns
/// (the arbiter does not search for forced mates, so these are always
/// drawn); and, as under FIDE, whenever the opponent cannot checkmate at
/// all. Otherwise the opponent wins.
pub fn on_flag(pos: &Chess, flagger: Color, profile: RulesProfile) -> FlagRuling {
    let opponent = !flagger;
    let win = GameResult {
        outcome: Outcome::win_for(opponent),
        termination: Termination::Timeout,
    };
    let draw = GameResult {
        outcome: Outcome::Draw,
        termination: Termination::TimeoutVsInsufficientMaterial,
    };
    if profile == RulesProfile::Uscf && uscf_insufficient(pos, flagger) {
        return FlagRuling {
            result: draw,
            note: None,
        };
    }
    match dead_position::can_checkmate(pos, opponent) {
        Mating::Impossible => FlagRuling {
            result: draw,
            note: None,
        },
        Mating::Possible => FlagRuling {
            result: win,
            note: None,
        },
        Mating::Undecided => FlagRuling {
            result: win,
            note: Some(AdjudicationNote::HelpmateSearchUndecided { opponent }),
        },
    }
}

/// USCF 14E's material cases for a draw on time.
fn uscf_insufficient(pos: &Chess, flagger: Color) -> bool {
    let board = pos.board();
    let opponent = !flagger;
    let count = |color: Color, role: Role| (board.by_color(color) & board.by_role(role)).count();
    let opponent_pieces = board.by_color(opponent).count() - 1;
    let knights = count(opponent, Role::Knight);
    let bishops = count(opponent, Role::Bishop);
    let lone_minor = opponent_pieces == 1 && (knights == 1 || bishops == 1);
    let two_knights = opponent_pieces == 2 && knights == 2 && count(flagger, Role::Pawn) == 0;
    opponent_pieces == 0 || lone_minor || two_knights
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(fen: &str, flagger: Color, profile: RulesProfile) -> GameResult {
        let pos = dead_position::position(fen).expect("legal FEN");
        on_flag(&pos, flagger, profile).result
    }

    fn draw() -> GameResult {
        GameResult {
            outcome: Outcome::Draw,
            termination: Termination::TimeoutVsInsufficientMaterial,
        }
    }

    fn win(color: Color) -> GameResult {
        GameResult {
            outcome: Outcome::win_for(color),
            termination: Termination::Timeout,
        }
    }

    #[test]
    fn an_undecided_search_is_noted_for_the_operator() {
        let note = AdjudicationNote::HelpmateSearchUndecided {
            opponent: Color::Black,
        };
        assert_eq!(
            note.to_string(),
            "the helpmate search did not decide whether black can checkmate; the flag falls in \
             black's favour until an arbiter reviews it"
        );
    }

    #[test]
    fn castling_rights_do_not_hide_a_draw_on_time() {
        // White, who may still castle, flags; Black cannot checkmate by any
        // series of legal moves (FIDE 6.9).
        let fen = "k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/4K2R w K - 0 1";
        assert_eq!(rule(fen, Color::White, RulesProfile::Fide), draw());
    }

    #[test]
    fn an_undecided_search_gives_the_win_and_asks_for_review() {
        // Chess960 castling the helpmate search cannot follow (king on f1):
        // no helpmate for Black without castling, but no proof either.
        let pos = "k1b5/1pPp4/1P1P3p/1P6/5P1P/5PNR/3NPBBQ/5K1R w K - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .expect("FEN")
            .into_position(shakmaty::CastlingMode::Chess960)
            .expect("legal");
        let ruling = on_flag(&pos, Color::White, RulesProfile::Fide);
        assert_eq!(ruling.result, win(Color::Black));
        assert_eq!(
            ruling.note,
            Some(AdjudicationNote::HelpmateSearchUndecided {
                opponent: Color::Black
            })
        );
        // A decided search asks for nothing.
        let decided = dead_position::position("8/8/4k3/8/8/3K4/8/7R w - - 0 1").unwrap();
        assert_eq!(
            on_flag(&decided, Color::White, RulesProfile::Fide).note,
            None
        );
    }

    #[test]
    fn a_lone_king_cannot_win_on_time() {
        let fen = "8/8/4k3/8/8/3K4/8/7R w - - 0 1";
        assert_eq!(rule(fen, Color::White, RulesProfile::Fide), draw());
        assert_eq!(rule(fen, Color::White, RulesProfile::Uscf), draw());
        assert_eq!(
            rule(fen, Color::Black, RulesProfile::Fide),
            win(Color::White)
        );
    }

    #[test]
    fn knight_against_pawn_wins_under_fide_and_draws_under_uscf() {
        // White flags with K+P; Black's K+N can be helpmated into a mate.
        let fen = "8/8/4k3/8/8/3K4/7P/6n1 w - - 0 1";
        assert_eq!(
            rule(fen, Color::White, RulesProfile::Fide),
            win(Color::Black)
        );
        assert_eq!(rule(fen, Color::White, RulesProfile::Uscf), draw());
    }

    #[test]
    fn opposite_bishops_win_under_fide() {
        let fen = "8/8/4k3/2b5/8/3K4/2B5/8 w - - 0 1";
        assert_eq!(
            rule(fen, Color::White, RulesProfile::Fide),
            win(Color::Black)
        );
    }

    #[test]
    fn two_knights_draw_under_uscf_only_against_no_pawns() {
        let bare = "8/8/4k3/8/8/3K4/8/5nn1 w - - 0 1";
        assert_eq!(rule(bare, Color::White, RulesProfile::Uscf), draw());
        let with_pawn = "8/8/4k3/8/8/3K4/7P/5nn1 w - - 0 1";
        assert_eq!(
            rule(with_pawn, Color::White, RulesProfile::Uscf),
            win(Color::Black)
        );
    }
}
