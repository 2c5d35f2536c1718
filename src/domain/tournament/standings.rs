//! Event standings with the FIDE tie-breaks (Tie-Break Regulations 2023,
//! Handbook C.07), derived from committed results.
//!
//! Standings are computed from the games' results each time they are asked
//! for, never accumulated, so each finished game counts exactly once however
//! the game ended and however many replicas took part. A round in which a
//! player has no game is an unplayed round: a declared [`Bye`], or else an
//! absence scored as a zero-point bye.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::domain::{
    Bye, ByeKind, Color, Cut, FieldError, Outcome, Player, PointTable, Points, Score, TieBreak,
    TieBreakOrder,
    tournament::performance::{average_rating, performance_rating},
};

/// What standings and the TRF report need from one game.
#[derive(Clone, Debug)]
pub struct GameRecordForStandings {
    /// The board (for ordering a round's games, as the TRF does).
    pub board: u32,
    /// The white player.
    pub white: Player,
    /// The black player.
    pub black: Player,
    /// Both players' points once finished (the score says who it counts as
    /// the winner).
    pub finished: Option<Score>,
    /// The round (0: none; such a game counts for points and tie-breaks but
    /// belongs to no round).
    pub round: u32,
    /// Whether the game was aborted: it then counts for nothing, as if the
    /// players had not been paired.
    pub aborted: bool,
}

/// What the standings need beyond the games: the regulations' choices and
/// what the games cannot tell.
#[derive(Clone, Debug, Default)]
pub struct StandingsRules {
    /// The tie-breaks, first applied first.
    pub order: TieBreakOrder,
    /// The tournament's number of rounds, when known: cuts and byes must
    /// fit in it.
    pub total_rounds: Option<u32>,
    /// The byes of rounds the players have no game in.
    pub byes: Vec<Bye>,
    /// Players' ratings, for the average rating of opponents; opponents
    /// without one are left out of it.
    pub ratings: HashMap<String, u32>,
    /// The points a bye scores (and what counts as a draw's points for an
    /// opponent's unplayed rounds, Art. 16.3).
    pub bye_points: PointTable,
}

/// One player's line in the standings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    /// 1-based rank; players equal on every criterion share it.
    pub rank: u32,
    /// The player.
    pub player: Player,
    /// Points from every finished game, forfeits included, and from byes.
    pub points: Points,
    /// Games played over the board (forfeits excluded).
    pub played: u32,
    /// Games won over the board.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost over the board.
    pub losses: u32,
    /// Games won by forfeit.
    pub forfeit_wins: u32,
    /// Games lost by forfeit.
    pub forfeit_losses: u32,
    /// Buchholz (2023: a dummy opponent for each unplayed round).
    pub buchholz: Points,
    /// Buchholz Cut-1 (voluntarily unplayed rounds cut first).
    pub buchholz_cut1: Points,
    /// Sonneborn-Berger (2023: a dummy opponent for each unplayed round).
    pub sonneborn_berger: Points,
    /// The direct encounter's value: points scored against the players
    /// tied with this one when the tie-break was reached, when it applied
    /// (all of them had met, or it set a player apart); zero otherwise, or
    /// when the order has no direct encounter.
    pub direct_encounter: Points,
    /// The value of each tie-break of the order, in its order.
    pub tie_breaks: Vec<Points>,
}

/// A player's result in one game, whatever the scoring system pays for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GameScore {
    Win,
    Draw,
    Loss,
}

impl GameScore {
    fn of(outcome: Outcome, my_win: Outcome) -> Self {
        match outcome {
            Outcome::Draw => Self::Draw,
            o if o == my_win => Self::Win,
            // A loss, or a double forfeit (both lose).
            _ => Self::Loss,
        }
    }

    /// The game's weight in Sonneborn-Berger: 1, ½ or 0 whatever the
    /// scoring system, as FIDE's tie-break regulations define it.
    fn weight(self) -> Points {
        let table = PointTable::CLASSIC;
        match self {
            Self::Win => table.win(),
            Self::Draw => table.draw(),
            Self::Loss => table.loss(),
        }
    }
}

/// A whole number as a tie-break value.
fn whole(n: i64) -> Points {
    Points::from_milli(n.saturating_mul(1000))
}

/// One thing a player had in a round (or, for round 0, outside the rounds).
#[derive(Clone, Debug)]
enum Entry {
    /// A finished game, over the board or forfeited.
    Game {
        opponent: String,
        color: Color,
        score: GameScore,
        points: Points,
        played: bool,
    },
    /// A game not finished yet: it counts for nothing so far.
    Pending,
    /// A declared bye.
    Bye(ByeKind, Points),
}

impl Entry {
    fn points(&self) -> Points {
        match self {
            Self::Game { points, .. } | Self::Bye(_, points) => *points,
            Self::Pending => Points::ZERO,
        }
    }

    /// Whether the round is voluntarily unplayed (VUR, Art. 16.2.5): a
    /// forfeit loss (double forfeits included), a half- or zero-point bye.
    fn voluntary(&self) -> bool {
        match self {
            Self::Game {
                played: false,
                score,
                ..
            } => *score != GameScore::Win,
            Self::Bye(kind, _) => kind.voluntary(),
            _ => false,
        }
    }

    /// The result an unplayed round counts as in Sonneborn-Berger.
    fn weight(&self) -> Points {
        match self {
            Self::Game { score, .. } => score.weight(),
            Self::Bye(kind, _) => kind.weight(),
            Self::Pending => Points::ZERO,
        }
    }

    /// Whether the player scored a win's points (Art. 7.1).
    fn win(&self) -> bool {
        match self {
            Self::Game { score, .. } => *score == GameScore::Win,
            Self::Bye(kind, _) => matches!(
                kind,
                ByeKind::PairingAllocated | ByeKind::FullPoint | ByeKind::ForfeitWin
            ),
            Self::Pending => false,
        }
    }
}

/// One player's tournament: what each round held.
#[derive(Default)]
struct Record {
    player: Option<Player>,
    /// Entries by round; round 0 holds the games without a round.
    rounds: BTreeMap<u32, Vec<Entry>>,
}

impl Record {
    fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.rounds.values().flatten()
    }

    fn points(&self) -> Points {
        self.entries().map(Entry::points).sum()
    }

    /// Rounds from 1 to `rounds` with nothing in them: absences.
    fn absences(&self, rounds: u32) -> u32 {
        let held = self
            .rounds
            .keys()
            .filter(|&&r| r >= 1 && r <= rounds)
            .count();
        rounds.saturating_sub(u32::try_from(held).unwrap_or(u32::MAX))
    }

    fn count(&self, wanted: impl Fn(&Entry) -> bool) -> u32 {
        let n = self.entries().filter(|e| wanted(e)).count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

/// A value a tie-break adds up, possibly repeated (`count` absences alike),
/// and whether it comes from a voluntarily unplayed round.
#[derive(Clone, Copy, Debug)]
struct Value {
    value: Points,
    voluntary: bool,
    count: u32,
}

/// The sum of `values` after `cut` (Art. 14): the lowest left out first,
/// voluntarily unplayed rounds' values before any other (Art. 16.5); then
/// the highest, whatever rounds they stand for (the exception of Art. 16.5
/// is for the least significant values only, as FIDE's reference
/// implementation reads it).
fn cut_sum(mut values: Vec<Value>, cut: Cut) -> Points {
    // Least significant first: voluntary before others, then by value.
    values.sort_by_key(|v| (!v.voluntary, v.value));
    let mut lowest = cut.lowest;
    for v in values.iter_mut() {
        let taken = v.count.min(lowest);
        v.count -= taken;
        lowest -= taken;
    }
    values.sort_by_key(|v| v.value);
    let mut highest = cut.highest;
    for v in values.iter_mut().rev() {
        let taken = v.count.min(highest);
        v.count -= taken;
        highest -= taken;
    }
    values
        .iter()
        .map(|v| Points::from_milli(v.value.milli() * i64::from(v.count)))
        .sum()
}

/// One round's part of Sonneborn-Berger.
#[derive(Clone, Copy, Debug)]
struct SbPart {
    /// The opponent's score (or the dummy's), which orders the cuts.
    score: Points,
    /// What the round adds: that score times the result.
    value: Points,
    /// Whether the round is voluntarily unplayed.
    voluntary: bool,
}

/// The index of the first least element of `items` by `order` (the first
/// of equals, as a stable sort puts it).
fn first_min_by<T>(items: &[T], order: impl Fn(&T, &T) -> std::cmp::Ordering) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (index, item) in items.iter().enumerate() {
        if best.is_none_or(|b| order(item, &items[b]) == std::cmp::Ordering::Less) {
            best = Some(index);
        }
    }
    best
}

/// Everything the tie-breaks read, computed once.
struct Tournament<'a> {
    records: BTreeMap<String, Record>,
    rounds: u32,
    rules: &'a StandingsRules,
    /// Each player's score as an opponent sees it (Art. 16.3).
    adjusted: HashMap<String, Points>,
    /// Each player's score as fore Buchholz counts it, when the order has
    /// fore Buchholz.
    fore: HashMap<String, Points>,
    /// Each player's Buchholz with each cut an average of opponents'
    /// Buchholz of the order asks for.
    buchholz: HashMap<Cut, HashMap<String, Points>>,
}

impl<'a> Tournament<'a> {
    fn new(
        games: &[GameRecordForStandings],
        rules: &'a StandingsRules,
    ) -> Result<Self, FieldError> {
        let mut records: BTreeMap<String, Record> = BTreeMap::new();
        let mut rounds = 0;
        for game in games {
            for player in [&game.white, &game.black] {
                records.entry(player.id.clone()).or_default().player = Some(player.clone());
            }
            if game.aborted {
                continue;
            }
            rounds = rounds.max(game.round);
            for (me, opponent, color) in [
                (&game.white, &game.black, Color::White),
                (&game.black, &game.white, Color::Black),
            ] {
                let entry = match game.finished {
                    None => Entry::Pending,
                    Some(score) => Entry::Game {
                        opponent: opponent.id.clone(),
                        color,
                        score: GameScore::of(score.scored_as, Outcome::win_for(color)),
                        points: color.fold_wb(score.white, score.black),
                        played: score.played,
                    },
                };
                let record = records.entry(me.id.clone()).or_default();
                record.rounds.entry(game.round).or_default().push(entry);
            }
        }
        Bye::check_all(&rules.byes, rules.total_rounds, rounds)?;
        for bye in &rules.byes {
            let record = records.entry(bye.player.id.clone()).or_default();
            if record.rounds.contains_key(&bye.round) {
                return Err(FieldError::new(
                    "byes",
                    format!("'{}' has a game in round {}", bye.player.id, bye.round),
                ));
            }
            record.player.get_or_insert_with(|| bye.player.clone());
            let points = bye.kind.points(&rules.bye_points);
            record
                .rounds
                .insert(bye.round, vec![Entry::Bye(bye.kind, points)]);
            rounds = rounds.max(bye.round);
        }
        match rules.total_rounds {
            Some(total) if total < rounds => {
                return Err(FieldError::new(
                    "total_rounds",
                    format!("{total} is below round {rounds}, which has games"),
                ));
            }
            Some(total) => rules.order.check_cuts(total)?,
            None if rounds > 0 => rules.order.check_cuts(rounds)?,
            None => {}
        }
        let mut tournament = Self {
            records,
            rounds,
            rules,
            adjusted: HashMap::new(),
            fore: HashMap::new(),
            buchholz: HashMap::new(),
        };
        tournament.adjusted = tournament.by_player(|t, record| t.adjusted_score(record));
        if rules
            .order
            .as_slice()
            .iter()
            .any(|t| matches!(t, TieBreak::ForeBuchholz(_)))
        {
            tournament.fore = tournament.by_player(|t, record| {
                t.fore_own(record)
                    .unwrap_or_else(|| t.adjusted_score(record))
            });
        }
        for tie_break in rules.order.as_slice() {
            if let TieBreak::AverageOfOpponentsBuchholz(cut) = *tie_break {
                let buchholz = tournament.by_player(|t, record| {
                    cut_sum(t.buchholz_values(record, record.points()), cut)
                });
                tournament.buchholz.insert(cut, buchholz);
            }
        }
        Ok(tournament)
    }

    /// `value` of every player, by id.
    fn by_player(&self, value: impl Fn(&Self, &Record) -> Points) -> HashMap<String, Points> {
        self.records
            .iter()
            .map(|(id, record)| (id.clone(), value(self, record)))
            .collect()
    }

    /// A player's score as their opponents' tie-breaks count it (Art.
    /// 16.3): after the last round that is not voluntarily unplayed (a game
    /// over the board, a forfeit win, a pairing-allocated or full-point bye:
    /// Art. 16.2.1 to 16.2.4), each round without an opponent (a half- or
    /// zero-point bye, an absence) counts as a draw; a forfeit loss keeps
    /// its points, since an opponent was paired. As FIDE's reference
    /// implementation (TieBreakServer) reads the article.
    fn adjusted_score(&self, record: &Record) -> Points {
        let last_not_voluntary = record
            .rounds
            .iter()
            .filter(|(round, entries)| {
                **round >= 1
                    && entries
                        .iter()
                        .any(|e| !matches!(e, Entry::Pending) && !e.voluntary())
            })
            .map(|(round, _)| *round)
            .max()
            .unwrap_or(0);
        let draw = self.rules.bye_points.draw();
        let mut score = Points::ZERO;
        for (round, entries) in &record.rounds {
            for entry in entries {
                let without_opponent = matches!(entry, Entry::Bye(..));
                score = score
                    + if *round > last_not_voluntary && without_opponent && entry.voluntary() {
                        draw
                    } else {
                        entry.points()
                    };
            }
        }
        // Absences after that round, each a draw.
        let later =
            record.absences(self.rounds) - record.absences(last_not_voluntary.min(self.rounds));
        score + Points::from_milli(draw.milli() * i64::from(later))
    }

    /// The values Buchholz adds up: the adjusted score of each opponent met
    /// over the board, and for each unplayed round a dummy opponent with
    /// the player's own points (Art. 16.4).
    fn buchholz_values(&self, record: &Record, own: Points) -> Vec<Value> {
        let mut values: Vec<Value> = record
            .entries()
            .filter_map(|entry| match entry {
                Entry::Game {
                    opponent,
                    played: true,
                    ..
                } => Some(Value {
                    value: self.adjusted.get(opponent).copied().unwrap_or_default(),
                    voluntary: false,
                    count: 1,
                }),
                Entry::Pending => None,
                unplayed => Some(Value {
                    value: own,
                    voluntary: unplayed.voluntary(),
                    count: 1,
                }),
            })
            .collect();
        values.push(Value {
            value: own,
            voluntary: true,
            count: record.absences(self.rounds),
        });
        values
    }

    /// Each round's part of Sonneborn-Berger, in round order: the
    /// opponent's score (16.3) times the result against them, or, for an
    /// unplayed round, the dummy's (the player's own points) times what the
    /// round counted as (16.4); an absence counts 0.
    fn sonneborn_berger_parts(&self, record: &Record, own: Points) -> Vec<SbPart> {
        let part = |entry: &Entry| match entry {
            Entry::Game {
                opponent,
                played: true,
                score,
                ..
            } => {
                let score_of = self.adjusted.get(opponent).copied().unwrap_or_default();
                Some(SbPart {
                    score: score_of,
                    value: score_of.times(score.weight()),
                    voluntary: false,
                })
            }
            Entry::Pending => None,
            unplayed => Some(SbPart {
                score: own,
                value: own.times(unplayed.weight()),
                voluntary: unplayed.voluntary(),
            }),
        };
        let absence = SbPart {
            score: own,
            value: Points::ZERO,
            voluntary: true,
        };
        let mut parts = Vec::new();
        let mut next = 1;
        for (&round, entries) in &record.rounds {
            while round >= 1 && next < round {
                parts.push(absence);
                next += 1;
            }
            parts.extend(entries.iter().filter_map(part));
            next = next.max(round + 1);
        }
        while next <= self.rounds {
            parts.push(absence);
            next += 1;
        }
        parts
    }

    /// Sonneborn-Berger (Art. 9.1) with its cuts (Art. 14), as the
    /// reference implementation cuts it: a lowest cut takes the part of the
    /// lowest opponent's score, unless a voluntarily unplayed round's part
    /// (the first such by the same order) counts no more than it, which is
    /// taken instead; a highest cut takes the part of the highest score.
    fn sonneborn_berger(&self, record: &Record, own: Points, cut: Cut) -> Points {
        let mut parts = self.sonneborn_berger_parts(record, own);
        let lowest = cut.lowest.min(self.rounds);
        let highest = cut.highest.min(self.rounds - lowest);
        let by_score = |a: &SbPart, b: &SbPart| (a.score, a.value).cmp(&(b.score, b.value));
        for _ in 0..lowest {
            let Some(all) = first_min_by(&parts, |a, b| by_score(a, b)) else {
                break;
            };
            let vur_first = first_min_by(&parts, |a, b| {
                b.voluntary.cmp(&a.voluntary).then(by_score(a, b))
            })
            .unwrap_or(all);
            let taken = if parts[all].value > parts[vur_first].value {
                all
            } else {
                vur_first
            };
            parts.remove(taken);
        }
        for _ in 0..highest {
            let Some(top) = first_min_by(&parts, |a, b| by_score(b, a)) else {
                break;
            };
            parts.remove(top);
        }
        parts.iter().map(|part| part.value).sum()
    }

    /// For a player who took part in the last round (a game over the board
    /// or by forfeit, or the pairing-allocated bye), their points with that
    /// round's game counted as a draw (the bye as 0 before the draw), as
    /// fore Buchholz counts them: the reference implementation keeps a
    /// last-round bye's points and adds a draw's. `None` for any other.
    fn fore_own(&self, record: &Record) -> Option<Points> {
        let last = record
            .rounds
            .get(&self.rounds)?
            .iter()
            .find_map(|entry| match entry {
                Entry::Game { points, .. } => Some(*points),
                Entry::Bye(ByeKind::PairingAllocated, _) => Some(Points::ZERO),
                _ => None,
            })?;
        Some(Points::from_milli(
            record.points().milli() - last.milli() + self.rules.bye_points.draw().milli(),
        ))
    }

    /// Fore Buchholz's values, as the reference implementation computes
    /// them: each opponent's fore score (their `fore_own`, or else their
    /// adjusted score, with no 16.3 adjustment for one who took part in
    /// the last round), a last-round forfeit counted as a game; the dummy
    /// of an unplayed round (and of an absence) is the player's own points
    /// with a last-round game counted as a draw.
    fn fore_buchholz_values(&self, record: &Record) -> Vec<Value> {
        let own = self.fore_own(record).unwrap_or_else(|| record.points());
        let mut values = Vec::new();
        for (&round, entries) in &record.rounds {
            for entry in entries {
                values.push(match entry {
                    Entry::Game {
                        opponent, played, ..
                    } if *played || round == self.rounds => Value {
                        value: self.fore.get(opponent).copied().unwrap_or_default(),
                        voluntary: false,
                        count: 1,
                    },
                    Entry::Pending => continue,
                    unplayed => Value {
                        value: own,
                        voluntary: unplayed.voluntary(),
                        count: 1,
                    },
                });
            }
        }
        values.push(Value {
            value: own,
            voluntary: true,
            count: record.absences(self.rounds),
        });
        values
    }

    /// Average of opponents' Buchholz (AOB): the mean of the Buchholz
    /// (with `cut`) of the opponents met over the board, a Buchholz of 0
    /// left out as the reference implementation leaves it, rounded to
    /// hundredths (halves up); 0 when none is left.
    fn average_of_opponents_buchholz(&self, record: &Record, cut: Cut) -> Points {
        let values: Vec<i64> = record
            .entries()
            .filter_map(|entry| match entry {
                Entry::Game {
                    opponent,
                    played: true,
                    ..
                } => Some(
                    self.buchholz
                        .get(&cut)
                        .and_then(|by_player| by_player.get(opponent))
                        .map_or(0, |buchholz| buchholz.milli()),
                ),
                _ => None,
            })
            .filter(|&milli| milli > 0)
            .collect();
        if values.is_empty() {
            return Points::ZERO;
        }
        let sum: i64 = values.iter().sum();
        let n = i64::try_from(values.len()).unwrap_or(i64::MAX);
        // Hundredths, halves up: floor(sum / (10 n) + 1/2), in thousandths.
        Points::from_milli((2 * sum + 10 * n) / (20 * n) * 10)
    }

    /// Koya (KS): the points scored in each game (over the board or
    /// forfeited) against an opponent whose score, unadjusted, is at least
    /// half of a win's points in every round so far.
    fn koya(&self, record: &Record) -> Points {
        // The most a player could have scored so far, in thousandths; an
        // opponent counts with a score of at least half of it (compared
        // doubled, so that a half stays exact).
        let most = self.rules.bye_points.win().milli() * i64::from(self.rounds);
        record
            .entries()
            .filter_map(|entry| match entry {
                Entry::Game {
                    opponent, points, ..
                } => {
                    let score = self
                        .records
                        .get(opponent)
                        .map_or(Points::ZERO, Record::points);
                    (2 * score.milli() >= most).then_some(*points)
                }
                _ => None,
            })
            .sum()
    }

    /// The player's score after each round, from 1 to the last (games
    /// without a round left out), as runs of equal values.
    fn progressive_values(&self, record: &Record) -> Vec<Value> {
        let mut values = Vec::new();
        let mut score = Points::ZERO;
        let mut previous = 0;
        for (round, entries) in record.rounds.range(1..) {
            // The rounds before this one, since the previous entry, kept
            // the score.
            if *round > previous + 1 {
                values.push(Value {
                    value: score,
                    voluntary: false,
                    count: round - previous - 1,
                });
            }
            score = score + entries.iter().map(Entry::points).sum();
            values.push(Value {
                value: score,
                voluntary: false,
                count: 1,
            });
            previous = *round;
        }
        if self.rounds > previous {
            values.push(Value {
                value: score,
                voluntary: false,
                count: self.rounds - previous,
            });
        }
        values
    }

    /// The games played over the board against rated opponents that the
    /// rating tie-breaks count (ARO, TPR: Art. 10), after their cuts,
    /// counted in games: a game against an unrated opponent, which they
    /// leave out, is the first cut, lowest or highest (as FIDE's reference
    /// implementation cuts); then the lowest or highest rating (the
    /// earliest of equal lowest ones, the latest of equal highest ones).
    /// Each with the result's weight (1, ½, 0) in thousandths.
    fn rated_games(&self, record: &Record, cut: Cut) -> std::collections::VecDeque<(u32, i64)> {
        let games: Vec<(Option<u32>, i64)> = record
            .entries()
            .filter_map(|entry| match entry {
                Entry::Game {
                    opponent,
                    played: true,
                    score,
                    ..
                } => Some((
                    self.rules.ratings.get(opponent).copied(),
                    score.weight().milli(),
                )),
                _ => None,
            })
            .collect();
        let mut unrated = games.iter().filter(|(r, _)| r.is_none()).count();
        let mut rated: Vec<(u32, i64)> = games
            .into_iter()
            .filter_map(|(rating, weight)| rating.map(|r| (r, weight)))
            .collect();
        // Stable: games of equal ratings stay in round order.
        rated.sort_by_key(|&(rating, _)| rating);
        let mut rated: std::collections::VecDeque<(u32, i64)> = rated.into();
        for highest in std::iter::repeat_n(false, cut.lowest as usize)
            .chain(std::iter::repeat_n(true, cut.highest as usize))
        {
            if unrated > 0 {
                unrated -= 1;
            } else if highest {
                rated.pop_back();
            } else {
                rated.pop_front();
            }
        }
        rated
    }

    /// The average rating of the opponents met over the board (ARO, Art.
    /// 10.1), rounded to the nearest whole number (halves up), after the
    /// cuts of [`Self::rated_games`].
    fn average_rating_of_opponents(&self, record: &Record, cut: Cut) -> Points {
        let games = self.rated_games(record, cut);
        average_rating(games.iter().map(|&(rating, _)| rating))
            .map_or(Points::ZERO, |average| whole(i64::from(average)))
    }

    /// The tournament performance rating (TPR, Art. 10) over the games
    /// of [`Self::rated_games`]; `None` without a rated opponent.
    fn tournament_performance(&self, record: &Record, cut: Cut) -> Option<i64> {
        let games = self.rated_games(record, cut);
        let ratings: Vec<u32> = games.iter().map(|&(rating, _)| rating).collect();
        let score: i64 = games.iter().map(|&(_, weight)| weight).sum();
        performance_rating(&ratings, u64::try_from(score).unwrap_or(0))
    }

    /// The average of the opponents' performance ratings (APRO, Art.
    /// 10.4): over the games played over the board, each opponent's TPR
    /// with the same cuts, those not above 0 left out, rounded to the
    /// nearest whole number (halves up), as the reference implementation
    /// averages them.
    fn average_of_opponents_performance(&self, record: &Record, cut: Cut) -> Points {
        let performances: Vec<i64> = record
            .entries()
            .filter_map(|entry| match entry {
                Entry::Game {
                    opponent,
                    played: true,
                    ..
                } => self
                    .records
                    .get(opponent)
                    .and_then(|theirs| self.tournament_performance(theirs, cut)),
                _ => None,
            })
            .filter(|&tpr| tpr > 0)
            .collect();
        if performances.is_empty() {
            return Points::ZERO;
        }
        let sum: i64 = performances.iter().sum();
        let n = i64::try_from(performances.len()).unwrap_or(i64::MAX);
        whole((2 * sum + n) / (2 * n))
    }

    /// The value of every tie-break but direct encounter, which depends on
    /// the group it breaks.
    fn value(&self, record: &Record, own: Points, tie_break: TieBreak) -> Points {
        let count = |n: u32| Points::from_milli(i64::from(n) * 1000);
        match tie_break {
            TieBreak::DirectEncounter => Points::ZERO,
            TieBreak::Buchholz(cut) => cut_sum(self.buchholz_values(record, own), cut),
            TieBreak::SonnebornBerger(cut) => self.sonneborn_berger(record, own, cut),
            TieBreak::Koya => self.koya(record),
            TieBreak::ForeBuchholz(cut) => cut_sum(self.fore_buchholz_values(record), cut),
            TieBreak::AverageOfOpponentsBuchholz(cut) => {
                self.average_of_opponents_buchholz(record, cut)
            }
            TieBreak::Wins => count(record.count(Entry::win)),
            TieBreak::GamesWon => count(record.count(|e| {
                matches!(
                    e,
                    Entry::Game {
                        played: true,
                        score: GameScore::Win,
                        ..
                    }
                )
            })),
            TieBreak::GamesWithBlack => count(record.count(|e| {
                matches!(
                    e,
                    Entry::Game {
                        played: true,
                        color: Color::Black,
                        ..
                    }
                )
            })),
            TieBreak::ProgressiveScore(cut) => cut_sum(self.progressive_values(record), cut),
            TieBreak::AverageRatingOfOpponents(cut) => {
                self.average_rating_of_opponents(record, cut)
            }
            TieBreak::TournamentPerformanceRating(cut) => self
                .tournament_performance(record, cut)
                .map_or(Points::ZERO, whole),
            TieBreak::AverageOfOpponentsPerformance(cut) => {
                self.average_of_opponents_performance(record, cut)
            }
        }
    }

    /// Direct encounter among `group` (Art. 6): each player's points in
    /// the games played over the board against the others, and the classes
    /// it splits the group into, best first. When every two of them have
    /// met, by those points (6.2). When not, only from the top: the best
    /// is set apart while their points exceed what any other could have
    /// reached by winning every game they did not play within the group,
    /// and the rest stay level (as FIDE's reference implementation reads
    /// Art. 6 for a Swiss). `None` when not all have met and it sets
    /// nobody apart.
    fn direct_encounter(&self, group: &[usize], rows: &[Standing]) -> Option<DirectEncounter> {
        let members: BTreeSet<&str> = group.iter().map(|&i| rows[i].player.id.as_str()).collect();
        let mut met: BTreeSet<(&str, &str)> = BTreeSet::new();
        let mut scored: HashMap<String, Points> = HashMap::new();
        let mut opponents_met: HashMap<&str, usize> = HashMap::new();
        for &i in group {
            let id = rows[i].player.id.as_str();
            let record = self.records.get(id)?;
            // Against each opponent met more than once, the average of
            // those games (Art. 6.1.2), in thousandths of a point.
            let mut against: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
            for entry in record.entries() {
                if let Entry::Game {
                    opponent,
                    played: true,
                    points: p,
                    ..
                } = entry
                    && members.contains(opponent.as_str())
                {
                    met.insert((id, opponent.as_str()));
                    let (sum, games) = against.entry(opponent.as_str()).or_default();
                    *sum += p.milli();
                    *games += 1;
                }
            }
            let points = against
                .values()
                .map(|&(sum, games)| Points::from_milli(sum / games))
                .sum();
            opponents_met.insert(id, against.len());
            scored.insert(id.to_owned(), points);
        }
        let value = |i: usize| scored.get(&rows[i].player.id).copied().unwrap_or_default();
        let pairs = group.len() * (group.len() - 1);
        if met.len() == pairs {
            let classes = split(group.to_vec(), value);
            return Some(DirectEncounter { scored, classes });
        }
        // The most each could have scored: a win for every member of the
        // group not met over the board.
        let win = self.rules.bye_points.win();
        let most = |i: usize| {
            let missing = group.len() - 1 - opponents_met[rows[i].player.id.as_str()];
            value(i) + Points::from_milli(win.milli() * i64::try_from(missing).unwrap_or(0))
        };
        let mut sorted = group.to_vec();
        sorted.sort_by(|&a, &b| {
            value(b)
                .cmp(&value(a))
                .then(most(b).cmp(&most(a)))
                .then(rows[a].player.id.cmp(&rows[b].player.id))
        });
        let mut classes = Vec::new();
        let mut rest = sorted.as_slice();
        while let [first, others @ ..] = rest
            && !others.is_empty()
            && others.iter().all(|&o| value(*first) > most(o))
        {
            classes.push(vec![*first]);
            rest = others;
        }
        if classes.is_empty() {
            return None;
        }
        classes.push(rest.to_vec());
        Some(DirectEncounter { scored, classes })
    }
}

/// What direct encounter did to a tied group: each player's points against
/// the others, and the classes it split the group into, best first.
struct DirectEncounter {
    scored: HashMap<String, Points>,
    classes: Vec<Vec<usize>>,
}

/// The standings of an event's games, best first: by points, then the
/// tie-breaks of `rules` in order. Refused (with the field at fault) when
/// a cut leaves out more values than the tournament has rounds, a bye
/// falls in a round the player has a game in or beyond the rounds, or the
/// number of rounds is below a round with games.
///
/// Unplayed rounds follow Art. 16 of the 2023 regulations: each counts for
/// the player as a game against a dummy opponent with the player's own
/// points; an opponent's rounds without an opponent (H and Z byes,
/// absences) after their last round that is not voluntarily unplayed count
/// as draws. Unfinished and aborted games count for nothing.
pub fn standings(
    games: &[GameRecordForStandings],
    rules: &StandingsRules,
) -> Result<Vec<Standing>, FieldError> {
    let tournament = Tournament::new(games, rules)?;
    let order = rules.order.as_slice();
    let mut rows: Vec<Standing> = tournament
        .records
        .iter()
        .map(|(id, record)| {
            let own = record.points();
            let buchholz_values = tournament.buchholz_values(record, own);
            let count = |wanted: fn(&Entry) -> bool| record.count(wanted);
            Standing {
                rank: 0,
                player: record.player.clone().unwrap_or(Player {
                    id: id.clone(),
                    name: String::new(),
                    ..Default::default()
                }),
                points: own,
                played: count(|e| matches!(e, Entry::Game { played: true, .. })),
                wins: count(|e| {
                    matches!(e, Entry::Game { played: true, score: GameScore::Win, .. })
                }),
                draws: count(|e| {
                    matches!(e, Entry::Game { played: true, score: GameScore::Draw, .. })
                }),
                losses: count(|e| {
                    matches!(e, Entry::Game { played: true, score: GameScore::Loss, .. })
                }),
                forfeit_wins: count(|e| {
                    matches!(e, Entry::Game { played: false, score: GameScore::Win, .. })
                }),
                forfeit_losses: count(|e| {
                    matches!(e, Entry::Game { played: false, score, .. } if *score != GameScore::Win)
                }),
                buchholz: cut_sum(buchholz_values.clone(), Cut::NONE),
                buchholz_cut1: cut_sum(buchholz_values, Cut::lowest(1)),
                sonneborn_berger: tournament.sonneborn_berger(record, own, Cut::NONE),
                direct_encounter: Points::ZERO,
                tie_breaks: order
                    .iter()
                    .map(|&t| tournament.value(record, own, t))
                    .collect(),
            }
        })
        .collect();
    // Best first by points, then by id for a stable start.
    rows.sort_by(|a, b| {
        b.points
            .cmp(&a.points)
            .then_with(|| a.player.id.cmp(&b.player.id))
    });
    let mut ranked: Vec<Vec<usize>> = Vec::new();
    let mut start = 0;
    while start < rows.len() {
        let end = start
            + rows[start..]
                .iter()
                .take_while(|r| r.points == rows[start].points)
                .count();
        let group: Vec<usize> = (start..end).collect();
        order_group(&tournament, order, &mut rows, group, 0, false, &mut ranked);
        start = end;
    }
    let mut ordered = Vec::with_capacity(rows.len());
    let mut position = 0;
    for class in ranked {
        let rank = u32::try_from(position + 1).unwrap_or(u32::MAX);
        for &index in &class {
            let mut row = rows[index].clone();
            row.rank = rank;
            ordered.push(row);
        }
        position += class.len();
    }
    Ok(ordered)
}

/// Orders `group` (indices into `rows`, tied on everything before
/// `level`) by the tie-breaks from `level` on, appending its classes of
/// players still equal, best first, to `ranked`. Direct encounter splits a
/// group (see [`Tournament::direct_encounter`]), and is applied again to
/// each smaller group it leaves tied (`again`) before the next tie-break.
fn order_group(
    tournament: &Tournament<'_>,
    order: &[TieBreak],
    rows: &mut [Standing],
    mut group: Vec<usize>,
    level: usize,
    again: bool,
    ranked: &mut Vec<Vec<usize>>,
) {
    if group.len() < 2 || level == order.len() {
        group.sort_by(|&a, &b| rows[a].player.id.cmp(&rows[b].player.id));
        ranked.push(group);
        return;
    }
    if order[level] == TieBreak::DirectEncounter {
        let Some(DirectEncounter { scored, classes }) = tournament.direct_encounter(&group, rows)
        else {
            order_group(tournament, order, rows, group, level + 1, false, ranked);
            return;
        };
        if !again {
            for &i in &group {
                let value = scored.get(&rows[i].player.id).copied().unwrap_or_default();
                rows[i].direct_encounter = value;
                rows[i].tie_breaks[level] = value;
            }
        }
        // A class it set apart is tied again on direct encounter among
        // itself alone; a group it left whole goes on to the next.
        let whole = classes.len() == 1;
        for class in classes {
            if whole || class.len() < 2 {
                order_group(tournament, order, rows, class, level + 1, false, ranked);
            } else {
                order_group(tournament, order, rows, class, level, true, ranked);
            }
        }
        return;
    }
    let value = |i: usize| rows[i].tie_breaks.get(level).copied().unwrap_or_default();
    for class in split(group, value) {
        order_group(tournament, order, rows, class, level + 1, false, ranked);
    }
}

/// `group` in classes of equal `value`, highest first.
fn split(group: Vec<usize>, value: impl Fn(usize) -> Points) -> Vec<Vec<usize>> {
    let mut valued: Vec<(Points, usize)> = group.into_iter().map(|i| (value(i), i)).collect();
    valued.sort_by_key(|&(v, _)| std::cmp::Reverse(v));
    let mut classes: Vec<(Points, Vec<usize>)> = Vec::new();
    for (v, i) in valued {
        match classes.last_mut() {
            Some((class_value, class)) if *class_value == v => class.push(i),
            _ => classes.push((v, vec![i])),
        }
    }
    classes.into_iter().map(|(_, class)| class).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{GameResult, ScoringSystem, Termination};

    fn player(id: &str) -> Player {
        Player {
            id: id.to_owned(),
            name: id.to_uppercase(),
            ..Default::default()
        }
    }

    fn game(white: &str, black: &str, outcome: Outcome) -> GameRecordForStandings {
        game_scored(
            white,
            black,
            outcome,
            Termination::Checkmate,
            ScoringSystem::default(),
        )
    }

    fn game_scored(
        white: &str,
        black: &str,
        outcome: Outcome,
        termination: Termination,
        system: ScoringSystem,
    ) -> GameRecordForStandings {
        let result = GameResult {
            outcome,
            termination,
        };
        GameRecordForStandings {
            white: player(white),
            black: player(black),
            finished: Some(system.score(result)),
            round: 0,
            board: 0,
            aborted: false,
        }
    }

    fn rows_of(games: &[GameRecordForStandings]) -> Vec<Standing> {
        standings(games, &StandingsRules::default()).unwrap()
    }

    fn milli(points: Points) -> i64 {
        points.milli()
    }

    /// A game of `round`, forfeited by the loser when `played` is false.
    fn round_game(
        round: u32,
        white: &str,
        black: &str,
        outcome: Outcome,
        played: bool,
    ) -> GameRecordForStandings {
        let termination = if played {
            Termination::Checkmate
        } else {
            Termination::Forfeit
        };
        GameRecordForStandings {
            round,
            ..game_scored(white, black, outcome, termination, ScoringSystem::default())
        }
    }

    fn buchholz_of(games: &[GameRecordForStandings], rules: StandingsRules, id: &str) -> i64 {
        let rows = standings(games, &rules).unwrap();
        let row = rows.iter().find(|r| r.player.id == id).unwrap();
        milli(row.tie_breaks[0])
    }

    fn rules_with(order: TieBreak, byes: Vec<Bye>, rounds: u32) -> StandingsRules {
        StandingsRules {
            order: TieBreakOrder::new(vec![order]).unwrap(),
            total_rounds: Some(rounds),
            byes,
            ..StandingsRules::default()
        }
    }

    /// Koya (KS) in a four-player round robin: a beats b, draws c,
    /// loses to d; b beats c and d; c beats d. Scores a 1.5, b 2, c 1.5,
    /// d 1; the limit is half of 3 rounds' win points, 1.5, so d's games
    /// do not count. KS: a 1 (b) + 0.5 (c) = 1.5; b 0 (a) + 1 (c) = 1;
    /// c 0.5 (a) + 0 (b) = 0.5; d 1 (a) + 0 (b) + 0 (c) = 1. A forfeit
    /// counts as the game it stands for.
    #[test]
    fn koya_counts_the_points_against_opponents_with_half_the_most() {
        let games = [
            round_game(1, "a", "b", Outcome::WhiteWins, true),
            round_game(1, "c", "d", Outcome::WhiteWins, true),
            round_game(2, "c", "a", Outcome::Draw, true),
            round_game(2, "b", "d", Outcome::WhiteWins, false),
            round_game(3, "d", "a", Outcome::WhiteWins, true),
            round_game(3, "b", "c", Outcome::WhiteWins, true),
        ];
        let rows = standings(&games, &rules_with(TieBreak::Koya, Vec::new(), 3)).unwrap();
        let koya = |id: &str| {
            let row = rows.iter().find(|r| r.player.id == id).unwrap();
            milli(row.tie_breaks[0])
        };
        assert_eq!(
            [koya("a"), koya("b"), koya("c"), koya("d")],
            [1_500, 1_000, 500, 1_000]
        );
        assert_eq!(TieBreak::Koya.to_string(), "KS");
    }

    /// Art. 16.3, as the reference reads it: an opponent who lost a game
    /// by forfeit after the last round he played keeps that 0 in his
    /// opponents' Buchholz (an opponent was paired); only rounds without
    /// an opponent after it count as draws.
    #[test]
    fn an_opponent_s_forfeit_loss_keeps_its_zero() {
        // x beats o in round 1 and w in round 2; o loses round 2 to z by
        // forfeit, then is absent in round 3 (a zero-point bye).
        let games = [
            round_game(1, "x", "o", Outcome::WhiteWins, true),
            round_game(2, "x", "w", Outcome::WhiteWins, true),
            round_game(2, "z", "o", Outcome::WhiteWins, false),
            round_game(3, "x", "z", Outcome::Draw, true),
        ];
        let byes = vec![
            bye("o", 3, ByeKind::ZeroPoint),
            bye("w", 3, ByeKind::ZeroPoint),
        ];
        let rules = rules_with(TieBreak::Buchholz(Cut::NONE), byes, 3);
        // x's opponents as his Buchholz counts them: o lost round 1 (0)
        // and round 2 by forfeit (0, not a draw), and round 3 without an
        // opponent after his last game counts as a draw: 0.5. w was
        // absent in round 1 (before his game: 0), lost round 2 (0), and
        // round 3 counts as a draw: 0.5. z won round 2 by forfeit and drew
        // round 3, absent in round 1 before them: 1.5. In all 2.5.
        assert_eq!(buchholz_of(&games, rules, "x"), 2_500);
    }

    /// A bye without an opponent is a draw for the opponents' Buchholz
    /// only after the player's last round that is not voluntarily
    /// unplayed: a pairing-allocated (or full-point) bye later keeps it 0.
    #[test]
    fn a_bye_before_a_later_allocated_bye_keeps_its_points() {
        let games = [
            round_game(1, "x", "o", Outcome::WhiteWins, true),
            round_game(2, "x", "y", Outcome::Draw, true),
        ];
        for later in [ByeKind::PairingAllocated, ByeKind::FullPoint] {
            let byes = vec![
                bye("o", 2, ByeKind::ZeroPoint),
                bye("o", 3, later),
                bye("x", 3, ByeKind::PairingAllocated),
                bye("y", 1, ByeKind::ZeroPoint),
                bye("y", 3, ByeKind::ZeroPoint),
            ];
            let rules = rules_with(TieBreak::Buchholz(Cut::NONE), byes, 3);
            // o for x: 0 in round 1, 0 for the zero-point bye of round 2
            // (a bye that is not voluntarily unplayed follows it), 1 for
            // round 3: 1. y: 0 for round 1 (before his game), 0.5, and
            // 0.5 for round 3 (after it): 1. x's own bye in round 3 stands
            // in at his 2.5 points. In all 4.5.
            assert_eq!(buchholz_of(&games, rules, "x"), 4_500, "{later:?}");
        }
    }

    /// Median-1 with two voluntarily unplayed rounds: the lowest cut takes
    /// one of them; the other's stand-in value is cut as the highest when
    /// it is the highest.
    #[test]
    fn the_highest_cut_takes_a_voluntarily_unplayed_round_s_value() {
        // x wins rounds 1 and 2 (against o and y), then takes half-point
        // byes in rounds 3 and 4: 3 points. p and q play rounds 3 and 4.
        let games = [
            round_game(1, "x", "o", Outcome::WhiteWins, true),
            round_game(2, "x", "y", Outcome::WhiteWins, true),
            round_game(3, "p", "q", Outcome::Draw, true),
            round_game(4, "q", "p", Outcome::Draw, true),
        ];
        let mut byes = vec![
            bye("x", 3, ByeKind::HalfPoint),
            bye("x", 4, ByeKind::HalfPoint),
            bye("y", 1, ByeKind::ZeroPoint),
        ];
        for round in 2..=4 {
            byes.push(bye("o", round, ByeKind::ZeroPoint));
        }
        for round in 3..=4 {
            byes.push(bye("y", round, ByeKind::ZeroPoint));
        }
        let rules = rules_with(TieBreak::Buchholz(Cut::median(1)), byes, 4);
        // x's values: o 1.5 (rounds 2 to 4 after his last game count as
        // draws), y 1.0 (round 1, before his game, counts 0; rounds 3 and
        // 4 as draws), and each bye stands in at x's own 3. The lowest
        // cut takes a bye's 3 (voluntarily unplayed first); the highest
        // cut the other bye's 3, not o's 1.5.
        assert_eq!(buchholz_of(&games, rules, "x"), 2_500);
    }

    /// A four-player round robin computed by hand:
    /// a beats b and c, draws d; b beats c and d; c beats d.
    /// Points: a 2.5, b 2, c 1, d 0.5.
    #[test]
    fn a_round_robin_with_hand_computed_tie_breaks() {
        let games = [
            game("a", "b", Outcome::WhiteWins),
            game("c", "a", Outcome::BlackWins),
            game("a", "d", Outcome::Draw),
            game("b", "c", Outcome::WhiteWins),
            game("d", "b", Outcome::BlackWins),
            game("c", "d", Outcome::WhiteWins),
        ];
        let rows = rows_of(&games);
        let ids: Vec<&str> = rows.iter().map(|r| r.player.id.as_str()).collect();
        assert_eq!(ids, ["a", "b", "c", "d"]);
        let a = &rows[0];
        assert_eq!(milli(a.points), 2500);
        assert_eq!((a.played, a.wins, a.draws, a.losses), (3, 2, 1, 0));
        // Buchholz: b 2 + c 1 + d 0.5 = 3.5; cut-1 drops d's 0.5.
        assert_eq!(milli(a.buchholz), 3500);
        assert_eq!(milli(a.buchholz_cut1), 3000);
        // SB: 2 (b, won) + 1 (c, won) + 0.5 × 0.5 (d, drawn) = 3.25.
        assert_eq!(milli(a.sonneborn_berger), 3250);
        let d = &rows[3];
        // d: drew a (2.5 × 0.5) = 1.25.
        assert_eq!(milli(d.sonneborn_berger), 1250);
        assert_eq!(
            rows.iter().map(|r| r.rank).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
    }

    #[test]
    fn equal_points_are_split_by_direct_encounter_then_buchholz() {
        // x and y both finish on 1 point; x beat y.
        let games = [
            game("x", "y", Outcome::WhiteWins),
            game("y", "z", Outcome::WhiteWins),
            game("z", "x", Outcome::WhiteWins),
        ];
        let rows = rows_of(&games);
        // Everyone has 1 point; direct encounter among all three is 1 each;
        // Buchholz is 2 each; cut-1 is 1 each; SB is 1 each; wins 1 each:
        // a full tie, sharing rank 1, listed by id.
        assert!(rows.iter().all(|r| r.rank == 1), "{rows:?}");
        let games = [
            game("x", "y", Outcome::WhiteWins),
            game("y", "z", Outcome::Draw),
            game("z", "w", Outcome::WhiteWins),
            game("w", "x", Outcome::Draw),
        ];
        let rows = rows_of(&games);
        // x 1.5, z 1.5: they never met, so direct encounter is 0 for both;
        // Buchholz: x met y (0.5) and w (0.5) = 1; z met y (0.5) and w (0.5) = 1.
        let top: Vec<&str> = rows.iter().take(2).map(|r| r.player.id.as_str()).collect();
        assert_eq!(top, ["x", "z"]);
        assert_eq!(rows[0].rank, 1);
        assert_eq!(rows[1].rank, 1, "equal on every criterion");
    }

    #[test]
    fn football_points_and_forfeits() {
        let football = ScoringSystem::uniform(crate::domain::PointTable::FOOTBALL);
        let games = [
            game_scored(
                "a",
                "b",
                Outcome::WhiteWins,
                Termination::Checkmate,
                football,
            ),
            game_scored("b", "c", Outcome::Draw, Termination::Agreement, football),
            game_scored("c", "a", Outcome::BlackWins, Termination::NoShow, football),
        ];
        let rows = rows_of(&games);
        let a = rows.iter().find(|r| r.player.id == "a").unwrap();
        assert_eq!(milli(a.points), 6000);
        assert_eq!((a.played, a.wins, a.forfeit_wins), (1, 1, 1));
        // b (1 point), and for the forfeit a dummy opponent with a's own
        // 6 points (Art. 16.4).
        assert_eq!(milli(a.buchholz), 7000);
        let c = rows.iter().find(|r| r.player.id == "c").unwrap();
        assert_eq!((c.played, c.draws, c.forfeit_losses), (1, 1, 1));
        assert_eq!(milli(c.points), 1000);
    }

    #[test]
    fn a_double_forfeit_is_a_loss_for_both_and_unplayed() {
        let games = [game_scored(
            "a",
            "b",
            Outcome::DoubleForfeit,
            Termination::Forfeit,
            ScoringSystem::default(),
        )];
        let rows = rows_of(&games);
        for row in &rows {
            assert_eq!(row.points, Points::ZERO);
            assert_eq!(
                (row.played, row.forfeit_losses, row.forfeit_wins),
                (0, 1, 0)
            );
        }
    }

    #[test]
    fn unfinished_games_list_their_players_with_nothing() {
        let games = [GameRecordForStandings {
            white: player("p"),
            black: player("q"),
            finished: None,
            round: 0,
            board: 0,
            aborted: false,
        }];
        let rows = rows_of(&games);
        assert_eq!(rows.len(), 2);
        assert!(
            rows.iter()
                .all(|r| r.points == Points::ZERO && r.played == 0)
        );
    }

    /// A bye for `player` in `round`.
    fn bye(player_id: &str, round: u32, kind: ByeKind) -> Bye {
        Bye {
            player: player(player_id),
            round,
            kind,
        }
    }

    fn in_round(round: u32, mut game: GameRecordForStandings) -> GameRecordForStandings {
        game.round = round;
        game
    }

    fn forfeit(round: u32, white: &str, black: &str, outcome: Outcome) -> GameRecordForStandings {
        in_round(
            round,
            game_scored(
                white,
                black,
                outcome,
                Termination::Forfeit,
                ScoringSystem::default(),
            ),
        )
    }

    /// The nine-round Swiss of five players the API tests play too; each
    /// round one player has no game: a declared bye (U pairing-allocated,
    /// H half-point, Z zero-point) or an absence.
    ///
    /// | round | games                    | without a game |
    /// |-------|--------------------------|----------------|
    /// | 1     | a-b 1-0, c-d ½-½         | e U            |
    /// | 2     | e-a 0-1, b-c 1-0         | d H            |
    /// | 3     | a-c ½-½, d-e +/- (forf.) | b absent       |
    /// | 4     | b-d 0-1, c-e 1-0         | a Z            |
    /// | 5     | d-a 0-1, e-b ½-½         | c U            |
    /// | 6     | c-a 1-0, d-b ½-½         | e U            |
    /// | 7     | a-d ½-½, b-c +/- (forf.) | e H            |
    /// | 8     | e-c 0-1, a-b ½-½         | d absent       |
    /// | 9     | b-d 1-0, a-c ½-½         | e absent       |
    fn nine_round_swiss() -> (Vec<GameRecordForStandings>, Vec<Bye>) {
        let g = |round, white, black, outcome| in_round(round, game(white, black, outcome));
        let games = vec![
            g(1, "a", "b", Outcome::WhiteWins),
            g(1, "c", "d", Outcome::Draw),
            g(2, "e", "a", Outcome::BlackWins),
            g(2, "b", "c", Outcome::WhiteWins),
            g(3, "a", "c", Outcome::Draw),
            forfeit(3, "d", "e", Outcome::WhiteWins),
            g(4, "b", "d", Outcome::BlackWins),
            g(4, "c", "e", Outcome::WhiteWins),
            g(5, "d", "a", Outcome::BlackWins),
            g(5, "e", "b", Outcome::Draw),
            g(6, "c", "a", Outcome::WhiteWins),
            g(6, "d", "b", Outcome::Draw),
            g(7, "a", "d", Outcome::Draw),
            forfeit(7, "b", "c", Outcome::WhiteWins),
            g(8, "e", "c", Outcome::BlackWins),
            g(8, "a", "b", Outcome::Draw),
            g(9, "b", "d", Outcome::WhiteWins),
            g(9, "a", "c", Outcome::Draw),
        ];
        let byes = vec![
            bye("e", 1, ByeKind::PairingAllocated),
            bye("d", 2, ByeKind::HalfPoint),
            bye("a", 4, ByeKind::ZeroPoint),
            bye("c", 5, ByeKind::PairingAllocated),
            bye("e", 6, ByeKind::PairingAllocated),
            bye("e", 7, ByeKind::HalfPoint),
        ];
        (games, byes)
    }

    fn nine_round_rules(order: Vec<TieBreak>) -> StandingsRules {
        let (_, byes) = nine_round_swiss();
        StandingsRules {
            order: TieBreakOrder::new(order).unwrap(),
            total_rounds: Some(9),
            byes,
            ratings: [("a", 2000), ("b", 1900), ("c", 1800), ("d", 1700)]
                .into_iter()
                .map(|(id, r)| (id.to_owned(), r))
                .collect(),
            bye_points: PointTable::CLASSIC,
        }
    }

    /// Every tie-break of the nine-round Swiss, computed by hand from the
    /// 2023 regulations.
    ///
    /// Points, round by round (U/F = 1, H = ½, Z and absences = 0, a
    /// forfeit 1 or 0):
    /// a 1 1 ½ 0 1 0 ½ ½ ½ = 5; b 0 1 0 0 ½ ½ 1 ½ 1 = 4.5;
    /// c ½ 0 ½ 1 1 1 0 1 ½ = 5.5; d ½ ½ 1 1 0 ½ ½ 0 0 = 4;
    /// e 1 0 0 0 ½ 1 ½ 0 0 = 3.
    ///
    /// Scores as opponents see them (Art. 16.3): only e has voluntarily
    /// unplayed rounds after the last game it played (round 8): round 9's
    /// absence counts as a draw, so e counts 3.5; everyone else their
    /// points (d's absence in round 8 comes before its game of round 9).
    ///
    /// Buchholz, per round: a game played over the board adds the
    /// opponent's adjusted score; an unplayed round adds the player's own
    /// points (the dummy, Art. 16.4); VUR marks a voluntarily unplayed one
    /// (forfeit loss, H, Z, absence; not U nor a forfeit win).
    ///
    /// | player | r1  | r2  | r3      | r4      | r5  | r6  | r7      | r8  | r9      | BH   |
    /// |--------|-----|-----|---------|---------|-----|-----|---------|-----|---------|------|
    /// | a      | 4.5 | 3.5 | 5.5     | 5 VUR   | 4   | 5.5 | 4       | 4.5 | 5.5     | 42   |
    /// | b      | 5   | 5.5 | 4.5 VUR | 4       | 3.5 | 4   | 4.5 (+) | 5   | 4       | 40   |
    /// | c      | 4   | 4.5 | 5       | 3.5     | 5.5 U | 5 | 5.5 VUR | 3.5 | 5       | 41.5 |
    /// | d      | 5.5 | 4 VUR | 4 (+) | 4.5     | 5   | 4.5 | 5       | 4 VUR | 4.5   | 41   |
    /// | e      | 3 U | 5   | 3 VUR   | 5.5     | 4.5 | 3 U | 3 VUR   | 5.5 | 3 VUR   | 35.5 |
    ///
    /// Cut-1 leaves out a VUR first (Art. 16.5): a 42 − 5 = 37 (not the
    /// lowest, 3.5); b 40 − 4.5 = 35.5; c 41.5 − 5.5 = 36 (its forfeit
    /// loss, not 3.5); d 41 − 4 = 37; e 35.5 − 3 = 32.5. Median-1 also
    /// leaves out the highest: a 37 − 5.5 = 31.5; b 35.5 − 5.5 = 30;
    /// c 36 − 5.5 = 30.5; d 37 − 5.5 = 31.5; e 32.5 − 5.5 = 27.
    ///
    /// Sonneborn-Berger (opponent's adjusted score, or own points, times
    /// 1 / ½ / 0): a 4.5 + 3.5 + 5.5/2 + 0 + 4 + 0 + 4/2 + 4.5/2 + 5.5/2
    /// = 21.75; b 5.5 + 3.5/2 + 4/2 + 4.5 (forfeit win: own) + 5/2 + 4 =
    /// 20.25; c 4/2 + 5/2 + 3.5 + 5.5 (U: own) + 5 + 3.5 + 5/2 = 24.5;
    /// d 5.5/2 + 4/2 (H: own ½) + 4 (forfeit win: own) + 4.5 + 4.5/2 +
    /// 5/2 = 18; e 3 (U) + 4.5/2 + 3 (U) + 3/2 (H) = 9.75.
    ///
    /// WIN (rounds scoring a win, U and forfeit wins included): a 3, b 3,
    /// c 4, d 2, e 2. WON (over the board): a 3, b 2, c 3, d 1, e 0. BPG:
    /// a 3, b 4, c 4, d 4, e 1.
    ///
    /// PS (sum of the running score after each round): a 1+2+2.5+2.5+3.5
    /// +3.5+4+4.5+5 = 28.5, Cut-1 27.5; b 0+1+1+1+1.5+2+3+3.5+4.5 = 17.5,
    /// Cut-1 17.5; c 25.5, 25; d 25, 24.5; e 17, 16.
    ///
    /// ARO (a 2000, b 1900, c 1800, d 1700, e unrated; games over the
    /// board against rated opponents, rounded): a (1900+1800+1700+1800+
    /// 1700+1900+1800)/7 = 1800; b (2000+1800+1700+1700+2000+1700)/6 =
    /// 1816.7 → 1817; c 1920; d 1917; e 1875.
    #[test]
    fn a_nine_round_swiss_with_forfeits_and_byes_by_the_2023_rules() {
        let (games, _) = nine_round_swiss();
        let order = vec![
            TieBreak::Buchholz(Cut::NONE),
            TieBreak::Buchholz(Cut::lowest(1)),
            TieBreak::Buchholz(Cut::median(1)),
            TieBreak::SonnebornBerger(Cut::NONE),
            TieBreak::Wins,
            TieBreak::GamesWon,
            TieBreak::GamesWithBlack,
            TieBreak::ProgressiveScore(Cut::NONE),
            TieBreak::ProgressiveScore(Cut::lowest(1)),
            TieBreak::AverageRatingOfOpponents(Cut::NONE),
            TieBreak::DirectEncounter,
        ];
        let rows = standings(&games, &nine_round_rules(order)).unwrap();
        let table: Vec<(u32, &str, String, Vec<String>)> = rows
            .iter()
            .map(|r| {
                (
                    r.rank,
                    r.player.id.as_str(),
                    r.points.to_string(),
                    r.tie_breaks.iter().map(ToString::to_string).collect(),
                )
            })
            .collect();
        let row = |rank, id, points: &str, values: [&str; 11]| {
            (
                rank,
                id,
                points.to_owned(),
                values.iter().map(|v| (*v).to_owned()).collect::<Vec<_>>(),
            )
        };
        assert_eq!(
            table,
            [
                row(
                    1,
                    "c",
                    "5.5",
                    [
                        "41.5", "36", "30.5", "24.5", "4", "3", "4", "25.5", "25", "1920", "0"
                    ]
                ),
                row(
                    2,
                    "a",
                    "5",
                    [
                        "42", "37", "31.5", "21.75", "3", "3", "3", "28.5", "27.5", "1800", "0"
                    ]
                ),
                row(
                    3,
                    "b",
                    "4.5",
                    [
                        "40", "35.5", "30", "20.25", "3", "2", "4", "17.5", "17.5", "1817", "0"
                    ]
                ),
                row(
                    4,
                    "d",
                    "4",
                    [
                        "41", "37", "31.5", "18", "2", "1", "4", "25", "24.5", "1917", "0"
                    ]
                ),
                row(
                    5,
                    "e",
                    "3",
                    [
                        "35.5", "32.5", "27", "9.75", "2", "0", "1", "17", "16", "1875", "0"
                    ]
                ),
            ]
        );
        let c = &rows[0];
        assert_eq!((c.played, c.wins, c.draws, c.losses), (7, 3, 3, 1));
        assert_eq!((c.forfeit_wins, c.forfeit_losses), (0, 1));
        assert_eq!(
            (milli(c.buchholz), milli(c.buchholz_cut1)),
            (41_500, 36_000)
        );
        assert_eq!(milli(c.sonneborn_berger), 24_500);
    }

    #[test]
    fn a_bye_in_a_round_with_a_game_or_twice_is_refused() {
        let (games, _) = nine_round_swiss();
        let mut rules = nine_round_rules(Vec::new());
        rules.byes.push(bye("a", 1, ByeKind::HalfPoint));
        let err = standings(&games, &rules).unwrap_err();
        assert_eq!(err.field, "byes");
        assert!(err.reason.contains("'a' has a game in round 1"), "{err}");
        let mut rules = nine_round_rules(Vec::new());
        rules.byes.push(bye("e", 1, ByeKind::ZeroPoint));
        assert!(
            standings(&games, &rules)
                .unwrap_err()
                .reason
                .contains("two byes")
        );
        let mut rules = nine_round_rules(Vec::new());
        rules.byes.push(bye("e", 10, ByeKind::ZeroPoint));
        assert!(
            standings(&games, &rules)
                .unwrap_err()
                .reason
                .contains("beyond")
        );
        // Without the number of rounds, a bye may be of the next round to
        // be played at most: the rounds counted stay those of the games.
        let mut rules = nine_round_rules(Vec::new());
        rules.total_rounds = None;
        rules.byes.push(bye("e", 11, ByeKind::ZeroPoint));
        let err = standings(&games, &rules).unwrap_err();
        assert!(err.reason.contains("after round 10"), "{err}");
        rules.byes.pop();
        rules.byes.push(bye("e", 10, ByeKind::ZeroPoint));
        assert!(standings(&games, &rules).is_ok());
    }

    #[test]
    fn a_cut_beyond_the_rounds_is_refused_when_computing() {
        let (games, _) = nine_round_swiss();
        let rules = nine_round_rules(vec![TieBreak::Buchholz(Cut::median(5))]);
        let err = standings(&games, &rules).unwrap_err();
        assert_eq!(err.field, "tie_breaks");
        let rules = nine_round_rules(vec![TieBreak::ProgressiveScore(Cut::lowest(9))]);
        assert!(standings(&games, &rules).is_ok(), "nine of nine rounds");
    }

    fn de_rules() -> StandingsRules {
        StandingsRules {
            order: TieBreakOrder::new(vec![TieBreak::DirectEncounter, TieBreak::GamesWithBlack])
                .unwrap(),
            ..StandingsRules::default()
        }
    }

    fn ranks(rows: &[Standing]) -> Vec<(&str, u32, String)> {
        rows.iter()
            .map(|r| (r.player.id.as_str(), r.rank, r.direct_encounter.to_string()))
            .collect()
    }

    /// a, b and c finish on 2 points; a beat b and c, who never met. No
    /// other could reach a's 2 points against the group even by winning
    /// the game they did not play (b and c could make 1 each), so direct
    /// encounter sets a apart (as the reference reads Art. 6 for a Swiss);
    /// b and c, still not having met, go on to games with Black (c 2 to
    /// b's 1). Without it, games with Black alone would put c first.
    #[test]
    fn direct_encounter_sets_apart_a_player_nobody_could_reach() {
        let games = [
            game("a", "b", Outcome::WhiteWins),
            game("a", "c", Outcome::WhiteWins),
            game("h", "a", Outcome::WhiteWins),
            game("b", "d", Outcome::WhiteWins),
            game("b", "e", Outcome::WhiteWins),
            game("f", "c", Outcome::BlackWins),
            game("g", "c", Outcome::BlackWins),
        ];
        let rows = standings(&games, &de_rules()).unwrap();
        let top: Vec<_> = ranks(&rows).into_iter().take(3).collect();
        assert_eq!(
            top,
            [
                ("a", 1, "2".to_owned()),
                ("c", 2, "0".to_owned()),
                ("b", 3, "0".to_owned()),
            ]
        );
    }

    /// a, b, c and d all finish on 2 points and have all met each other:
    /// a beat b and d, lost to c; b beat c and d; c beat a; d beat c; c
    /// and d also beat e and f. Direct encounter among the four: a 2, b 2,
    /// c 1, d 1. Applied again to {a, b}: a beat b (1 to 0); to {c, d}: d
    /// beat c. So a, b, d, c. e and f (0 points) never met: direct
    /// encounter does not apply, and games with Black (e 1, f 1) leave
    /// them tied.
    #[test]
    fn direct_encounter_is_applied_again_within_a_still_tied_group() {
        let games = [
            game("a", "b", Outcome::WhiteWins),
            game("c", "a", Outcome::WhiteWins),
            game("a", "d", Outcome::WhiteWins),
            game("b", "c", Outcome::WhiteWins),
            game("d", "b", Outcome::BlackWins),
            game("d", "c", Outcome::WhiteWins),
            game("c", "e", Outcome::WhiteWins),
            game("d", "f", Outcome::WhiteWins),
        ];
        let rows = standings(&games, &de_rules()).unwrap();
        let de = |v: &str| v.to_owned();
        assert_eq!(
            ranks(&rows),
            [
                ("a", 1, de("2")),
                ("b", 2, de("2")),
                ("d", 3, de("1")),
                ("c", 4, de("1")),
                ("e", 5, de("0")),
                ("f", 5, de("0")),
            ]
        );
        assert!(
            rows.iter()
                .take(4)
                .all(|r| r.points == Points::from_milli(2000))
        );
    }

    /// x, y and z finish on 1 point; x beat y, but z met neither: direct
    /// encounter does not apply (it would put x above y), and games with
    /// Black decide: y 2 (against x and v), x 0, z 0.
    #[test]
    fn direct_encounter_needs_every_tied_player_to_have_met() {
        let games = [
            game("x", "y", Outcome::WhiteWins),
            game("v", "y", Outcome::BlackWins),
            game("z", "w", Outcome::WhiteWins),
        ];
        let rows = standings(&games, &de_rules()).unwrap();
        let de = |v: &str| v.to_owned();
        assert_eq!(
            ranks(&rows),
            [
                ("y", 1, de("0")),
                ("x", 2, de("0")),
                ("z", 2, de("0")),
                ("w", 4, de("0")),
                ("v", 5, de("0")),
            ]
        );
    }
}
