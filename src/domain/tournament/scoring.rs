//! Scoring systems (FIDE Art. 10 and event regulations): points per result,
//! kept exactly in thousandths of a point.

use std::fmt;

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::domain::{FieldError, GameResult, Outcome, Termination};

/// A number of points, exact: an integer count of thousandths, so sums
/// never drift.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Points(i64);

impl Points {
    /// No points.
    pub const ZERO: Points = Points(0);

    /// Points from thousandths.
    pub const fn from_milli(milli: i64) -> Self {
        Self(milli)
    }

    /// Thousandths of a point.
    pub const fn milli(self) -> i64 {
        self.0
    }

    /// These points weighted by `weight` (e.g. an opponent's score times ½
    /// for a draw), truncated to thousandths.
    pub fn times(self, weight: Points) -> Self {
        // Saturating, so that no product of points a request may name
        // overflows (the callers bound them far below it).
        Self(self.0.saturating_mul(weight.0) / 1000)
    }

    /// Reads a decimal with at most three decimals ("1", "0.5", "2.25").
    pub fn parse(field: &'static str, text: &str) -> Result<Self, FieldError> {
        let text = text.trim();
        let invalid = || {
            FieldError::new(
                field,
                format!("'{text}' is not a number of points with at most 3 decimals"),
            )
        };
        let (sign, digits) = match text.strip_prefix('-') {
            Some(rest) => (-1, rest),
            None => (1, text),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty()
            || whole.len() > 9
            || fraction.len() > 3
            || !whole
                .bytes()
                .chain(fraction.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return Err(invalid());
        }
        let whole: i64 = whole.parse().map_err(|_| invalid())?;
        let fraction: i64 = format!("{fraction:0<3}").parse().map_err(|_| invalid())?;
        Ok(Self(sign * (whole * 1000 + fraction)))
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0 + other.0)
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, |a, b| a + b)
    }
}

impl fmt::Display for Points {
    /// The shortest decimal: `1`, `0.5`, `2.25`, `-1`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let (whole, fraction) = (abs / 1000, abs % 1000);
        if fraction == 0 {
            write!(f, "{sign}{whole}")
        } else {
            // The thousandths without their trailing zeros, written without
            // a string of their own: a reply writes six of these.
            let (mut digits, mut width) = (fraction, 3);
            while digits % 10 == 0 {
                digits /= 10;
                width -= 1;
            }
            write!(f, "{sign}{whole}.{digits:0width$}")
        }
    }
}

/// Points for a win, a draw and a loss: each between -1000 and 1000, and
/// a win worth at least a draw, a draw at least a loss. Only
/// [`PointTable::new`] (or [`PointTable::parse`]) makes one, so every table
/// in a game obeys these limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PointTableRecord")]
pub struct PointTable {
    win: Points,
    draw: Points,
    loss: Points,
}

/// The stored form of a [`PointTable`], validated again when read.
#[derive(Deserialize)]
struct PointTableRecord {
    win: Points,
    draw: Points,
    loss: Points,
}

impl TryFrom<PointTableRecord> for PointTable {
    type Error = FieldError;
    fn try_from(record: PointTableRecord) -> Result<Self, Self::Error> {
        Self::new("scoring", record.win, record.draw, record.loss)
    }
}

impl PointTable {
    /// 1 / ½ / 0 (FIDE 10.1).
    pub const CLASSIC: PointTable = PointTable {
        win: Points(1000),
        draw: Points(500),
        loss: Points(0),
    };
    /// 3 / 1 / 0 ("football" scoring).
    pub const FOOTBALL: PointTable = PointTable {
        win: Points(3000),
        draw: Points(1000),
        loss: Points(0),
    };
    /// The most (and, negated, the fewest) points a result may give.
    pub const LIMIT: Points = Points(1_000_000);

    /// A table for an event's regulations, refused (as `field`) unless
    /// every value lies within [`PointTable::LIMIT`] and a win scores at
    /// least a draw, a draw at least a loss.
    pub fn new(
        field: &'static str,
        win: Points,
        draw: Points,
        loss: Points,
    ) -> Result<Self, FieldError> {
        let within = |p: Points| p.0.abs() <= Self::LIMIT.0;
        if !(within(win) && within(draw) && within(loss)) {
            return Err(FieldError::new(
                field,
                "points must lie between -1000 and 1000",
            ));
        }
        if !(win >= draw && draw >= loss) {
            return Err(FieldError::new(
                field,
                "a win must score at least a draw, a draw at least a loss",
            ));
        }
        Ok(Self { win, draw, loss })
    }

    /// Reads a table written as decimals ("3", "1", "0"; at most three
    /// decimals each), validated as by [`PointTable::new`].
    pub fn parse(
        field: &'static str,
        win: &str,
        draw: &str,
        loss: &str,
    ) -> Result<Self, FieldError> {
        Self::new(
            field,
            Points::parse(field, win)?,
            Points::parse(field, draw)?,
            Points::parse(field, loss)?,
        )
    }

    /// Points for a win.
    pub fn win(&self) -> Points {
        self.win
    }

    /// Points for a draw.
    pub fn draw(&self) -> Points {
        self.draw
    }

    /// Points for a loss.
    pub fn loss(&self) -> Points {
        self.loss
    }
}

impl Default for PointTable {
    /// 1 / ½ / 0.
    fn default() -> Self {
        PointTable::CLASSIC
    }
}

/// How a game is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScoringSystem {
    /// White's points.
    pub white: PointTable,
    /// Black's points (the same as White's unless the event scores colours
    /// differently).
    pub black: PointTable,
    /// Armageddon: a draw on the board scores as a win for Black.
    pub armageddon: bool,
}

impl Default for ScoringSystem {
    fn default() -> Self {
        Self::uniform(PointTable::CLASSIC)
    }
}

impl ScoringSystem {
    /// The same points for both colours.
    pub fn uniform(table: PointTable) -> Self {
        Self {
            white: table,
            black: table,
            armageddon: false,
        }
    }

    fn table(&self, color: Color) -> &PointTable {
        color.fold_wb(&self.white, &self.black)
    }

    /// Who the score counts as the winner of a game with `outcome` on the
    /// board: the board's outcome, except that under Armageddon a draw is
    /// Black's win.
    pub fn scored_as(&self, outcome: Outcome) -> Outcome {
        if self.armageddon && outcome == Outcome::Draw {
            Outcome::BlackWins
        } else {
            outcome
        }
    }

    /// Each player's points for a result on the board.
    pub fn score(&self, result: GameResult) -> Score {
        let scored_as = self.scored_as(result.outcome);
        let points = |color: Color| {
            let table = self.table(color);
            match scored_as {
                Outcome::Draw => table.draw,
                outcome if outcome == Outcome::win_for(color) => table.win,
                _ => table.loss,
            }
        };
        Score {
            white: points(Color::White),
            black: points(Color::Black),
            scored_as,
            played: !matches!(
                result.termination,
                Termination::NoShow | Termination::Forfeit
            ) && result.outcome != Outcome::DoubleForfeit,
        }
    }
}

/// Both players' points for one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    /// White's points.
    pub white: Points,
    /// Black's points.
    pub black: Points,
    /// Who the score counts as the winner (see [`ScoringSystem::scored_as`]).
    pub scored_as: Outcome,
    /// False for a forfeit: scored as a win and a loss, but not played,
    /// which tie-breaks treat differently.
    pub played: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(outcome: Outcome, termination: Termination) -> GameResult {
        GameResult {
            outcome,
            termination,
        }
    }

    #[test]
    fn points_print_as_short_decimals_and_sum_exactly() {
        let tenth = Points::parse("p", "0.1").unwrap();
        let sum: Points = std::iter::repeat_n(tenth, 10).sum();
        assert_eq!(sum, Points::parse("p", "1").unwrap());
        assert_eq!(sum.to_string(), "1");
        assert_eq!(Points::from_milli(500).to_string(), "0.5");
        assert_eq!(Points::from_milli(2250).to_string(), "2.25");
        assert_eq!(Points::from_milli(-1000).to_string(), "-1");
        assert_eq!(Points::from_milli(-1250).to_string(), "-1.25");
        assert_eq!(Points::from_milli(1005).to_string(), "1.005");
        assert_eq!(Points::from_milli(30).to_string(), "0.03");
        assert_eq!(Points::from_milli(-100).to_string(), "-0.1");
        // Every value a table may hold reads back as itself.
        for milli in -1000..=1000 {
            let text = Points::from_milli(milli).to_string();
            assert_eq!(Points::parse("p", &text).unwrap().milli(), milli, "{text}");
            assert!(!text.contains('.') || !text.ends_with('0'), "{text}");
        }
        assert_eq!(Points::parse("p", "2.125").unwrap().milli(), 2125);
        for bad in ["", ".5", "1.2345", "1e3", "one", "1.5.5", "--1"] {
            assert!(Points::parse("p", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_point_table_is_bounded_and_ordered() {
        let table = |win, draw, loss| PointTable::parse("custom", win, draw, loss);
        let ok = table("2", "0.5", "-1").unwrap();
        assert_eq!(
            (ok.win().milli(), ok.draw().milli(), ok.loss().milli()),
            (2000, 500, -1000)
        );
        assert!(table("1000", "-1000", "-1000").is_ok());
        assert!(table("1", "1", "1").is_ok());
        let bounds = FieldError::new("custom", "points must lie between -1000 and 1000");
        assert_eq!(table("1000.001", "0", "0"), Err(bounds.clone()));
        assert_eq!(table("1", "0", "-1000.5"), Err(bounds));
        let order = FieldError::new(
            "custom",
            "a win must score at least a draw, a draw at least a loss",
        );
        assert_eq!(table("1", "2", "0"), Err(order.clone()));
        assert_eq!(table("1", "0", "0.5"), Err(order));
        assert_eq!(
            table("1", "0.0001", "0"),
            Err(FieldError::new(
                "custom",
                "'0.0001' is not a number of points with at most 3 decimals"
            ))
        );
    }

    #[test]
    fn a_stored_point_table_is_validated_when_read() {
        let stored = serde_json::to_string(&PointTable::FOOTBALL).unwrap();
        assert_eq!(stored, r#"{"win":3000,"draw":1000,"loss":0}"#);
        assert_eq!(
            serde_json::from_str::<PointTable>(&stored).unwrap(),
            PointTable::FOOTBALL
        );
        assert!(serde_json::from_str::<PointTable>(r#"{"win":0,"draw":1000,"loss":0}"#).is_err());
    }

    #[test]
    fn classic_and_football_tables() {
        let classic = ScoringSystem::default();
        let draw = classic.score(result(Outcome::Draw, Termination::Agreement));
        assert_eq!((draw.white.milli(), draw.black.milli()), (500, 500));
        let football = ScoringSystem::uniform(PointTable::FOOTBALL);
        let win = football.score(result(Outcome::WhiteWins, Termination::Checkmate));
        assert_eq!((win.white.milli(), win.black.milli()), (3000, 0));
        assert!(win.played);
    }

    #[test]
    fn colours_may_score_differently_and_armageddon_gives_draws_to_black() {
        let system = ScoringSystem {
            white: PointTable::FOOTBALL,
            black: PointTable::new(
                "black",
                Points::from_milli(3000),
                Points::from_milli(1500),
                Points::ZERO,
            )
            .unwrap(),
            armageddon: true,
        };
        let score = system.score(result(Outcome::Draw, Termination::Stalemate));
        assert_eq!((score.white.milli(), score.black.milli()), (0, 3000));
        assert_eq!(score.scored_as, Outcome::BlackWins);
        let plain = ScoringSystem {
            armageddon: false,
            ..system
        };
        let score = plain.score(result(Outcome::Draw, Termination::Agreement));
        assert_eq!((score.white.milli(), score.black.milli()), (1000, 1500));
    }

    #[test]
    fn a_no_show_is_scored_but_unplayed() {
        let score = ScoringSystem::default().score(result(Outcome::BlackWins, Termination::NoShow));
        assert_eq!((score.white.milli(), score.black.milli()), (0, 1000));
        assert!(!score.played);
    }
}
