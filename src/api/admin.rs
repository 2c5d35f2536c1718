//! `AdminService`: creating games and rounds, the arbiter's
//! interventions and the credentials, every call behind the admin token or
//! a credential whose role and event allow it, and idempotent by its
//! `request_id`.

use tonic::{Request, Response, Status};

use super::{
    ArbiterApi, applied, audit, convert, create, credentials, request, rounds, status, stream,
    teams,
};
use crate::{
    arbiter::ArbiterError,
    domain::{
        ArbiterReason, GameId, RequestId,
        access::{Action, Principal},
    },
    proto::{self, admin_service_server::AdminService},
};

/// What every arbiter's intervention names: the principal, whose role
/// allows interventions (the arbiter checks its event against the game's),
/// then the request id, the game and the stated reason read.
struct Intervention<T> {
    by: Principal,
    request_id: Option<RequestId>,
    game: GameId,
    reason: ArbiterReason,
    req: T,
}

impl ArbiterApi {
    async fn intervention<T>(
        &self,
        request: Request<T>,
        fields: impl Fn(&T) -> (&str, &str, &str),
    ) -> Result<Intervention<T>, Status> {
        let by = self.principal(&request, Action::Intervene).await?;
        let req = request.into_inner();
        let (request_id, game_id, reason) = fields(&req);
        Ok(Intervention {
            by,
            request_id: request::request_id(request_id)?,
            game: request::game_id(game_id)?,
            reason: request::reason(reason)?,
            req,
        })
    }
}

#[tonic::async_trait]
impl AdminService for ArbiterApi {
    async fn create_game(
        &self,
        request: Request<proto::CreateGameRequest>,
    ) -> Result<Response<proto::CreateGameResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Organise).await?;
        let (request_id, new) = create::new_game(request.get_ref())?;
        by.authorize(Action::Organise, new.pairing().event_id.as_ref())
            .map_err(|denial| status::denied(&denial))?;
        let created = self.arbiter.create_game(request_id, new, &by.name).await?;
        Ok(Response::new(proto::CreateGameResponse {
            game: Some(Box::new(convert::game(&created.game, created.as_of))),
            white_token: created.tokens.white,
            black_token: created.tokens.black,
        }))
    }

    async fn adjust_clock(
        &self,
        request: Request<proto::AdjustClockRequest>,
    ) -> Result<Response<proto::AdjustClockResponse>, Status> {
        let _admitted = self.admit_request()?;
        let call = self
            .intervention(request, |r| (&r.request_id, &r.game_id, &r.reason))
            .await?;
        let color = request::color(call.req.color())?;
        let done = self
            .arbiter
            .adjust_clock(
                &call.game,
                call.request_id.as_ref(),
                color,
                i64::from(call.req.delta_millis),
                &call.reason,
                call.req.players_request,
                &call.by,
            )
            .await?;
        let (game, events) = applied(&done);
        Ok(Response::new(proto::AdjustClockResponse { game, events }))
    }

    async fn pause_clock(
        &self,
        request: Request<proto::PauseClockRequest>,
    ) -> Result<Response<proto::PauseClockResponse>, Status> {
        let _admitted = self.admit_request()?;
        let call = self
            .intervention(request, |r| (&r.request_id, &r.game_id, &r.reason))
            .await?;
        let done = self
            .arbiter
            .pause_clock(&call.game, call.request_id.as_ref(), &call.reason, &call.by)
            .await?;
        let (game, events) = applied(&done);
        Ok(Response::new(proto::PauseClockResponse { game, events }))
    }

    async fn resume_clock(
        &self,
        request: Request<proto::ResumeClockRequest>,
    ) -> Result<Response<proto::ResumeClockResponse>, Status> {
        let _admitted = self.admit_request()?;
        let call = self
            .intervention(request, |r| (&r.request_id, &r.game_id, &r.reason))
            .await?;
        let done = self
            .arbiter
            .resume_clock(&call.game, call.request_id.as_ref(), &call.reason, &call.by)
            .await?;
        let (game, events) = applied(&done);
        Ok(Response::new(proto::ResumeClockResponse { game, events }))
    }

    async fn set_game_result(
        &self,
        request: Request<proto::SetGameResultRequest>,
    ) -> Result<Response<proto::SetGameResultResponse>, Status> {
        let _admitted = self.admit_request()?;
        let call = self
            .intervention(request, |r| (&r.request_id, &r.game_id, &r.reason))
            .await?;
        let ruling = request::ruling(&call.req)?;
        let done = self
            .arbiter
            .set_result(
                &call.game,
                call.request_id.as_ref(),
                ruling,
                &call.reason,
                &call.by,
            )
            .await?;
        let (game, events) = applied(&done);
        Ok(Response::new(proto::SetGameResultResponse { game, events }))
    }

    async fn inspect_game(
        &self,
        request: Request<proto::InspectGameRequest>,
    ) -> Result<Response<proto::InspectGameResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Inspect).await?;
        let id = request::game_id(&request.get_ref().game_id)?;
        let found = self.arbiter.inspect(&id, &by).await?;
        let bytes = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        Ok(Response::new(proto::InspectGameResponse {
            state_json: found.state_json,
            events_json: found.events_json,
            state_bytes: bytes(found.state_bytes),
            archived_through: i32::try_from(found.archived_through).unwrap_or(i32::MAX),
            archive_bytes: bytes(found.archive_bytes),
            log_bytes: bytes(found.log_bytes),
        }))
    }

    type ExportAuditLogStream = stream::AuditStream;

    async fn export_audit_log(
        &self,
        request: Request<proto::ExportAuditLogRequest>,
    ) -> Result<Response<Self::ExportAuditLogStream>, Status> {
        let by = self.principal(&request, Action::Inspect).await?;
        // No event: the platform's own log.
        let event_id = match request.get_ref().event_id.as_str() {
            "" => None,
            raw => Some(request::event_id(raw)?),
        };
        by.authorize(Action::Inspect, event_id.as_ref())
            .map_err(|denial| status::denied(&denial))?;
        Ok(Response::new(stream::audit_log(
            self.arbiter.clone(),
            event_id,
            self.shutdown.clone(),
        )))
    }

    async fn export_fair_play(
        &self,
        request: Request<proto::ExportFairPlayRequest>,
    ) -> Result<Response<proto::ExportFairPlayResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Inspect).await?;
        let id = request::game_id(&request.get_ref().game_id)?;
        let export = self.arbiter.fair_play_record(&id, &by).await?;
        let summary = export.record.summary;
        Ok(Response::new(proto::ExportFairPlayResponse {
            json: export.record.to_json(),
            pgn: export.pgn,
            white: Some(convert::fair_play_summary(&summary.white)),
            black: Some(convert::fair_play_summary(&summary.black)),
        }))
    }

    async fn report_connection(
        &self,
        request: Request<proto::ReportConnectionRequest>,
    ) -> Result<Response<proto::ReportConnectionResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Intervene).await?;
        let req = request.get_ref();
        let id = request::game_id(&req.game_id)?;
        let color = request::color(req.color())?;
        let done = self
            .arbiter
            .report_connection(&id, color, req.connected, &by)
            .await?;
        let (game, events) = applied(&done);
        Ok(Response::new(proto::ReportConnectionResponse {
            game,
            events,
        }))
    }

    async fn create_round(
        &self,
        request: Request<proto::CreateRoundRequest>,
    ) -> Result<Response<proto::CreateRoundResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Organise).await?;
        let plan = rounds::create_request(request.get_ref())?;
        by.authorize(Action::Organise, Some(&plan.event))
            .map_err(|denial| status::denied(&denial))?;
        let created = self.arbiter.create_round(plan, &by.name).await?;
        Ok(Response::new(rounds::created(&created)))
    }

    async fn register_teams(
        &self,
        request: Request<proto::RegisterTeamsRequest>,
    ) -> Result<Response<proto::RegisterTeamsResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Organise).await?;
        let (event_id, boards, teams, expected) = teams::register_request(request.get_ref())?;
        by.authorize(Action::Organise, Some(&event_id))
            .map_err(|denial| status::denied(&denial))?;
        let (registration, version) = self
            .arbiter
            .register_teams(&event_id, boards, teams, expected, &by.name)
            .await?;
        Ok(Response::new(proto::RegisterTeamsResponse {
            registration: Some(teams::registration(&event_id, &registration, version)),
        }))
    }

    async fn create_match_tie_break(
        &self,
        request: Request<proto::CreateMatchTieBreakRequest>,
    ) -> Result<Response<proto::CreateMatchTieBreakResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Organise).await?;
        let (event_id, number, tie_break) = rounds::tie_break_request(request.get_ref())?;
        by.authorize(Action::Organise, Some(&event_id))
            .map_err(|denial| status::denied(&denial))?;
        let created = self
            .arbiter
            .create_match_tie_break(&event_id, number, tie_break, &by.name)
            .await?;
        Ok(Response::new(proto::CreateMatchTieBreakResponse {
            tie_break: Some(rounds::tie_break_game(&created.tie_break, &created.teams)),
            white_token: created.tokens.white.clone(),
            black_token: created.tokens.black.clone(),
        }))
    }

    async fn start_round(
        &self,
        request: Request<proto::StartRoundRequest>,
    ) -> Result<Response<proto::StartRoundResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Organise).await?;
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        by.authorize(Action::Organise, Some(&event_id))
            .map_err(|denial| status::denied(&denial))?;
        let number = rounds::round_number(req.round)?;
        let started = self
            .arbiter
            .start_round(&event_id, number, &by.name)
            .await?;
        let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
        Ok(Response::new(proto::StartRoundResponse {
            round: Some(rounds::round(&started.round)),
            started_games: count(started.started),
            already_started_games: count(started.already_started),
            finished_games: count(started.finished),
        }))
    }

    async fn get_round(
        &self,
        request: Request<proto::GetRoundRequest>,
    ) -> Result<Response<proto::GetRoundResponse>, Status> {
        /// The most boards a page holds.
        const MAX_PAGE: usize = 1_000;
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::ReadRounds).await?;
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        by.authorize(Action::ReadRounds, Some(&event_id))
            .map_err(|denial| status::denied(&denial))?;
        let number = rounds::round_number(req.round)?;
        let size = request::page_size(req.page_size, MAX_PAGE, MAX_PAGE)?;
        let query = format!("round/{number}/{event_id}");
        let offset = request::standings_offset(&query, &req.page_token)?;
        let page = self
            .arbiter
            .get_round(&event_id, number, offset, size)
            .await?;
        let token = page
            .next
            .map(|next| request::standings_token(&query, next))
            .unwrap_or_default();
        Ok(Response::new(rounds::page(&page, token)))
    }

    async fn import_pairings(
        &self,
        request: Request<proto::ImportPairingsRequest>,
    ) -> Result<Response<proto::ImportPairingsResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Organise).await?;
        let req = request.get_ref();
        let event_id = request::event_id(&req.event_id)?;
        by.authorize(Action::Organise, Some(&event_id))
            .map_err(|denial| status::denied(&denial))?;
        let number = rounds::round_number(req.round)?;
        let ranks = if req.players.is_empty() {
            self.arbiter.starting_ranks(&event_id, number).await?
        } else {
            rounds::listed_ranks(&req.players)?
        };
        let (plan, lines) = rounds::import_request(req, &ranks)?;
        let created = match self.arbiter.create_round(plan, &by.name).await {
            Ok(created) => created,
            Err(ArbiterError::RoundRefused(violations)) => {
                let violations = violations.into_iter().map(|v| lines.rename(v)).collect();
                return Err(rounds::refused(violations));
            }
            Err(err) => return Err(err.into()),
        };
        let created = rounds::created(&created);
        Ok(Response::new(proto::ImportPairingsResponse {
            round: created.round,
            games: created.games,
        }))
    }

    async fn create_credential(
        &self,
        request: Request<proto::CreateCredentialRequest>,
    ) -> Result<Response<proto::CreateCredentialResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::ManageCredentials).await?;
        let (request_id, new) = credentials::new_credential(request.get_ref())?;
        let (credential, token, now) = self
            .arbiter
            .create_credential(request_id.as_ref(), new, &by)
            .await?;
        Ok(Response::new(proto::CreateCredentialResponse {
            credential: Some(credentials::credential(&credential, now)),
            token,
        }))
    }

    async fn revoke_credential(
        &self,
        request: Request<proto::RevokeCredentialRequest>,
    ) -> Result<Response<proto::RevokeCredentialResponse>, Status> {
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::ManageCredentials).await?;
        let req = request.get_ref();
        let id = credentials::credential_id(&req.credential_id)?;
        let reason = request::reason(&req.reason)?;
        let (credential, now) = self.arbiter.revoke_credential(&id, &reason, &by).await?;
        Ok(Response::new(proto::RevokeCredentialResponse {
            credential: Some(credentials::credential(&credential, now)),
        }))
    }

    async fn list_credentials(
        &self,
        request: Request<proto::ListCredentialsRequest>,
    ) -> Result<Response<proto::ListCredentialsResponse>, Status> {
        /// Credentials per page when the request names no size, and at most.
        const PAGE: (usize, usize) = (100, 500);
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::ReadCredentials).await?;
        let req = request.get_ref();
        let size = request::page_size(req.page_size, PAGE.0, PAGE.1)?;
        let after = credentials::page_start(&req.page_token)?;
        let page = self
            .arbiter
            .list_credentials(after.as_ref(), size, &by)
            .await?;
        Ok(Response::new(credentials::page(&page)))
    }

    async fn list_audit_entries(
        &self,
        request: Request<proto::ListAuditEntriesRequest>,
    ) -> Result<Response<proto::ListAuditEntriesResponse>, Status> {
        /// Entries per page when the request names no size, and at most.
        const PAGE: usize = 100;
        let _admitted = self.admit_request()?;
        let by = self.principal(&request, Action::Inspect).await?;
        let req = request.get_ref();
        // No event: the platform's own log.
        let event_id = match req.event_id.as_str() {
            "" => None,
            raw => Some(request::event_id(raw)?),
        };
        by.authorize(Action::Inspect, event_id.as_ref())
            .map_err(|denial| status::denied(&denial))?;
        let filter = audit::filter(req)?;
        let size = request::page_size(req.page_size, PAGE, PAGE)?;
        let query = audit::query(event_id.as_ref(), &filter);
        let cursor = audit::page_start(&query, &req.page_token)?;
        let page = self
            .arbiter
            .audit_log(event_id.as_ref(), &filter, &cursor, size)
            .await?;
        Ok(Response::new(audit::page(&query, &page)))
    }
}
