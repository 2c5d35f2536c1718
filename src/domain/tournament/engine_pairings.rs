//! A pairing engine's pairings of the next round, as bbpPairings and
//! JaVaFo write them with `-p`: a first line with the number of pairs,
//! then one pair a line, White's starting rank and Black's separated by a
//! space, `0` in Black's place for the player who gets the bye.
//!
//! The ranks are the starting ranks of the TRF the engine paired (the
//! event's `ExportTrf`, or the platform's own report for a first round);
//! [`EnginePairings::assign`] maps them back to players.

use std::collections::HashMap;

use thiserror::Error;

use crate::domain::{MAX_ROUND_BOARDS, Player, RoundViolation};

/// The longest pairings text accepted: far more than the largest round's.
pub const MAX_PAIRINGS_BYTES: usize = 64 * 1024;

/// One line of the pairings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnginePair {
    /// A game: White's and Black's starting ranks.
    Game {
        /// White's rank.
        white: u32,
        /// Black's rank.
        black: u32,
    },
    /// The pairing-allocated bye of the player with this rank.
    Bye {
        /// The player's rank.
        player: u32,
    },
}

/// Why a pairings text cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PairingsError {
    /// More text than any round needs.
    #[error("is {bytes} bytes long, more than the {MAX_PAIRINGS_BYTES} accepted")]
    TooLarge {
        /// Its length.
        bytes: usize,
    },
    /// The first line is not a number of pairs.
    #[error("line 1 must be the number of pairs, not {found:?}")]
    Count {
        /// What it holds.
        found: String,
    },
    /// More pairs than a round may have.
    #[error(
        "announces {announced} pairs, more than the {MAX_ROUND_BOARDS} boards (and a bye) a round may have"
    )]
    TooManyPairs {
        /// The number announced.
        announced: usize,
    },
    /// A line that is not a pair of ranks.
    #[error("line {line} must be two starting ranks separated by a space, not {found:?}")]
    Pair {
        /// The line, from 1.
        line: usize,
        /// What it holds.
        found: String,
    },
    /// A 0 in White's place (0 stands for the bye, in Black's).
    #[error("line {line} has 0 for White: 0 stands only for the bye, in Black's place")]
    ByeAsWhite {
        /// The line.
        line: usize,
    },
    /// The first line's count does not match the lines.
    #[error("line 1 announces {announced} pairs, but {found} follow")]
    CountMismatch {
        /// The number announced.
        announced: usize,
        /// The pairs found.
        found: usize,
    },
}

/// A round's pairings, read from a pairing engine's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnginePairings {
    pairs: Vec<EnginePair>,
}

/// The boards and byes of pairings mapped to players: board `n` is the
/// `n`-th game line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssignedPairings {
    /// Each board: its number, White and Black.
    pub boards: Vec<(u32, Player, Player)>,
    /// The players with the pairing-allocated bye.
    pub byes: Vec<Player>,
    /// The line (from 1, the count being line 1) of each board.
    pub board_lines: Vec<usize>,
    /// The line of each bye.
    pub bye_lines: Vec<usize>,
}

impl EnginePairings {
    /// Reads `-p` output. Blank lines are skipped, and so are spaces at
    /// either end of a line or between the ranks.
    pub fn parse(text: &str) -> Result<Self, PairingsError> {
        if text.len() > MAX_PAIRINGS_BYTES {
            return Err(PairingsError::TooLarge { bytes: text.len() });
        }
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(index, line)| (index + 1, line.trim()))
            .filter(|(_, line)| !line.is_empty());
        let (_, first) = lines.next().ok_or_else(|| PairingsError::Count {
            found: String::new(),
        })?;
        let announced: usize = first.parse().map_err(|_| PairingsError::Count {
            found: first.chars().take(40).collect(),
        })?;
        if announced > MAX_ROUND_BOARDS + 1 {
            return Err(PairingsError::TooManyPairs { announced });
        }
        let mut pairs = Vec::with_capacity(announced);
        for (line, text) in lines {
            let bad = || PairingsError::Pair {
                line,
                found: text.chars().take(40).collect(),
            };
            let mut ranks = text.split_whitespace();
            let (Some(white), Some(black), None) = (ranks.next(), ranks.next(), ranks.next())
            else {
                return Err(bad());
            };
            let white: u32 = white.parse().map_err(|_| bad())?;
            let black: u32 = black.parse().map_err(|_| bad())?;
            pairs.push(match (white, black) {
                (0, _) => return Err(PairingsError::ByeAsWhite { line }),
                (player, 0) => EnginePair::Bye { player },
                (white, black) => EnginePair::Game { white, black },
            });
            if pairs.len() > announced {
                break;
            }
        }
        if pairs.len() != announced {
            return Err(PairingsError::CountMismatch {
                announced,
                found: pairs.len(),
            });
        }
        Ok(Self { pairs })
    }

    /// The pairs, in the engine's order.
    pub fn pairs(&self) -> &[EnginePair] {
        &self.pairs
    }

    /// Maps the ranks to players, `ranks[0]` having rank 1: board `n` is
    /// the `n`-th game. Refused, every offending line named (as
    /// `pairings`, line numbers from 1 counting the first), when a rank is
    /// beyond the starting ranks or a player is paired twice.
    pub fn assign(&self, ranks: &[Player]) -> Result<AssignedPairings, Vec<RoundViolation>> {
        let mut violations = Vec::new();
        let mut seen: HashMap<u32, usize> = HashMap::new();
        let mut player = |rank: u32, line: usize, violations: &mut Vec<RoundViolation>| {
            if let Some(first) = seen.insert(rank, line) {
                violations.push(RoundViolation::new(
                    "pairings",
                    format!("line {line}: rank {rank} is also paired on line {first}"),
                ));
                return None;
            }
            let found = usize::try_from(rank)
                .ok()
                .and_then(|rank| rank.checked_sub(1))
                .and_then(|index| ranks.get(index));
            if found.is_none() {
                violations.push(RoundViolation::new(
                    "pairings",
                    format!(
                        "line {line}: rank {rank} is beyond the {} starting ranks",
                        ranks.len()
                    ),
                ));
            }
            found.cloned()
        };
        let mut assigned = AssignedPairings {
            boards: Vec::new(),
            byes: Vec::new(),
            board_lines: Vec::new(),
            bye_lines: Vec::new(),
        };
        for (index, pair) in self.pairs.iter().enumerate() {
            // Line 1 is the count.
            let line = index + 2;
            match *pair {
                EnginePair::Game { white, black } => {
                    let white = player(white, line, &mut violations);
                    let black = player(black, line, &mut violations);
                    if let (Some(white), Some(black)) = (white, black) {
                        let board = u32::try_from(assigned.boards.len() + 1).unwrap_or(u32::MAX);
                        assigned.boards.push((board, white, black));
                        assigned.board_lines.push(line);
                    }
                }
                EnginePair::Bye { player: rank } => {
                    if let Some(player) = player(rank, line, &mut violations) {
                        assigned.byes.push(player);
                        assigned.bye_lines.push(line);
                    }
                }
            }
        }
        if violations.is_empty() {
            Ok(assigned)
        } else {
            Err(violations)
        }
    }
}

/// Refuses pairings made from another report than the one the event (or
/// the request) numbers players by: the report's player lines must be
/// `ranks`, rank for rank, name for name (as an export writes a name: its
/// first 33 characters). At most 20 differences are named.
pub fn check_report(trf: &str, ranks: &[Player]) -> Result<(), Vec<RoundViolation>> {
    let lines = trf_starting_ranks(trf).map_err(|v| vec![v])?;
    let mut violations = Vec::new();
    if lines.len() != ranks.len() {
        violations.push(RoundViolation::new(
            "trf",
            format!(
                "has {} players, but the starting ranks have {}",
                lines.len(),
                ranks.len()
            ),
        ));
    }
    for (rank, name) in &lines {
        let expected = usize::try_from(*rank)
            .ok()
            .and_then(|r| r.checked_sub(1))
            .and_then(|i| ranks.get(i));
        let matches = expected.is_some_and(|p| {
            let shown: String = p.display_name().chars().take(33).collect();
            shown.trim_end() == name
        });
        if !matches {
            violations.push(RoundViolation::new(
                "trf",
                format!(
                    "starting rank {rank} is {name:?} in the TRF, {} in the event",
                    expected.map_or("nobody".to_owned(), |p| format!("{:?}", p.display_name()))
                ),
            ));
        }
        if violations.len() >= 20 {
            break;
        }
    }
    if violations.is_empty() {
        Ok(())
    } else {
        Err(violations)
    }
}

/// The starting ranks of a TRF's player lines (`001`, the rank in columns
/// 5-8, the name in 15-47): each rank's name.
fn trf_starting_ranks(trf: &str) -> Result<Vec<(u32, String)>, RoundViolation> {
    let mut ranks = Vec::new();
    for (index, line) in trf.lines().enumerate() {
        if !line.starts_with("001") {
            continue;
        }
        let bad = || {
            RoundViolation::new(
                "trf",
                format!(
                    "line {}: a 001 line needs its starting rank in columns 5-8",
                    index + 1
                ),
            )
        };
        let rank: u32 = line
            .get(4..8)
            .ok_or_else(bad)?
            .trim()
            .parse()
            .map_err(|_| bad())?;
        // Columns, not bytes: a name is 33 characters, whatever its script.
        let name: String = line.chars().skip(14).take(33).collect();
        ranks.push((rank, name.trim().to_owned()));
    }
    Ok(ranks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(id: &str) -> Player {
        Player {
            id: id.to_owned(),
            name: id.to_uppercase(),
            ..Default::default()
        }
    }

    #[test]
    fn bbp_pairings_output_reads_as_games_and_a_bye() {
        // bbpPairings' own output for seven players after round 1.
        let pairings = EnginePairings::parse("4\n4 1\n7 6\n2 3\n5 0\n").expect("pairings");
        assert_eq!(
            pairings.pairs(),
            [
                EnginePair::Game { white: 4, black: 1 },
                EnginePair::Game { white: 7, black: 6 },
                EnginePair::Game { white: 2, black: 3 },
                EnginePair::Bye { player: 5 },
            ]
        );
        let ranks: Vec<Player> = ["a", "b", "c", "d", "e", "f", "g"]
            .into_iter()
            .map(player)
            .collect();
        let assigned = pairings.assign(&ranks).expect("assigned");
        assert_eq!(
            assigned.boards,
            vec![
                (1, player("d"), player("a")),
                (2, player("g"), player("f")),
                (3, player("b"), player("c")),
            ]
        );
        assert_eq!(assigned.byes, vec![player("e")]);
        assert_eq!(
            (assigned.board_lines, assigned.bye_lines),
            (vec![2, 3, 4], vec![5])
        );
    }

    #[test]
    fn malformed_pairings_are_refused_with_the_line() {
        let cases: [(&str, PairingsError); 6] = [
            (
                "",
                PairingsError::Count {
                    found: String::new(),
                },
            ),
            (
                "two\n1 2\n",
                PairingsError::Count {
                    found: "two".into(),
                },
            ),
            (
                "1\n1-2\n",
                PairingsError::Pair {
                    line: 2,
                    found: "1-2".into(),
                },
            ),
            (
                "1\n1 2 3\n",
                PairingsError::Pair {
                    line: 2,
                    found: "1 2 3".into(),
                },
            ),
            ("1\n0 2\n", PairingsError::ByeAsWhite { line: 2 }),
            (
                "2\n1 2\n",
                PairingsError::CountMismatch {
                    announced: 2,
                    found: 1,
                },
            ),
        ];
        for (text, error) in cases {
            assert_eq!(EnginePairings::parse(text), Err(error), "{text:?}");
        }
        assert_eq!(
            EnginePairings::parse("1\n1 2\n3 4\n"),
            Err(PairingsError::CountMismatch {
                announced: 1,
                found: 2
            })
        );
        assert!(matches!(
            EnginePairings::parse("99999\n"),
            Err(PairingsError::TooManyPairs { announced: 99999 })
        ));
        let huge = "1 2\n".repeat(MAX_PAIRINGS_BYTES / 4 + 1);
        assert!(matches!(
            EnginePairings::parse(&huge),
            Err(PairingsError::TooLarge { .. })
        ));
    }

    #[test]
    fn ranks_beyond_the_report_and_players_paired_twice_are_named() {
        let ranks: Vec<Player> = ["a", "b", "c"].into_iter().map(player).collect();
        let pairings = EnginePairings::parse("3\n1 2\n2 4\n3 0\n").expect("pairings");
        let violations = pairings.assign(&ranks).expect_err("refused");
        let reasons: Vec<&str> = violations.iter().map(|v| v.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "line 3: rank 2 is also paired on line 2",
                "line 3: rank 4 is beyond the 3 starting ranks",
            ]
        );
        assert!(violations.iter().all(|v| v.field == "pairings"));
    }

    #[test]
    fn a_trf_gives_its_starting_ranks_and_names() {
        let trf = "012 Open\n\
                   001    1      Alice                             0000 0000 00000000000 0000/00/00  1.0    1\n\
                   001    2      Bob\n\
                   XXR 5\n";
        assert_eq!(
            trf_starting_ranks(trf),
            Ok(vec![(1, "Alice".to_owned()), (2, "Bob".to_owned())])
        );
        assert!(trf_starting_ranks("001  x  Alice\n").is_err());
        // A report is the ranks' own, name for name.
        let ranks = [player("alice"), player("bob")];
        let mine = "001    1      ALICE\n001    2      BOB\n";
        assert_eq!(check_report(mine, &ranks), Ok(()));
        let other = "001    1      ALICE\n001    2      CAROL\n001    3      DAVE\n";
        let reasons: Vec<String> = check_report(other, &ranks)
            .expect_err("another report")
            .into_iter()
            .map(|v| v.reason)
            .collect();
        assert_eq!(
            reasons,
            [
                "has 3 players, but the starting ranks have 2",
                "starting rank 2 is \"CAROL\" in the TRF, \"BOB\" in the event",
                "starting rank 3 is \"DAVE\" in the TRF, nobody in the event",
            ]
        );
        // Names are counted in characters, as the export pads them.
        let cyrillic = "001    1      Владислав Артемьев                   1.0\n";
        assert_eq!(
            trf_starting_ranks(cyrillic),
            Ok(vec![(1, "Владислав Артемьев".to_owned())])
        );
    }
}
