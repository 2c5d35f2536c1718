//! The gRPC surface: protobuf in, arbiter calls, protobuf out.
//!
//! It reads request fields into domain types (`request`, `create`), checks
//! credentials (`auth`), converts results (`convert`), serves the watch
//! streams (`stream`) and maps errors to statuses ([`status`]). It holds no
//! rules. Every handler has one shape: `seat` (a player's call) or
//! `ArbiterApi::ruling` (an arbiter's) reads the game and the caller, the
//! arbiter acts, `reply` converts the game it returns.

mod auth;
mod convert;
mod create;
mod request;
pub mod status;
mod stream;

use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

pub use self::auth::AdminToken;
use self::request::{ArbiterRequest, GameRequest, PgnSubject};
use crate::{
    arbiter::{Arbiter, GameView},
    domain::{ArbiterReason, ClaimVerdict, GameId, Ply},
    proto::{self, arbiter_service_server::ArbiterService},
};

/// The `ArbiterService` implementation.
#[derive(Clone)]
pub struct ArbiterApi {
    arbiter: Arbiter,
    admin: AdminToken,
    shutdown: CancellationToken,
}

impl ArbiterApi {
    /// The service over `arbiter`. Watch streams end when `shutdown` fires.
    pub fn new(arbiter: Arbiter, admin: AdminToken, shutdown: CancellationToken) -> Self {
        Self {
            arbiter,
            admin,
            shutdown,
        }
    }

    /// An arbiter's request about one game: the admin token checked, then
    /// the game's id and the stated reason read.
    fn ruling<T: ArbiterRequest>(
        &self,
        request: Request<T>,
    ) -> Result<(GameId, ArbiterReason, T), Status> {
        self.admin.check(&request)?;
        let req = request.into_inner();
        let id = request::game_id(req.game_id())?;
        let reason = ArbiterReason::parse(req.reason()).map_err(|e| status::invalid_field(&e))?;
        Ok((id, reason, req))
    }
}

/// A player's request about one game: the seat's bearer token and the
/// game's id (the arbiter tells which seat the token holds).
fn seat<T: GameRequest>(request: Request<T>) -> Result<(GameId, String, T), Status> {
    let token = auth::bearer(&request)?;
    let req = request.into_inner();
    Ok((request::game_id(req.game_id())?, token, req))
}

/// Responses that carry the game as the call left it.
trait GameResponse {
    fn with_game(game: proto::Game) -> Self;
}

macro_rules! game_responses {
    ($($response:ident),* $(,)?) => {
        $(impl GameResponse for proto::$response {
            fn with_game(game: proto::Game) -> Self {
                Self { game: Some(game) }
            }
        })*
    };
}

game_responses!(
    GetGameResponse,
    MakeMoveResponse,
    ResignResponse,
    OfferDrawResponse,
    RespondToDrawOfferResponse,
    AbortGameResponse,
    AdjustClockResponse,
    PauseClockResponse,
    ResumeClockResponse,
    SetResultResponse,
);

/// The response carrying `view`.
fn reply<R: GameResponse>(view: &GameView) -> Result<Response<R>, Status> {
    Ok(Response::new(R::with_game(convert::game(view))))
}

#[tonic::async_trait]
impl ArbiterService for ArbiterApi {
    async fn create_game(
        &self,
        request: Request<proto::CreateGameRequest>,
    ) -> Result<Response<proto::CreateGameResponse>, Status> {
        self.admin.check(&request)?;
        let (request_id, new) = create::new_game(request.get_ref())?;
        let created = self.arbiter.create_game(request_id, new).await?;
        Ok(Response::new(proto::CreateGameResponse {
            game: Some(convert::game(&created.view)),
            white_token: created.tokens.white,
            black_token: created.tokens.black,
        }))
    }

    async fn get_game(
        &self,
        request: Request<proto::GetGameRequest>,
    ) -> Result<Response<proto::GetGameResponse>, Status> {
        let id = request::game_id(&request.get_ref().game_id)?;
        reply(&self.arbiter.get_game(&id).await?)
    }

    async fn make_move(
        &self,
        request: Request<proto::MakeMoveRequest>,
    ) -> Result<Response<proto::MakeMoveResponse>, Status> {
        let (id, token, req) = seat(request)?;
        let ply = Ply::new(req.ply);
        reply(
            &self
                .arbiter
                .make_move(&id, &token, ply, &req.r#move, req.offer_draw)
                .await?,
        )
    }

    async fn resign(
        &self,
        request: Request<proto::ResignRequest>,
    ) -> Result<Response<proto::ResignResponse>, Status> {
        let (id, token, _) = seat(request)?;
        reply(&self.arbiter.resign(&id, &token).await?)
    }

    async fn offer_draw(
        &self,
        request: Request<proto::OfferDrawRequest>,
    ) -> Result<Response<proto::OfferDrawResponse>, Status> {
        let (id, token, _) = seat(request)?;
        reply(&self.arbiter.offer_draw(&id, &token).await?)
    }

    async fn respond_to_draw_offer(
        &self,
        request: Request<proto::RespondToDrawOfferRequest>,
    ) -> Result<Response<proto::RespondToDrawOfferResponse>, Status> {
        let (id, token, req) = seat(request)?;
        reply(
            &self
                .arbiter
                .respond_to_draw_offer(&id, &token, req.accept)
                .await?,
        )
    }

    async fn claim_draw(
        &self,
        request: Request<proto::ClaimDrawRequest>,
    ) -> Result<Response<proto::ClaimDrawResponse>, Status> {
        let (id, token, req) = seat(request)?;
        let reason = request::claim_reason(req.reason())?;
        let intended = Some(req.r#move.trim()).filter(|m| !m.is_empty());
        let (view, verdict) = self
            .arbiter
            .claim_draw(&id, &token, Ply::new(req.ply), reason, intended)
            .await?;
        Ok(Response::new(proto::ClaimDrawResponse {
            game: Some(convert::game(&view)),
            upheld: verdict == ClaimVerdict::Upheld,
            explanation: verdict.explanation().unwrap_or_default(),
            verdict: convert::claim_verdict(verdict).into(),
        }))
    }

    async fn abort_game(
        &self,
        request: Request<proto::AbortGameRequest>,
    ) -> Result<Response<proto::AbortGameResponse>, Status> {
        let (id, token, _) = seat(request)?;
        reply(&self.arbiter.abort(&id, &token).await?)
    }

    async fn adjust_clock(
        &self,
        request: Request<proto::AdjustClockRequest>,
    ) -> Result<Response<proto::AdjustClockResponse>, Status> {
        let (id, reason, req) = self.ruling(request)?;
        let color = request::color(req.color())?;
        reply(
            &self
                .arbiter
                .adjust_clock(&id, color, req.delta_ms, reason.as_str())
                .await?,
        )
    }

    async fn pause_clock(
        &self,
        request: Request<proto::PauseClockRequest>,
    ) -> Result<Response<proto::PauseClockResponse>, Status> {
        let (id, reason, _) = self.ruling(request)?;
        reply(&self.arbiter.pause_clock(&id, reason.as_str()).await?)
    }

    async fn resume_clock(
        &self,
        request: Request<proto::ResumeClockRequest>,
    ) -> Result<Response<proto::ResumeClockResponse>, Status> {
        let (id, reason, _) = self.ruling(request)?;
        reply(&self.arbiter.resume_clock(&id, reason.as_str()).await?)
    }

    async fn set_result(
        &self,
        request: Request<proto::SetResultRequest>,
    ) -> Result<Response<proto::SetResultResponse>, Status> {
        let (id, reason, req) = self.ruling(request)?;
        let ruling = request::ruling(&req)?;
        reply(
            &self
                .arbiter
                .set_result(&id, ruling, reason.as_str())
                .await?,
        )
    }

    async fn list_games(
        &self,
        request: Request<proto::ListGamesRequest>,
    ) -> Result<Response<proto::ListGamesResponse>, Status> {
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        let page = request::page(req.page_size, &req.page_token)?;
        let wanted = request::status_filter(req.status());
        let (games, next) = self
            .arbiter
            .list_games(&event_id, wanted, page.offset, page.size)
            .await?;
        Ok(Response::new(proto::ListGamesResponse {
            games: games.iter().map(convert::game).collect(),
            next_page_token: next.map(request::page_token).unwrap_or_default(),
        }))
    }

    async fn get_standings(
        &self,
        request: Request<proto::GetStandingsRequest>,
    ) -> Result<Response<proto::GetStandingsResponse>, Status> {
        let event_id = request::event_id(&request.get_ref().event_id)?;
        let (rows, counted) = self.arbiter.standings(&event_id).await?;
        Ok(Response::new(proto::GetStandingsResponse {
            standings: rows.iter().map(convert::standing).collect(),
            games_counted: u32::try_from(counted).unwrap_or(u32::MAX),
        }))
    }

    async fn export_trf(
        &self,
        request: Request<proto::ExportTrfRequest>,
    ) -> Result<Response<proto::ExportTrfResponse>, Status> {
        let event_id = request::event_id(&request.get_ref().event_id)?;
        let trf = self.arbiter.export_trf(&event_id).await?;
        Ok(Response::new(proto::ExportTrfResponse { trf }))
    }

    async fn export_pgn(
        &self,
        request: Request<proto::ExportPgnRequest>,
    ) -> Result<Response<proto::ExportPgnResponse>, Status> {
        let pgn = match request::pgn_subject(request.get_ref())? {
            PgnSubject::Game(id) => self.arbiter.export_pgn(&id).await?,
            PgnSubject::Event(event_id) => self.arbiter.export_event_pgn(&event_id).await?,
        };
        Ok(Response::new(proto::ExportPgnResponse { pgn }))
    }

    type WatchGameStream = stream::GameStream;

    async fn watch_game(
        &self,
        request: Request<proto::WatchGameRequest>,
    ) -> Result<Response<Self::WatchGameStream>, Status> {
        let req = request.get_ref();
        let id = request::game_id(&req.game_id)?;
        let watcher = self.arbiter.watch(&id, req.after_version).await?;
        Ok(Response::new(stream::game(watcher, self.shutdown.clone())))
    }

    type WatchEventStream = stream::EventStream;

    async fn watch_event(
        &self,
        request: Request<proto::WatchEventRequest>,
    ) -> Result<Response<Self::WatchEventStream>, Status> {
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        let watcher = self.arbiter.watch_event(&event_id, &req.after_cursor)?;
        Ok(Response::new(stream::event(watcher, self.shutdown.clone())))
    }
}
