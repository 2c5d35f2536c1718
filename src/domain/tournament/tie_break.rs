//! The tie-breaks of an event's regulations (FIDE Tie-Break Regulations,
//! 2023, Handbook C.07), in the order the regulations list them.

use std::fmt;

use crate::domain::FieldError;

/// How the tie-break of [`TieBreak::Buchholz`], [`TieBreak::ProgressiveScore`]
/// or [`TieBreak::AverageRatingOfOpponents`] is modified (C.07 Art. 14):
/// the lowest and the highest values left out. Cut-1 leaves out the lowest,
/// Median-1 the lowest and the highest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cut {
    /// The lowest values left out.
    pub lowest: u32,
    /// The highest values left out.
    pub highest: u32,
}

impl Cut {
    /// No value left out.
    pub const NONE: Cut = Cut {
        lowest: 0,
        highest: 0,
    };

    /// Cut-`n`: the `n` lowest values left out.
    pub const fn lowest(n: u32) -> Self {
        Self {
            lowest: n,
            highest: 0,
        }
    }

    /// Median-`n`: the `n` lowest and the `n` highest values left out.
    pub const fn median(n: u32) -> Self {
        Self {
            lowest: n,
            highest: n,
        }
    }

    /// How many values the cut leaves out in all.
    pub fn total(self) -> u32 {
        self.lowest.saturating_add(self.highest)
    }

    fn is_none(self) -> bool {
        self == Self::NONE
    }
}

/// One tie-break of an event's ordered list (C.07 Art. 4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TieBreak {
    /// Direct encounter (DE, Art. 6): points scored in the games among the
    /// tied players, when all of them have met; applied again within a
    /// group it leaves tied.
    DirectEncounter,
    /// Buchholz (BH, Art. 8.1), with its modifiers (Art. 14): the sum of the
    /// opponents' scores, a dummy opponent for each unplayed round (Art.
    /// 16.4), voluntarily unplayed rounds cut first (Art. 16.5).
    Buchholz(Cut),
    /// Sonneborn-Berger (SB, Art. 9.1), with its modifiers (Art. 14): each
    /// opponent's score times the result (1, ½ or 0) scored against them.
    SonnebornBerger(Cut),
    /// Fore Buchholz (FB), with its modifiers: Buchholz as if every game of
    /// the last round had been drawn (a last-round forfeit counted as a
    /// game), for the ranking before the last round's results are in.
    ForeBuchholz(Cut),
    /// Average of opponents' Buchholz (AOB), with the modifiers
    /// of the Buchholz it averages: over the games played over the board,
    /// the opponents' Buchholz, those of 0 left out, rounded to hundredths.
    AverageOfOpponentsBuchholz(Cut),
    /// Koya system (KS): the points the player scored against
    /// the opponents (met over the board or by forfeit) whose score is at
    /// least half the most a player could have scored in the rounds so far.
    Koya,
    /// Number of wins (WIN, Art. 7.1): rounds in which the player scored a
    /// win's points, with or without playing.
    Wins,
    /// Number of games won over the board (WON, Art. 7.2).
    GamesWon,
    /// Number of games played with Black (BPG, Art. 7.3).
    GamesWithBlack,
    /// Progressive (cumulative) score (PS), with its modifiers:
    /// the sum of the player's score after each round.
    ProgressiveScore(Cut),
    /// Average rating of opponents (ARO, Art. 10.1), with its modifiers:
    /// over the games played over the board against a rated opponent,
    /// rounded to the nearest whole number.
    AverageRatingOfOpponents(Cut),
    /// Tournament performance rating (TPR, Art. 10), with the modifiers
    /// of ARO: the opponents' average rating (as ARO computes it, after its
    /// cuts) plus the rating difference of the percentage scored in those
    /// games (FIDE Rating Regulations, Table 8.1(a)).
    TournamentPerformanceRating(Cut),
    /// Average of opponents' performance ratings (APRO, Art. 10): the
    /// mean of the TPR (with this tie-break's cuts) of the opponents met
    /// over the board, a TPR not above 0 left out, rounded to a whole
    /// number.
    AverageOfOpponentsPerformance(Cut),
}

impl TieBreak {
    /// The order a request with no tie-breaks gets: direct encounter,
    /// Buchholz Cut-1, Buchholz, Sonneborn-Berger, games won.
    pub const DEFAULT_ORDER: [TieBreak; 5] = [
        TieBreak::DirectEncounter,
        TieBreak::Buchholz(Cut::lowest(1)),
        TieBreak::Buchholz(Cut::NONE),
        TieBreak::SonnebornBerger(Cut::NONE),
        TieBreak::GamesWon,
    ];

    /// Every tie-break the arbiter computes, each once, without a cut.
    pub const OFFERED: [TieBreak; 13] = [
        TieBreak::DirectEncounter,
        TieBreak::Buchholz(Cut::NONE),
        TieBreak::ForeBuchholz(Cut::NONE),
        TieBreak::AverageOfOpponentsBuchholz(Cut::NONE),
        TieBreak::SonnebornBerger(Cut::NONE),
        TieBreak::Koya,
        TieBreak::Wins,
        TieBreak::GamesWon,
        TieBreak::GamesWithBlack,
        TieBreak::ProgressiveScore(Cut::NONE),
        TieBreak::AverageRatingOfOpponents(Cut::NONE),
        TieBreak::TournamentPerformanceRating(Cut::NONE),
        TieBreak::AverageOfOpponentsPerformance(Cut::NONE),
    ];

    /// The cut, for the tie-breaks that take one.
    pub fn cut(self) -> Option<Cut> {
        match self {
            Self::Buchholz(cut)
            | Self::SonnebornBerger(cut)
            | Self::AverageOfOpponentsBuchholz(cut)
            | Self::ForeBuchholz(cut)
            | Self::ProgressiveScore(cut)
            | Self::AverageRatingOfOpponents(cut)
            | Self::TournamentPerformanceRating(cut)
            | Self::AverageOfOpponentsPerformance(cut) => Some(cut),
            _ => None,
        }
    }
}

impl fmt::Display for TieBreak {
    /// The regulations' abbreviation, with the modifier: `BH/C1`, `BH/M1`,
    /// `SB`, `DE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Self::DirectEncounter => "DE",
            Self::Buchholz(_) => "BH",
            Self::SonnebornBerger(_) => "SB",
            Self::Koya => "KS",
            Self::AverageOfOpponentsBuchholz(_) => "AOB",
            Self::ForeBuchholz(_) => "FB",
            Self::Wins => "WIN",
            Self::GamesWon => "WON",
            Self::GamesWithBlack => "BPG",
            Self::ProgressiveScore(_) => "PS",
            Self::AverageRatingOfOpponents(_) => "ARO",
            Self::TournamentPerformanceRating(_) => "TPR",
            Self::AverageOfOpponentsPerformance(_) => "APRO",
        };
        f.write_str(name)?;
        match self.cut() {
            Some(cut) if cut.is_none() => Ok(()),
            Some(cut) if cut.lowest == cut.highest => write!(f, "/M{}", cut.lowest),
            Some(Cut { lowest, highest: 0 }) => write!(f, "/C{lowest}"),
            Some(Cut { lowest, highest }) => write!(f, "/C{lowest}H{highest}"),
            None => Ok(()),
        }
    }
}

/// An event's ordered tie-breaks: no tie-break twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TieBreakOrder(Vec<TieBreak>);

impl TieBreakOrder {
    /// The most tie-breaks a list may hold.
    pub const MAX_LEN: usize = 32;

    /// The order a request asks for; an empty list means
    /// [`TieBreak::DEFAULT_ORDER`]. Refused (as `tie_breaks`) when a
    /// tie-break appears twice or the list is too long.
    pub fn new(tie_breaks: Vec<TieBreak>) -> Result<Self, FieldError> {
        if tie_breaks.is_empty() {
            return Ok(Self::default());
        }
        if tie_breaks.len() > Self::MAX_LEN {
            return Err(FieldError::new(
                "tie_breaks",
                format!("holds more than {} tie-breaks", Self::MAX_LEN),
            ));
        }
        for (index, tie_break) in tie_breaks.iter().enumerate() {
            if tie_breaks[..index].contains(tie_break) {
                return Err(FieldError::new(
                    "tie_breaks",
                    format!("lists {tie_break} twice"),
                ));
            }
        }
        Ok(Self(tie_breaks))
    }

    /// The tie-breaks, first applied first.
    pub fn as_slice(&self) -> &[TieBreak] {
        &self.0
    }

    /// Refuses (as `tie_breaks`) a cut that leaves out more values than
    /// the tournament has rounds.
    pub fn check_cuts(&self, rounds: u32) -> Result<(), FieldError> {
        for tie_break in &self.0 {
            if let Some(cut) = tie_break.cut()
                && cut.total() > rounds
            {
                return Err(FieldError::new(
                    "tie_breaks",
                    format!(
                        "{tie_break} leaves out {} values of a tournament of {rounds} rounds",
                        cut.total()
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl Default for TieBreakOrder {
    fn default() -> Self {
        Self(TieBreak::DEFAULT_ORDER.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_list_is_the_default_order() {
        let order = TieBreakOrder::new(Vec::new()).unwrap();
        assert_eq!(order.as_slice(), TieBreak::DEFAULT_ORDER);
        let names: Vec<String> = order.as_slice().iter().map(|t| t.to_string()).collect();
        assert_eq!(names, ["DE", "BH/C1", "BH", "SB", "WON"]);
    }

    #[test]
    fn a_tie_break_listed_twice_is_refused() {
        let err = TieBreakOrder::new(vec![
            TieBreak::SonnebornBerger(Cut::NONE),
            TieBreak::SonnebornBerger(Cut::NONE),
        ])
        .unwrap_err();
        assert_eq!(err.field, "tie_breaks");
        assert!(err.reason.contains("SB twice"), "{err}");
        // The same kind with another cut is another tie-break.
        TieBreakOrder::new(vec![
            TieBreak::Buchholz(Cut::lowest(1)),
            TieBreak::Buchholz(Cut::NONE),
            TieBreak::Buchholz(Cut::median(1)),
        ])
        .unwrap();
    }

    #[test]
    fn a_cut_beyond_the_rounds_is_refused() {
        let order = TieBreakOrder::new(vec![TieBreak::Buchholz(Cut::median(2))]).unwrap();
        assert!(order.check_cuts(4).is_ok());
        let err = order.check_cuts(3).unwrap_err();
        assert!(err.reason.contains("BH/M2 leaves out 4 values"), "{err}");
        let long = vec![TieBreak::Wins; TieBreakOrder::MAX_LEN + 1];
        assert!(TieBreakOrder::new(long).is_err());
    }
}
