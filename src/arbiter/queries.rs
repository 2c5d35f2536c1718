//! Queries: games, event lists, standings and exports. They change nothing,
//! except that reading a game whose time has run out commits that ending
//! first (see [`Arbiter::load_current`]).

use super::{Arbiter, ArbiterError, GameView};
use crate::domain::{
    EventId, Game, GameId, GameRecordForStandings, GameStatus, Standing, TrfGame, pgn, standings,
    trf,
};

/// What standings need from each game.
fn standing_records(games: &[Game]) -> Vec<GameRecordForStandings> {
    games
        .iter()
        .map(|game| GameRecordForStandings {
            white: game.white().clone(),
            black: game.black().clone(),
            finished: game
                .result()
                .zip(game.score())
                .map(|(_, score)| (score.scored_as, score)),
        })
        .collect()
}

impl Arbiter {
    /// A page of an event's games in round and board order, as they stand
    /// now (without their move lists), keeping those with `status` when one
    /// is given. Returns the games and where the next page starts, if there
    /// are more.
    pub async fn list_games(
        &self,
        event_id: &EventId,
        status: Option<GameStatus>,
        offset: usize,
        page_size: usize,
    ) -> Result<(Vec<GameView>, Option<usize>), ArbiterError> {
        // A filtered page may need several batches; this bounds the work of
        // one request, returning a short page with a token to go on.
        const MAX_BATCHES: usize = 10;
        let mut games = Vec::new();
        let mut position = offset;
        for _ in 0..MAX_BATCHES {
            let ids = self
                .store
                .event_games(event_id, position, page_size)
                .await?;
            let exhausted = ids.len() < page_size;
            for id in ids {
                position += 1;
                let (game, now) = match self.load_current(&id).await {
                    Err(ArbiterError::NotFound(_)) => continue,
                    other => other?,
                };
                if status.is_none_or(|wanted| game.status() == wanted) {
                    games.push(GameView {
                        game,
                        moves: Vec::new(),
                        as_of: now,
                    });
                    if games.len() == page_size {
                        return Ok((games, Some(position)));
                    }
                }
            }
            if exhausted {
                return Ok((games, None));
            }
        }
        Ok((games, Some(position)))
    }

    /// Every game of an event as it stands now, in round and board order.
    async fn event_snapshot(&self, event_id: &EventId) -> Result<Vec<Game>, ArbiterError> {
        const BATCH: usize = 500;
        let mut games = Vec::new();
        let mut offset = 0;
        loop {
            let ids = self.store.event_games(event_id, offset, BATCH).await?;
            offset += ids.len();
            let exhausted = ids.len() < BATCH;
            for id in &ids {
                match self.load_current(id).await {
                    Ok((game, _)) => games.push(game),
                    Err(ArbiterError::NotFound(_)) => {}
                    Err(err) => return Err(err),
                }
            }
            if exhausted {
                return Ok(games);
            }
        }
    }

    /// The event's standings, derived from the committed results of all its
    /// games (so each finished game counts exactly once), and how many
    /// finished games they count.
    pub async fn standings(
        &self,
        event_id: &EventId,
    ) -> Result<(Vec<Standing>, usize), ArbiterError> {
        let records = standing_records(&self.event_snapshot(event_id).await?);
        let counted = records.iter().filter(|r| r.finished.is_some()).count();
        Ok((standings(&records), counted))
    }

    /// The event as a FIDE Tournament Report File.
    pub async fn export_trf(&self, event_id: &EventId) -> Result<String, ArbiterError> {
        let games = self.event_snapshot(event_id).await?;
        let rows = standings(&standing_records(&games));
        let trf_games: Vec<TrfGame> = games
            .iter()
            .map(|game| TrfGame {
                round: game.pairing().round,
                board: game.pairing().board,
                white: game.white().clone(),
                black: game.black().clone(),
                finished: game
                    .result()
                    .zip(game.score())
                    .map(|(_, score)| (score.scored_as, score)),
                aborted: game.status() == GameStatus::Aborted,
            })
            .collect();
        Ok(trf::export(event_id, &trf_games, &rows))
    }

    /// A game and its moves.
    pub async fn get_game(&self, id: &GameId) -> Result<GameView, ArbiterError> {
        let (game, now) = self.load_current(id).await?;
        self.view(game, now).await
    }

    /// The game in PGN.
    pub async fn export_pgn(&self, id: &GameId) -> Result<String, ArbiterError> {
        let view = self.get_game(id).await?;
        Ok(pgn::export(&view.game, &view.moves))
    }

    /// Every game of an event in PGN, in round and board order, separated
    /// by blank lines.
    pub async fn export_event_pgn(&self, event_id: &EventId) -> Result<String, ArbiterError> {
        let mut exports = Vec::new();
        for game in self.event_snapshot(event_id).await? {
            let moves = self.moves(game.id(), game.ply()).await?;
            exports.push(pgn::export(&game, &moves));
        }
        Ok(exports.join("\n"))
    }
}
