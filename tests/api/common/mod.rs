//! The integration-test harness: the whole server in-process on a loopback
//! port, over the embedded store or a real `redis-server` (shared by all
//! tests, each under a key prefix of its own).

#![allow(dead_code)]

mod redis_cluster;
mod redis_server;

use std::{net::SocketAddr, time::Duration};

use arbiter::{
    arbiter::AnalysisConfig,
    proto::{
        self, admin_service_client::AdminServiceClient,
        arbiter_service_client::ArbiterServiceClient,
    },
    server::{self, Settings, StoreChoice},
    store::RedisConfig,
};
use futures::{Stream, StreamExt};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tonic::{Code, Request, Status, Streaming, transport::Channel};

pub use self::{
    redis_cluster::{RedisCluster, fresh_cluster_config, redis_cli},
    redis_server::{RedisServer, fresh_redis_config},
};

/// A client of the public service (reads, seat actions, watches, exports).
pub type Client = ArbiterServiceClient<Channel>;

/// A client of the admin service (creating games, the arbiter's calls).
pub type AdminClient = AdminServiceClient<Channel>;

/// How long a test server's watch streams stay silent before a heartbeat:
/// long enough that no test sees one unless it asks for a shorter interval.
pub const TEST_HEARTBEAT: Duration = Duration::from_secs(120);

/// The admin token every test server is configured with.
pub const ADMIN_TOKEN: &str = "test-admin-token";
/// The seat-token secret every test server is configured with.
pub const TOKEN_SECRET: &str = "test-token-secret-of-at-least-32-characters";

/// Which store a test server runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The embedded in-memory store.
    Memory,
    /// A real Redis: the shared server, under a key prefix of the test's
    /// own.
    Redis,
    /// A real Redis Cluster of three primaries with a replica each: the
    /// shared cluster, under a key prefix of the test's own.
    Cluster,
}

impl Backend {
    /// A fresh store configuration of this backend: `None` for the
    /// embedded store, else a fresh key prefix on the shared server or
    /// cluster.
    pub fn redis_config(self) -> Option<RedisConfig> {
        match self {
            Self::Memory => None,
            Self::Redis => Some(fresh_redis_config()),
            Self::Cluster => Some(fresh_cluster_config()),
        }
    }

    /// The store choice of a test server on a fresh store of this backend.
    pub fn store(self) -> StoreChoice {
        self.redis_config()
            .map_or(StoreChoice::Memory, StoreChoice::Redis)
    }
}

/// Generates one `#[tokio::test]` per backend for each listed async test
/// function taking a [`Backend`]. Visible to every test module through
/// `#[macro_use]` on `mod common`.
macro_rules! on_every_backend {
    ($($name:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Memory).await;
                }
            )*
        }
        mod redis {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Redis).await;
                }
            )*
        }
        mod cluster {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    super::$name($crate::common::Backend::Cluster).await;
                }
            )*
        }
    };
}

/// A running server and, when it has one of its own, its Redis.
pub struct TestApp {
    pub addr: SocketAddr,
    pub redis: Option<RedisServer>,
    pub settings: Settings,
    shutdown: CancellationToken,
    handle: Option<JoinHandle<Result<(), server::ServeError>>>,
}

/// The settings of a test server on `store`.
pub fn settings(store: StoreChoice) -> Settings {
    Settings {
        store,
        admin_token: Some(ADMIN_TOKEN.to_owned()),
        token_secret: Some(TOKEN_SECRET.to_owned()),
        heartbeat: TEST_HEARTBEAT,
        require_durable_redis: false,
        stream_limits: Default::default(),
        max_connection_age: Duration::from_secs(1800),
        watch_buffer: 256,
        // Games are archived as soon as they end, so that every test that
        // reads a finished game reads it from its archive as often as not.
        archive_after: Duration::ZERO,
        // A budget no test run reaches, so that a move into a position the
        // fast test proves dead always ends the game in its own commit;
        // the background path has tests of its own.
        analysis: AnalysisConfig {
            budget: Duration::from_secs(30),
            ..AnalysisConfig::default()
        },
        dev_insecure: false,
        request_timeout: Duration::from_secs(10),
        max_requests: 1024,
        max_event_games: arbiter::domain::Pairing::MAX_EVENT_GAMES,
        // Tests play far faster than people; the limits have tests of
        // their own.
        write_limits: (0, 0),
        tls: None,
        health_listen: None,
        metrics_listen: None,
        feed_listen: None,
        web_listen: None,
        feed_limits: (64, Duration::from_secs(30)),
        feed_tls: None,
        cors_allowed_origins: Vec::new(),
    }
}

impl TestApp {
    /// A server with the admin token set, on a fresh store of `backend`.
    pub async fn spawn(backend: Backend) -> Self {
        Self::spawn_with(settings(backend.store()), None).await
    }

    /// A server on a Redis of its own (in `redis`), for tests that stop or
    /// restart Redis and so would disturb every other test on a shared one.
    pub async fn spawn_with_private_redis() -> Self {
        let redis = RedisServer::start();
        let store = StoreChoice::Redis(RedisConfig {
            url: redis.url(),
            key_prefix: "arbiter".to_owned(),
            tls: Default::default(),
            wait: None,
        });
        Self::spawn_with(settings(store), Some(redis)).await
    }

    /// A server with the given settings.
    pub async fn spawn_with(settings: Settings, redis: Option<RedisServer>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let shutdown = CancellationToken::new();
        let handle = tokio::spawn(server::serve(settings.clone(), listener, shutdown.clone()));
        let app = Self {
            addr,
            redis,
            settings,
            shutdown,
            handle: Some(handle),
        };
        app.wait_until_connectable().await;
        app
    }

    async fn wait_until_connectable(&self) {
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(self.addr).await.is_ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("server did not start listening on {}", self.addr);
    }

    /// A fresh client connection to the public service.
    pub async fn client(&self) -> Client {
        ArbiterServiceClient::connect(format!("http://{}", self.addr))
            .await
            .expect("connect to the test server")
    }

    /// A fresh client connection to the admin service (requests still need
    /// the admin token: see [`admin`]).
    pub async fn admin_client(&self) -> AdminClient {
        AdminServiceClient::connect(format!("http://{}", self.addr))
            .await
            .expect("connect to the test server")
    }

    /// A channel to the server, for other services (health, reflection).
    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr))
            .expect("valid uri")
            .connect()
            .await
            .expect("connect to the test server")
    }

    /// Stops the server gracefully and waits for it; returns its private
    /// Redis, if it has one, so another server can be started on it (on the
    /// shared Redis, the same settings find the same keys again).
    pub async fn stop(mut self) -> Option<RedisServer> {
        self.shutdown.cancel();
        if let Some(handle) = self.handle.take() {
            tokio::time::timeout(Duration::from_secs(15), handle)
                .await
                .expect("server stops within its grace period")
                .expect("server task")
                .expect("server ends cleanly");
        }
        self.redis.take()
    }

    /// Creates a standard game between "alice" (White) and "bob" (Black).
    pub async fn new_game(&self) -> NewGame {
        self.new_game_from("").await
    }

    /// Creates a game from a FEN.
    pub async fn new_game_from(&self, fen: &str) -> NewGame {
        create(&mut self.admin_client().await, create_request("", fen))
            .await
            .expect("create game")
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// A created game and its seat tokens.
#[derive(Clone, Debug)]
pub struct NewGame {
    pub id: String,
    pub game: proto::Game,
    pub white: String,
    pub black: String,
}

/// A CreateGame request between "alice" and "bob".
pub fn create_request(request_id: &str, fen: &str) -> proto::CreateGameRequest {
    proto::CreateGameRequest {
        request_id: request_id.to_owned(),
        white: Some(proto::Player {
            id: "alice".to_owned(),
            name: "Alice".to_owned(),
            ..Default::default()
        }),
        black: Some(proto::Player {
            id: "bob".to_owned(),
            name: "Bob".to_owned(),
            ..Default::default()
        }),
        start: (!fen.is_empty())
            .then(|| proto::create_game_request::Start::InitialFen(fen.to_owned())),
        pairing: Some(pairing("test-event", 1, 1)),
        ..Default::default()
    }
}

/// A pairing.
pub fn pairing(event_id: &str, round: i32, board: i32) -> proto::Pairing {
    proto::Pairing {
        event_id: event_id.to_owned(),
        round,
        board,
        ..Default::default()
    }
}

/// A period of a time control, in milliseconds.
pub fn period(time: i32, moves: i32, increment: i32, delay: i32) -> proto::TimeControlPeriod {
    proto::TimeControlPeriod {
        time_millis: time,
        moves,
        increment_millis: increment,
        delay_millis: delay,
    }
}

/// `message` with `authorization: Bearer <token>`.
pub fn with_token<T>(token: &str, message: T) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii token"),
    );
    request
}

/// `message` with the admin token.
pub fn admin<T>(message: T) -> Request<T> {
    with_token(ADMIN_TOKEN, message)
}

// ---------------------------------------------------------------------------
// Acting for a seat
// ---------------------------------------------------------------------------

/// A request that a seat holder sends, and the RPC that takes it.
pub trait SeatCommand: Sized + Send {
    /// What the test gets back: the game, or the whole reply when it says
    /// more than the game.
    type Reply;

    /// Sends `request` through the RPC of its message type.
    fn send(
        client: &mut Client,
        request: Request<Self>,
    ) -> impl Future<Output = Result<Self::Reply, Status>> + Send;
}

/// Implements [`SeatCommand`] for requests whose reply is the game.
macro_rules! replies_with_the_game {
    ($($request:ty => $rpc:ident),* $(,)?) => {
        $(
            impl SeatCommand for $request {
                type Reply = proto::Game;

                async fn send(
                    client: &mut Client,
                    request: Request<Self>,
                ) -> Result<proto::Game, Status> {
                    let response = client.$rpc(request).await?;
                    Ok(*response.into_inner().game.expect("game in response"))
                }
            }
        )*
    };
}

replies_with_the_game!(
    proto::MakeMoveRequest => make_move,
    proto::ResignGameRequest => resign_game,
    proto::OfferDrawRequest => offer_draw,
    proto::AcceptDrawRequest => accept_draw,
    proto::DeclineDrawRequest => decline_draw,
    proto::AbortGameRequest => abort_game,
    proto::CheckInRequest => check_in,
    proto::ClaimVictoryRequest => claim_victory,
);

/// A claim's reply also carries the ruling.
impl SeatCommand for proto::ClaimDrawRequest {
    type Reply = proto::ClaimDrawResponse;

    async fn send(
        client: &mut Client,
        request: Request<Self>,
    ) -> Result<proto::ClaimDrawResponse, Status> {
        client
            .claim_draw(request)
            .await
            .map(tonic::Response::into_inner)
    }
}

/// A signal's reply says whether it was recorded.
impl SeatCommand for proto::ReportClientSignalRequest {
    type Reply = proto::ReportClientSignalResponse;

    async fn send(
        client: &mut Client,
        request: Request<Self>,
    ) -> Result<proto::ReportClientSignalResponse, Status> {
        client
            .report_client_signal(request)
            .await
            .map(tonic::Response::into_inner)
    }
}

/// Sends `command` for the seat holding `token`, e.g.
/// `seat(&mut client, &game.white, resign(&game.id))`.
pub async fn seat<C: SeatCommand>(
    client: &mut Client,
    token: &str,
    command: C,
) -> Result<C::Reply, Status> {
    C::send(client, with_token(token, command)).await
}

/// A move, `mv` in SAN or UCI, chosen at `ply`.
pub fn make_move(game_id: &str, ply: i32, mv: &str) -> proto::MakeMoveRequest {
    proto::MakeMoveRequest {
        game_id: game_id.to_owned(),
        r#move: mv.to_owned(),
        ply,
        offer_draw: false,
        lag_millis: 0,
        reply_view: 0,
        client_move_millis: None,
    }
}

/// A move that offers a draw with it.
pub fn make_move_offering_draw(game_id: &str, ply: i32, mv: &str) -> proto::MakeMoveRequest {
    proto::MakeMoveRequest {
        offer_draw: true,
        ..make_move(game_id, ply, mv)
    }
}

/// A resignation.
pub fn resign(game_id: &str) -> proto::ResignGameRequest {
    proto::ResignGameRequest {
        game_id: game_id.to_owned(),
    }
}

/// A draw offer.
pub fn offer_draw(game_id: &str) -> proto::OfferDrawRequest {
    proto::OfferDrawRequest {
        game_id: game_id.to_owned(),
    }
}

/// Accepting the opponent's draw offer.
pub fn accept_draw(game_id: &str) -> proto::AcceptDrawRequest {
    proto::AcceptDrawRequest {
        game_id: game_id.to_owned(),
    }
}

/// Declining the opponent's draw offer.
pub fn decline_draw(game_id: &str) -> proto::DeclineDrawRequest {
    proto::DeclineDrawRequest {
        game_id: game_id.to_owned(),
    }
}

/// A draw claim, with the intended move when `mv` is not empty.
pub fn claim_draw(
    game_id: &str,
    reason: proto::DrawClaimReason,
    mv: &str,
    ply: i32,
) -> proto::ClaimDrawRequest {
    proto::ClaimDrawRequest {
        game_id: game_id.to_owned(),
        reason: reason.into(),
        r#move: mv.to_owned(),
        ply,
    }
}

/// A request to abort the game.
pub fn abort(game_id: &str) -> proto::AbortGameRequest {
    proto::AbortGameRequest {
        game_id: game_id.to_owned(),
    }
}

/// A check-in: the seat is present at the board.
pub fn check_in(game_id: &str) -> proto::CheckInRequest {
    proto::CheckInRequest {
        game_id: game_id.to_owned(),
    }
}

/// Plays a sequence of moves alternately for both seats from the game's
/// current ply, returning the game after the last one.
pub async fn play_line(
    client: &mut ArbiterServiceClient<Channel>,
    game: &NewGame,
    moves: &[&str],
) -> proto::Game {
    let mut current = get(client, &game.id).await;
    for mv in moves {
        let token = if current.side_to_move == proto::Color::White as i32 {
            &game.white
        } else {
            &game.black
        };
        current = seat(client, token, make_move(&game.id, current.ply, mv))
            .await
            .unwrap_or_else(|status| panic!("move {mv} refused: {status:?}"));
    }
    current
}

/// Reads a game (without its moves).
pub async fn get(client: &mut Client, game_id: &str) -> proto::Game {
    read_game(client, game_id, proto::GameView::Basic).await
}

/// Reads a game with every move.
pub async fn get_full(client: &mut Client, game_id: &str) -> proto::Game {
    read_game(client, game_id, proto::GameView::Full).await
}

async fn read_game(client: &mut Client, game_id: &str, view: proto::GameView) -> proto::Game {
    client
        .get_game(proto::GetGameRequest {
            game_id: game_id.to_owned(),
            view: view.into(),
        })
        .await
        .expect("get game")
        .into_inner()
        .game
        .map(|game| *game)
        .expect("game")
}

/// The moves of a read game with every move, in UCI.
pub fn ucis(game: &proto::Game) -> Vec<String> {
    game.moves.iter().map(|m| m.uci.clone()).collect()
}

/// The setup of a game, which every game carries.
pub fn setup(game: &proto::Game) -> &proto::GameSetup {
    game.setup.as_ref().expect("game setup")
}

/// The result's score, which every finished game carries.
pub fn score(game: &proto::Game) -> &proto::Score {
    game.result
        .as_ref()
        .and_then(|result| result.score.as_ref())
        .expect("a scored result")
}

/// Asserts a status code and returns the status for further checks.
#[track_caller]
pub fn expect_code<T: std::fmt::Debug>(result: Result<T, Status>, code: Code) -> Status {
    match result {
        Err(status) if status.code() == code => status,
        other => panic!("expected {code:?}, got {other:?}"),
    }
}

/// The `ErrorInfo.reason` of a status.
pub fn reason(status: &Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .unwrap_or_default()
}

/// Creates a game from a full request (sent with the admin token).
pub async fn create(
    client: &mut AdminClient,
    request: proto::CreateGameRequest,
) -> Result<NewGame, Status> {
    let response = client.create_game(admin(request)).await?.into_inner();
    let game = response.game.expect("game in response");
    Ok(NewGame {
        id: game.game_id.clone(),
        game: *game,
        white: response.white_token,
        black: response.black_token,
    })
}

/// The seat token of the side to move in `current`.
pub fn token_to_move<'a>(game: &'a NewGame, current: &proto::Game) -> &'a str {
    if current.side_to_move == proto::Color::White as i32 {
        &game.white
    } else {
        &game.black
    }
}

/// The game in PGN.
pub async fn export_pgn(client: &mut Client, game_id: &str) -> String {
    let texts = export_pgn_of(
        client,
        proto::export_pgn_request::Target::GameId(game_id.to_owned()),
    )
    .await
    .expect("export pgn");
    assert_eq!(texts.len(), 1, "one game, one message");
    texts.concat()
}

/// Every message of an ExportPgn stream, in order.
pub async fn export_pgn_of(
    client: &mut Client,
    target: proto::export_pgn_request::Target,
) -> Result<Vec<String>, Status> {
    let mut stream = client
        .export_pgn(proto::ExportPgnRequest {
            target: Some(target),
        })
        .await?
        .into_inner();
    let mut texts = Vec::new();
    for message in collect_until_end(&mut stream, STREAM_PATIENCE).await {
        texts.push(message?.pgn);
    }
    Ok(texts)
}

/// Starts watching a game after `after_version`.
pub async fn watch(
    client: &mut Client,
    game_id: &str,
    after_version: i32,
) -> Streaming<proto::WatchGameResponse> {
    client
        .watch_game(proto::WatchGameRequest {
            game_id: game_id.to_owned(),
            after_version,
            ..Default::default()
        })
        .await
        .expect("watch")
        .into_inner()
}

/// How long a test waits for a stream's next message (or its end): far
/// longer than any should take, so that a stalled stream fails the test
/// instead of hanging it.
pub const STREAM_PATIENCE: Duration = Duration::from_secs(30);

/// The next item of `stream`, or `None` once the stream has ended. Panics
/// if neither comes within `patience`.
pub async fn next_within<S: Stream + Unpin>(stream: &mut S, patience: Duration) -> Option<S::Item> {
    tokio::time::timeout(patience, stream.next())
        .await
        .unwrap_or_else(|_| {
            panic!("the stream neither sent a message nor ended within {patience:?}")
        })
}

/// Every item left on `stream` until it ends, each within `patience` of
/// the one before.
pub async fn collect_until_end<S: Stream + Unpin>(
    stream: &mut S,
    patience: Duration,
) -> Vec<S::Item> {
    let mut items = Vec::new();
    while let Some(item) = next_within(stream, patience).await {
        items.push(item);
    }
    items
}

/// One message of a game's watch stream.
pub type WatchKind = proto::watch_game_response::Kind;

/// The next message of a watch stream, which must still be open.
pub async fn next_message(stream: &mut Streaming<proto::WatchGameResponse>) -> WatchKind {
    next_within(stream, STREAM_PATIENCE)
        .await
        .expect("the stream is still open")
        .expect("a message, not an error")
        .kind
        .expect("message body")
}

/// The snapshot a watch from version 0 starts with.
pub async fn next_snapshot(stream: &mut Streaming<proto::WatchGameResponse>) -> proto::Game {
    match next_message(stream).await {
        WatchKind::Snapshot(game) => game,
        other => panic!("expected a snapshot, got {other:?}"),
    }
}

/// The next event of a watch stream, which must still be open (heartbeats
/// are passed over; a snapshot is a failure).
pub async fn next_event(stream: &mut Streaming<proto::WatchGameResponse>) -> proto::GameEvent {
    loop {
        match next_message(stream).await {
            WatchKind::Event(event) => return event,
            WatchKind::Heartbeat(_) => {}
            WatchKind::Snapshot(game) => panic!("expected an event, got a snapshot of {game:?}"),
        }
    }
}

/// Every message left on a watch stream until the server closes it,
/// heartbeats left out.
pub async fn drain_messages(stream: &mut Streaming<proto::WatchGameResponse>) -> Vec<WatchKind> {
    collect_until_end(stream, STREAM_PATIENCE)
        .await
        .into_iter()
        .map(|message| message.expect("a message").kind.expect("message body"))
        .filter(|kind| !matches!(kind, WatchKind::Heartbeat(_)))
        .collect()
}

/// Every event left on a watch stream until the server closes it (which it
/// does after a game's final event); a snapshot is left out.
pub async fn drain(stream: &mut Streaming<proto::WatchGameResponse>) -> Vec<proto::GameEvent> {
    drain_messages(stream)
        .await
        .into_iter()
        .filter_map(|kind| match kind {
            WatchKind::Event(event) => Some(event),
            _ => None,
        })
        .collect()
}

/// The kinds of `events`, in order, as short names.
pub fn kinds(events: &[proto::GameEvent]) -> Vec<&'static str> {
    use proto::game_event::Kind;
    events
        .iter()
        .map(|event| match event.kind.as_ref().expect("event kind") {
            Kind::GameCreated(_) => "game_created",
            Kind::MoveMade(_) => "move_made",
            Kind::GameEnded(_) => "game_ended",
            Kind::DrawOffered(_) => "draw_offered",
            Kind::DrawDeclined(_) => "draw_declined",
            Kind::DrawClaimRefused(_) => "draw_claim_refused",
            Kind::GameAborted(_) => "game_aborted",
            Kind::ClockAdjusted(_) => "clock_adjusted",
            Kind::ClockPaused(_) => "clock_paused",
            Kind::ClockResumed(_) => "clock_resumed",
            Kind::ResultDecided(_) => "result_decided",
            Kind::PlayerCheckedIn(_) => "player_checked_in",
            Kind::GameStarted(_) => "game_started",
            Kind::ConnectionReported(_) => "connection_reported",
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Seat actions with the events they produced
// ---------------------------------------------------------------------------

/// A seat action whose response carries, besides the game, the events the
/// call produced (none for a repeat of an action already applied).
pub trait SeatCommandWithEvents: Sized + Send {
    /// Sends `request` through the RPC of its message type.
    fn send_with_events(
        client: &mut Client,
        request: Request<Self>,
    ) -> impl Future<Output = Result<(proto::Game, Vec<proto::GameEvent>), Status>> + Send;
}

/// Implements [`SeatCommandWithEvents`] for the seat actions.
macro_rules! replies_with_events {
    ($($request:ty => $rpc:ident),* $(,)?) => {
        $(
            impl SeatCommandWithEvents for $request {
                async fn send_with_events(
                    client: &mut Client,
                    request: Request<Self>,
                ) -> Result<(proto::Game, Vec<proto::GameEvent>), Status> {
                    let response = client.$rpc(request).await?.into_inner();
                    Ok((*response.game.expect("game in response"), response.events))
                }
            }
        )*
    };
}

replies_with_events!(
    proto::MakeMoveRequest => make_move,
    proto::ResignGameRequest => resign_game,
    proto::OfferDrawRequest => offer_draw,
    proto::AcceptDrawRequest => accept_draw,
    proto::DeclineDrawRequest => decline_draw,
    proto::ClaimDrawRequest => claim_draw,
    proto::AbortGameRequest => abort_game,
    proto::CheckInRequest => check_in,
    proto::ClaimVictoryRequest => claim_victory,
);

/// Sends `command` for the seat holding `token`; returns the game and the
/// events the call produced.
pub async fn seat_with_events<C: SeatCommandWithEvents>(
    client: &mut Client,
    token: &str,
    command: C,
) -> Result<(proto::Game, Vec<proto::GameEvent>), Status> {
    C::send_with_events(client, with_token(token, command)).await
}

impl TestApp {
    /// A server on a fresh store of `backend` whose watch streams send a
    /// heartbeat after `heartbeat` of silence.
    pub async fn spawn_with_heartbeat(backend: Backend, heartbeat: Duration) -> Self {
        let mut settings = settings(backend.store());
        settings.heartbeat = heartbeat;
        Self::spawn_with(settings, None).await
    }
}

/// Every method of both services, as `Service/Method`, read from the
/// contract's file descriptor: what a test meant to cover every RPC checks
/// its own list against.
pub fn every_method() -> Vec<String> {
    use prost::Message;
    let set = prost_types::FileDescriptorSet::decode(arbiter::proto::FILE_DESCRIPTOR_SET)
        .expect("the file descriptor set");
    let mut methods: Vec<String> = set
        .file
        .iter()
        .flat_map(|file| &file.service)
        .flat_map(|service| {
            service
                .method
                .iter()
                .map(move |method| format!("{}/{}", service.name(), method.name()))
        })
        .collect();
    methods.sort();
    methods
}

/// A free port on the loopback interface.
pub fn free_port() -> std::net::SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
}

/// `GET path` with `headers` (each line ending in `\r\n`) over a plain
/// HTTP/1.1 connection to `port`: the status code, the head and the body's
/// bytes; an error when the port does not answer.
pub async fn http_get(
    port: std::net::SocketAddr,
    path: &str,
    headers: &str,
) -> std::io::Result<(u16, String, Vec<u8>)> {
    let stream = tokio::net::TcpStream::connect(port).await?;
    http_get_on(stream, path, headers).await
}

/// `GET path` with `headers` on `stream` (plain or TLS), as [`http_get`]
/// does; a chunked body is returned decoded.
pub async fn http_get_on(
    mut stream: impl tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    path: &str,
    headers: &str,
) -> std::io::Result<(u16, String, Vec<u8>)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n{headers}Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).await?;
    let split = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no HTTP body"))?;
    let head = String::from_utf8_lossy(&reply[..split]).into_owned();
    let code = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("no status code in {head}")))?;
    let body = &reply[split + 4..];
    let chunked = head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked");
    let body = if chunked {
        dechunk(body)?
    } else {
        body.to_vec()
    };
    Ok((code, head, body))
}

/// A chunked HTTP/1.1 body, decoded (RFC 9112, 7.1); it must end with its
/// last chunk.
fn dechunk(mut body: &[u8]) -> std::io::Result<Vec<u8>> {
    let bad = |why: &str| std::io::Error::other(format!("bad chunked body: {why}"));
    let mut out = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| bad("no chunk size"))?;
        let size_text = std::str::from_utf8(&body[..line_end]).map_err(|_| bad("size"))?;
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| bad("size"))?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if body.len() < size + 2 || &body[size..size + 2] != b"\r\n" {
            return Err(bad("a chunk is cut"));
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}
