//! The gRPC surface: protobuf in, arbiter calls, protobuf out.
//!
//! Two services: `ArbiterService` (`public`: reads, seat actions, watches and
//! exports, safe for browsers) and `AdminService` (`admin`: creating games
//! and rounds (`rounds` reads and writes a round's messages, `teams` an
//! event's team registration) and the
//! arbiter's interventions, the credentials (`credentials` reads and
//! writes their messages) and the audit log (`audit`), behind the admin
//! token or a credential). Both
//! read
//! request fields into domain types (`request`, `create`, and
//! `standings_request` for what a standings or TRF request adds), check
//! credentials (`auth`), convert results (`convert`), serve streams
//! (`stream`, within the stream and write limits of [`limits`]) and map
//! errors to statuses ([`status`], whose reasons come from the proto's
//! `ErrorReason`). [`codec`] is prost's codec, except that a malformed
//! request is the client's error; `framed` serves `WatchGame` and
//! `WatchEvent` with an event encoded once for all its streams. They hold no rules.
//!
//! Beside them, [`feed`] is the broadcast feed: every game in PGN over
//! plain HTTP for relays to poll, as the public sees it.

mod admin;
mod audit;
mod auth;
pub mod codec;
mod convert;
mod create;
mod credentials;
pub mod feed;
mod framed;
pub mod limits;
mod public;
mod request;
mod rounds;
mod standings_request;
pub mod status;
mod stream;
mod teams;

use std::{sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;
use tonic::{Request, Status};

pub use self::auth::AdminToken;
pub use self::framed::{PublicService, is_watch};
use self::limits::StreamCounter;
pub use self::limits::StreamLimits;
use crate::{
    arbiter::{Applied, Arbiter},
    domain::GameId,
    proto,
};

/// How long a watch stream may stay silent before it sends a heartbeat,
/// unless configured otherwise: well inside the idle timeouts of common
/// proxies (Envoy: 5 minutes; many load balancers: 60 seconds).
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(15);

/// The largest request accepted, in bytes: far above any valid request (a
/// FEN, names, a reason), far below what could cost a replica memory.
pub const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// The largest `AdminService` request accepted: a round of the most boards
/// a round may have, every player with the longest id and name.
pub const MAX_ADMIN_REQUEST_BYTES: usize = 4 * 1024 * 1024;

/// Both services over one arbiter.
#[derive(Clone)]
pub struct ArbiterApi {
    arbiter: Arbiter,
    admin: AdminToken,
    shutdown: CancellationToken,
    heartbeat: Duration,
    streams: StreamCounter,
    requests: limits::RequestLimit,
    writes: Arc<limits::WriteLimits>,
}

impl ArbiterApi {
    /// The services over `arbiter`. Watch streams end when `shutdown` fires,
    /// send a heartbeat after `heartbeat` of silence, and are admitted
    /// within `limits`. Call it within the runtime (it hands `shutdown` to
    /// the arbiter's watchers).
    pub fn new(
        arbiter: Arbiter,
        admin: AdminToken,
        shutdown: CancellationToken,
        heartbeat: Duration,
        limits: StreamLimits,
    ) -> Self {
        let streams = StreamCounter::new(limits, arbiter.metrics().watch_streams.clone());
        arbiter.end_watches_on(shutdown.clone());
        Self {
            arbiter,
            admin,
            shutdown,
            heartbeat,
            streams,
            requests: limits::RequestLimit::new(limits::DEFAULT_MAX_REQUESTS),
            writes: Arc::new(limits::WriteLimits::new(
                limits::DEFAULT_SEAT_WRITES_PER_SECOND,
                limits::DEFAULT_PEER_WRITES_PER_SECOND,
            )),
        }
    }

    /// The same services, admitting `per_seat` writes per second per seat
    /// and `per_peer` per client address (0: no limit).
    pub fn with_write_limits(mut self, per_seat: u32, per_peer: u32) -> Self {
        self.writes = Arc::new(limits::WriteLimits::new(per_seat, per_peer));
        self
    }

    /// The game, the seat token and the message of a seat's write, once
    /// the rate limits admit it.
    fn seat<T>(
        &self,
        request: Request<T>,
        game_id: impl Fn(&T) -> &str,
    ) -> Result<(GameId, String, T), Status> {
        let peer = request.remote_addr();
        let token = auth::bearer(&request)?;
        let req = request.into_inner();
        let id = request::game_id(game_id(&req))?;
        self.writes.admit(&id, &token, peer)?;
        Ok((id, token, req))
    }

    /// The same services, serving at most `max` unary requests at once.
    pub fn with_max_requests(mut self, max: usize) -> Self {
        self.requests = limits::RequestLimit::new(max);
        self
    }

    /// A place for one unary request (see [`limits::RequestLimit`]).
    fn admit_request(&self) -> Result<tokio::sync::OwnedSemaphorePermit, Status> {
        self.requests.admit()
    }

    /// The `ArbiterService` server, its watch streams sent as encoded
    /// frames ([`framed`]); requests larger than [`MAX_REQUEST_BYTES`] are
    /// refused.
    pub fn public_service(&self) -> PublicService {
        PublicService::new(
            self.clone(),
            proto::arbiter_service_server::ArbiterServiceServer::new(self.clone())
                .max_decoding_message_size(MAX_REQUEST_BYTES),
        )
    }

    /// The `AdminService` server; requests larger than
    /// [`MAX_ADMIN_REQUEST_BYTES`] are refused.
    pub fn admin_service(&self) -> proto::admin_service_server::AdminServiceServer<Self> {
        proto::admin_service_server::AdminServiceServer::new(self.clone())
            .max_decoding_message_size(MAX_ADMIN_REQUEST_BYTES)
    }
}

/// The game a command left and the events it produced, as protobuf (the
/// game boxed, as the replies hold it).
fn applied<T>(applied: &Applied<T>) -> (Option<Box<proto::Game>>, Vec<proto::GameEvent>) {
    applied_as(applied, false)
}

/// As [`applied`]; `compact`, the game without its setup and legal moves.
fn applied_as<T>(
    applied: &Applied<T>,
    compact: bool,
) -> (Option<Box<proto::Game>>, Vec<proto::GameEvent>) {
    let id = applied.game.id().to_string();
    (
        Some(Box::new(convert::game_as(
            &applied.game,
            applied.as_of,
            compact,
        ))),
        convert::game_events(&id, &applied.events),
    )
}
