//! The gRPC surface: protobuf in, arbiter calls, protobuf out.
//!
//! It validates request fields into domain types, checks credentials, and
//! maps errors to statuses ([`status`]). It holds no rules.

mod auth;
mod convert;
pub mod status;

use std::pin::Pin;

use futures::Stream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

pub use self::auth::AdminToken;
use crate::{
    arbiter::Arbiter,
    domain::{GameId, NewGame, Pairing, Player, Ply, RequestId},
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
}

fn game_id(raw: &str) -> Result<GameId, Status> {
    GameId::parse(raw).map_err(|err| status::invalid_field(&err))
}

fn player(field: &'static str, player: Option<&proto::Player>) -> Result<Player, Status> {
    let player = player.ok_or_else(|| {
        status::invalid_field(&crate::domain::FieldError::new(field, "is required"))
    })?;
    Player::parse(field, &player.id, &player.name).map_err(|err| status::invalid_field(&err))
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<proto::WatchGameResponse, Status>> + Send>>;

#[tonic::async_trait]
impl ArbiterService for ArbiterApi {
    async fn create_game(
        &self,
        request: Request<proto::CreateGameRequest>,
    ) -> Result<Response<proto::CreateGameResponse>, Status> {
        self.admin.check(&request)?;
        let req = request.into_inner();
        let request_id =
            RequestId::parse(&req.request_id).map_err(|e| status::invalid_field(&e))?;
        let white = player("white", req.white.as_ref())?;
        let black = player("black", req.black.as_ref())?;
        let pairing = Pairing::parse(&req.event_id, req.round, req.board)
            .map_err(|e| status::invalid_field(&e))?;
        let new = NewGame::new(white, black, &req.initial_fen, pairing)
            .map_err(|e| status::invalid_field(&e))?;
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
        let id = game_id(&request.get_ref().game_id)?;
        let view = self.arbiter.get_game(&id).await?;
        Ok(Response::new(proto::GetGameResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn make_move(
        &self,
        request: Request<proto::MakeMoveRequest>,
    ) -> Result<Response<proto::MakeMoveResponse>, Status> {
        let token = auth::bearer(&request)?;
        let req = request.into_inner();
        let id = game_id(&req.game_id)?;
        let view = self
            .arbiter
            .make_move(&id, &token, Ply::new(req.ply), &req.r#move)
            .await?;
        Ok(Response::new(proto::MakeMoveResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn resign(
        &self,
        request: Request<proto::ResignRequest>,
    ) -> Result<Response<proto::ResignResponse>, Status> {
        let token = auth::bearer(&request)?;
        let id = game_id(&request.get_ref().game_id)?;
        let view = self.arbiter.resign(&id, &token).await?;
        Ok(Response::new(proto::ResignResponse {
            game: Some(convert::game(&view)),
        }))
    }

    type WatchGameStream = WatchStream;

    async fn watch_game(
        &self,
        request: Request<proto::WatchGameRequest>,
    ) -> Result<Response<Self::WatchGameStream>, Status> {
        let req = request.into_inner();
        let id = game_id(&req.game_id)?;
        let watcher = self.arbiter.watch(&id, req.after_version).await?;
        let shutdown = self.shutdown.clone();
        let stream = futures::stream::unfold(Some(watcher), move |state| {
            let shutdown = shutdown.clone();
            async move {
                let mut watcher = state?;
                match watcher.next(&shutdown).await {
                    Ok(Some(item)) => Some((
                        Ok(proto::WatchGameResponse {
                            event: Some(convert::watch_item(&item)),
                        }),
                        Some(watcher),
                    )),
                    Ok(None) => None,
                    // Send the error, then end the stream.
                    Err(err) => Some((Err(Status::from(err)), None)),
                }
            }
        });
        Ok(Response::new(Box::pin(stream)))
    }

    async fn export_pgn(
        &self,
        request: Request<proto::ExportPgnRequest>,
    ) -> Result<Response<proto::ExportPgnResponse>, Status> {
        let id = game_id(&request.get_ref().game_id)?;
        let pgn = self.arbiter.export_pgn(&id).await?;
        Ok(Response::new(proto::ExportPgnResponse { pgn }))
    }
}
