//! A team match's tie-break game (see
//! [`crate::domain::tournament::match_tie_break`]): made, like a round's
//! games, record first.
//!
//! 1. The round's record and the match's games are read, and the domain
//!    decides whether the match may have the game (every board decided,
//!    the match drawn, one player of each line-up);
//! 2. the game is listed in the event (a listing may name a game not
//!    created yet), then recorded in the round with a compare-and-set of
//!    the round's record, so that a match never gets two;
//! 3. the game is created from that record (at version 0 to 1, as
//!    `CreateGame` does).
//!
//! A request interrupted after step 2 is completed by its repeat: the game's
//! identifier and tokens follow from the record, and a repeat with the same
//! players and settings creates what is missing and returns the same
//! tokens. Until then the match waits for its tie-break game.

use super::{Arbiter, ArbiterError, MAX_ATTEMPTS, SeatTokens, codec};
use crate::{
    domain::{EventId, RecordedTieBreak, TieBreakRefusal, TieBreakRequest, match_score},
    store::EventPosition,
};

/// A match's tie-break game made (or found made), with its seats' tokens.
#[derive(Clone, Debug)]
pub struct CreatedTieBreak {
    /// The game as the round records it.
    pub tie_break: RecordedTieBreak,
    /// The match's first and second team's ids.
    pub teams: [String; 2],
    /// The tokens.
    pub tokens: SeatTokens,
}

impl Arbiter {
    /// Makes the tie-break game `request` asks for of the match at its
    /// table in round `number` of event `event_id`, for `by`; a repeat
    /// returns the same game and tokens.
    pub async fn create_match_tie_break(
        &self,
        event_id: &EventId,
        number: u32,
        request: TieBreakRequest,
        by: &str,
    ) -> Result<CreatedTieBreak, ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let (round, version) = self.completed_round(event_id, number).await?;
            let plan = round
                .matches()
                .iter()
                .find(|m| m.table == request.table)
                .ok_or(ArbiterError::TieBreakRefused(TieBreakRefusal::NoMatch {
                    round: number,
                    table: request.table,
                }))?;
            let teams = plan.teams.clone();
            if let Some(existing) = round
                .tie_breaks()
                .iter()
                .find(|t| t.plan.table == request.table)
            {
                if !existing.answers(&request) {
                    return Err(ArbiterError::TieBreakRefused(TieBreakRefusal::Exists {
                        table: request.table,
                        game: existing.plan.game.clone(),
                    }));
                }
                let tokens = self
                    .create_tie_break_game(event_id, number, existing, by)
                    .await?;
                return Ok(CreatedTieBreak {
                    tie_break: existing.clone(),
                    teams,
                    tokens,
                });
            }
            let (registration, _) = self.teams(event_id).await?;
            let games = self
                .match_games(event_id, number, plan, None, false)
                .await?;
            let score = match_score(&registration, number, plan, &games.boards, &games.table);
            let tie_break =
                RecordedTieBreak::plan(event_id, number, plan, &registration, &score, &request)
                    .map_err(ArbiterError::TieBreakRefused)?;
            let Ok(next) = round.with_tie_break(tie_break.clone()) else {
                continue;
            };
            let listed = self
                .store
                .add_to_event(
                    event_id,
                    &EventPosition {
                        round: number,
                        board: tie_break.plan.board,
                        game: tie_break.plan.game.clone(),
                    },
                    self.max_event_games,
                )
                .await?;
            if !listed {
                return Err(ArbiterError::EventFull {
                    event_id: event_id.clone(),
                    max_games: self.max_event_games,
                });
            }
            let recorded = self
                .store
                .put_round(
                    event_id,
                    number,
                    version,
                    &codec::encode_round(&next, version + 1)?,
                )
                .await?;
            if !recorded {
                // The round changed meanwhile (started, or another
                // tie-break made): decide again on what stands now.
                continue;
            }
            tracing::info!(event_id = %event_id, round = number, table = request.table, game_id = %tie_break.plan.game, "match tie-break game planned");
            let tokens = self
                .create_tie_break_game(event_id, number, &tie_break, by)
                .await?;
            return Ok(CreatedTieBreak {
                tie_break,
                teams,
                tokens,
            });
        }
        Err(ArbiterError::Contention)
    }

    /// Creates the recorded tie-break game of round `number` of event
    /// `event_id`, unless it exists, for `by`.
    async fn create_tie_break_game(
        &self,
        event_id: &EventId,
        number: u32,
        tie_break: &RecordedTieBreak,
        by: &str,
    ) -> Result<SeatTokens, ArbiterError> {
        let now = self.store.now().await?;
        self.create_listed_game(
            &tie_break.plan.game,
            tie_break.setup(event_id, number),
            Some(by),
            None,
            now,
        )
        .await
    }
}
