//! `ArbiterService`: reads, seat actions, watch streams and exports.

use tonic::{Request, Response, Status};

use super::{
    ArbiterApi, applied, applied_as, convert,
    request::{self, PgnSubject},
    standings_request, stream, teams,
};
use crate::{
    arbiter::{ListFilter, MAX_STANDINGS_PAGE, StandingsPage},
    domain::StandingsRules,
    proto::{self, arbiter_service_server::ArbiterService},
};

/// Moves per ListMoves page when the request names no size, and at most.
const MOVES_PAGE: (usize, usize) = (100, 500);
/// Games per ListGames page when the request names no size, and at most;
/// the full view (with every move) pages more finely.
const GAMES_PAGE: (usize, usize) = (50, 500);
const FULL_GAMES_PAGE: (usize, usize) = (20, 20);

#[tonic::async_trait]
impl ArbiterService for ArbiterApi {
    async fn get_game(
        &self,
        request: Request<proto::GetGameRequest>,
    ) -> Result<Response<proto::GetGameResponse>, Status> {
        let _admitted = self.admit_request()?;
        let reader = self.reader(&request).await?;
        let req = request.get_ref();
        let id = request::game_id(&req.game_id)?;
        let view = self
            .arbiter
            .get_game(&id, request::full_view(req.view()), &reader)
            .await?;
        Ok(Response::new(proto::GetGameResponse {
            game: Some(Box::new(convert::game_view(&view))),
        }))
    }

    async fn list_moves(
        &self,
        request: Request<proto::ListMovesRequest>,
    ) -> Result<Response<proto::ListMovesResponse>, Status> {
        let _admitted = self.admit_request()?;
        let reader = self.reader(&request).await?;
        let req = request.get_ref();
        let id = request::game_id(&req.game_id)?;
        let (default, max) = MOVES_PAGE;
        let size = request::page_size(req.page_size, default, max)?;
        let query = request::moves_query(&id);
        let from = match request::moves_from(&query, &req.page_token)? {
            Some(from) => from,
            None => request::MovesFrom {
                after: 0,
                start_ply: request::non_negative("start_ply", req.start_ply)?,
            },
        };
        let (moves, next) = self
            .arbiter
            .list_moves(&id, (from.start_ply, from.after), size, &reader)
            .await?;
        Ok(Response::new(proto::ListMovesResponse {
            moves: moves.iter().map(convert::move_record).collect(),
            next_page_token: next
                .map(|after| request::moves_token(&query, request::MovesFrom { after, ..from }))
                .unwrap_or_default(),
        }))
    }

    async fn make_move(
        &self,
        request: Request<proto::MakeMoveRequest>,
    ) -> Result<Response<proto::MakeMoveResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, req) = self.seat(request, |r| &r.game_id)?;
        let ply = request::ply(req.ply)?;
        let report = request::move_report(req.lag_millis, req.client_move_millis)?;
        let compact = request::compact_reply(req.reply_view)?;
        let done = self
            .arbiter
            .make_move(&id, &token, ply, &req.r#move, req.offer_draw, report)
            .await?;
        let (game, events) = applied_as(&done, compact);
        Ok(Response::new(proto::MakeMoveResponse { game, events }))
    }

    async fn report_client_signal(
        &self,
        request: Request<proto::ReportClientSignalRequest>,
    ) -> Result<Response<proto::ReportClientSignalResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, req) = self.seat(request, |r| &r.game_id)?;
        let kind = request::signal_kind(req.kind)?;
        let client_at = req
            .client_time
            .as_ref()
            .map(|at| request::timestamp("client_time", at))
            .transpose()?;
        let done = self
            .arbiter
            .report_signal(&id, &token, kind, client_at)
            .await?;
        Ok(Response::new(proto::ReportClientSignalResponse {
            recorded: done.recorded,
            received_time: Some(convert::timestamp(done.signal.received_at)),
            signals_recorded: done
                .held
                .map_or(0, |held| i32::try_from(held).unwrap_or(i32::MAX)),
        }))
    }

    async fn resign_game(
        &self,
        request: Request<proto::ResignGameRequest>,
    ) -> Result<Response<proto::ResignGameResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, _) = self.seat(request, |r| &r.game_id)?;
        let (game, events) = applied(&self.arbiter.resign(&id, &token).await?);
        Ok(Response::new(proto::ResignGameResponse { game, events }))
    }

    async fn offer_draw(
        &self,
        request: Request<proto::OfferDrawRequest>,
    ) -> Result<Response<proto::OfferDrawResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, _) = self.seat(request, |r| &r.game_id)?;
        let (game, events) = applied(&self.arbiter.offer_draw(&id, &token).await?);
        Ok(Response::new(proto::OfferDrawResponse { game, events }))
    }

    async fn accept_draw(
        &self,
        request: Request<proto::AcceptDrawRequest>,
    ) -> Result<Response<proto::AcceptDrawResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, _) = self.seat(request, |r| &r.game_id)?;
        let done = self
            .arbiter
            .respond_to_draw_offer(&id, &token, true)
            .await?;
        let (game, events) = applied(&done);
        Ok(Response::new(proto::AcceptDrawResponse { game, events }))
    }

    async fn decline_draw(
        &self,
        request: Request<proto::DeclineDrawRequest>,
    ) -> Result<Response<proto::DeclineDrawResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, _) = self.seat(request, |r| &r.game_id)?;
        let done = self
            .arbiter
            .respond_to_draw_offer(&id, &token, false)
            .await?;
        let (game, events) = applied(&done);
        Ok(Response::new(proto::DeclineDrawResponse { game, events }))
    }

    async fn claim_draw(
        &self,
        request: Request<proto::ClaimDrawRequest>,
    ) -> Result<Response<proto::ClaimDrawResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, req) = self.seat(request, |r| &r.game_id)?;
        let reason = request::claim_reason(req.reason())?;
        let intended = Some(req.r#move.trim()).filter(|m| !m.is_empty());
        let done = self
            .arbiter
            .claim_draw(&id, &token, request::ply(req.ply)?, reason, intended)
            .await?;
        let (game, events) = applied(&done);
        Ok(Response::new(proto::ClaimDrawResponse {
            game,
            verdict: convert::claim_verdict(&done.outcome).into(),
            explanation: done.outcome.explanation().unwrap_or_default(),
            events,
        }))
    }

    async fn abort_game(
        &self,
        request: Request<proto::AbortGameRequest>,
    ) -> Result<Response<proto::AbortGameResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, _) = self.seat(request, |r| &r.game_id)?;
        let (game, events) = applied(&self.arbiter.abort(&id, &token).await?);
        Ok(Response::new(proto::AbortGameResponse { game, events }))
    }

    async fn check_in(
        &self,
        request: Request<proto::CheckInRequest>,
    ) -> Result<Response<proto::CheckInResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, _) = self.seat(request, |r| &r.game_id)?;
        let (game, events) = applied(&self.arbiter.check_in(&id, &token).await?);
        Ok(Response::new(proto::CheckInResponse { game, events }))
    }

    async fn claim_victory(
        &self,
        request: Request<proto::ClaimVictoryRequest>,
    ) -> Result<Response<proto::ClaimVictoryResponse>, Status> {
        let _admitted = self.admit_request()?;
        let (id, token, _) = self.seat(request, |r| &r.game_id)?;
        let (game, events) = applied(&self.arbiter.claim_victory(&id, &token).await?);
        Ok(Response::new(proto::ClaimVictoryResponse { game, events }))
    }

    type WatchGameStream = stream::GameStream;

    async fn watch_game(
        &self,
        request: Request<proto::WatchGameRequest>,
    ) -> Result<Response<Self::WatchGameStream>, Status> {
        // Served by [`super::framed`]; this is the same stream, decoded,
        // for the generated service on its own.
        Ok(self.watch_game_frames(request).await?.map(stream::decoded))
    }

    async fn list_games(
        &self,
        request: Request<proto::ListGamesRequest>,
    ) -> Result<Response<proto::ListGamesResponse>, Status> {
        let _admitted = self.admit_request()?;
        let reader = self.reader(&request).await?;
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        let full = request::full_view(req.view());
        let (default, max) = if full { FULL_GAMES_PAGE } else { GAMES_PAGE };
        let size = request::page_size(req.page_size, default, max)?;
        let query = request::list_query(&event_id, req.status(), req.view(), req.needs_review);
        let after = request::list_cursor(&query, &req.page_token)?;
        let filter = ListFilter {
            status: request::status_filter(req.status()),
            needs_review: req.needs_review,
        };
        let (games, next) = self
            .arbiter
            .list_games(&event_id, filter, after, size, full, &reader)
            .await?;
        Ok(Response::new(proto::ListGamesResponse {
            games: games.iter().map(convert::game_view).collect(),
            next_page_token: next
                .map(|cursor| request::list_token(&query, &cursor))
                .unwrap_or_default(),
        }))
    }

    type WatchEventStream = stream::EventStream;

    async fn watch_event(
        &self,
        request: Request<proto::WatchEventRequest>,
    ) -> Result<Response<Self::WatchEventStream>, Status> {
        // Served by [`super::framed`]; this is the same stream, decoded,
        // for the generated service on its own.
        Ok(self.watch_event_frames(request).await?.map(stream::decoded))
    }

    async fn get_standings(
        &self,
        request: Request<proto::GetStandingsRequest>,
    ) -> Result<Response<proto::GetStandingsResponse>, Status> {
        let _admitted = self.admit_request()?;
        let reader = self.reader(&request).await?;
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        let rules = StandingsRules {
            order: standings_request::tie_breaks(&req.tie_breaks)?,
            total_rounds: request::total_rounds(req.total_rounds)?,
            byes: standings_request::byes(&req.byes)?,
            ratings: standings_request::ratings(&req.ratings)?,
            ..StandingsRules::default()
        };
        let tie_breaks = rules
            .order
            .as_slice()
            .iter()
            .map(|&t| convert::tie_break(t))
            .collect();
        let query = request::standings_query(req);
        let page = StandingsPage {
            offset: request::standings_offset(&query, &req.page_token)?,
            size: request::page_size(req.page_size, MAX_STANDINGS_PAGE, MAX_STANDINGS_PAGE)?,
        };
        let read = self
            .arbiter
            .standings(&event_id, rules, page, &reader)
            .await?;
        Ok(Response::new(proto::GetStandingsResponse {
            standings: read.rows.iter().map(convert::standing).collect(),
            games_counted: convert::int32(read.counted, i32::MAX),
            tie_breaks,
            offered_tie_breaks: crate::domain::TieBreak::OFFERED
                .into_iter()
                .map(convert::offered_tie_break)
                .collect(),
            next_page_token: read
                .next
                .map(|offset| request::standings_token(&query, offset))
                .unwrap_or_default(),
        }))
    }

    type ExportPgnStream = stream::PgnStream;

    async fn export_pgn(
        &self,
        request: Request<proto::ExportPgnRequest>,
    ) -> Result<Response<Self::ExportPgnStream>, Status> {
        let reader = self.reader(&request).await?;
        Ok(Response::new(
            match request::pgn_subject(request.get_ref())? {
                PgnSubject::Game(id) => {
                    let pgn = self.arbiter.export_pgn(&id, &reader).await?;
                    stream::single_pgn(id.to_string(), pgn)
                }
                PgnSubject::Event(event_id) => stream::event_pgn(
                    self.arbiter.clone(),
                    event_id,
                    reader,
                    self.shutdown.clone(),
                ),
            },
        ))
    }

    async fn get_team_standings(
        &self,
        request: Request<proto::GetTeamStandingsRequest>,
    ) -> Result<Response<proto::GetTeamStandingsResponse>, Status> {
        let _admitted = self.admit_request()?;
        let reader = self.reader(&request).await?;
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        let (primary, order, table) = standings_request::team_order(req)?;
        let read = self
            .arbiter
            .team_standings(&event_id, primary, table, &order, &reader)
            .await?;
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        Ok(Response::new(proto::GetTeamStandingsResponse {
            standings: read
                .rows
                .iter()
                .map(|row| proto::TeamStanding {
                    rank: i32::try_from(row.rank).unwrap_or(i32::MAX),
                    team: read.teams.get(row.team).cloned().unwrap_or_default(),
                    match_points: row.match_points.to_string(),
                    game_points: row.game_points.to_string(),
                    matches: i32::try_from(row.matches).unwrap_or(i32::MAX),
                    tie_break_values: row.values.iter().map(ToString::to_string).collect(),
                    team_id: read.ids.get(row.team).cloned().unwrap_or_default(),
                })
                .collect(),
            tie_breaks: order.iter().map(|t| t.code().to_owned()).collect(),
            matches_counted: count(read.counted),
            matches_in_progress: count(read.in_progress),
            boards: read
                .boards
                .iter()
                .map(|row| proto::TeamBoardStanding {
                    board: i32::try_from(row.board).unwrap_or(i32::MAX),
                    player: Some(convert::player(&row.player)),
                    team: read.teams.get(row.team).cloned().unwrap_or_default(),
                    points: row.points.to_string(),
                    games: i32::try_from(row.games).unwrap_or(i32::MAX),
                    performance: row.performance.and_then(|p| i32::try_from(p).ok()),
                    team_id: read.ids.get(row.team).cloned().unwrap_or_default(),
                })
                .collect(),
        }))
    }

    async fn get_teams(
        &self,
        request: Request<proto::GetTeamsRequest>,
    ) -> Result<Response<proto::GetTeamsResponse>, Status> {
        let _admitted = self.admit_request()?;
        let event_id = request::event_id(&request.get_ref().event_id)?;
        let (registration, version) = self.arbiter.teams(&event_id).await?;
        Ok(Response::new(proto::GetTeamsResponse {
            registration: Some(teams::registration(&event_id, &registration, version)),
        }))
    }

    async fn export_trf(
        &self,
        request: Request<proto::ExportTrfRequest>,
    ) -> Result<Response<proto::ExportTrfResponse>, Status> {
        let _admitted = self.admit_request()?;
        let event_id = request::event_id(&request.get_ref().event_id)?;
        let total_rounds = request::total_rounds(request.get_ref().total_rounds)?;
        let reader = self.reader(&request).await?;
        let byes = standings_request::byes(&request.get_ref().byes)?;
        let trf = self
            .arbiter
            .export_trf(&event_id, total_rounds, byes, &reader)
            .await?;
        Ok(Response::new(proto::ExportTrfResponse { trf }))
    }
}

impl ArbiterApi {
    /// `WatchGame`: the stream of the game the request names, as sent.
    pub(super) async fn watch_game_frames(
        &self,
        request: Request<proto::WatchGameRequest>,
    ) -> Result<Response<impl stream::Frames>, Status> {
        let reader = self.reader(&request).await?;
        let req = request.get_ref();
        let id = request::game_id(&req.game_id)?;
        let from = request::watch_from(req.after_version, &req.resume_token)?;
        let permit = self.streams.admit(request.remote_addr())?;
        let watcher = self
            .arbiter
            .watch(&id, from, self.heartbeat, &reader)
            .await?;
        Ok(Response::new(stream::game(
            id.to_string(),
            watcher,
            self.shutdown.clone(),
            permit,
        )))
    }

    /// `WatchEvent`'s stream, as frames (see [`super::framed`]).
    pub(super) async fn watch_event_frames(
        &self,
        request: Request<proto::WatchEventRequest>,
    ) -> Result<Response<impl stream::Frames>, Status> {
        let reader = self.reader(&request).await?;
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        let round = match req.round {
            0 => None,
            round => Some(super::rounds::round_number(round)?),
        };
        let permit = self.streams.admit(request.remote_addr())?;
        let watcher = self.arbiter.watch_event(
            &event_id,
            &req.after_cursor,
            self.heartbeat,
            &reader,
            round,
        )?;
        Ok(Response::new(stream::event(
            watcher,
            self.shutdown.clone(),
            permit,
        )))
    }
}
