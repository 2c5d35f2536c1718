//! Storage failing at the worst moments: the arbiter over a store that
//! fails (or answers late) where told, requests cancelled half-way, and a
//! server process killed while games are played on it.
//!
//! What must hold whatever happens: a game exists only whole (state, log
//! and deadline together), an event's lists never show a game that was not
//! created, a request that failed can be sent again and is applied once,
//! and every running timed game keeps its entry in the deadline index, so
//! its flag falls even when nobody is there to see it.

use crate::common;

use std::{
    net::SocketAddr,
    process::{Child, Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering},
    },
    time::Duration,
};

use arbiter::store::{EventIndex, GameLog, StoreParts};
use arbiter::{
    api::{AdminToken, ArbiterApi},
    arbiter::{Arbiter, SeatKeys},
    domain::{EventId, Game, GameId, GameStatus, RequestId, Timestamp, stored::encoding},
    proto::{
        self, admin_service_client::AdminServiceClient,
        arbiter_service_client::ArbiterServiceClient, game_event::Kind,
    },
    store::{
        Commit, CommitOutcome, EventPosition, GameStore, Listing, LogRead, MemoryStore,
        RedisConfig, RedisStore, StoreError, StoredArchive, StoredState,
    },
};
use async_trait::async_trait;
use common::{
    ADMIN_TOKEN, AdminClient, Backend, Client, STREAM_PATIENCE, TEST_HEARTBEAT, TOKEN_SECRET,
    create, create_request, drain, expect_code, export_pgn_of, fresh_redis_config, get, get_full,
    make_move, next_within, pairing, period, reason, seat, token_to_move, watch,
};
use tokio_util::sync::CancellationToken;
use tonic::Code;

// ---------------------------------------------------------------------------
// A store that fails where it is told to
// ---------------------------------------------------------------------------

/// The failures a [`FaultyStore`] injects, switched on and off by the test.
#[derive(Default)]
struct Faults {
    /// Every commit fails as unavailable, writing nothing: the process
    /// "dies" before whatever it meant to commit.
    fail_commits: AtomicBool,
    /// The next this many commits fail as unavailable, writing nothing.
    fail_before_writing: AtomicUsize,
    /// The next this many commits are written, but answer unavailable (the
    /// reply was lost on the way back).
    fail_after_writing: AtomicUsize,
    /// Each commit pauses up to this many milliseconds before it reaches
    /// the store and again after, so that a cancelled request can stop on
    /// either side of its write.
    commit_jitter_ms: AtomicU64,
    /// How many of the next reads of a game's log page fail, as reads of a
    /// stalled Redis do.
    fail_log_reads: AtomicUsize,
    /// With `crash_after_commits`: the commits still let through before
    /// every later one fails, as when a process dies half-way through a
    /// request that writes many games.
    commits_before_crash: AtomicUsize,
    /// Whether `commits_before_crash` counts down.
    crash_after_commits: AtomicBool,
    /// Listings written (successful `add_to_event` calls).
    listings: AtomicUsize,
    /// Commits refused by an injected failure.
    refused: AtomicUsize,
    /// Whether the next read of an event's list waits, once it has told
    /// `listing_reached`, for `listing_released`: something else happens
    /// between a read's first step and its listing.
    hold_next_listing: AtomicBool,
    /// Told when a held listing read is waiting.
    listing_reached: tokio::sync::Notify,
    /// Lets a held listing read go on.
    listing_released: tokio::sync::Notify,
}

/// Takes one from `counter` if it is not zero.
fn take_one(counter: &AtomicUsize) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

fn injected(what: &str) -> StoreError {
    StoreError::Unavailable(format!("injected failure: {what}"))
}

/// The games' logs and the events' lists of `inner`, with the failures in
/// `faults`; the other parts of the store are `inner`'s own (see
/// [`StoreParts`]).
struct FaultyStore {
    inner: Arc<dyn GameStore>,
    faults: Arc<Faults>,
}

impl FaultyStore {
    async fn jitter(&self) {
        let max = self.faults.commit_jitter_ms.load(Ordering::SeqCst);
        if max > 0 {
            let pause = rand::random_range(0..=max);
            tokio::time::sleep(Duration::from_millis(pause)).await;
        }
    }
}

#[async_trait]
impl GameLog for FaultyStore {
    async fn now(&self) -> Result<Timestamp, StoreError> {
        self.inner.now().await
    }

    async fn load(&self, id: &GameId) -> Result<(Option<StoredState>, Timestamp), StoreError> {
        self.inner.load(id).await
    }

    async fn commit(&self, id: &GameId, commit: Commit) -> Result<CommitOutcome, StoreError> {
        let faults = &self.faults;
        let crashed = faults.crash_after_commits.load(Ordering::SeqCst)
            && !take_one(&faults.commits_before_crash);
        if crashed
            || faults.fail_commits.load(Ordering::SeqCst)
            || take_one(&faults.fail_before_writing)
        {
            faults.refused.fetch_add(1, Ordering::SeqCst);
            return Err(injected("commit refused before writing"));
        }
        self.jitter().await;
        let outcome = self.inner.commit(id, commit).await?;
        self.jitter().await;
        if take_one(&faults.fail_after_writing) {
            faults.refused.fetch_add(1, Ordering::SeqCst);
            return Err(injected("commit written, reply lost"));
        }
        Ok(outcome)
    }

    async fn confirm_durable(&self, id: &GameId) -> Result<(), StoreError> {
        self.inner.confirm_durable(id).await
    }

    async fn events_after(&self, id: &GameId, after: u64) -> Result<LogRead, StoreError> {
        self.inner.events_after(id, after).await
    }

    async fn events_page(
        &self,
        id: &GameId,
        after: u64,
        limit: usize,
    ) -> Result<LogRead, StoreError> {
        if take_one(&self.faults.fail_log_reads) {
            return Err(injected("log read timed out"));
        }
        self.inner.events_page(id, after, limit).await
    }

    async fn events_after_many(
        &self,
        cursors: &[(GameId, u64)],
        limit: usize,
    ) -> Result<Vec<LogRead>, StoreError> {
        self.inner.events_after_many(cursors, limit).await
    }

    async fn archive(&self, id: &GameId, archive: StoredArchive) -> Result<bool, StoreError> {
        self.inner.archive(id, archive).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.inner.ping().await
    }
}

#[async_trait]
impl EventIndex for FaultyStore {
    async fn add_to_event(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<bool, StoreError> {
        let listed = self
            .inner
            .add_to_event(event_id, position, max_entries)
            .await?;
        self.faults.listings.fetch_add(1, Ordering::SeqCst);
        Ok(listed)
    }

    async fn list_outside_rounds(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<Listing, StoreError> {
        let listed = self
            .inner
            .list_outside_rounds(event_id, position, max_entries)
            .await?;
        self.faults.listings.fetch_add(1, Ordering::SeqCst);
        Ok(listed)
    }

    async fn event_games(
        &self,
        event_id: &EventId,
        after: Option<&EventPosition>,
        limit: usize,
    ) -> Result<Vec<EventPosition>, StoreError> {
        if self.faults.hold_next_listing.swap(false, Ordering::SeqCst) {
            self.faults.listing_reached.notify_one();
            self.faults.listing_released.notified().await;
        }
        self.inner.event_games(event_id, after, limit).await
    }
}

/// Both services over an arbiter on a [`FaultyStore`], on a loopback port.
struct FaultyApp {
    addr: SocketAddr,
    /// The store behind the faults, to look at what was really written.
    inner: Arc<dyn GameStore>,
    faults: Arc<Faults>,
    /// The arbiter the services use (to sweep by hand).
    arbiter: Arbiter,
    shutdown: CancellationToken,
}

impl FaultyApp {
    /// Serves a fresh store of `backend`; with `sweeper`, a flag sweeper
    /// runs beside it as in the server. A round still in creation counts
    /// as interrupted at once (see [`FaultyApp::spawn_with`]).
    async fn spawn(backend: Backend, sweeper: bool) -> Self {
        Self::spawn_with(backend, sweeper, Duration::ZERO).await
    }

    /// As [`FaultyApp::spawn`], taking a round still in creation for
    /// interrupted `stalled_round_after` its record was written.
    async fn spawn_with(backend: Backend, sweeper: bool, stalled_round_after: Duration) -> Self {
        let inner: Arc<dyn GameStore> = match backend.redis_config() {
            None => Arc::new(MemoryStore::new()),
            Some(config) => Arc::new(RedisStore::new(&config).expect("redis store")),
        };
        let faults = Arc::new(Faults::default());
        let faulty = Arc::new(FaultyStore {
            inner: inner.clone(),
            faults: faults.clone(),
        });
        let store = Arc::new(
            StoreParts::of(inner.clone())
                .with_log(faulty.clone())
                .with_event_index(faulty),
        );
        // Archiving at once, as the test servers do.
        let arbiter = Arbiter::new(store, SeatKeys::from_secret(TOKEN_SECRET.as_bytes()))
            .with_archive_after(Duration::ZERO)
            .with_stalled_round_after(stalled_round_after);
        let shutdown = CancellationToken::new();
        let api = ArbiterApi::new(
            arbiter.clone(),
            AdminToken::new(Some(ADMIN_TOKEN)),
            shutdown.clone(),
            TEST_HEARTBEAT,
            Default::default(),
        )
        .with_write_limits(0, 0);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_service(api.public_service())
                .add_service(api.admin_service())
                .serve_with_incoming_shutdown(
                    tokio_stream::wrappers::TcpListenerStream::new(listener),
                    shutdown.clone().cancelled_owned(),
                ),
        );
        if sweeper {
            tokio::spawn(sweep_until(arbiter.clone(), shutdown.clone()));
        }
        Self {
            addr,
            inner,
            faults,
            arbiter,
            shutdown,
        }
    }

    async fn client(&self) -> Client {
        connect_retrying(|| ArbiterServiceClient::connect(format!("http://{}", self.addr))).await
    }

    async fn admin_client(&self) -> AdminClient {
        connect_retrying(|| AdminServiceClient::connect(format!("http://{}", self.addr))).await
    }
}

impl Drop for FaultyApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// What the server's flag sweeper does: sweep, pause, again.
async fn sweep_until(arbiter: Arbiter, shutdown: CancellationToken) {
    while !shutdown.is_cancelled() {
        let _ = arbiter.sweep(200).await;
        tokio::select! {
            () = shutdown.cancelled() => break,
            () = tokio::time::sleep(Duration::from_millis(25)) => {}
        }
    }
}

/// Connects, retrying while the server comes up (for at most ten seconds).
async fn connect_retrying<C, F>(connect: impl Fn() -> F) -> C
where
    F: Future<Output = Result<C, tonic::transport::Error>>,
{
    for _ in 0..400 {
        if let Ok(client) = connect().await {
            return client;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the server did not come up");
}

// ---------------------------------------------------------------------------
// Reading what the store holds
// ---------------------------------------------------------------------------

/// Room for every game of any test.
const ALL: usize = 1000;

fn game_id(id: &str) -> GameId {
    GameId::parse(id).expect("a valid game id")
}

/// The id a CreateGame with `request_id` creates its game under.
fn id_for_request(request_id: &str) -> GameId {
    let key = RequestId::parse(request_id)
        .expect("a valid request id")
        .expect("a request id");
    GameId::for_request(&key)
}

/// The game as stored, decoded, if it exists.
async fn stored_game(store: &dyn GameStore, id: &GameId) -> Option<Game> {
    let (state, _) = store.load(id).await.expect("load");
    state.map(|state| {
        let game = encoding::decode_game(&state.bytes).expect("a stored game decodes");
        assert_eq!(game.version(), state.version, "{id}: state and version");
        game
    })
}

/// The games due at `at`.
async fn due_at(store: &dyn GameStore, at: Timestamp) -> Vec<GameId> {
    store.due(at, ALL).await.expect("due")
}

/// Later than any deadline of any test.
fn far_future() -> Timestamp {
    Timestamp::from_unix_millis(4_102_444_800_000)
}

/// Asserts that the index holds `id` at exactly `at`: due then, and not a
/// millisecond before.
async fn assert_deadline(store: &dyn GameStore, id: &GameId, at: Timestamp) {
    let early = due_at(store, Timestamp::from_unix_millis(at.unix_millis() - 1)).await;
    assert!(!early.contains(id), "{id} is due before {at:?}: {early:?}");
    let on_time = due_at(store, at).await;
    assert!(
        on_time.contains(id),
        "{id} is not due at {at:?}: {on_time:?}"
    );
}

/// Asserts that the deadline index agrees with the game as stored: its own
/// deadline exactly while it is in progress; once it is over (and the
/// running server has archived its log, as the test servers do at once), no
/// entry.
async fn assert_index_agrees(store: &dyn GameStore, id: &GameId) {
    let game = stored_game(store, id)
        .await
        .unwrap_or_else(|| panic!("{id} is stored"));
    if game.is_over() {
        tokio::time::timeout(STREAM_PATIENCE, async {
            loop {
                let read = store.events_after(id, 0).await.expect("events");
                if read
                    .archive
                    .is_some_and(|archive| archive.through == game.version())
                {
                    assert!(read.events.is_empty(), "{id}: entries after the archive");
                    return;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{id} ended but its log was not archived"));
    }
    match game.deadline() {
        Some(at) => assert_deadline(store, id, at).await,
        None => {
            let listed = due_at(store, far_future()).await;
            assert!(!listed.contains(id), "{id} has no deadline: {listed:?}");
        }
    }
}

/// The instant a protobuf timestamp names, to the millisecond.
fn instant(time: &prost_types::Timestamp) -> Timestamp {
    let millis = time.seconds * 1000 + i64::from(time.nanos) / 1_000_000;
    Timestamp::from_unix_millis(u64::try_from(millis).expect("after 1970"))
}

/// When the running clock of `game` (as read) runs out: the read's time
/// plus the running side's remaining time.
fn flag_time(game: &proto::Game) -> Timestamp {
    let clock = game.clock.as_ref().expect("a timed game's clock");
    let remaining = match clock.running.map(proto::Color::try_from) {
        Some(Ok(proto::Color::White)) => clock.white_millis,
        Some(Ok(proto::Color::Black)) => clock.black_millis,
        other => panic!("no clock runs: {other:?} in {clock:?}"),
    };
    let read = instant(clock.read_time.as_ref().expect("read time"));
    read.plus_millis(u64::try_from(remaining).expect("time left"))
}

/// A CreateGame request in `event` at `round` and `board` between players
/// `white` and `black`.
fn listed_request(
    request_id: &str,
    event: &str,
    (round, board): (i32, i32),
    (white, black): (&str, &str),
) -> proto::CreateGameRequest {
    let player = |id: &str| proto::Player {
        id: id.to_owned(),
        name: id.to_owned(),
        ..Default::default()
    };
    proto::CreateGameRequest {
        white: Some(player(white)),
        black: Some(player(black)),
        pairing: Some(pairing(event, round, board)),
        ..create_request(request_id, "")
    }
}

/// A timed request: `millis` for each side, no increment.
fn timed_request(
    request_id: &str,
    event: &str,
    board: i32,
    millis: i32,
) -> proto::CreateGameRequest {
    proto::CreateGameRequest {
        time_control: Some(proto::TimeControl {
            periods: vec![period(millis, 0, 0, 0)],
            ..Default::default()
        }),
        pairing: Some(pairing(event, 1, board)),
        ..create_request(request_id, "")
    }
}

/// Every game of an event through ListGames, `page_size` at a time.
async fn list_all(client: &mut Client, event: &str, page_size: i32) -> Vec<String> {
    let mut ids = Vec::new();
    let mut token = String::new();
    for _ in 0..100 {
        let page = client
            .list_games(proto::ListGamesRequest {
                event_id: event.to_owned(),
                page_size,
                page_token: token,
                ..Default::default()
            })
            .await
            .expect("list games")
            .into_inner();
        ids.extend(page.games.into_iter().map(|game| game.game_id));
        if page.next_page_token.is_empty() {
            return ids;
        }
        token = page.next_page_token;
    }
    panic!("ListGames of {event} does not end");
}

/// The player ids in an event's standings, sorted, and the games counted.
async fn standings_of(client: &mut Client, event: &str) -> (Vec<String>, i32) {
    let response = client
        .get_standings(proto::GetStandingsRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("standings")
        .into_inner();
    let mut players: Vec<String> = response
        .standings
        .into_iter()
        .map(|row| row.player.expect("player").id)
        .collect();
    players.sort();
    (players, response.games_counted)
}

/// The White player of each game of an event's PGN export, in order.
async fn exported_whites(client: &mut Client, event: &str) -> Vec<String> {
    let texts = export_pgn_of(
        client,
        proto::export_pgn_request::Target::EventId(event.to_owned()),
    )
    .await
    .expect("export the event");
    texts
        .iter()
        .map(|pgn| {
            pgn.lines()
                .find_map(|line| line.strip_prefix("[White \""))
                .map(|rest| rest.trim_end_matches("\"]").to_owned())
                .unwrap_or_default()
        })
        .collect()
}

/// The next event of an event's watch stream (heartbeats passed over).
async fn next_event_of_event(
    stream: &mut tonic::Streaming<proto::WatchEventResponse>,
) -> proto::GameEvent {
    loop {
        let message = next_within(stream, STREAM_PATIENCE)
            .await
            .expect("the stream is open")
            .expect("a message");
        if let Some(proto::watch_event_response::Kind::Event(event)) = message.kind {
            return event;
        }
    }
}

// ---------------------------------------------------------------------------
// A creation that dies between its listing and its commit
// ---------------------------------------------------------------------------

/// A game is listed under its event before its creation is committed. When
/// the creation fails after the listing (the process dies, the store goes
/// away), the event shows no phantom game, and the creation sent again
/// lists and creates the game exactly once.
async fn a_creation_that_fails_after_its_listing_leaves_no_phantom(backend: Backend) {
    let app = FaultyApp::spawn(backend, false).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let event = "Phantom {Open}";
    let real = create(
        &mut admin,
        listed_request("real", event, (1, 2), ("alice", "bob")),
    )
    .await
    .expect("create a game");
    let mut watcher = client
        .watch_event(proto::WatchEventRequest {
            event_id: event.to_owned(),
            after_cursor: String::new(),
            round: 0,
        })
        .await
        .expect("watch the event")
        .into_inner();
    let first = next_event_of_event(&mut watcher).await;
    assert_eq!(first.game_id, real.id);

    // Every creation now dies after its listing: tried twice, as a client
    // would.
    app.faults.fail_commits.store(true, Ordering::SeqCst);
    let request = listed_request("doomed", event, (1, 1), ("carol", "dave"));
    let listings = app.faults.listings.load(Ordering::SeqCst);
    for _ in 0..2 {
        let status = expect_code(create(&mut admin, request.clone()).await, Code::Unavailable);
        assert_eq!(reason(&status), "STORAGE_UNAVAILABLE", "{status:?}");
    }
    assert!(app.faults.listings.load(Ordering::SeqCst) > listings);
    // The window is real: the game is listed, and does not exist.
    let phantom = id_for_request("doomed");
    let event_id = EventId::parse(event).expect("event id");
    let entries = app
        .inner
        .event_games(&event_id, None, ALL)
        .await
        .expect("event games");
    assert_eq!(
        entries.iter().map(|e| e.game.clone()).collect::<Vec<_>>(),
        vec![phantom.clone(), game_id(&real.id)]
    );
    assert!(stored_game(app.inner.as_ref(), &phantom).await.is_none());

    // No read of the event shows it, during the outage or after it.
    for outage in [true, false] {
        app.faults.fail_commits.store(outage, Ordering::SeqCst);
        for page_size in [0, 1, 2] {
            assert_eq!(
                list_all(&mut client, event, page_size).await,
                vec![real.id.clone()],
                "page size {page_size}"
            );
        }
        assert_eq!(
            standings_of(&mut client, event).await,
            (vec!["alice".to_owned(), "bob".to_owned()], 0)
        );
        assert_eq!(exported_whites(&mut client, event).await, vec!["alice"]);
        let trf = client
            .export_trf(proto::ExportTrfRequest {
                event_id: event.to_owned(),
                ..Default::default()
            })
            .await
            .expect("export trf")
            .into_inner()
            .trf;
        assert!(!trf.contains("carol") && !trf.contains("dave"), "{trf}");
        expect_code(
            client
                .get_game(proto::GetGameRequest {
                    game_id: phantom.to_string(),
                    view: proto::GameView::Basic.into(),
                })
                .await,
            Code::NotFound,
        );
    }

    // Sent again once the store is back: created, and listed once.
    let created = create(&mut admin, request.clone())
        .await
        .expect("the creation sent again");
    assert_eq!(created.id, phantom.to_string());
    assert_eq!(created.game.version, 1);
    let again = create(&mut admin, request)
        .await
        .expect("a repeat of the creation");
    assert_eq!(again.id, created.id);
    assert_eq!(
        (again.white.as_str(), again.black.as_str()),
        (created.white.as_str(), created.black.as_str())
    );
    for page_size in [0, 1] {
        assert_eq!(
            list_all(&mut client, event, page_size).await,
            vec![created.id.clone(), real.id.clone()]
        );
    }
    assert_eq!(
        standings_of(&mut client, event).await,
        (
            ["alice", "bob", "carol", "dave"]
                .map(str::to_owned)
                .to_vec(),
            0
        )
    );
    assert_eq!(
        exported_whites(&mut client, event).await,
        vec!["carol", "alice"]
    );
    let entries = app
        .inner
        .event_games(&event_id, None, ALL)
        .await
        .expect("event games");
    assert_eq!(entries.len(), 2, "{entries:?}");
    let log = app
        .inner
        .events_after(&phantom, 0)
        .await
        .expect("the game's log")
        .events;
    assert_eq!(log.len(), 1, "one creation");
    // The event's watcher, which never saw the phantom, sees the creation.
    let next = next_event_of_event(&mut watcher).await;
    assert_eq!(
        (next.game_id.as_str(), next.version),
        (created.id.as_str(), 1)
    );
    assert!(matches!(next.kind, Some(Kind::GameCreated(_))), "{next:?}");
}

// ---------------------------------------------------------------------------
// A move whose commit fails
// ---------------------------------------------------------------------------

/// The commit of a move fails before anything is written: the move is not
/// played, the game keeps its deadline, and the sweeper ends the game on
/// that deadline when nobody moves.
async fn a_move_whose_commit_fails_keeps_the_old_deadline(backend: Backend) {
    let app = FaultyApp::spawn(backend, true).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let game = create(&mut admin, timed_request("", "faults", 1, 2500))
        .await
        .expect("create a timed game");
    let id = game_id(&game.id);
    let after_white = seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White's move");
    let black_flag = flag_time(&after_white);
    assert_deadline(app.inner.as_ref(), &id, black_flag).await;

    app.faults.fail_before_writing.store(1, Ordering::SeqCst);
    let status = expect_code(
        seat(&mut client, &game.black, make_move(&game.id, 1, "e5")).await,
        Code::Unavailable,
    );
    assert_eq!(reason(&status), "STORAGE_UNAVAILABLE", "{status:?}");
    assert_eq!(app.faults.refused.load(Ordering::SeqCst), 1);

    // Not played, and the deadline is Black's flag as before.
    let stored = stored_game(app.inner.as_ref(), &id)
        .await
        .expect("the game");
    assert_eq!(stored.version(), 2);
    assert_eq!(stored.ply().count(), 1);
    assert_eq!(
        app.inner
            .events_after(&id, 0)
            .await
            .expect("log")
            .events
            .len(),
        2
    );
    assert_deadline(app.inner.as_ref(), &id, black_flag).await;
    assert_index_agrees(app.inner.as_ref(), &id).await;

    // Nobody reads the game (a read would settle the flag itself): the
    // sweeper alone ends it, once.
    let mut stream = watch(&mut client, &game.id, 2).await;
    let events = drain(&mut stream).await;
    assert_eq!(events.len(), 1, "{events:?}");
    let ended = &events[0];
    assert_eq!(ended.version, 3);
    let Some(Kind::GameEnded(ending)) = &ended.kind else {
        panic!("the game ends: {ended:?}");
    };
    let result = ending.result.as_ref().expect("result");
    assert_eq!(result.termination, proto::Termination::Timeout as i32);
    assert_eq!(result.outcome, proto::Outcome::WhiteWins as i32);
    assert!(
        instant(ended.event_time.as_ref().expect("event time")) >= black_flag,
        "ended before Black's flag fell: {ended:?}"
    );
    let clock = ended.clock.as_ref().expect("clock");
    assert!(clock.black_millis <= 0, "{clock:?}");

    let finished = get(&mut client, &game.id).await;
    assert_eq!(finished.status, proto::GameStatus::Finished as i32);
    assert_eq!((finished.version, finished.ply), (3, 1));
    assert_index_agrees(app.inner.as_ref(), &id).await;
}

/// The commit of a move fails before anything is written, and the player
/// sends the move again: it is played once, and the deadline moves on to
/// White's flag.
async fn a_move_sent_again_after_a_failed_commit_is_played_once(backend: Backend) {
    let app = FaultyApp::spawn(backend, true).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let game = create(&mut admin, timed_request("", "faults", 2, 600_000))
        .await
        .expect("create a timed game");
    let id = game_id(&game.id);
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White's move");

    app.faults.fail_before_writing.store(1, Ordering::SeqCst);
    expect_code(
        seat(&mut client, &game.black, make_move(&game.id, 1, "e5")).await,
        Code::Unavailable,
    );
    let response = client
        .make_move(common::with_token(
            &game.black,
            make_move(&game.id, 1, "e5"),
        ))
        .await
        .expect("the move sent again")
        .into_inner();
    assert_eq!(common::kinds(&response.events), ["move_made"]);
    let after = response.game.expect("game");
    assert_eq!((after.version, after.ply), (3, 2));
    assert_deadline(app.inner.as_ref(), &id, flag_time(&after)).await;
    assert_index_agrees(app.inner.as_ref(), &id).await;
    assert_eq!(
        common::ucis(&get_full(&mut client, &game.id).await),
        ["e2e4", "e7e5"]
    );
}

/// The commit of a move is written but its answer is lost: the player sends
/// the move again and is told it was played, without playing it twice; the
/// deadline is the one the written commit set.
async fn a_move_whose_answer_is_lost_is_confirmed_not_replayed(backend: Backend) {
    let app = FaultyApp::spawn(backend, true).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let game = create(&mut admin, timed_request("", "faults", 3, 600_000))
        .await
        .expect("create a timed game");
    let id = game_id(&game.id);
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White's move");

    app.faults.fail_after_writing.store(1, Ordering::SeqCst);
    expect_code(
        seat(&mut client, &game.black, make_move(&game.id, 1, "e5")).await,
        Code::Unavailable,
    );
    // Written, deadline included.
    let stored = stored_game(app.inner.as_ref(), &id)
        .await
        .expect("the game");
    assert_eq!((stored.version(), stored.ply().count()), (3, 2));
    assert_index_agrees(app.inner.as_ref(), &id).await;

    let response = client
        .make_move(common::with_token(
            &game.black,
            make_move(&game.id, 1, "e5"),
        ))
        .await
        .expect("the move sent again")
        .into_inner();
    assert!(
        response.events.is_empty(),
        "a repeat: {:?}",
        response.events
    );
    let after = response.game.expect("game");
    assert_eq!((after.version, after.ply), (3, 2));
    assert_eq!(
        app.inner
            .events_after(&id, 0)
            .await
            .expect("log")
            .events
            .len(),
        3
    );
    assert_eq!(
        common::ucis(&get_full(&mut client, &game.id).await),
        ["e2e4", "e7e5"]
    );
    let read = get(&mut client, &game.id).await;
    assert_deadline(app.inner.as_ref(), &id, flag_time(&read)).await;
    assert_index_agrees(app.inner.as_ref(), &id).await;
}

// ---------------------------------------------------------------------------
// Requests cancelled half-way
// ---------------------------------------------------------------------------

/// Pawn moves that never repeat a position nor end the game: 32 plies.
const PAWN_LINE: [&str; 32] = [
    "a3", "a6", "b3", "b6", "c3", "c6", "d3", "d6", "e3", "e6", "f3", "f6", "g3", "g6", "h3", "h6",
    "a4", "a5", "b4", "b5", "c4", "c5", "d4", "d5", "e4", "e5", "f4", "f5", "g4", "g5", "h4", "h5",
];

/// Moves sent and then abandoned after a few milliseconds (the client
/// drops the call: before the server read it, while it commits, or after)
/// never leave the running game out of the deadline index, and never play a
/// move twice.
async fn cancelled_moves_never_lose_the_deadline(backend: Backend) {
    let app = FaultyApp::spawn(backend, true).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let game = create(&mut admin, timed_request("", "faults", 4, 600_000))
        .await
        .expect("create a timed game");
    let id = game_id(&game.id);
    app.faults.commit_jitter_ms.store(3, Ordering::SeqCst);

    let last = PAWN_LINE.len() - 1;
    for attempt in 0..60u64 {
        let current = get(&mut client, &game.id).await;
        let ply = usize::try_from(current.ply).expect("ply");
        if ply >= last {
            break;
        }
        let token = token_to_move(&game, &current);
        let request = make_move(&game.id, current.ply, PAWN_LINE[ply]);
        let patience = Duration::from_millis(attempt % 8);
        // Dropped when the patience runs out, wherever it has got to.
        let _ = tokio::time::timeout(patience, seat(&mut client, token, request)).await;
        // Whatever became of it, the running game is in the index.
        let indexed = due_at(app.inner.as_ref(), far_future()).await;
        assert!(indexed.contains(&id), "attempt {attempt}: {indexed:?}");
    }

    // One move seen through to its answer: no abandoned request can commit
    // after it (each was for an earlier ply, or was this very move).
    let current = get(&mut client, &game.id).await;
    let ply = usize::try_from(current.ply).expect("ply");
    let token = token_to_move(&game, &current);
    let after = seat(
        &mut client,
        token,
        make_move(&game.id, current.ply, PAWN_LINE[ply]),
    )
    .await
    .expect("a move seen through");
    assert_eq!(after.status, proto::GameStatus::Active as i32);
    assert_index_agrees(app.inner.as_ref(), &id).await;
    assert_deadline(
        app.inner.as_ref(),
        &id,
        flag_time(&get(&mut client, &game.id).await),
    )
    .await;
    let stored = stored_game(app.inner.as_ref(), &id)
        .await
        .expect("the game");
    assert_eq!(stored.status(), GameStatus::Active);
    // Every move once, in order, and nothing else in the log.
    let full = get_full(&mut client, &game.id).await;
    let sans: Vec<&str> = full.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(sans, PAWN_LINE[..=ply]);
    let log = app.inner.events_after(&id, 0).await.expect("log").events;
    assert_eq!(log.len(), ply + 2, "the creation and one event per move");
}

// ---------------------------------------------------------------------------
// The sweeper's repairs
// ---------------------------------------------------------------------------

/// An entry that no longer matches its game is put right by the sweep that
/// finds it due: an early one goes back to the game's own deadline, and the
/// entry of a game that does not exist goes away.
async fn the_sweeper_repairs_entries_that_do_not_match_their_game(backend: Backend) {
    let app = FaultyApp::spawn(backend, false).await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, timed_request("", "repairs", 1, 600_000))
        .await
        .expect("create a timed game");
    let id = game_id(&game.id);
    let own = flag_time(&game.game);
    assert_deadline(app.inner.as_ref(), &id, own).await;
    let now = app.inner.now().await.expect("now");
    let past = Timestamp::from_unix_millis(now.unix_millis() - 1000);
    // Early (as if written for a version whose flag was sooner).
    app.inner
        .repair_deadline(&id, 1, Some(past))
        .await
        .expect("repair");
    // A stray: the entry of a game that does not exist.
    let ghost = game_id("ghost");
    app.inner
        .repair_deadline(&ghost, 0, Some(past))
        .await
        .expect("repair");
    let listed = due_at(app.inner.as_ref(), now).await;
    assert!(
        listed.contains(&id) && listed.contains(&ghost),
        "{listed:?}"
    );

    let swept = app.arbiter.sweep(ALL).await.expect("sweep");
    assert_eq!(swept, 2);
    assert_deadline(app.inner.as_ref(), &id, own).await;
    assert_index_agrees(app.inner.as_ref(), &id).await;
    assert!(
        !due_at(app.inner.as_ref(), far_future())
            .await
            .contains(&ghost)
    );
    // The game itself was not touched.
    let stored = stored_game(app.inner.as_ref(), &id).await.expect("game");
    assert_eq!(stored.version(), 1);
    assert_eq!(app.arbiter.sweep(ALL).await.expect("sweep"), 0);
}

// ---------------------------------------------------------------------------
// Listings of games that belong elsewhere
// ---------------------------------------------------------------------------

/// A CreateGame refused because its request_id was used for another game
/// changes nothing: in particular the existing game is not listed under
/// the refused request's event, round or board, so it is neither shown
/// nor scored there (nor twice in its own event).
async fn a_refused_creation_lists_nothing(backend: Backend) {
    let app = common::TestApp::spawn(backend).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let first = create(
        &mut admin,
        listed_request("key", "Event A", (1, 1), ("alice", "bob")),
    )
    .await
    .expect("create a game");
    for (event, round, board) in [("Event B", 2, 3), ("Event A", 1, 2), ("Event A", 4, 1)] {
        let status = expect_code(
            create(
                &mut admin,
                listed_request("key", event, (round, board), ("alice", "bob")),
            )
            .await,
            Code::AlreadyExists,
        );
        assert_eq!(reason(&status), "REQUEST_ID_REUSED", "{status:?}");
    }
    seat(&mut client, &first.white, common::resign(&first.id))
        .await
        .expect("White resigns");
    assert!(list_all(&mut client, "Event B", 0).await.is_empty());
    assert_eq!(standings_of(&mut client, "Event B").await, (vec![], 0));
    assert!(exported_whites(&mut client, "Event B").await.is_empty());
    for page_size in [0, 1] {
        assert_eq!(
            list_all(&mut client, "Event A", page_size).await,
            vec![first.id.clone()]
        );
    }
    assert_eq!(exported_whites(&mut client, "Event A").await, vec!["alice"]);
    let standings = client
        .get_standings(proto::GetStandingsRequest {
            event_id: "Event A".to_owned(),
            ..Default::default()
        })
        .await
        .expect("standings")
        .into_inner();
    assert_eq!(standings.games_counted, 1);
    let points: Vec<(String, String)> = standings
        .standings
        .iter()
        .map(|row| (row.player.clone().expect("player").id, row.points.clone()))
        .collect();
    assert_eq!(
        points,
        [("bob", "1"), ("alice", "0")].map(|(p, n)| (p.to_owned(), n.to_owned()))
    );
}

/// A creation fails after its listing, and is then sent again with the
/// same request_id but another pairing (which the server cannot refuse: the
/// game does not exist). The game is listed where it was created, and only
/// there.
async fn a_creation_sent_again_elsewhere_is_listed_only_where_it_is(backend: Backend) {
    let app = FaultyApp::spawn(backend, false).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    app.faults.fail_commits.store(true, Ordering::SeqCst);
    expect_code(
        create(
            &mut admin,
            listed_request("moved", "Event A", (1, 1), ("alice", "bob")),
        )
        .await,
        Code::Unavailable,
    );
    app.faults.fail_commits.store(false, Ordering::SeqCst);
    let created = create(
        &mut admin,
        listed_request("moved", "Event B", (1, 1), ("alice", "bob")),
    )
    .await
    .expect("created in event B");
    assert_eq!(
        list_all(&mut client, "Event B", 0).await,
        vec![created.id.clone()]
    );
    assert!(list_all(&mut client, "Event A", 0).await.is_empty());
    assert_eq!(standings_of(&mut client, "Event A").await, (vec![], 0));
}

/// The reads of a watched game's log fail for a while, as reads of a
/// stalled Redis time out: the replica's follower of the game retries, and
/// every watcher gets the next move late, none an error.
async fn a_failed_shared_read_is_retried_not_fatal_to_its_watchers(backend: Backend) {
    let app = FaultyApp::spawn(backend, false).await;
    let mut admin = app.admin_client().await;
    let mut client = app.client().await;
    let game = create(&mut admin, create_request("", ""))
        .await
        .expect("create a game");
    let mut streams = Vec::new();
    for _ in 0..3 {
        streams.push(watch(&mut client, &game.id, 1).await);
    }
    app.faults.fail_log_reads.store(4, Ordering::SeqCst);
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("White's move");
    for stream in &mut streams {
        let event = common::next_event(stream).await;
        assert_eq!(event.version, 2, "{event:?}");
        assert!(matches!(event.kind, Some(Kind::MoveMade(_))), "{event:?}");
    }
    assert_eq!(
        app.faults.fail_log_reads.load(Ordering::SeqCst),
        0,
        "the failures were met"
    );
    // The streams go on: the next move comes at once.
    seat(&mut client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect("Black's move");
    for stream in &mut streams {
        assert_eq!(common::next_event(stream).await.version, 3);
    }
}

/// A round whose creation dies after two of its five games: the round's
/// record stands, and the next read of the round completes it from there,
/// with the games and tokens the first attempt would have made.
async fn a_round_interrupted_half_way_is_completed_from_its_record(backend: Backend) {
    let app = FaultyApp::spawn(backend, false).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "Interrupted {Open}";
    let request = round_of("interrupted-round-1", event, 1, 5);
    let status = app
        .create_round_crashing(&mut admin_client, &request, 2)
        .await;
    assert_eq!(reason(&status), "STORAGE_UNAVAILABLE");
    // Two games exist; the round's record says what the other three are.
    let event_id = EventId::parse(event).expect("event id");
    let record = app
        .inner
        .round(&event_id, 1)
        .await
        .expect("read")
        .expect("the round's record is written first");
    let round = encoding_round(&record.bytes);
    assert!(!round.is_complete());
    let mut existing = 0;
    for board in round.boards() {
        if app.inner.load(&board.game).await.expect("load").0.is_some() {
            existing += 1;
        }
    }
    assert_eq!(
        existing,
        2,
        "refused {} of the commits",
        app.faults.refused.load(Ordering::SeqCst)
    );

    // The store is back: reading the round completes it.
    app.faults
        .crash_after_commits
        .store(false, Ordering::SeqCst);
    let page = admin_client
        .get_round(common::admin(proto::GetRoundRequest {
            event_id: event.into(),
            round: 1,
            ..Default::default()
        }))
        .await
        .expect("get round")
        .into_inner();
    assert_eq!(page.boards.len(), 5);
    assert!(
        page.boards
            .iter()
            .all(|b| b.status() == proto::GameStatus::Pending),
        "{page:?}"
    );
    let complete = app
        .inner
        .round(&event_id, 1)
        .await
        .expect("read")
        .expect("record");
    assert!(encoding_round(&complete.bytes).is_complete());
    // The request sent again returns every game with working tokens.
    let created = admin_client
        .create_round(common::admin(request))
        .await
        .expect("the same round")
        .into_inner();
    let ids: Vec<&str> = created.games.iter().map(|g| g.game_id.as_str()).collect();
    let listed: Vec<&str> = page.boards.iter().map(|b| b.game_id.as_str()).collect();
    assert_eq!(ids, listed);
    let games = client
        .list_games(proto::ListGamesRequest {
            event_id: event.into(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner()
        .games;
    assert_eq!(games.len(), 5);
    for game in &created.games {
        seat(
            &mut client,
            &game.white_token,
            common::check_in(&game.game_id),
        )
        .await
        .expect("the token is the seat's");
    }
}

/// A round opened while a standings read is under way (after it read the
/// event's rounds, before its listing), and interrupted there: the read
/// counts none of its games, as of its start; later reads leave it out
/// until it is completed, then count it whole.
async fn a_round_opened_during_a_standings_read_is_not_counted_in_part(backend: Backend) {
    let app = Arc::new(FaultyApp::spawn(backend, false).await);
    let mut admin_client = app.admin_client().await;
    let event = "Overlapping {Open}";
    create(
        &mut admin_client,
        listed_request("", event, (1, 1), ("x", "y")),
    )
    .await
    .expect("a game of round 1, made alone");
    let standings = |app: Arc<FaultyApp>| async move {
        app.client()
            .await
            .get_standings(proto::GetStandingsRequest {
                event_id: event.into(),
                ..Default::default()
            })
            .await
            .expect("standings")
            .into_inner()
    };

    app.faults.hold_next_listing.store(true, Ordering::SeqCst);
    let read = tokio::spawn(standings(app.clone()));
    app.faults.listing_reached.notified().await;
    let request = round_of("overlapping-round-2", event, 2, 5);
    app.create_round_crashing(&mut admin_client, &request, 2)
        .await;
    app.faults.listing_released.notify_one();
    let ids = |rows: &[proto::Standing]| {
        let mut ids: Vec<String> = rows
            .iter()
            .map(|row| row.player.as_ref().expect("player").id.clone())
            .collect();
        ids.sort();
        ids
    };
    let during = read.await.expect("the read");
    assert_eq!(ids(&during.standings), ["x", "y"], "{during:?}");
    // The store is back: the next read completes the round and counts it
    // whole.
    app.faults
        .crash_after_commits
        .store(false, Ordering::SeqCst);
    let complete = standings(app.clone()).await;
    assert_eq!(complete.standings.len(), 12, "{complete:?}");
    let event_id = EventId::parse(event).expect("event id");
    let record = app
        .inner
        .round(&event_id, 2)
        .await
        .expect("read")
        .expect("record");
    assert!(encoding_round(&record.bytes).is_complete());
    // The request sent again returns the same round.
    let created = admin_client
        .create_round(common::admin(request))
        .await
        .expect("the same round")
        .into_inner();
    assert_eq!(created.games.len(), 5);
}

/// A round in creation a moment ago is most likely still being created by
/// its own request: a listing of the event leaves it out rather than redo
/// it (a crowd of readers would otherwise each create its games again).
async fn a_listing_leaves_a_round_just_opened_to_its_own_request(backend: Backend) {
    let app = FaultyApp::spawn_with(backend, false, Duration::from_secs(3_600)).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "Young {Open}";
    let request = round_of("young-round-1", event, 1, 4);
    app.create_round_crashing(&mut admin_client, &request, 1)
        .await;
    app.faults
        .crash_after_commits
        .store(false, Ordering::SeqCst);
    let games = client
        .list_games(proto::ListGamesRequest {
            event_id: event.into(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner()
        .games;
    assert!(games.is_empty(), "{games:?}");
    let event_id = EventId::parse(event).expect("event id");
    let record = app
        .inner
        .round(&event_id, 1)
        .await
        .expect("read")
        .expect("record");
    assert!(!encoding_round(&record.bytes).is_complete(), "not redone");
    // A read of the round itself completes it, as ever.
    let page = admin_client
        .get_round(common::admin(proto::GetRoundRequest {
            event_id: event.into(),
            round: 1,
            ..Default::default()
        }))
        .await
        .expect("get round")
        .into_inner();
    assert_eq!(page.boards.len(), 4);
}

/// A round interrupted half-way is completed by the next listing of the
/// event, which then shows all of its games.
async fn a_listing_completes_an_interrupted_round(backend: Backend) {
    let app = FaultyApp::spawn(backend, false).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "Listed {Open}";
    let request = round_of("listed-round-1", event, 1, 4);
    app.create_round_crashing(&mut admin_client, &request, 1)
        .await;
    app.faults
        .crash_after_commits
        .store(false, Ordering::SeqCst);
    let games = client
        .list_games(proto::ListGamesRequest {
            event_id: event.into(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner()
        .games;
    let boards: Vec<i32> = games
        .iter()
        .map(|g| {
            g.setup
                .as_ref()
                .and_then(|s| s.pairing.as_ref())
                .map_or(0, |p| p.board)
        })
        .collect();
    assert_eq!(boards, [1, 2, 3, 4]);
}

/// A round of `event` with `boards` boards, `w1` against `b1` on board 1
/// and so on, idempotent by `request_id`.
fn round_of(request_id: &str, event: &str, round: i32, boards: i32) -> proto::CreateRoundRequest {
    let player = |id: String| proto::Player {
        name: id.to_uppercase(),
        id,
        ..Default::default()
    };
    proto::CreateRoundRequest {
        request_id: request_id.into(),
        event_id: event.into(),
        round,
        boards: (1..=boards)
            .map(|n| proto::RoundBoard {
                board: n,
                white: Some(player(format!("w{n}"))),
                black: Some(player(format!("b{n}"))),
                overrides: None,
            })
            .collect(),
        ..Default::default()
    }
}

impl FaultyApp {
    /// Sends `request` while the store dies after `commits` more commits:
    /// the creation is interrupted there, and answers unavailable. The
    /// store stays dead until the test revives it.
    async fn create_round_crashing(
        &self,
        admin_client: &mut AdminClient,
        request: &proto::CreateRoundRequest,
        commits: usize,
    ) -> tonic::Status {
        self.faults
            .commits_before_crash
            .store(commits, Ordering::SeqCst);
        self.faults
            .crash_after_commits
            .store(true, Ordering::SeqCst);
        expect_code(
            admin_client
                .create_round(common::admin(request.clone()))
                .await,
            Code::Unavailable,
        )
    }
}

fn encoding_round(bytes: &[u8]) -> arbiter::domain::Round {
    arbiter::domain::stored::round_record::decode_round(bytes).expect("a round record")
}

on_every_backend!(
    a_round_interrupted_half_way_is_completed_from_its_record,
    a_round_opened_during_a_standings_read_is_not_counted_in_part,
    a_listing_completes_an_interrupted_round,
    a_listing_leaves_a_round_just_opened_to_its_own_request,
    a_creation_that_fails_after_its_listing_leaves_no_phantom,
    a_failed_shared_read_is_retried_not_fatal_to_its_watchers,
    a_move_whose_commit_fails_keeps_the_old_deadline,
    a_move_sent_again_after_a_failed_commit_is_played_once,
    a_move_whose_answer_is_lost_is_confirmed_not_replayed,
    cancelled_moves_never_lose_the_deadline,
    the_sweeper_repairs_entries_that_do_not_match_their_game,
);

mod listing_leaks {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn memory_a_refused_creation_lists_nothing() {
        a_refused_creation_lists_nothing(Backend::Memory).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redis_a_refused_creation_lists_nothing() {
        a_refused_creation_lists_nothing(Backend::Redis).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn memory_a_creation_sent_again_elsewhere_is_listed_only_where_it_is() {
        a_creation_sent_again_elsewhere_is_listed_only_where_it_is(Backend::Memory).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redis_a_creation_sent_again_elsewhere_is_listed_only_where_it_is() {
        a_creation_sent_again_elsewhere_is_listed_only_where_it_is(Backend::Redis).await;
    }
}

// ---------------------------------------------------------------------------
// A server process killed mid-game
// ---------------------------------------------------------------------------

/// The server binary on `port`, on the store `redis` describes; killed
/// (SIGKILL) when dropped.
struct ServerBinary(Child);

impl ServerBinary {
    fn start(port: u16, redis: &RedisConfig) -> Self {
        let child = Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
            .env("ARBITER_LISTEN", format!("127.0.0.1:{port}"))
            .env("ARBITER_REDIS_URL", &redis.url)
            .env("ARBITER_REDIS_KEY_PREFIX", &redis.key_prefix)
            .env("ARBITER_ADMIN_TOKEN", ADMIN_TOKEN)
            .env("ARBITER_TOKEN_SECRET", TOKEN_SECRET)
            .env("ARBITER_ARCHIVE_AFTER_SECONDS", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server binary");
        Self(child)
    }

    /// `kill -9`: no shutdown, no chance to finish anything.
    fn kill_9(&mut self) {
        // On Unix, `Child::kill` sends SIGKILL.
        self.0.kill().expect("SIGKILL the server");
        self.0.wait().expect("reap the server");
    }
}

impl Drop for ServerBinary {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn public_client(port: u16) -> Client {
    connect_retrying(|| ArbiterServiceClient::connect(format!("http://127.0.0.1:{port}"))).await
}

async fn admin_client(port: u16) -> AdminClient {
    connect_retrying(|| AdminServiceClient::connect(format!("http://127.0.0.1:{port}"))).await
}

/// Plays `PAWN_LINE` in `game` until a move fails (the server is gone),
/// counting each answered move in `answered`; returns how many were.
async fn play_until_refused(port: u16, game: common::NewGame, answered: Arc<AtomicUsize>) -> usize {
    let mut client = public_client(port).await;
    for (ply, san) in PAWN_LINE.iter().enumerate() {
        let token = if ply % 2 == 0 {
            &game.white
        } else {
            &game.black
        };
        let request = make_move(&game.id, i32::try_from(ply).expect("ply"), san);
        if seat(&mut client, token, request).await.is_err() {
            return ply;
        }
        answered.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
    PAWN_LINE.len()
}

/// Clients play timed games on a server that is killed with SIGKILL in the
/// middle of it. The deadline index in Redis still holds every game's own
/// deadline, and a second server on the same Redis ends every game on its
/// flag, exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_game_loses_no_deadline() {
    const GAMES: usize = 6;
    let redis = fresh_redis_config();
    let first_port = crate::common::free_port().port();
    let mut first = ServerBinary::start(first_port, &redis);
    let mut admin = admin_client(first_port).await;
    let mut games = Vec::new();
    for board in 1..=GAMES {
        let request = timed_request(
            &format!("kill-9-{board}"),
            "kill -9",
            i32::try_from(board).expect("board"),
            5000,
        );
        games.push(create(&mut admin, request).await.expect("a timed game"));
    }
    let answered = Arc::new(AtomicUsize::new(0));
    let players: Vec<_> = games
        .iter()
        .map(|game| {
            tokio::spawn(play_until_refused(
                first_port,
                game.clone(),
                answered.clone(),
            ))
        })
        .collect();
    // Killed while the players are at it: moves on their way, commits in
    // flight.
    tokio::time::timeout(STREAM_PATIENCE, async {
        while answered.load(Ordering::SeqCst) < GAMES * 4 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the players get going");
    first.kill_9();
    let mut moves_answered = Vec::new();
    for player in players {
        let played = tokio::time::timeout(STREAM_PATIENCE, player)
            .await
            .expect("a player stops once the server is gone")
            .expect("player task");
        moves_answered.push(played);
    }

    // Straight from Redis, with no server running: every game is stored
    // whole, running, with every answered move (and at most the one in
    // flight besides), and the index holds its own deadline.
    let store = RedisStore::new(&redis).expect("redis store");
    for (game, answered) in games.iter().zip(&moves_answered) {
        let id = game_id(&game.id);
        let stored = stored_game(&store, &id).await.expect("the game is stored");
        assert_eq!(stored.status(), GameStatus::Active, "{id}");
        let ply = stored.ply().count() as usize;
        assert!(
            (*answered..=answered + 1).contains(&ply),
            "{id}: {answered} moves answered, {ply} stored"
        );
        let log = store.events_after(&id, 0).await.expect("log").events;
        assert_eq!(log.len(), ply + 1, "{id}: state and log agree");
        assert_index_agrees(&store, &id).await;
    }

    // A second server on the same Redis: its sweeper finds every flag.
    let second_port = crate::common::free_port().port();
    let _second = ServerBinary::start(second_port, &redis);
    let mut client = public_client(second_port).await;
    for game in &games {
        let id = game_id(&game.id);
        let stored = stored_game(&store, &id).await.expect("the game");
        let flag = stored.deadline();
        let loser = if stored.ply().count() % 2 == 0 {
            proto::Outcome::BlackWins
        } else {
            proto::Outcome::WhiteWins
        };
        // Everything after the creation, to the game's end.
        let events = drain(&mut watch(&mut client, &game.id, 1).await).await;
        let endings: Vec<&proto::GameEvent> = events
            .iter()
            .filter(|event| matches!(event.kind, Some(Kind::GameEnded(_))))
            .collect();
        assert_eq!(endings.len(), 1, "{id}: one ending: {events:?}");
        let ended = events.last().expect("events");
        let Some(Kind::GameEnded(ending)) = &ended.kind else {
            panic!("{id}: the game's last event is its end: {events:?}");
        };
        let result = ending.result.as_ref().expect("result");
        assert_eq!(
            result.termination,
            proto::Termination::Timeout as i32,
            "{id}"
        );
        assert_eq!(result.outcome, loser as i32, "{id}");
        if let Some(flag) = flag {
            let at = instant(ended.event_time.as_ref().expect("event time"));
            assert!(
                at >= flag,
                "{id}: ended at {at:?}, before its flag {flag:?}"
            );
        }
        let versions: Vec<i32> = events.iter().map(|event| event.version).collect();
        let expected: Vec<i32> = (2..=ended.version).collect();
        assert_eq!(versions, expected, "{id}: each event once, in order");
        // The game as read, within a bounded wait, is the one that ended.
        let read =
            tokio::time::timeout(STREAM_PATIENCE, async { get(&mut client, &game.id).await })
                .await
                .expect("GetGame answers");
        assert_eq!(read.status, proto::GameStatus::Finished as i32, "{id}");
        assert_eq!(read.version, ended.version, "{id}");
        assert_eq!(read.ply, i32::try_from(stored.ply().count()).expect("ply"));
        assert_index_agrees(&store, &id).await;
    }
}
