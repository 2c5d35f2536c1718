//! The gRPC surface: protobuf in, arbiter calls, protobuf out.
//!
//! It validates request fields into domain types, checks credentials, and
//! maps errors to statuses ([`status`]). It holds no rules.

mod auth;
mod convert;
mod create;
pub mod status;

use std::pin::Pin;

use futures::Stream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

pub use self::auth::AdminToken;
use crate::{
    arbiter::{Arbiter, WatchItem},
    domain::{
        ArbiterReason, ClaimReason, ClaimVerdict, Color, EventId, FieldError, GameId, GameStatus,
        Outcome, Ply, Ruling,
    },
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

/// A required event id.
fn event_id(raw: &str) -> Result<EventId, Status> {
    EventId::parse(raw).map_err(|err| status::invalid_field(&err))
}

/// Page tokens are opaque to clients: `p` and an offset in base 36.
fn page_token(offset: usize) -> String {
    let mut digits = Vec::new();
    let mut n = offset;
    loop {
        digits.push(char::from_digit((n % 36) as u32, 36).unwrap_or('0'));
        n /= 36;
        if n == 0 {
            break;
        }
    }
    format!("p{}", digits.iter().rev().collect::<String>())
}

fn page_offset(token: &str) -> Result<usize, Status> {
    if token.is_empty() {
        return Ok(0);
    }
    token
        .strip_prefix('p')
        .filter(|digits| {
            !digits.is_empty()
                && digits.len() <= 12
                && digits.bytes().all(|b| b.is_ascii_alphanumeric())
        })
        .and_then(|digits| usize::from_str_radix(digits, 36).ok())
        .ok_or_else(|| {
            status::invalid_field(&FieldError::new(
                "page_token",
                "is not a token this server issued",
            ))
        })
}

/// An arbiter's stated reason.
fn reason(text: &str) -> Result<ArbiterReason, Status> {
    ArbiterReason::parse(text).map_err(|err| status::invalid_field(&err))
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<proto::WatchGameResponse, Status>> + Send>>;
type EventStream = Pin<Box<dyn Stream<Item = Result<proto::WatchEventResponse, Status>> + Send>>;

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
            .make_move(&id, &token, Ply::new(req.ply), &req.r#move, req.offer_draw)
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

    async fn offer_draw(
        &self,
        request: Request<proto::OfferDrawRequest>,
    ) -> Result<Response<proto::OfferDrawResponse>, Status> {
        let token = auth::bearer(&request)?;
        let id = game_id(&request.get_ref().game_id)?;
        let view = self.arbiter.offer_draw(&id, &token).await?;
        Ok(Response::new(proto::OfferDrawResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn respond_to_draw_offer(
        &self,
        request: Request<proto::RespondToDrawOfferRequest>,
    ) -> Result<Response<proto::RespondToDrawOfferResponse>, Status> {
        let token = auth::bearer(&request)?;
        let id = game_id(&request.get_ref().game_id)?;
        let view = self
            .arbiter
            .respond_to_draw_offer(&id, &token, request.get_ref().accept)
            .await?;
        Ok(Response::new(proto::RespondToDrawOfferResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn claim_draw(
        &self,
        request: Request<proto::ClaimDrawRequest>,
    ) -> Result<Response<proto::ClaimDrawResponse>, Status> {
        let token = auth::bearer(&request)?;
        let req = request.into_inner();
        let id = game_id(&req.game_id)?;
        let reason = match req.reason() {
            proto::DrawClaimReason::ThreefoldRepetition => ClaimReason::ThreefoldRepetition,
            proto::DrawClaimReason::FiftyMoves => ClaimReason::FiftyMoves,
            proto::DrawClaimReason::Unspecified => {
                return Err(status::invalid_field(&FieldError::new(
                    "reason",
                    "must be DRAW_CLAIM_REASON_THREEFOLD_REPETITION or DRAW_CLAIM_REASON_FIFTY_MOVES",
                )));
            }
        };
        let intended = Some(req.r#move.trim()).filter(|m| !m.is_empty());
        let (view, verdict) = self
            .arbiter
            .claim_draw(&id, &token, Ply::new(req.ply), reason, intended)
            .await?;
        let explanation = verdict.explanation().unwrap_or_default();
        let ruling = match verdict {
            ClaimVerdict::Upheld => proto::DrawClaimVerdict::Upheld,
            ClaimVerdict::Refused(_) => proto::DrawClaimVerdict::Refused,
            ClaimVerdict::Moot => proto::DrawClaimVerdict::Moot,
        };
        let upheld = ruling == proto::DrawClaimVerdict::Upheld;
        Ok(Response::new(proto::ClaimDrawResponse {
            game: Some(convert::game(&view)),
            upheld,
            explanation,
            verdict: ruling.into(),
        }))
    }

    async fn abort_game(
        &self,
        request: Request<proto::AbortGameRequest>,
    ) -> Result<Response<proto::AbortGameResponse>, Status> {
        let token = auth::bearer(&request)?;
        let id = game_id(&request.get_ref().game_id)?;
        let view = self.arbiter.abort(&id, &token).await?;
        Ok(Response::new(proto::AbortGameResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn adjust_clock(
        &self,
        request: Request<proto::AdjustClockRequest>,
    ) -> Result<Response<proto::AdjustClockResponse>, Status> {
        self.admin.check(&request)?;
        let req = request.into_inner();
        let id = game_id(&req.game_id)?;
        let color = match req.color() {
            proto::Color::White => Color::White,
            proto::Color::Black => Color::Black,
            proto::Color::Unspecified => {
                return Err(status::invalid_field(&FieldError::new(
                    "color",
                    "must be COLOR_WHITE or COLOR_BLACK",
                )));
            }
        };
        let reason = reason(&req.reason)?;
        let view = self
            .arbiter
            .adjust_clock(&id, color, req.delta_ms, reason.as_str())
            .await?;
        Ok(Response::new(proto::AdjustClockResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn pause_clock(
        &self,
        request: Request<proto::PauseClockRequest>,
    ) -> Result<Response<proto::PauseClockResponse>, Status> {
        self.admin.check(&request)?;
        let id = game_id(&request.get_ref().game_id)?;
        let reason = reason(&request.get_ref().reason)?;
        let view = self.arbiter.pause_clock(&id, reason.as_str()).await?;
        Ok(Response::new(proto::PauseClockResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn resume_clock(
        &self,
        request: Request<proto::ResumeClockRequest>,
    ) -> Result<Response<proto::ResumeClockResponse>, Status> {
        self.admin.check(&request)?;
        let id = game_id(&request.get_ref().game_id)?;
        let reason = reason(&request.get_ref().reason)?;
        let view = self.arbiter.resume_clock(&id, reason.as_str()).await?;
        Ok(Response::new(proto::ResumeClockResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn list_games(
        &self,
        request: Request<proto::ListGamesRequest>,
    ) -> Result<Response<proto::ListGamesResponse>, Status> {
        let req = request.into_inner();
        let event_id = event_id(&req.event_id)?;
        let page_size = match req.page_size {
            0 => 50,
            n @ 1..=500 => n as usize,
            _ => {
                return Err(status::invalid_field(&FieldError::new(
                    "page_size",
                    "must be from 1 to 500 (0 means 50)",
                )));
            }
        };
        let offset = page_offset(&req.page_token)?;
        let wanted = match req.status() {
            proto::GameStatus::Unspecified => None,
            proto::GameStatus::Active => Some(GameStatus::Active),
            proto::GameStatus::Finished => Some(GameStatus::Finished),
            proto::GameStatus::Aborted => Some(GameStatus::Aborted),
        };
        let (games, next) = self
            .arbiter
            .list_games(&event_id, wanted, offset, page_size)
            .await?;
        Ok(Response::new(proto::ListGamesResponse {
            games: games.iter().map(convert::game).collect(),
            next_page_token: next.map(page_token).unwrap_or_default(),
        }))
    }

    async fn get_standings(
        &self,
        request: Request<proto::GetStandingsRequest>,
    ) -> Result<Response<proto::GetStandingsResponse>, Status> {
        let event_id = event_id(&request.get_ref().event_id)?;
        let (rows, counted) = self.arbiter.standings(&event_id).await?;
        Ok(Response::new(proto::GetStandingsResponse {
            standings: rows.iter().map(convert::standing).collect(),
            games_counted: u32::try_from(counted).unwrap_or(u32::MAX),
        }))
    }

    async fn set_result(
        &self,
        request: Request<proto::SetResultRequest>,
    ) -> Result<Response<proto::SetResultResponse>, Status> {
        self.admin.check(&request)?;
        let req = request.into_inner();
        let id = game_id(&req.game_id)?;
        let reason = reason(&req.reason)?;
        let played_fields_given = req.outcome() != proto::Outcome::Unspecified
            || req.termination() != proto::Termination::Unspecified;
        let ruling = match req.forfeit() {
            proto::Forfeit::Unspecified => {
                let outcome = match req.outcome() {
                    proto::Outcome::WhiteWins => Outcome::WhiteWins,
                    proto::Outcome::BlackWins => Outcome::BlackWins,
                    proto::Outcome::Draw => Outcome::Draw,
                    proto::Outcome::Unspecified | proto::Outcome::DoubleForfeit => {
                        return Err(status::invalid_field(&FieldError::new(
                            "outcome",
                            "must be a win or a draw (use forfeit for forfeits)",
                        )));
                    }
                };
                Ruling::Played {
                    outcome,
                    termination: convert::termination_from(req.termination()),
                }
            }
            _ if played_fields_given => {
                return Err(status::invalid_field(&FieldError::new(
                    "forfeit",
                    "a forfeit takes no outcome or termination",
                )));
            }
            proto::Forfeit::White => Ruling::Forfeit {
                loser: Color::White,
            },
            proto::Forfeit::Black => Ruling::Forfeit {
                loser: Color::Black,
            },
            proto::Forfeit::Both => Ruling::DoubleForfeit,
        };
        let view = self
            .arbiter
            .set_result(&id, ruling, reason.as_str())
            .await?;
        Ok(Response::new(proto::SetResultResponse {
            game: Some(convert::game(&view)),
        }))
    }

    async fn export_trf(
        &self,
        request: Request<proto::ExportTrfRequest>,
    ) -> Result<Response<proto::ExportTrfResponse>, Status> {
        let event_id = event_id(&request.get_ref().event_id)?;
        let trf = self.arbiter.export_trf(&event_id).await?;
        Ok(Response::new(proto::ExportTrfResponse { trf }))
    }

    type WatchEventStream = EventStream;

    async fn watch_event(
        &self,
        request: Request<proto::WatchEventRequest>,
    ) -> Result<Response<Self::WatchEventStream>, Status> {
        let req = request.into_inner();
        let event_id = event_id(&req.event_id)?;
        let watcher = self.arbiter.watch_event(&event_id, &req.after_cursor)?;
        let shutdown = self.shutdown.clone();
        let stream = futures::stream::unfold(Some(watcher), move |state| {
            let shutdown = shutdown.clone();
            async move {
                let mut watcher = state?;
                match watcher.next(&shutdown).await {
                    Ok(update) => Some((
                        Ok(proto::WatchEventResponse {
                            game_id: update.game_id.to_string(),
                            event: Some(convert::watch_item(&WatchItem::Event(Box::new(
                                update.event,
                            )))),
                            cursor: update.cursor,
                        }),
                        Some(watcher),
                    )),
                    // Send the error, then end the stream.
                    Err(err) => Some((Err(Status::from(err)), None)),
                }
            }
        });
        Ok(Response::new(Box::pin(stream)))
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
        let req = request.get_ref();
        let pgn = match (req.game_id.is_empty(), req.event_id.is_empty()) {
            (false, true) => self.arbiter.export_pgn(&game_id(&req.game_id)?).await?,
            (true, false) => {
                let event_id = event_id(&req.event_id)?;
                self.arbiter.export_event_pgn(&event_id).await?
            }
            (false, false) => {
                return Err(status::invalid_field(&FieldError::new(
                    "event_id",
                    "give either game_id or event_id, not both",
                )));
            }
            (true, true) => {
                return Err(status::invalid_field(&FieldError::new(
                    "game_id",
                    "is required (or event_id, for a whole event)",
                )));
            }
        };
        Ok(Response::new(proto::ExportPgnResponse { pgn }))
    }
}
