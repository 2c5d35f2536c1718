//! Queries: games, event lists, standings and exports. They change nothing,
//! except that reading a game whose time has run out commits that ending
//! first (see [`Arbiter::load_current`]).

use super::{Arbiter, ArbiterError, GameView, Reader, codec};
use crate::{
    domain::{
        Bye, EventId, Game, GameId, GameRecordForStandings, GameStatus, MoveRecord, PointTable,
        Standing, StandingsRules, Timestamp, TrfEvent, pgn, standings, trf,
    },
    store::EventPosition,
};

/// What standings need from each game.
fn standing_records(games: &[Game]) -> Vec<GameRecordForStandings> {
    games
        .iter()
        .map(|game| GameRecordForStandings {
            white: game.white().clone(),
            black: game.black().clone(),
            finished: game.score(),
            round: game.pairing().round,
            board: game.pairing().board,
            aborted: game.status() == GameStatus::Aborted,
        })
        .collect()
}

/// The points byes score in an event: its games' point table when they all
/// share one, else 1 / ½ / 0.
fn bye_points(games: &[Game]) -> PointTable {
    trf::point_system(games.iter().map(Game::scoring)).unwrap_or(PointTable::CLASSIC)
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

/// Where a page of an event's games ends: the next page starts after it.
pub type ListCursor = EventPosition;

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
        let mut games = Vec::new();
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
                position = Some(entry.clone());
                let Some((game, now)) = loaded else {
                    continue;
                };
                if !listed_where_it_belongs(&game, event_id, &entry) {
                    continue;
                }
                let (game, as_of) = self.shown_in_event(reader, game, now).await?;
                if filter.keeps(&game, as_of) {
                    games.push(self.view(game, as_of, full).await?);
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
    /// sees it, in round and board order (for standings and TRF).
    async fn event_snapshot(
        &self,
        event_id: &EventId,
        reader: &Reader,
    ) -> Result<Vec<Game>, ArbiterError> {
        const BATCH: usize = 500;
        let mut games = Vec::new();
        let mut after: Option<EventPosition> = None;
        loop {
            let listed = self
                .store
                .event_games(event_id, after.as_ref(), BATCH)
                .await?;
            let exhausted = listed.len() < BATCH;
            let ids: Vec<GameId> = listed.iter().map(|entry| entry.game.clone()).collect();
            let loaded = self.load_current_many(&ids).await?;
            for (entry, loaded) in listed.into_iter().zip(loaded) {
                if let Some((game, now)) = loaded
                    && listed_where_it_belongs(&game, event_id, &entry)
                {
                    // Standings and TRF read only results: a game in play
                    // now was in play at any earlier cut-off too, so only a
                    // finished one can look otherwise to the public.
                    let game = if game.is_over() {
                        self.shown_in_event(reader, game, now).await?.0
                    } else {
                        game
                    };
                    games.push(game);
                }
                after = Some(entry);
            }
            if exhausted {
                return Ok(games);
            }
        }
    }

    /// The event's standings under `rules`, derived from the committed
    /// results of all its games (so each finished game counts exactly
    /// once), and how many finished games they count; for anyone but the
    /// admin, from the results the public sees (a result counts once its
    /// game's delay has passed). Byes score the event's point table when
    /// its games share one (else 1 / ½ / 0).
    pub async fn standings(
        &self,
        event_id: &EventId,
        mut rules: StandingsRules,
        reader: &Reader,
    ) -> Result<(Vec<Standing>, usize), ArbiterError> {
        let games = self.event_snapshot(event_id, reader).await?;
        rules.bye_points = bye_points(&games);
        let records = standing_records(&games);
        let counted = records.iter().filter(|r| r.finished.is_some()).count();
        let rows = standings(&records, &rules).map_err(ArbiterError::invalid_field)?;
        Ok((rows, counted))
    }

    /// The event as a FIDE Tournament Report File, stating `total_rounds`
    /// (the rounds played so far when `None`; never fewer) and `byes`, with
    /// the results `reader` sees.
    pub async fn export_trf(
        &self,
        event_id: &EventId,
        total_rounds: Option<u32>,
        byes: Vec<Bye>,
        reader: &Reader,
    ) -> Result<String, ArbiterError> {
        let games = self.event_snapshot(event_id, reader).await?;
        let points = trf::point_system(games.iter().map(Game::scoring));
        let rules = StandingsRules {
            total_rounds,
            byes: byes.clone(),
            bye_points: bye_points(&games),
            ..StandingsRules::default()
        };
        let records = standing_records(&games);
        let rows = standings(&records, &rules).map_err(ArbiterError::invalid_field)?;
        Ok(trf::export(
            event_id,
            TrfEvent {
                total_rounds,
                points,
                byes,
            },
            &records,
            &rows,
        ))
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
        self.view_for(reader, game, now, full).await
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
        let (game, _) = self.shown_to(reader, game, now).await?;
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
