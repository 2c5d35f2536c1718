//! Commands: creating a game, the seats' actions and the arbiter's. Each
//! loads the game with "now", lets the domain decide, and commits; a lost
//! version race decides again on the fresh state.
//!
//! A command costs two store round trips (load with "now", commit) however
//! long the game: it answers with the game as it now stands and the events
//! it produced, never with the game's history.

use std::sync::Arc;

use super::{
    Applied, Arbiter, ArbiterError, CreatedGame, MAX_ATTEMPTS, analysis::FastVerdict, codec,
};
use crate::{
    domain::{
        AdminRequest, ArbiterReason, ClaimReason, ClaimVerdict, Color, DeadProof, Decision, Game,
        GameId, MoveReport, NewGame, Ply, Rejection, RequestId, Ruling, Timestamp, TokenHash,
        access::{Action, Principal},
    },
    store::{Commit, CommitOutcome, EventPosition, Listing},
};

impl Arbiter {
    /// Creates a game. With a `request_id`, a repeat of the same request
    /// returns the same game and tokens; a different request with the same
    /// key is refused.
    ///
    /// A game of an event is listed under it before it is created, so a
    /// game can never exist without its listing, whatever stops the request
    /// half-way (readers skip a listed game that does not exist).
    pub async fn create_game(
        &self,
        request_id: Option<RequestId>,
        new: NewGame,
        by: &str,
    ) -> Result<CreatedGame, ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let id = match &request_id {
                Some(key) => GameId::for_request(key),
                None => GameId::random(),
            };
            let tokens = self.seats.issue(&id);
            let now = self.store.now().await?;
            let (game, created) = Game::create(id.clone(), new.clone(), tokens.hashes(), now);
            let created = created
                .created_by(by)
                .requested_by(request_id.as_ref().map(RequestId::as_str));
            let start = self.analyse_start(&game).await;
            if let FastVerdict::Dead(_) = start {
                return Err(new.dead_start().into());
            }
            self.list_in_event(&game).await?;
            let commit = Commit {
                expected: 0,
                state: codec::encode_state(&game)?,
                events: vec![codec::encode_event(&created)?],
                deadline: game.deadline(),
                event: game.pairing().event_id.clone(),
                audited: vec![created.version],
            };
            match self.store.commit(&id, commit).await? {
                CommitOutcome::Committed => {
                    self.record(std::slice::from_ref(&created));
                    tracing::info!(game_id = %id, "game created");
                    self.follow_up_analysis(&game);
                    return Ok(CreatedGame {
                        game,
                        as_of: now,
                        tokens,
                    });
                }
                CommitOutcome::Conflict { .. } => {
                    let Some(key) = &request_id else {
                        // A random identifier collided: draw another.
                        continue;
                    };
                    let (existing, now) = self.load_current(&id).await?;
                    if !existing.was_created_by(&new) {
                        return Err(ArbiterError::RequestIdReused {
                            what: "game",
                            request_id: key.as_str().to_owned(),
                        });
                    }
                    if existing.seats() != tokens.hashes() {
                        return Err(ArbiterError::TokensNotReissuable { game_id: id });
                    }
                    return Ok(CreatedGame {
                        game: Arc::unwrap_or_clone(existing),
                        as_of: now,
                        tokens,
                    });
                }
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Lists a game made on its own (`CreateGame`) under its event, if it
    /// has one, and only in a round without a record, so that a round and
    /// a game made beside it never share the round (a round's opening
    /// lists its own games).
    async fn list_in_event(&self, game: &Game) -> Result<(), ArbiterError> {
        let pairing = game.pairing();
        let Some(event_id) = &pairing.event_id else {
            return Ok(());
        };
        let position = EventPosition {
            round: pairing.round,
            board: pairing.board,
            game: game.id().clone(),
        };
        let max_games = self.max_event_games;
        let listing = self
            .store
            .list_outside_rounds(event_id, &position, max_games)
            .await?;
        match listing {
            Listing::Listed => Ok(()),
            Listing::Full => Err(ArbiterError::EventFull {
                event_id: event_id.clone(),
                max_games,
            }),
            Listing::RoundRecorded => Err(ArbiterError::RoundExists {
                event_id: event_id.clone(),
                number: pairing.round,
            }),
        }
    }

    /// Plays `text` for the seat holding `token`, chosen at `ply`, with the
    /// network `lag` the platform measured for it; with `offer_draw` the
    /// seat offers a draw after the move. A repeat of the seat's latest
    /// move at its ply changes nothing.
    pub async fn make_move(
        &self,
        id: &GameId,
        token: &str,
        ply: Ply,
        text: &str,
        offer_draw: bool,
        report: impl Into<MoveReport>,
    ) -> Result<Applied, ArbiterError> {
        let report = report.into();
        self.execute_analysed(id, token, |game, seat, now, dead| {
            game.play_move_given(seat, ply, text, offer_draw, report, now, dead)
                .map(|decision| (decision, ()))
        })
        .await
    }

    /// Resigns for the seat holding `token`.
    pub async fn resign(&self, id: &GameId, token: &str) -> Result<Applied, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.resign(seat, now))
            .await
    }

    /// Offers a draw for the seat holding `token`.
    pub async fn offer_draw(&self, id: &GameId, token: &str) -> Result<Applied, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.offer_draw(seat, now))
            .await
    }

    /// Accepts (`accept`) or declines the opponent's draw offer for the seat
    /// holding `token`.
    pub async fn respond_to_draw_offer(
        &self,
        id: &GameId,
        token: &str,
        accept: bool,
    ) -> Result<Applied, ArbiterError> {
        self.execute(id, token, |game, seat, now| {
            game.respond_to_draw_offer(seat, accept, now)
        })
        .await
    }

    /// Rules on a draw claim by the seat holding `token`.
    pub async fn claim_draw(
        &self,
        id: &GameId,
        token: &str,
        ply: Ply,
        reason: ClaimReason,
        intended: Option<&str>,
    ) -> Result<Applied<ClaimVerdict>, ArbiterError> {
        self.execute_analysed(id, token, |game, seat, now, dead| {
            game.claim_draw_given(seat, ply, reason, intended, now, dead)
        })
        .await
    }

    /// Aborts the game for the seat holding `token`.
    pub async fn abort(&self, id: &GameId, token: &str) -> Result<Applied, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.abort(seat, now))
            .await
    }

    /// Checks in the seat holding `token`: present at the board.
    pub async fn check_in(&self, id: &GameId, token: &str) -> Result<Applied, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.check_in(seat, now))
            .await
    }

    /// Claims the game for the seat holding `token`: the platform has
    /// reported the opponent gone for long enough.
    pub async fn claim_victory(&self, id: &GameId, token: &str) -> Result<Applied, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.claim_victory(seat, now))
            .await
    }

    /// The platform (or an arbiter of the game's event) `by` reports
    /// `color`'s connection: back, or gone from now. A report of what is
    /// already known changes nothing, so it needs no request id.
    pub async fn report_connection(
        &self,
        id: &GameId,
        color: Color,
        connected: bool,
        by: &Principal,
    ) -> Result<Applied, ArbiterError> {
        self.execute_admin(id, None, by, |game, now| {
            game.report_connection(color, connected, &by.name, now)
        })
        .await
    }

    /// Runs one seat command: load, authorise, decide, commit; again from
    /// the fresh state when a concurrent commit won the race.
    async fn execute(
        &self,
        id: &GameId,
        token: &str,
        decide: impl Fn(&Game, Color, Timestamp) -> Result<Decision, Rejection>,
    ) -> Result<Applied, ArbiterError> {
        self.execute_analysed(id, token, |game, seat, now, _| {
            decide(game, seat, now).map(|decision| (decision, ()))
        })
        .await
    }

    /// Like [`Arbiter::execute`], for a command that may play a move and
    /// whose ruling may yield a value for the caller (e.g. a claim's
    /// verdict): when the position it leads to is proven dead within the
    /// analysis budget, the command is decided again with that proof, so
    /// the move ends the game in the same commit; a position left open
    /// goes to the background analysis once committed.
    async fn execute_analysed<T>(
        &self,
        id: &GameId,
        token: &str,
        decide: impl Fn(&Game, Color, Timestamp, Option<&DeadProof>) -> Result<(Decision, T), Rejection>,
    ) -> Result<Applied<T>, ArbiterError> {
        let hash = TokenHash::of(token);
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load_current(id).await?;
            let seat = game.seat_of(&hash).ok_or(ArbiterError::NotASeat)?;
            let refused = |rejection| ArbiterError::refused(rejection, &game);
            let (mut decision, mut outcome) = decide(&game, seat, now, None).map_err(refused)?;
            let verdict = self.analyse_move(&game, &decision).await;
            if let Some(FastVerdict::Dead(proof)) = &verdict {
                (decision, outcome) = decide(&game, seat, now, Some(proof)).map_err(refused)?;
            }
            if let Some((game, events)) = self.commit(game, decision).await? {
                if matches!(
                    verdict,
                    Some(FastVerdict::NotProven | FastVerdict::OverBudget)
                ) {
                    self.follow_up_analysis(&game);
                }
                return Ok(Applied {
                    game,
                    events,
                    as_of: now,
                    outcome,
                });
            }
        }
        Err(ArbiterError::Contention)
    }

    /// An arbiter adds `delta_ms` to (or deducts it from) `color`'s clock.
    /// With `players_request`, the time is a player's gift to the
    /// opponent (`color`), which the game's rules may forbid.
    // The request's fields, each of its own type: a struct would only
    // restate them.
    #[allow(clippy::too_many_arguments)]
    pub async fn adjust_clock(
        &self,
        id: &GameId,
        request_id: Option<&RequestId>,
        color: Color,
        delta_ms: i64,
        reason: &ArbiterReason,
        players_request: bool,
        by: &Principal,
    ) -> Result<Applied, ArbiterError> {
        let delta = delta_ms.to_string();
        let request = request_id.map(|key| {
            let kind = if players_request {
                "give_time"
            } else {
                "adjust_clock"
            };
            AdminRequest::new(
                key,
                &[
                    kind,
                    color.fold_wb("white", "black"),
                    &delta,
                    reason.as_str(),
                ],
            )
        });
        self.execute_admin(id, request, by, |game, now| {
            if players_request {
                game.give_time(color, delta_ms, reason.as_str(), &by.name, now)
            } else {
                game.adjust_clock(color, delta_ms, reason.as_str(), &by.name, now)
            }
        })
        .await
    }

    /// An arbiter decides or corrects a game's result.
    pub async fn set_result(
        &self,
        id: &GameId,
        request_id: Option<&RequestId>,
        ruling: Ruling,
        reason: &ArbiterReason,
        by: &Principal,
    ) -> Result<Applied, ArbiterError> {
        let described = ruling.describe();
        let request = request_id
            .map(|key| AdminRequest::new(key, &["set_result", &described, reason.as_str()]));
        self.execute_admin(id, request, by, |game, now| {
            game.set_result(ruling, reason.as_str(), &by.name, now)
        })
        .await
    }

    /// An arbiter stops the clocks.
    pub async fn pause_clock(
        &self,
        id: &GameId,
        request_id: Option<&RequestId>,
        reason: &ArbiterReason,
        by: &Principal,
    ) -> Result<Applied, ArbiterError> {
        let request =
            request_id.map(|key| AdminRequest::new(key, &["pause_clock", reason.as_str()]));
        self.execute_admin(id, request, by, |game, now| {
            game.pause_clock(reason.as_str(), &by.name, now)
        })
        .await
    }

    /// An arbiter restarts the clocks.
    pub async fn resume_clock(
        &self,
        id: &GameId,
        request_id: Option<&RequestId>,
        reason: &ArbiterReason,
        by: &Principal,
    ) -> Result<Applied, ArbiterError> {
        let request =
            request_id.map(|key| AdminRequest::new(key, &["resume_clock", reason.as_str()]));
        self.execute_admin(id, request, by, |game, now| {
            game.resume_clock(reason.as_str(), &by.name, now)
        })
        .await
    }

    /// Runs one arbiter command of principal `by`, once per request id:
    /// refused, before anything is decided, unless `by` may intervene in
    /// games of the game's event.
    async fn execute_admin(
        &self,
        id: &GameId,
        request: Option<AdminRequest>,
        by: &Principal,
        decide: impl Fn(&Game, Timestamp) -> Result<Decision, Rejection>,
    ) -> Result<Applied, ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load_current(id).await?;
            by.authorize(Action::Intervene, game.pairing().event_id.as_ref())?;
            let decision = game
                .run_admin_request(request.as_ref(), |game| decide(game, now))
                .map_err(|rejection| ArbiterError::refused(rejection, &game))?;
            if let Some((game, events)) = self.commit(game, decision).await? {
                return Ok(Applied {
                    game,
                    events,
                    as_of: now,
                    outcome: (),
                });
            }
        }
        Err(ArbiterError::Contention)
    }
}
