//! Commands: creating a game, the seats' actions and the arbiter's. Each
//! loads the game with "now", lets the domain decide, and commits; a lost
//! version race decides again on the fresh state.

use super::{Arbiter, ArbiterError, CreatedGame, GameView, MAX_ATTEMPTS, codec};
use crate::{
    domain::{
        ClaimReason, ClaimVerdict, Color, Decision, Game, GameId, NewGame, Ply, Rejection,
        RequestId, Ruling, Timestamp, TokenHash,
    },
    store::CommitOutcome,
};

impl Arbiter {
    /// Creates a game. With a `request_id`, a repeat of the same request
    /// returns the same game and tokens; a different request with the same
    /// key is refused.
    pub async fn create_game(
        &self,
        request_id: Option<RequestId>,
        new: NewGame,
    ) -> Result<CreatedGame, ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let id = match &request_id {
                Some(key) => GameId::for_request(key),
                None => GameId::random(),
            };
            let tokens = self.seats.issue(&id);
            let now = self.store.now().await?;
            let (game, created) = Game::create(id.clone(), new.clone(), tokens.hashes(), now);
            let state = codec::encode_state(&game)?;
            let event = codec::encode_event(&created)?;
            match self.store.commit(&id, 0, state, vec![event]).await? {
                CommitOutcome::Committed => {
                    tracing::info!(game_id = %id, "game created");
                    self.index(&game).await;
                    self.list_in_event(&game).await?;
                    return Ok(CreatedGame {
                        view: GameView {
                            game,
                            moves: Vec::new(),
                            as_of: now,
                        },
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
                            request_id: key.as_str().to_owned(),
                        });
                    }
                    if existing.seats() != tokens.hashes() {
                        return Err(ArbiterError::TokensNotReissuable { game_id: id });
                    }
                    // Heals a first attempt that stopped between the commit
                    // and the listing.
                    self.list_in_event(&existing).await?;
                    return Ok(CreatedGame {
                        view: self.view(existing, now).await?,
                        tokens,
                    });
                }
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Lists a game under its event, if it has one.
    async fn list_in_event(&self, game: &Game) -> Result<(), ArbiterError> {
        let pairing = game.pairing();
        if let Some(event_id) = &pairing.event_id {
            self.store
                .add_to_event(event_id, (pairing.round, pairing.board), game.id())
                .await?;
        }
        Ok(())
    }

    /// Plays `text` for the seat holding `token`, chosen at `ply`; with
    /// `offer_draw` the seat offers a draw after the move.
    pub async fn make_move(
        &self,
        id: &GameId,
        token: &str,
        ply: Ply,
        text: &str,
        offer_draw: bool,
    ) -> Result<GameView, ArbiterError> {
        let hash = TokenHash::of(token);
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load_current(id).await?;
            let seat = game.seat_of(&hash).ok_or(ArbiterError::NotASeat)?;
            let decision = match game.play_move(seat, ply, text, offer_draw, now) {
                Err(Rejection::StalePly { .. }) if ply < game.ply() => {
                    game.confirm_retry(seat, ply, text)?
                }
                decided => decided?,
            };
            if let Some(next) = self.commit(game, decision).await? {
                return self.view(next, now).await;
            }
        }
        Err(ArbiterError::Contention)
    }

    /// Resigns for the seat holding `token`.
    pub async fn resign(&self, id: &GameId, token: &str) -> Result<GameView, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.resign(seat, now))
            .await
    }

    /// Offers a draw for the seat holding `token`.
    pub async fn offer_draw(&self, id: &GameId, token: &str) -> Result<GameView, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.offer_draw(seat, now))
            .await
    }

    /// Answers the opponent's draw offer for the seat holding `token`.
    pub async fn respond_to_draw_offer(
        &self,
        id: &GameId,
        token: &str,
        accept: bool,
    ) -> Result<GameView, ArbiterError> {
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
    ) -> Result<(GameView, ClaimVerdict), ArbiterError> {
        self.execute_with(id, token, |game, seat, now| {
            game.claim_draw(seat, ply, reason, intended, now)
        })
        .await
    }

    /// Aborts the game for the seat holding `token`.
    pub async fn abort(&self, id: &GameId, token: &str) -> Result<GameView, ArbiterError> {
        self.execute(id, token, |game, seat, now| game.abort(seat, now))
            .await
    }

    /// Runs one seat command: load, authorise, decide, commit; again from
    /// the fresh state when a concurrent commit won the race.
    async fn execute(
        &self,
        id: &GameId,
        token: &str,
        decide: impl Fn(&Game, Color, Timestamp) -> Result<Decision, Rejection>,
    ) -> Result<GameView, ArbiterError> {
        self.execute_with(id, token, |game, seat, now| {
            decide(game, seat, now).map(|decision| (decision, ()))
        })
        .await
        .map(|(view, ())| view)
    }

    /// Like [`Arbiter::execute`], for a command whose ruling also yields a
    /// value for the caller (e.g. a claim's verdict).
    async fn execute_with<T>(
        &self,
        id: &GameId,
        token: &str,
        decide: impl Fn(&Game, Color, Timestamp) -> Result<(Decision, T), Rejection>,
    ) -> Result<(GameView, T), ArbiterError> {
        let hash = TokenHash::of(token);
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load_current(id).await?;
            let seat = game.seat_of(&hash).ok_or(ArbiterError::NotASeat)?;
            let (decision, extra) = decide(&game, seat, now)?;
            if let Some(next) = self.commit(game, decision).await? {
                return Ok((self.view(next, now).await?, extra));
            }
        }
        Err(ArbiterError::Contention)
    }

    /// An arbiter adds `delta_ms` to (or deducts it from) `color`'s clock.
    pub async fn adjust_clock(
        &self,
        id: &GameId,
        color: Color,
        delta_ms: i64,
        reason: &str,
    ) -> Result<GameView, ArbiterError> {
        self.execute_admin(id, |game, now| {
            game.adjust_clock(color, delta_ms, reason, now)
        })
        .await
    }

    /// An arbiter decides or corrects a game's result.
    pub async fn set_result(
        &self,
        id: &GameId,
        ruling: Ruling,
        reason: &str,
    ) -> Result<GameView, ArbiterError> {
        self.execute_admin(id, |game, now| game.set_result(ruling, reason, now))
            .await
    }

    /// An arbiter stops the clocks.
    pub async fn pause_clock(&self, id: &GameId, reason: &str) -> Result<GameView, ArbiterError> {
        self.execute_admin(id, |game, now| game.pause_clock(reason, now))
            .await
    }

    /// An arbiter restarts the clocks.
    pub async fn resume_clock(&self, id: &GameId, reason: &str) -> Result<GameView, ArbiterError> {
        self.execute_admin(id, |game, now| game.resume_clock(reason, now))
            .await
    }

    /// Runs one arbiter command (the caller has checked the admin token).
    async fn execute_admin(
        &self,
        id: &GameId,
        decide: impl Fn(&Game, Timestamp) -> Result<Decision, Rejection>,
    ) -> Result<GameView, ArbiterError> {
        for _ in 0..MAX_ATTEMPTS {
            let (game, now) = self.load_current(id).await?;
            let decision = decide(&game, now)?;
            if let Some(next) = self.commit(game, decision).await? {
                return self.view(next, now).await;
            }
        }
        Err(ArbiterError::Contention)
    }
}
