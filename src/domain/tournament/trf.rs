//! Export of an event in the FIDE Tournament Report File format (TRF-16),
//! which pairing engines such as bbpPairings and JaVaFo read.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::domain::{
    Acceleration, Bye, ByeKind, Color, EventId, ForbiddenPair, GameRecordForStandings,
    MatchPointTable, Outcome, Player, PointTable, Points, RoundSummary, Score, ScoringSystem,
    Standing, TeamRegistration, team_matches,
};

/// Pads or cuts `text` to exactly `width` characters, left-aligned.
fn left(text: &str, width: usize) -> String {
    let cut: String = text.chars().take(width).collect();
    format!("{cut:<width$}")
}

/// Points as TRF writes them: one decimal, right-aligned in four columns.
fn trf_points(milli: i64) -> String {
    let tenths = (milli + if milli >= 0 { 50 } else { -50 }) / 100;
    let text = format!("{}.{}", tenths / 10, (tenths % 10).abs());
    format!("{text:>4}")
}

/// The result code of one side of a game.
fn result_code(outcome: Outcome, score: Score, color: Color) -> char {
    let won = outcome == Outcome::win_for(color);
    match (score.played, outcome) {
        (true, Outcome::Draw) => '=',
        (true, _) if won => '1',
        (true, _) => '0',
        (false, _) if won => '+',
        (false, _) => '-',
    }
}

/// What the report says of the tournament beyond its games.
#[derive(Clone, Debug, Default)]
pub struct TrfEvent {
    /// The number of rounds the tournament will have (XXR, which pairing
    /// engines need to pair the next round); at least the highest round
    /// played, which it defaults to.
    pub total_rounds: Option<u32>,
    /// The points every game of the event scores, when they are not 1, ½
    /// and 0: written as bbpPairings' point-system lines (BBW, BBD, BBL,
    /// and BBF when a forfeit loss scores) and TRF-2026's 162 line.
    pub points: Option<PointTable>,
    /// The byes of rounds players have no game in (scored with `points`,
    /// or 1 / ½ / 0).
    pub byes: Vec<Bye>,
    /// Players in starting-rank order, as the event's rounds brought them:
    /// they rank first, in this order (see [`starting_ranks`]).
    pub roster: Vec<Player>,
    /// Pairs a pairing engine must never pair, written as `XXP` lines (a
    /// pair naming a player without a rank is left out).
    pub forbidden_pairs: Vec<ForbiddenPair>,
    /// Points added for pairing only, written as `XXA` lines, one per
    /// accelerated player, the points of each round from round 1.
    pub accelerations: Vec<Acceleration>,
    /// The registered teams, each its name and its players' ids in roster
    /// order, written as the `013` lines; empty: the teams the games'
    /// players make, if they make a team event.
    pub teams: Vec<(String, Vec<String>)>,
    /// The registered teams' matches, from the rounds.
    pub matches: Vec<TrfMatch>,
    /// The registered teams' pairing-allocated byes, from the rounds.
    pub team_byes: Vec<TrfTeamBye>,
    /// Players who rank after everyone the rounds, games and byes bring,
    /// in this order, unless one of those brings them: the registered
    /// teams' players, so that every team's line lists its roster.
    pub also_ranked: Vec<Player>,
}

/// A registered team's pairing-allocated bye as a report writes it, in a
/// TRF-2026 `320` record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrfTeamBye {
    /// The round.
    pub round: u32,
    /// The team (its place in [`TrfEvent::teams`], from 1).
    pub team: usize,
    /// Its match points, under TRF-2026's default team points (2, 1, 0).
    pub match_points: Points,
    /// Its game points.
    pub game_points: Points,
}

/// A registered teams' match as a report writes it: a TRF-2026 `300`
/// line-up for each team that left a board empty, and a `330` record for
/// a match forfeited whole.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrfMatch {
    /// The round.
    pub round: u32,
    /// The teams (their places in [`TrfEvent::teams`], from 1), the team
    /// with White on board 1 first.
    pub teams: [usize; 2],
    /// Each team's line-up, a player id per board (`None`: left empty).
    pub line_ups: [Vec<Option<String>>; 2],
    /// For a match forfeited whole, whether each team forfeited.
    pub forfeited: Option<[bool; 2]>,
}

/// The `XXP` and `XXA` lines of `event`, players numbered by `ranks`: one
/// `XXP a b` line per forbidden pair (bbpPairings forbids every pair of
/// the players a line lists), and per accelerated player `XXA` with the
/// rank in columns 5-8 and each round's points from column 10, four
/// columns each, five apart (a round without acceleration is 0.0).
fn pairing_constraint_lines(event: &TrfEvent, ranks: &HashMap<&str, usize>) -> Vec<String> {
    let mut lines = Vec::new();
    for pair in &event.forbidden_pairs {
        if let (Some(a), Some(b)) = (
            ranks.get(pair.first.as_str()),
            ranks.get(pair.second.as_str()),
        ) {
            lines.push(format!("XXP {a:>4} {b:>4}"));
        }
    }
    // Each player's accelerations, a repeat of the same one (given again
    // with a later round) counted once.
    let mut accelerated: HashMap<usize, Vec<&Acceleration>> = HashMap::new();
    for acceleration in &event.accelerations {
        let Some(&rank) = ranks.get(acceleration.player.as_str()) else {
            continue;
        };
        let of_player = accelerated.entry(rank).or_default();
        if !of_player.contains(&acceleration) {
            of_player.push(acceleration);
        }
    }
    let mut accelerated: Vec<(usize, Vec<&Acceleration>)> = accelerated.into_iter().collect();
    accelerated.sort_by_key(|(rank, _)| *rank);
    for (rank, of_player) in accelerated {
        let last = of_player.iter().map(|a| a.last).max().unwrap_or(0);
        let mut by_round = vec![0i64; usize::try_from(last).unwrap_or(0) + 1];
        for acceleration in &of_player {
            for round in acceleration.first..=acceleration.last {
                if let Some(points) = usize::try_from(round)
                    .ok()
                    .and_then(|r| by_round.get_mut(r))
                {
                    *points += acceleration.points.milli();
                }
            }
        }
        let mut line = format!("XXA {rank:>4}");
        for milli in by_round.iter().skip(1) {
            line.push(' ');
            line.push_str(&trf_points(*milli));
        }
        lines.push(line);
    }
    lines
}

/// An event's starting ranks, rank 1 first: the players of `roster` in its
/// order, then every other player by first appearance in `games` (round,
/// board, White before Black), then those with only `byes`. Ranks stay
/// stable as rounds are added.
pub fn starting_ranks<'a>(
    roster: &[Player],
    games: impl IntoIterator<Item = &'a GameRecordForStandings>,
    byes: &[Bye],
) -> Vec<Player> {
    let mut games: Vec<&GameRecordForStandings> =
        games.into_iter().filter(|g| g.round > 0).collect();
    games.sort_by_key(|g| (g.round, g.board));
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut players = Vec::new();
    let everyone = roster
        .iter()
        .chain(games.iter().flat_map(|g| [&g.white, &g.black]))
        .chain(byes.iter().map(|b| &b.player));
    for player in everyone {
        if seen.insert(player.id.as_str()) {
            players.push(player.clone());
        }
    }
    players
}

/// The point-system lines for `table`, none for 1 / ½ / 0: bbpPairings'
/// BBW, BBD, BBL, written `BBW pp.p` (the points right-aligned in columns
/// 5-8, as it reads them), and BBF (the forfeit loss) when a loss scores;
/// its BBZ and BBU defaults, nothing for a zero-point bye and a win's
/// points for the pairing-allocated bye, are the arbiter's. Then TRF-2026's
/// 162 line (W, D, L at columns 6, 15 and 24, the points after each),
/// unless a loss scores: 162 has one value (A) for both a forfeit loss and
/// a zero-point bye, which the arbiter scores apart.
fn point_system_lines(table: PointTable) -> Vec<String> {
    if table == PointTable::CLASSIC {
        return Vec::new();
    }
    let mut lines = vec![
        format!("BBW {}", trf_points(table.win().milli())),
        format!("BBD {}", trf_points(table.draw().milli())),
        format!("BBL {}", trf_points(table.loss().milli())),
    ];
    if table.loss() != Points::ZERO {
        lines.push(format!("BBF {}", trf_points(table.loss().milli())));
    } else {
        lines.push(format!(
            "162  W{}    D{}    L{}",
            trf_points(table.win().milli()),
            trf_points(table.draw().milli()),
            trf_points(table.loss().milli()),
        ));
    }
    lines
}

/// The point system a report can state for games scoring with `systems`:
/// one table, when every game agrees and scores both colours alike
/// (Armageddon and mixed systems have no TRF form).
pub fn point_system(systems: impl IntoIterator<Item = ScoringSystem>) -> Option<PointTable> {
    let mut systems = systems.into_iter();
    let first = systems.next()?;
    let stateable = !first.armageddon && first.white == first.black;
    (stateable && systems.all(|system| system == first)).then_some(first.white)
}

/// The report: tournament name (012), number of players (062), number of
/// rounds (XXR), the point system when it is not 1 / ½ / 0 (see
/// [`point_system_lines`]), then one player line (001) per player with points, rank and a
/// 10-column block per round — opponent's starting rank, colour and result
/// (`1`, `=`, `0`, `+`, `-`; for a round without a game `0000 - ` and the
/// bye's code, `U` pairing-allocated, `F` full-point, `H` half-point, `Z`
/// zero-point, which an undeclared round without a game is). The points
/// column counts the games the rounds show (games without a round number
/// are left out of both), so a pairing engine's score check agrees.
/// Starting ranks follow the players' first appearance (round, board, White
/// before Black), so they stay stable as rounds are added. A round in
/// progress shows its pairings with a blank result.
///
/// Refused, before anything is written, when the report could be larger
/// than `max_bytes` counted at its widest (see [`TrfTooLarge`]).
pub fn export(
    event_id: &EventId,
    event: TrfEvent,
    games: &[GameRecordForStandings],
    standings: &[Standing],
    max_bytes: usize,
) -> Result<String, TrfTooLarge> {
    let mut games: Vec<&GameRecordForStandings> = games.iter().filter(|g| g.round > 0).collect();
    games.sort_by_key(|g| (g.round, g.board));
    let mut players = starting_ranks(&event.roster, games.iter().copied(), &event.byes);
    let known: HashSet<String> = players.iter().map(|p| p.id.clone()).collect();
    players.extend(
        event
            .also_ranked
            .iter()
            .filter(|p| !known.contains(&p.id))
            .cloned(),
    );
    let ranks: HashMap<&str, usize> = players
        .iter()
        .enumerate()
        .map(|(index, player)| (player.id.as_str(), index + 1))
        .collect();
    let rounds = games
        .iter()
        .map(|g| g.round)
        .chain(event.byes.iter().map(|b| b.round))
        .chain(event.matches.iter().map(|m| m.round))
        .chain(event.team_byes.iter().map(|b| b.round))
        .max()
        .unwrap_or(0);
    TrfTooLarge::check(players.len(), rounds, max_bytes)?;
    TrfTooLarge::check_matches(&event.matches, &event.team_byes, rounds, max_bytes)?;
    let table = event.points.unwrap_or(PointTable::CLASSIC);
    // Each player's game of each round (the first by board, should a
    // player have two), so that the report costs one pass over the games.
    let mut played: HashMap<(&str, u32), &GameRecordForStandings> = HashMap::new();
    for game in games.iter().filter(|g| !g.aborted) {
        for player in [&game.white, &game.black] {
            played
                .entry((player.id.as_str(), game.round))
                .or_insert(game);
        }
    }
    let byes: HashMap<(&str, u32), ByeKind> = event
        .byes
        .iter()
        .map(|b| ((b.player.id.as_str(), b.round), b.kind))
        .collect();
    // Each player's points from the games the rounds show, and the byes.
    let mut points: HashMap<&str, i64> = HashMap::new();
    for bye in &event.byes {
        *points.entry(bye.player.id.as_str()).or_default() += bye.kind.points(&table).milli();
    }
    for game in games.iter().filter(|g| !g.aborted) {
        if let Some(score) = game.finished {
            *points.entry(game.white.id.as_str()).or_default() += score.white.milli();
            *points.entry(game.black.id.as_str()).or_default() += score.black.milli();
        }
    }
    let standing: HashMap<&str, &Standing> = standings
        .iter()
        .map(|s| (s.player.id.as_str(), s))
        .collect();

    let mut out = String::new();
    out.push_str(&format!(
        "012 {}\n",
        left(event_id.as_str(), 120).trim_end()
    ));
    out.push_str(&format!("062 {}\n", players.len()));
    out.push_str(&format!(
        "XXR {}\n",
        event.total_rounds.unwrap_or(rounds).max(rounds)
    ));
    for line in point_system_lines(table)
        .into_iter()
        .chain(pairing_constraint_lines(&event, &ranks))
    {
        out.push_str(&line);
        out.push('\n');
    }
    for (index, player) in players.iter().enumerate() {
        let row = standing.get(player.id.as_str());
        let mut line = format!(
            "001 {:>4}      {} {:>4} {:>3} {:>11} {:>10} {} {:>4}",
            index + 1,
            left(player.display_name(), 33),
            "",
            "",
            "",
            "",
            trf_points(points.get(player.id.as_str()).copied().unwrap_or(0)),
            row.map_or(0, |r| r.rank),
        );
        for round in 1..=rounds {
            let game = played.get(&(player.id.as_str(), round)).copied();
            let bye = byes
                .get(&(player.id.as_str(), round))
                .copied()
                .unwrap_or(ByeKind::ZeroPoint);
            let block = match game {
                None => format!("0000 - {}", bye.trf_code()),
                Some(game) => {
                    let color = if game.white.id == player.id {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let opponent = color.fold_wb(&game.black, &game.white);
                    let code = game
                        .finished
                        .map_or(' ', |score| result_code(score.scored_as, score, color));
                    format!(
                        "{:>4} {} {}",
                        ranks.get(opponent.id.as_str()).copied().unwrap_or(0),
                        color.fold_wb('w', 'b'),
                        code
                    )
                }
            };
            line.push_str("  ");
            line.push_str(&block);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let teams = if event.teams.is_empty() {
        team_lines(&games, &ranks)
    } else {
        registered_team_lines(&event.teams, &ranks)
    };
    let byes = bye_lines(&event.team_byes, rounds);
    for line in teams
        .into_iter()
        .chain(match_lines(&event.matches, &ranks))
        .chain(byes)
    {
        out.push_str(&line);
        out.push('\n');
    }
    // The pairs, accelerations and teams are not in the bound checked
    // first.
    if out.len() > max_bytes {
        return Err(TrfTooLarge {
            size: out.len(),
            limit: max_bytes,
        });
    }
    Ok(out)
}

/// The `013` team lines of a team event (one whose every game is between
/// two teams' players, see [`team_matches`]): per team, in the order of
/// the teams' names, the name (its first 32 characters) and its players'
/// starting ranks in board order, as TRF-16 writes a team and as its
/// readers take each match's board order from. The order keeps every
/// match's: a player who played above another in a match comes first
/// (then the player who played highest, then the lower starting rank);
/// should the matches disagree, what is left goes by place and rank. None
/// for any other event.
fn team_lines(games: &[&GameRecordForStandings], ranks: &HashMap<&str, usize>) -> Vec<String> {
    let Ok(event) = team_matches(games.iter().copied()) else {
        return Vec::new();
    };
    // Each team's players of each match, in board order.
    let mut by_match: HashMap<(u32, &str), Vec<(u32, &str)>> = HashMap::new();
    for game in games.iter().filter(|g| !g.aborted) {
        for player in [&game.white, &game.black] {
            if let Some(team) = player.team() {
                by_match
                    .entry((game.round, team))
                    .or_default()
                    .push((game.board, player.id.as_str()));
            }
        }
    }
    // Per team: each player's highest place, and who played above whom.
    let mut places: HashMap<&str, HashMap<&str, usize>> = HashMap::new();
    let mut above: HashMap<&str, HashSet<(&str, &str)>> = HashMap::new();
    for ((_, team), mut boards) in by_match {
        boards.sort_unstable();
        let members = places.entry(team).or_default();
        for (place, (_, player)) in boards.iter().enumerate() {
            let best = members.entry(player).or_insert(place);
            *best = (*best).min(place);
        }
        let pairs = above.entry(team).or_default();
        for pair in boards.windows(2) {
            pairs.insert((pair[0].1, pair[1].1));
        }
    }
    event
        .teams
        .iter()
        .map(|team| {
            let members = places.remove(team.as_str()).unwrap_or_default();
            let pairs = above.remove(team.as_str()).unwrap_or_default();
            let key = |player: &str| {
                (
                    members[player],
                    ranks.get(player).copied().unwrap_or(usize::MAX),
                    player.to_owned(),
                )
            };
            // Kahn's order: the first player (by key) nobody left played
            // above; should the matches disagree (a cycle), the first left.
            let mut below: HashMap<&str, Vec<&str>> = HashMap::new();
            let mut higher: HashMap<&str, usize> = HashMap::new();
            for (upper, lower) in &pairs {
                below.entry(upper).or_default().push(lower);
                *higher.entry(lower).or_default() += 1;
            }
            let mut left_to_place: BTreeSet<(usize, usize, String)> =
                members.keys().map(|player| key(player)).collect();
            let mut ready: BTreeSet<(usize, usize, String)> = members
                .keys()
                .filter(|player| !higher.contains_key(*player))
                .map(|player| key(player))
                .collect();
            let mut order: Vec<String> = Vec::with_capacity(members.len());
            while let Some(next) = ready.pop_first().or_else(|| left_to_place.first().cloned()) {
                if !left_to_place.remove(&next) {
                    continue;
                }
                for lower in below.get(next.2.as_str()).into_iter().flatten() {
                    if let Some(count) = higher.get_mut(lower) {
                        *count -= 1;
                        if *count == 0 {
                            ready.insert(key(lower));
                        }
                    }
                }
                order.push(next.2);
            }
            let numbers: Vec<String> = order
                .iter()
                .filter_map(|player| ranks.get(player.as_str()))
                .map(|rank| format!("{rank:>4}"))
                .collect();
            format!("013 {}{}", left(team, 32), numbers.join(" "))
        })
        .collect()
}

/// The `013` lines of registered teams: per team, in the order
/// registered, the name (its first 32 characters) and the starting ranks
/// of its players in roster order, those without a rank (who have played
/// no round) left out.
fn registered_team_lines(
    teams: &[(String, Vec<String>)],
    ranks: &HashMap<&str, usize>,
) -> Vec<String> {
    teams
        .iter()
        .map(|(name, players)| {
            let numbers: Vec<String> = players
                .iter()
                .filter_map(|player| ranks.get(player.as_str()))
                .map(|rank| format!("{rank:>4}"))
                .collect();
            format!("013 {}{}", left(name, 32), numbers.join(" "))
        })
        .collect()
}

impl TrfEvent {
    /// The report with `registration`'s teams: their `013` lines from the
    /// rosters, the matches and byes `rounds` made between them, and their
    /// players ranked after everyone else.
    #[must_use]
    pub fn with_teams(mut self, registration: &TeamRegistration, rounds: &[&RoundSummary]) -> Self {
        self.teams = registration
            .teams()
            .iter()
            .map(|team| {
                let ids = team.players.iter().map(|p| p.id.clone()).collect();
                (team.name.clone(), ids)
            })
            .collect();
        self.matches = TrfMatch::registered(registration, rounds);
        self.team_byes = TrfTeamBye::registered(registration, rounds);
        self.also_ranked = registration
            .teams()
            .iter()
            .flat_map(|team| &team.players)
            .cloned()
            .collect();
        self
    }
}

impl TrfMatch {
    /// The matches `rounds` made between `registration`'s teams.
    pub fn registered(registration: &TeamRegistration, rounds: &[&RoundSummary]) -> Vec<Self> {
        let mut matches = Vec::new();
        let index = registration.index();
        for round in rounds {
            for plan in &round.matches {
                let found = [&plan.teams[0], &plan.teams[1]].map(|id| index.get(id.as_str()));
                let [Some(&first), Some(&second)] = found else {
                    continue;
                };
                let line_up = |side: usize| -> Vec<Option<String>> {
                    plan.line_ups[side]
                        .iter()
                        .map(|id| (!id.is_empty()).then(|| id.clone()))
                        .collect()
                };
                let forfeited = plan.forfeit.map(|f| [f.by(0), f.by(1)]);
                let mut m = Self {
                    round: round.number,
                    teams: [first + 1, second + 1],
                    line_ups: [line_up(0), line_up(1)],
                    forfeited,
                };
                if !plan.first_white {
                    m.teams.swap(0, 1);
                    m.line_ups.swap(0, 1);
                    if let Some(f) = m.forfeited.as_mut() {
                        f.swap(0, 1);
                    }
                }
                matches.push(m);
            }
        }
        matches
    }
}

impl TrfTeamBye {
    /// The pairing-allocated byes `rounds` gave `registration`'s teams.
    pub fn registered(registration: &TeamRegistration, rounds: &[&RoundSummary]) -> Vec<Self> {
        let index = registration.index();
        rounds
            .iter()
            .flat_map(|round| round.team_byes.iter().map(move |bye| (round.number, bye)))
            .filter_map(|(round, bye)| {
                Some(Self {
                    round,
                    team: index.get(bye.team.as_str())? + 1,
                    match_points: bye.outcome.points(MatchPointTable::OLYMPIAD),
                    game_points: bye.game_points,
                })
            })
            .collect()
    }
}

/// The TRF-2026 `320` records of registered teams' byes: per match and
/// game points a bye scores, the team given it in each round up to
/// `rounds` (`000` for none); a round with two such byes takes a second
/// line.
fn bye_lines(byes: &[TrfTeamBye], rounds: u32) -> Vec<String> {
    // Per points, per round, the teams given such a bye.
    let mut groups: BTreeMap<(i64, i64), BTreeMap<u32, Vec<usize>>> = BTreeMap::new();
    for bye in byes.iter().filter(|b| b.round >= 1 && b.round <= rounds) {
        groups
            .entry((bye.match_points.milli(), bye.game_points.milli()))
            .or_default()
            .entry(bye.round)
            .or_default()
            .push(bye.team);
    }
    let mut lines = Vec::new();
    for ((match_points, game_points), by_round) in groups {
        let depth = by_round.values().map(Vec::len).max().unwrap_or(0);
        for line_index in 0..depth {
            let mut line = format!(
                "320 {} {}",
                trf_points(match_points),
                trf_points(game_points)
            );
            for round in 1..=rounds {
                let team = by_round
                    .get(&round)
                    .and_then(|teams| teams.get(line_index))
                    .copied()
                    .unwrap_or(0);
                line.push_str(&format!(" {team:03}"));
            }
            lines.push(line);
        }
    }
    lines
}

/// The TRF-2026 records of registered teams' matches: a `300` line-up
/// (round, team, opponent, each board's player or `0000`) for each team
/// that left a board empty, which a reader cannot place from the `013`
/// order alone; a `330` record (`+-` won by the team with White on board
/// 1, `-+` by the other, `--` forfeited by both) for a match forfeited
/// whole.
fn match_lines(matches: &[TrfMatch], ranks: &HashMap<&str, usize>) -> Vec<String> {
    let mut lines = Vec::new();
    for m in matches {
        if let Some(forfeited) = m.forfeited {
            let code = match forfeited {
                [false, true] => "+-",
                [true, false] => "-+",
                _ => "--",
            };
            lines.push(format!(
                "330 {code} {:03} {:03} {:03}",
                m.round, m.teams[0], m.teams[1]
            ));
            continue;
        }
        for side in 0..2 {
            let line_up = &m.line_ups[side];
            if line_up.iter().all(Option::is_some) {
                continue;
            }
            let players: Vec<String> = line_up
                .iter()
                .map(|player| {
                    let rank = player
                        .as_deref()
                        .and_then(|id| ranks.get(id))
                        .copied()
                        .unwrap_or(0);
                    format!("{rank:04}")
                })
                .collect();
            lines.push(format!(
                "300 {:03} {:03} {:03} {}",
                m.round,
                m.teams[side],
                m.teams[1 - side],
                players.join(" ")
            ));
        }
    }
    lines
}

/// A report that could be larger than a reply may be: `size` bytes at its
/// widest, over `limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the TRF report could be {size} bytes, over the limit of {limit}")]
pub struct TrfTooLarge {
    /// The report's size at its widest.
    pub size: usize,
    /// The largest a report may be.
    pub limit: usize,
}

impl TrfTooLarge {
    /// The most bytes the header lines take: 012 with an event id of 128
    /// characters of up to 4 bytes each, 062, XXR and the point system.
    const HEADER_BYTES: usize = 1_000;
    /// The most bytes a player line takes before its rounds: the columns up
    /// to the rank, with a name of 33 characters of up to 4 bytes each.
    const PLAYER_BYTES: usize = 200;
    /// The bytes a round takes on a player line.
    const ROUND_BYTES: usize = 10;

    /// Refuses a report of `players` players over `rounds` rounds that
    /// could be larger than `max_bytes`.
    fn check(players: usize, rounds: u32, max_bytes: usize) -> Result<(), Self> {
        let largest = Self::largest(players, rounds);
        if largest > max_bytes {
            return Err(Self {
                size: largest,
                limit: max_bytes,
            });
        }
        Ok(())
    }

    /// Refuses a report whose teams' matches and byes could take more
    /// than `max_bytes` of `300`, `330` and `320` records (two per match at
    /// most, each 16 bytes and 5 a board; a bye line per round's bye of
    /// the same points, 14 bytes and 4 a round).
    fn check_matches(
        matches: &[TrfMatch],
        byes: &[TrfTeamBye],
        rounds: u32,
        max_bytes: usize,
    ) -> Result<(), Self> {
        let mut per_round: HashMap<(i64, i64, u32), usize> = HashMap::new();
        for bye in byes {
            *per_round
                .entry((bye.match_points.milli(), bye.game_points.milli(), bye.round))
                .or_default() += 1;
        }
        let mut lines: HashMap<(i64, i64), usize> = HashMap::new();
        for ((match_points, game_points, _), count) in per_round {
            let most = lines.entry((match_points, game_points)).or_default();
            *most = (*most).max(count);
        }
        let bye_bytes = lines
            .values()
            .sum::<usize>()
            .saturating_mul(14 + 4 * rounds as usize);
        let largest: usize = matches
            .iter()
            .map(|m| 2 * (16 + 5 * m.line_ups[0].len().max(m.line_ups[1].len())))
            .sum::<usize>()
            .saturating_add(bye_bytes);
        if largest > max_bytes {
            return Err(Self {
                size: largest,
                limit: max_bytes,
            });
        }
        Ok(())
    }

    /// The check [`export`] makes, made before anything else is computed:
    /// the report of `games` and `byes` could be larger than `max_bytes`.
    pub fn check_event(
        games: &[GameRecordForStandings],
        byes: &[Bye],
        max_bytes: usize,
    ) -> Result<(), Self> {
        let listed = games.iter().filter(|g| g.round > 0);
        let players: std::collections::HashSet<&str> = listed
            .clone()
            .flat_map(|g| [g.white.id.as_str(), g.black.id.as_str()])
            .chain(byes.iter().map(|b| b.player.id.as_str()))
            .collect();
        let rounds = listed
            .map(|g| g.round)
            .chain(byes.iter().map(|b| b.round))
            .max()
            .unwrap_or(0);
        Self::check(players.len(), rounds, max_bytes)
    }

    /// The most bytes a report of `players` players over `rounds` rounds
    /// can take: a bound on [`export`]'s output that costs nothing to
    /// compute.
    pub fn largest(players: usize, rounds: u32) -> usize {
        let line = Self::PLAYER_BYTES + Self::ROUND_BYTES * rounds as usize;
        Self::HEADER_BYTES.saturating_add(players.saturating_mul(line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        GameResult, ScoringSystem, Termination, tournament::standings::GameRecordForStandings,
    };

    fn player(id: &str) -> Player {
        Player {
            id: id.to_owned(),
            name: format!("Player, {id}"),
            ..Default::default()
        }
    }

    fn game(
        round: u32,
        board: u32,
        white: &str,
        black: &str,
        outcome: Option<Outcome>,
    ) -> GameRecordForStandings {
        let finished = outcome.map(|outcome| {
            let result = GameResult {
                outcome,
                termination: Termination::Checkmate,
            };
            ScoringSystem::default().score(result)
        });
        GameRecordForStandings {
            round,
            board,
            white: player(white),
            black: player(black),
            finished,
            aborted: false,
        }
    }

    fn report(games: &[GameRecordForStandings]) -> String {
        report_of(TrfEvent::default(), games)
    }

    fn report_of(event: TrfEvent, games: &[GameRecordForStandings]) -> String {
        let rules = crate::domain::StandingsRules {
            byes: event.byes.clone(),
            ..Default::default()
        };
        let rows = crate::domain::standings(games, &rules).unwrap();
        export(
            &EventId::parse("Club Open").unwrap(),
            event,
            games,
            &rows,
            usize::MAX,
        )
        .unwrap()
    }

    /// The fixed columns of TRF-16 (1-based, inclusive).
    fn field(line: &str, from: usize, to: usize) -> String {
        line.chars().skip(from - 1).take(to - from + 1).collect()
    }

    #[test]
    fn player_lines_follow_the_published_columns() {
        let games = [
            game(1, 1, "a", "b", Some(Outcome::WhiteWins)),
            game(1, 2, "c", "d", Some(Outcome::Draw)),
            game(2, 1, "d", "a", Some(Outcome::BlackWins)),
            game(2, 2, "b", "c", None),
        ];
        let trf = report(&games);
        let lines: Vec<&str> = trf.lines().collect();
        assert_eq!(lines[0], "012 Club Open");
        assert_eq!(lines[1], "062 4");
        // The rounds played so far, when the total is not given.
        assert_eq!(lines[2], "XXR 2");
        let a = lines[3];
        assert_eq!(field(a, 1, 3), "001");
        assert_eq!(field(a, 5, 8), "   1");
        assert_eq!(field(a, 15, 47).trim_end(), "Player, a");
        assert_eq!(field(a, 81, 84), " 2.0");
        assert_eq!(field(a, 86, 89), "   1");
        // Round 1: beat b (rank 2) with White; round 2: beat d (rank 4)
        // with Black.
        assert_eq!(field(a, 92, 95), "   2");
        assert_eq!(field(a, 97, 97), "w");
        assert_eq!(field(a, 99, 99), "1");
        assert_eq!(field(a, 102, 105), "   4");
        assert_eq!(field(a, 107, 107), "b");
        assert_eq!(field(a, 109, 109), "1");
        let c = lines[5];
        assert_eq!(field(c, 5, 8), "   3");
        assert_eq!(field(c, 81, 84), " 0.5");
        assert_eq!(field(c, 99, 99), "=");
        // Round 2 is in progress: paired, no result yet.
        assert_eq!(field(c, 102, 105), "   2");
        assert_eq!(field(c, 107, 107), "b");
        assert_eq!(field(c, 109, 109).trim(), "");
    }

    #[test]
    fn forfeits_and_absences_have_their_codes() {
        let mut forfeit = game(1, 1, "a", "b", None);
        let result = GameResult {
            outcome: Outcome::BlackWins,
            termination: Termination::NoShow,
        };
        forfeit.finished = Some(ScoringSystem::default().score(result));
        let games = [forfeit, game(2, 1, "a", "c", Some(Outcome::Draw))];
        let trf = report(&games);
        let lines: Vec<&str> = trf.lines().collect();
        let a = lines[3];
        let b = lines[4];
        assert_eq!(field(a, 99, 99), "-");
        assert_eq!(field(b, 99, 99), "+");
        // b has no game in round 2: an absence.
        assert_eq!(field(b, 102, 109), "0000 - Z");
    }

    #[test]
    fn the_rounds_to_come_and_the_point_system_are_stated() {
        let games = [game(1, 1, "a", "b", Some(Outcome::WhiteWins))];
        let nine = report_of(
            TrfEvent {
                total_rounds: Some(9),
                points: Some(PointTable::CLASSIC),
                ..Default::default()
            },
            &games,
        );
        let lines: Vec<&str> = nine.lines().collect();
        assert_eq!(lines[2], "XXR 9");
        // 1 / ½ / 0 needs no point-system lines.
        assert_eq!(field(lines[3], 1, 3), "001");

        let football = PointTable::new(
            "points",
            crate::domain::Points::from_milli(3000),
            crate::domain::Points::from_milli(1000),
            crate::domain::Points::ZERO,
        )
        .expect("3/1/0");
        let mut scored = game(1, 1, "a", "b", None);
        scored.finished = Some(ScoringSystem::uniform(football).score(GameResult {
            outcome: Outcome::WhiteWins,
            termination: Termination::Checkmate,
        }));
        let trf = report_of(
            TrfEvent {
                total_rounds: None,
                points: Some(football),
                ..Default::default()
            },
            &[scored],
        );
        let lines: Vec<&str> = trf.lines().collect();
        assert_eq!(
            &lines[2..7],
            [
                "XXR 1",
                "BBW  3.0",
                "BBD  1.0",
                "BBL  0.0",
                "162  W 3.0    D 1.0    L 0.0"
            ]
        );
        assert_eq!(field(lines[7], 81, 84), " 3.0");
    }

    #[test]
    fn only_one_system_for_both_colours_has_a_point_system() {
        let classic = ScoringSystem::default();
        let armageddon = ScoringSystem {
            armageddon: true,
            ..classic
        };
        let football = ScoringSystem::uniform(PointTable::FOOTBALL);
        assert_eq!(point_system([classic, classic]), Some(PointTable::CLASSIC));
        assert_eq!(point_system([football]), Some(PointTable::FOOTBALL));
        assert_eq!(point_system([classic, football]), None);
        assert_eq!(point_system([armageddon]), None);
        assert_eq!(point_system([]), None);
    }

    #[test]
    fn games_without_a_round_count_nowhere() {
        // b beat a in a game without a round number: left out of the
        // rounds, and so of the points, which the engine checks.
        let games = [
            game(1, 1, "a", "b", Some(Outcome::Draw)),
            game(0, 0, "b", "a", Some(Outcome::WhiteWins)),
        ];
        let trf = report(&games);
        let lines: Vec<&str> = trf.lines().collect();
        assert_eq!(lines[2], "XXR 1");
        assert_eq!(field(lines[3], 81, 84), " 0.5");
        assert_eq!(field(lines[4], 81, 84), " 0.5");
    }

    #[test]
    fn byes_have_their_codes_and_points() {
        let bye = |id: &str, round, kind| Bye {
            player: player(id),
            round,
            kind,
        };
        let games = [
            game(1, 1, "a", "b", Some(Outcome::Draw)),
            game(2, 1, "c", "a", Some(Outcome::BlackWins)),
        ];
        let event = TrfEvent {
            byes: vec![
                bye("c", 1, ByeKind::PairingAllocated),
                bye("b", 2, ByeKind::HalfPoint),
                bye("d", 1, ByeKind::FullPoint),
            ],
            ..TrfEvent::default()
        };
        let trf = report_of(event, &games);
        let lines: Vec<&str> = trf.lines().collect();
        assert_eq!(lines[1], "062 4");
        // a 1, b 2, c 3 from the games, then d from the byes.
        let (b, c, d) = (lines[4], lines[5], lines[6]);
        assert_eq!(field(b, 102, 109), "0000 - H");
        assert_eq!(field(b, 81, 84), " 1.0");
        assert_eq!(field(c, 92, 99), "0000 - U");
        assert_eq!(field(c, 81, 84), " 1.0");
        // d has a full-point bye, then nothing: an absence.
        assert_eq!(field(d, 5, 8), "   4");
        assert_eq!(field(d, 92, 99), "0000 - F");
        assert_eq!(field(d, 102, 109), "0000 - Z");
        assert_eq!(field(d, 81, 84), " 1.0");
    }

    #[test]
    fn a_scoring_loss_has_a_forfeit_line_and_no_162() {
        let table = PointTable::new(
            "points",
            Points::from_milli(2000),
            Points::from_milli(1000),
            Points::from_milli(500),
        )
        .unwrap();
        assert_eq!(
            point_system_lines(table),
            ["BBW  2.0", "BBD  1.0", "BBL  0.5", "BBF  0.5"]
        );
        assert!(point_system_lines(PointTable::CLASSIC).is_empty());
    }

    #[test]
    fn a_report_stays_within_its_bound_and_is_refused_beyond_it() {
        // The widest lines: names and an event id of four-byte characters,
        // a game in the last allowed round.
        let wide = |id: &str| Player {
            id: id.to_owned(),
            name: "\u{1F600}".repeat(Player::MAX_NAME_LEN),
            ..Default::default()
        };
        let last = crate::domain::Pairing::MAX_ROUND;
        let mut games = Vec::new();
        for (round, pair) in [(1, ("a", "b")), (last, ("c", "d"))] {
            let mut record = game(round, 1, pair.0, pair.1, Some(Outcome::Draw));
            record.white = wide(pair.0);
            record.black = wide(pair.1);
            games.push(record);
        }
        let event = EventId::parse(&"\u{1F600}".repeat(128)).unwrap();
        let rows = crate::domain::standings(&games, &Default::default()).unwrap();
        let bound = TrfTooLarge::largest(4, last);
        let text = export(&event, TrfEvent::default(), &games, &rows, bound).unwrap();
        assert!(text.len() <= bound, "{} > {bound}", text.len());
        assert_eq!(TrfTooLarge::check_event(&games, &[], bound), Ok(()));
        assert!(TrfTooLarge::check_event(&games, &[], bound - 1).is_err());
        assert_eq!(
            export(&event, TrfEvent::default(), &games, &rows, bound - 1),
            Err(TrfTooLarge {
                size: bound,
                limit: bound - 1
            })
        );
    }
}
