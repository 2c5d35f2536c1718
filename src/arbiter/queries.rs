//! Queries: games, event lists, standings and exports. They change nothing,
//! except that reading a game whose time has run out commits that ending
//! first (see [`Arbiter::load_current`]).

use std::{collections::HashSet, sync::Arc};

use tokio::sync::OwnedSemaphorePermit;

use super::{Arbiter, ArbiterError, GameView, Reader, codec};
use crate::{
    domain::{
        Bye, EventId, Game, GameId, GameRecordForStandings, GameStatus, MoveRecord, Pairing,
        PointTable, ScoringSystem, Standing, StandingsRules, Timestamp, TrfEvent, standings,
        tournament::pgn, tournament::trf,
    },
    store::EventPosition,
};

/// What standings and TRF need from each game, and how it scores.
pub(super) fn standing_record(game: &Game) -> (GameRecordForStandings, ScoringSystem) {
    let record = GameRecordForStandings {
        white: game.white().clone(),
        black: game.black().clone(),
        finished: game.score(),
        round: game.pairing().round,
        board: game.pairing().board,
        aborted: game.status() == GameStatus::Aborted,
    };
    (record, game.scoring())
}

/// An event's games as standings and TRF read them: a record of each and
/// the scoring systems they share.
pub(super) struct EventRecords {
    pub(super) records: Vec<GameRecordForStandings>,
    /// Its matches' tie-break games, which only their matches count (see
    /// `domain::tournament::match_tie_break`).
    pub(super) tie_breaks: Vec<GameRecordForStandings>,
    systems: Vec<ScoringSystem>,
    /// The summaries of the event's rounds (their byes, ranks, pairs and
    /// accelerations), in round order.
    pub(super) rounds: Vec<crate::domain::RoundSummary>,
}

impl EventRecords {
    /// The points byes score in the event: its games' point table when
    /// they all share one, else 1 / ½ / 0.
    pub(super) fn bye_points(&self) -> PointTable {
        trf::point_system(self.systems.iter().copied()).unwrap_or(PointTable::CLASSIC)
    }
}

/// The largest TRF report served, in bytes: under the 4 MiB that gRPC
/// clients receive by default, with room for the framing.
pub const MAX_TRF_BYTES: usize = 4_000_000;

/// How many reads of a whole event (standings, TRF) one replica computes
/// at once; more wait their turn (within their deadline). Each holds at
/// most one record per listed game ([`Pairing::MAX_EVENT_GAMES`]) and a
/// batch of loaded games, so together they hold a bounded amount of
/// memory.
pub const MAX_CONCURRENT_EVENT_READS: usize = 4;

/// The most standings one page holds, and the number a page holds when the
/// request names none: at up to about 1.5 KB a line (the longest ids and
/// names), a page stays near 3 MB.
pub const MAX_STANDINGS_PAGE: usize = 2_000;

/// A page of standings: the lines from `offset` on, at most `size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StandingsPage {
    /// The first line's index (0: the leader).
    pub offset: usize,
    /// The most lines the page holds (at most [`MAX_STANDINGS_PAGE`]).
    pub size: usize,
}

impl Default for StandingsPage {
    fn default() -> Self {
        Self {
            offset: 0,
            size: MAX_STANDINGS_PAGE,
        }
    }
}

/// What a page of standings holds: its lines, how many finished games the
/// standings count, and where the next page starts, if there are more.
#[derive(Clone, Debug)]
pub struct StandingsPageRead {
    /// The page's lines, best first.
    pub rows: Vec<Standing>,
    /// Finished games the standings count.
    pub counted: usize,
    /// The next page's offset, when more lines follow.
    pub next: Option<usize>,
}

/// Whether a listing of `game` under `event_id` is the game's own: a game is
/// listed before its creation is committed, so a listing may name a game
/// that a refused request (a reused request id) or an interrupted one never
/// created there.
pub(super) fn listed_where_it_belongs(
    game: &Game,
    event_id: &EventId,
    entry: &EventPosition,
) -> bool {
    pairing_matches(game.pairing(), event_id, entry)
}

/// Whether `pairing` is the place `entry` lists a game at in `event_id`.
pub(super) fn pairing_matches(
    pairing: &crate::domain::Pairing,
    event_id: &EventId,
    entry: &EventPosition,
) -> bool {
    pairing.event_id.as_ref() == Some(event_id)
        && pairing.round == entry.round
        && pairing.board == entry.board
}

/// The most moves a page of full games holds (about 2 MB), unless its one
/// game has more: a page of the longest games a game can have (the 75-move
/// rule ends any game within about 17,700 half-moves) stays near that.
pub const MAX_PAGE_MOVES: usize = 40_000;

/// Where a page of an event's games ends: the next page starts after it.
pub type ListCursor = EventPosition;

/// One game of a broadcast: its board, players and result as the public
/// sees them, and its PGN.
#[derive(Clone, Debug)]
pub struct BroadcastGame {
    /// The board (0 when none).
    pub board: u32,
    /// White.
    pub white: crate::domain::Player,
    /// Black.
    pub black: crate::domain::Player,
    /// The result in PGN (`*` while the game goes on).
    pub result: &'static str,
    /// Whether the game is being played.
    pub live: bool,
    /// The game in PGN.
    pub pgn: String,
}

/// `view` as a broadcast shows it on `board`.
fn broadcast_game(view: &GameView, board: u32) -> BroadcastGame {
    BroadcastGame {
        board,
        white: view.game.white().clone(),
        black: view.game.black().clone(),
        result: view.game.result().map_or("*", |r| r.outcome.pgn()),
        live: view.game.status() == crate::domain::GameStatus::Active,
        pgn: pgn::export_for_broadcast_on(&view.game, &view.moves, view.as_of, board),
    }
}

/// A page of a game's moves and where the next page starts (the version of
/// the last event read), if the log goes on.
pub type MovePage = (Vec<MoveRecord>, Option<u64>);

/// Which of an event's games a list keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// Only games with this status (`Pending` as [`Game::status_at`] says).
    pub status: Option<GameStatus>,
    /// Only games whose result awaits an arbiter's review.
    pub needs_review: bool,
}

impl ListFilter {
    fn keeps(&self, game: &Game, now: Timestamp) -> bool {
        self.status
            .is_none_or(|wanted| game.status_at(now) == wanted)
            && (!self.needs_review || game.review().is_some())
    }
}

impl Arbiter {
    /// A page of an event's games in round and board order, as they stand
    /// now (as `reader` sees them: the public under each game's broadcast
    /// delay), keeping those `filter` keeps. Returns the games and where the next page
    /// starts, if there may be more: the position is in the list itself, so
    /// games added meanwhile never make a page repeat or skip one.
    pub async fn list_games(
        &self,
        event_id: &EventId,
        filter: ListFilter,
        after: Option<ListCursor>,
        page_size: usize,
        full: bool,
        reader: &Reader,
    ) -> Result<(Vec<GameView>, Option<ListCursor>), ArbiterError> {
        // A filtered page may need several batches; this bounds the work of
        // one request, returning a short page with a token to go on.
        const MAX_BATCHES: usize = 10;
        // A round interrupted half-way is completed first, and one that
        // cannot be is not shown in part.
        let in_creation = self.rounds_in_creation(event_id).await?;
        let in_creation = if in_creation.is_empty() {
            in_creation
        } else {
            self.complete_interrupted(event_id, in_creation).await?
        };
        let mut games = Vec::new();
        let mut moves = 0usize;
        let mut position = after;
        for _ in 0..MAX_BATCHES {
            // One entry more than a page, to know whether a full page is
            // the last one.
            let listed = self
                .store
                .event_games(event_id, position.as_ref(), page_size + 1)
                .await?;
            let exhausted = listed.len() <= page_size;
            let ids: Vec<GameId> = listed.iter().map(|entry| entry.game.clone()).collect();
            let loaded = self.load_current_many(&ids).await?;
            let mut entries = listed.into_iter().zip(loaded).peekable();
            while let Some((entry, loaded)) = entries.next() {
                if games.len() == page_size {
                    // A full page with more listed after it.
                    return Ok((games, position));
                }
                let previous = position.replace(entry.clone());
                let Some((game, now)) = loaded else {
                    continue;
                };
                if !listed_where_it_belongs(&game, event_id, &entry)
                    || in_creation.contains(&entry.round)
                {
                    continue;
                }
                let (game, as_of) = self
                    .shown_in_event(reader, Arc::unwrap_or_clone(game), now)
                    .await?;
                if filter.keeps(&game, as_of) {
                    let view = self.view(game, as_of, full).await?;
                    moves += view.moves.len();
                    if moves > self.max_page_moves && !games.is_empty() {
                        // A page of full games holds a bounded number of
                        // moves: this game opens the next page.
                        return Ok((games, previous));
                    }
                    games.push(view);
                }
                if games.len() == page_size && entries.peek().is_none() && exhausted {
                    return Ok((games, None));
                }
            }
            if exhausted {
                return Ok((games, None));
            }
        }
        Ok((games, position))
    }

    /// Every game of an event as it stands now, its result as `reader`
    /// sees it, in round and board order (for standings and TRF), with a
    /// place among the replica's whole-event reads held while the caller
    /// computes with it. Reads at most [`Pairing::MAX_EVENT_GAMES`]
    /// listings (events are not let grow past it; one listed past it by an
    /// earlier version is refused), in batches, keeping only the records.
    pub(super) async fn event_records(
        &self,
        event_id: &EventId,
        reader: &Reader,
    ) -> Result<(EventRecords, OwnedSemaphorePermit), ArbiterError> {
        const BATCH: usize = 500;
        let permit = Arc::clone(&self.event_reads)
            .acquire_owned()
            .await
            .map_err(|_| ArbiterError::ShuttingDown)?;
        let mut rounds = self.round_summaries(event_id).await?;
        // A round interrupted half-way is completed first, and one that
        // cannot be is not counted in part.
        let interrupted: Vec<u32> = rounds
            .iter()
            .filter(|s| s.incomplete)
            .map(|s| s.number)
            .collect();
        let in_creation = self.complete_interrupted(event_id, interrupted).await?;
        for summary in &mut rounds {
            summary.incomplete = in_creation.contains(&summary.number);
        }
        let known: HashSet<u32> = rounds.iter().map(|s| s.number).collect();
        // Each game counted, with its round; filtered once the listing is
        // read (see below).
        let mut counted: Vec<(u32, GameRecordForStandings, ScoringSystem, bool)> = Vec::new();
        let mut after: Option<EventPosition> = None;
        let mut listings = 0usize;
        loop {
            let listed = self
                .store
                .event_games(event_id, after.as_ref(), BATCH)
                .await?;
            let exhausted = listed.len() < BATCH;
            listings += listed.len();
            if listings > Pairing::MAX_EVENT_GAMES {
                return Err(ArbiterError::ReplyTooLarge {
                    what: "the event",
                    size: listings as u64,
                    limit: Pairing::MAX_EVENT_GAMES as u64,
                    unit: "games",
                });
            }
            let ids: Vec<GameId> = listed.iter().map(|entry| entry.game.clone()).collect();
            let loaded = self.load_current_many(&ids).await?;
            for (entry, loaded) in listed.into_iter().zip(loaded) {
                if let Some((game, now)) = loaded
                    && listed_where_it_belongs(&game, event_id, &entry)
                    && !in_creation.contains(&entry.round)
                {
                    // Standings and TRF read only results: a game in play
                    // now was in play at any earlier cut-off too, so only a
                    // finished one can look otherwise to the public.
                    let game = if game.is_over() {
                        self.shown_in_event(reader, Arc::unwrap_or_clone(game), now)
                            .await?
                            .0
                    } else {
                        Arc::unwrap_or_clone(game)
                    };
                    let (record, system) = standing_record(&game);
                    counted.push((entry.round, record, system, game.pairing().tie_break));
                }
                after = Some(entry);
            }
            if exhausted {
                break;
            }
        }
        // A round opened while the listing was read has its games listed
        // at once but created one by one: the read is taken as of its
        // start, before that round. Its summary, written with the listing,
        // tells it from a round of games created one at a time (which has
        // none); read again only when the listing holds such rounds.
        let unknown: HashSet<u32> = counted
            .iter()
            .map(|(round, ..)| *round)
            .filter(|round| !known.contains(round))
            .collect();
        let opened_since: HashSet<u32> = if unknown.is_empty() {
            HashSet::new()
        } else {
            self.round_summaries(event_id)
                .await?
                .into_iter()
                .map(|s| s.number)
                .filter(|round| unknown.contains(round))
                .collect()
        };
        let mut records = EventRecords {
            records: Vec::new(),
            tie_breaks: Vec::new(),
            systems: Vec::new(),
            rounds,
        };
        for (round, record, system, tie_break) in counted {
            if opened_since.contains(&round) {
                continue;
            }
            if tie_break {
                records.tie_breaks.push(record);
                continue;
            }
            records.records.push(record);
            if !records.systems.contains(&system) {
                records.systems.push(system);
            }
        }
        Ok((records, permit))
    }

    /// A page of the event's standings under `rules`, derived from the
    /// committed results of all its games (so each finished game counts
    /// exactly once), and how many finished games they count; for anyone
    /// but the admin, from the results the public sees (a result counts
    /// once its game's delay has passed). Byes score the event's point
    /// table when its games share one (else 1 / ½ / 0).
    pub async fn standings(
        &self,
        event_id: &EventId,
        mut rules: StandingsRules,
        page: StandingsPage,
        reader: &Reader,
    ) -> Result<StandingsPageRead, ArbiterError> {
        let (event, _permit) = self.event_records(event_id, reader).await?;
        rules.bye_points = event.bye_points();
        rules.byes = crate::domain::counted_byes(
            &event.rounds,
            std::mem::take(&mut rules.byes),
            &event.records,
        );
        let counted = event
            .records
            .iter()
            .filter(|r| r.finished.is_some())
            .count();
        let rows = standings(&event.records, &rules).map_err(ArbiterError::invalid_field)?;
        let size = page.size.clamp(1, MAX_STANDINGS_PAGE);
        let end = page.offset.saturating_add(size).min(rows.len());
        let next = (end < rows.len()).then_some(end);
        let rows = rows
            .into_iter()
            .skip(page.offset)
            .take(end.saturating_sub(page.offset))
            .collect();
        Ok(StandingsPageRead {
            rows,
            counted,
            next,
        })
    }

    /// The event as a FIDE Tournament Report File, stating `total_rounds`
    /// (the rounds played so far when `None`; never fewer) and `byes`, with
    /// the results `reader` sees; refused when it could be larger than
    /// [`MAX_TRF_BYTES`].
    pub async fn export_trf(
        &self,
        event_id: &EventId,
        total_rounds: Option<u32>,
        byes: Vec<Bye>,
        reader: &Reader,
    ) -> Result<String, ArbiterError> {
        let too_large = |err: trf::TrfTooLarge| ArbiterError::ReplyTooLarge {
            what: "the TRF report",
            size: err.size as u64,
            limit: err.limit as u64,
            unit: "bytes",
        };
        let registered = self.read_teams(event_id).await?;
        let (event, _permit) = self.event_records(event_id, reader).await?;
        let rounds: Vec<&crate::domain::RoundSummary> =
            event.rounds.iter().filter(|r| !r.incomplete).collect();
        let byes = crate::domain::counted_byes(&event.rounds, byes, &event.records);
        let roster: Vec<crate::domain::Player> =
            rounds.iter().flat_map(|r| r.roster.clone()).collect();
        let forbidden_pairs = rounds
            .iter()
            .flat_map(|r| r.forbidden_pairs.clone())
            .collect();
        let accelerations = rounds
            .iter()
            .flat_map(|r| r.accelerations.clone())
            .collect();
        // Refused before the standings are computed for it when the games
        // alone make it too large (byes are checked with the standings,
        // then counted by the export).
        trf::TrfTooLarge::check_event(&event.records, &[], MAX_TRF_BYTES).map_err(too_large)?;
        let points = trf::point_system(event.systems.iter().copied());
        let rules = StandingsRules {
            total_rounds,
            byes: byes.clone(),
            bye_points: event.bye_points(),
            ..StandingsRules::default()
        };
        let rows = standings(&event.records, &rules).map_err(ArbiterError::invalid_field)?;
        let report = TrfEvent {
            total_rounds,
            points,
            byes,
            roster,
            forbidden_pairs,
            accelerations,
            ..TrfEvent::default()
        };
        let report = match &registered {
            Some((registration, _)) => report.with_teams(registration, &rounds),
            None => report,
        };
        trf::export(event_id, report, &event.records, &rows, MAX_TRF_BYTES).map_err(too_large)
    }

    /// A game as it stands (as `reader` sees it), with every move when
    /// `full`.
    pub async fn get_game(
        &self,
        id: &GameId,
        full: bool,
        reader: &Reader,
    ) -> Result<GameView, ArbiterError> {
        let (game, now) = self.load_current(id).await?;
        self.view_for(reader, Arc::unwrap_or_clone(game), now, full)
            .await
    }

    /// Up to `limit` moves of a game: from ply `start_ply` on a first page,
    /// or after the event version a previous page ended at. Reads at most
    /// `2 * limit + 8` events, so a page's cost is bounded whatever the
    /// game's length (a page may hold fewer moves than `limit` and still
    /// have a next one). The public gets the moves it sees under the game's
    /// broadcast delay.
    pub async fn list_moves(
        &self,
        id: &GameId,
        (start_ply, after_version): (u32, u64),
        limit: usize,
        reader: &Reader,
    ) -> Result<MovePage, ArbiterError> {
        // Confirms the game exists (and settles a fallen flag) first.
        let (game, now) = self.load_current(id).await?;
        let (game, _) = self
            .shown_to(reader, Arc::unwrap_or_clone(game), now)
            .await?;
        // A move at ply p has a version above p + 1 (the creation is
        // version 1, and every move is an event), so a first page can skip
        // that far without reading.
        let after_version = after_version.max(u64::from(start_ply) + 1);
        let budget = limit.saturating_mul(2).saturating_add(8);
        let stored = self.store.events_page(id, after_version, budget).await?;
        let events = codec::decode_log(id, after_version, budget, &stored)?;
        let read = events.len();
        let mut moves = Vec::new();
        let mut last = after_version;
        for event in &events {
            if moves.len() == limit {
                break;
            }
            last = event.version;
            if let Some(record) = event.move_record()
                && record.ply.count() >= start_ply
                && record.ply < game.ply()
            {
                moves.push(record.clone());
            }
        }
        let more = last < game.version() && (read == budget || moves.len() == limit);
        Ok((moves, more.then_some(last)))
    }

    /// The game in PGN, as `reader` sees it.
    pub async fn export_pgn(&self, id: &GameId, reader: &Reader) -> Result<String, ArbiterError> {
        let view = self.get_game(id, true, reader).await?;
        Ok(pgn::export(&view.game, &view.moves))
    }

    /// The game in PGN for a broadcast, as `reader` sees it (the public
    /// under its broadcast delay): see [`pgn::export_for_broadcast`].
    pub async fn broadcast_game(
        &self,
        id: &GameId,
        reader: &Reader,
    ) -> Result<String, ArbiterError> {
        let view = self.get_game(id, true, reader).await?;
        Ok(pgn::export_for_broadcast(
            &view.game,
            &view.moves,
            view.as_of,
        ))
    }

    /// The games of round `round` of an event (0: the games without a
    /// round) for a broadcast, in board order, as `reader` sees them, and
    /// the next round that has games, if any. The event's list is read
    /// from the round's first game (a list in round order) to the first
    /// game of the next round, and no further. The round's match tie-break
    /// games come last, in the order they were made, each on a board of
    /// its own after the round's last (which no board game takes, and
    /// which a later tie-break game never moves).
    pub async fn broadcast_round(
        &self,
        event_id: &EventId,
        round: u32,
        reader: &Reader,
    ) -> Result<(Vec<BroadcastGame>, Option<u32>), ArbiterError> {
        const PAGE: usize = 100;
        let mut games = Vec::new();
        let mut tie_breaks = Vec::new();
        let mut after = EventPosition::before_round(round);
        let next = loop {
            let (views, next) = self
                .list_games(event_id, ListFilter::default(), after, PAGE, true, reader)
                .await?;
            let mut beyond = None;
            for view in views {
                let of_game = view.game.pairing().round;
                if of_game > round {
                    beyond = Some(of_game);
                    break;
                }
                if of_game != round {
                    continue;
                }
                if view.game.pairing().tie_break {
                    tie_breaks.push(view);
                } else {
                    let board = view.game.pairing().board;
                    games.push(broadcast_game(&view, board));
                }
            }
            if beyond.is_some() {
                break beyond;
            }
            match next {
                Some(position) => after = Some(position),
                None => break None,
            }
        };
        tie_breaks.sort_by(|a, b| {
            (a.game.created_at(), a.game.id()).cmp(&(b.game.created_at(), b.game.id()))
        });
        let last = games.iter().map(|g| g.board).max().unwrap_or(0);
        for (board, view) in (last.saturating_add(1)..).zip(&tie_breaks) {
            games.push(broadcast_game(view, board));
        }
        Ok((games, next))
    }

    /// A page of an event's games in PGN, in round and board order, after
    /// `after`: each game's id and text, and where the next page starts.
    pub async fn export_event_pgn(
        &self,
        event_id: &EventId,
        after: Option<ListCursor>,
        page_size: usize,
        reader: &Reader,
    ) -> Result<(Vec<(GameId, String)>, Option<ListCursor>), ArbiterError> {
        let (views, next) = self
            .list_games(
                event_id,
                ListFilter::default(),
                after,
                page_size,
                true,
                reader,
            )
            .await?;
        let exports = views
            .into_iter()
            .map(|view| {
                let text = pgn::export(&view.game, &view.moves);
                (view.game.id().clone(), text)
            })
            .collect();
        Ok((exports, next))
    }
}
