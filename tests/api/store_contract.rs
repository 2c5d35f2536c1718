//! The behavioural contract of `GameStore`, run against every store: the
//! in-memory one and Redis. The store knows nothing of chess, so states and
//! events here are arbitrary bytes.
//!
//! A commit writes a game's state, appends its events and records its
//! deadline for the flag sweeper, all at once or not at all; the sweeper's
//! `repair_deadline` only applies while the game is still at the version
//! it read. Event lists are read a page at a time from a position in the
//! list (keyset paging).

use crate::common;

use std::{
    collections::BTreeSet,
    sync::Arc,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use arbiter::{
    domain::{EventId, GameId, Pairing, Timestamp, access::CredentialId},
    store::{
        Change, ChangeFeed, ChangeFeeds, Commit, CommitOutcome, Corruption, CredentialAdded,
        CredentialLogEntry, Deadlines, EventIndex, EventLog, EventPosition, FeedPosition, GameLog,
        GameStore, Listing, MemoryStore, RedisConfig, RedisStore, RoundOpening, SignalAdded,
        StoreError, StoredEvent, StoredRound, StoredState, StoredTeams, TeamsWrite,
    },
};
use common::{Backend, RedisServer, fresh_redis_config};

/// A store under test: a fresh in-memory one, or the shared Redis under a
/// key prefix of its own.
struct Subject {
    store: Arc<dyn GameStore>,
}

fn redis_store(config: &RedisConfig) -> RedisStore {
    RedisStore::new(config).expect("redis store")
}

/// A store on a Redis of the test's own, which it may stop and restart.
fn private_redis_store(redis: &RedisServer) -> RedisStore {
    redis_store(&RedisConfig {
        url: redis.url(),
        key_prefix: "arbiter".into(),
        tls: Default::default(),
        wait: None,
    })
}

fn open(backend: Backend) -> Subject {
    let store: Arc<dyn GameStore> = match backend.redis_config() {
        None => Arc::new(MemoryStore::new()),
        Some(config) => Arc::new(redis_store(&config)),
    };
    Subject { store }
}

fn id(text: &str) -> GameId {
    GameId::parse(text).expect("valid game id")
}

fn state(version: u64, bytes: &[u8]) -> StoredState {
    StoredState {
        version,
        bytes: bytes.to_vec(),
    }
}

fn event(version: u64, bytes: &[u8]) -> StoredEvent {
    StoredEvent {
        version,
        bytes: bytes.to_vec(),
    }
}

/// Bytes that are not text: every byte value, NULs and invalid UTF-8.
fn binary() -> Vec<u8> {
    (0..=255u8).rev().chain(0..=255u8).collect()
}

/// Long enough for any test, short enough to fail rather than hang.
const PATIENCE: Duration = Duration::from_secs(20);

async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(PATIENCE, future)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {PATIENCE:?}"))
}

async fn load_state(store: &dyn GameStore, game: &GameId) -> Option<StoredState> {
    store.load(game).await.expect("load").0
}

async fn log(store: &dyn GameStore, game: &GameId) -> Vec<StoredEvent> {
    store
        .events_after(game, 0)
        .await
        .expect("events_after")
        .events
}

/// The commit from `expected` to `state`, appending `events` and recording
/// `deadline`.
fn commit_of(
    expected: u64,
    state: StoredState,
    events: Vec<StoredEvent>,
    deadline: Option<Timestamp>,
) -> Commit {
    Commit {
        expected,
        state,
        events,
        deadline,
        event: None,
        audited: Vec::new(),
    }
}

/// Commits, failing the test on a store error.
async fn commit(
    store: &dyn GameStore,
    game: &GameId,
    expected: u64,
    state: StoredState,
    events: Vec<StoredEvent>,
    deadline: Option<Timestamp>,
) -> CommitOutcome {
    store
        .commit(game, commit_of(expected, state, events, deadline))
        .await
        .expect("commit")
}

/// Moves `game` from version `from` to the next with one event (`state n`,
/// `event n`), recording `deadline`.
async fn advance(
    store: &dyn GameStore,
    game: &GameId,
    from: u64,
    deadline: Option<Timestamp>,
) -> CommitOutcome {
    let to = from + 1;
    commit(
        store,
        game,
        from,
        state(to, format!("state {to}").as_bytes()),
        vec![event(to, format!("event {to}").as_bytes())],
        deadline,
    )
    .await
}

/// Creates `game` at version 1 with one event and no deadline.
async fn create(store: &dyn GameStore, game: &GameId) {
    create_due(store, game, None).await;
}

/// Creates `game` at version 1 with one event and `deadline`.
async fn create_due(store: &dyn GameStore, game: &GameId, deadline: Option<Timestamp>) {
    let outcome = commit(
        store,
        game,
        0,
        state(1, b"state 1"),
        vec![event(1, b"event 1")],
        deadline,
    )
    .await;
    assert_eq!(outcome, CommitOutcome::Committed, "creating {game}");
}

/// The expected log of a game built by [`create`] and [`advance`] up to
/// `version`.
fn plain_log(version: u64) -> Vec<StoredEvent> {
    (1..=version)
        .map(|v| event(v, format!("event {v}").as_bytes()))
        .collect()
}

fn system_millis() -> u64 {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_millis();
    u64::try_from(millis).expect("millis fit")
}

#[track_caller]
fn assert_plausible_now(now: Timestamp) {
    let system = system_millis();
    let diff = now.unix_millis().abs_diff(system);
    assert!(
        diff < 60_000,
        "store time {} is {diff} ms away from the system clock {system}",
        now.unix_millis()
    );
}

// ---------------------------------------------------------------------------
// Loading and creating
// ---------------------------------------------------------------------------

/// A sweep claim keeps the other replicas' sweepers off a game until it
/// is released or lapses; a store that serves one process grants them all.
async fn a_sweep_claim_is_held_until_released_or_lapsed(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("claimed");
    assert!(store.claim_sweep(&game, 60_000).await.expect("claim"));
    let again = store.claim_sweep(&game, 60_000).await.expect("claim");
    assert_eq!(
        again,
        backend == Backend::Memory,
        "a second claim while held"
    );
    assert!(
        store
            .claim_sweep(&id("another"), 60_000)
            .await
            .expect("claim")
    );
    store.release_sweep(&game).await.expect("release");
    assert!(
        store
            .claim_sweep(&game, 50)
            .await
            .expect("claim after release")
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        store
            .claim_sweep(&game, 60_000)
            .await
            .expect("claim after the lapse")
    );
}

async fn missing_game_loads_as_none_with_the_time(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("nobody-here");
    let (state, now) = store.load(&game).await.expect("load");
    assert_eq!(state, None);
    assert_plausible_now(now);
    assert_plausible_now(store.now().await.expect("now"));
    assert!(log(store, &game).await.is_empty());
    assert!(
        store
            .events_after(&game, 5)
            .await
            .expect("events")
            .events
            .is_empty()
    );
    assert!(
        store
            .events_page(&game, 0, 10)
            .await
            .expect("events_page")
            .events
            .is_empty()
    );
    assert!(due(store, far_future(), ALL).await.is_empty());
}

async fn commit_at_zero_creates_the_game(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("fresh");
    let outcome = commit(
        store,
        &game,
        0,
        state(1, &binary()),
        vec![event(1, &binary())],
        None,
    )
    .await;
    assert_eq!(outcome, CommitOutcome::Committed);

    let (loaded, now) = store.load(&game).await.expect("load");
    assert_eq!(loaded, Some(state(1, &binary())));
    assert_plausible_now(now);
    assert_eq!(log(store, &game).await, vec![event(1, &binary())]);
    // Created without a deadline: nothing for the sweeper.
    assert!(due(store, far_future(), ALL).await.is_empty());

    // Empty bytes are bytes too.
    let empty = id("empty");
    let outcome = commit(store, &empty, 0, state(1, b""), vec![event(1, b"")], None).await;
    assert_eq!(outcome, CommitOutcome::Committed);
    assert_eq!(load_state(store, &empty).await, Some(state(1, b"")));
    assert_eq!(log(store, &empty).await, vec![event(1, b"")]);
}

async fn a_second_create_conflicts_and_writes_nothing(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("taken");
    create_due(store, &game, Some(when(5000))).await;

    for deadline in [Some(when(1000)), Some(when(9000)), None] {
        let outcome = commit(
            store,
            &game,
            0,
            state(1, b"impostor state"),
            vec![event(1, b"impostor event")],
            deadline,
        )
        .await;
        assert_eq!(outcome, CommitOutcome::Conflict { current: 1 });
        assert_eq!(load_state(store, &game).await, Some(state(1, b"state 1")));
        assert_eq!(log(store, &game).await, vec![event(1, b"event 1")]);
        // The first creation's deadline stands.
        assert_deadline(store, &game, when(5000)).await;
    }
}

// ---------------------------------------------------------------------------
// Committing
// ---------------------------------------------------------------------------

async fn commit_at_the_current_version_appends_and_replaces(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("growing");
    create(store, &game).await;

    let outcome = commit(
        store,
        &game,
        1,
        state(2, b"state 2"),
        vec![event(2, b"event 2")],
        None,
    )
    .await;
    assert_eq!(outcome, CommitOutcome::Committed);
    assert_eq!(load_state(store, &game).await, Some(state(2, b"state 2")));

    // Several events in one commit.
    let outcome = commit(
        store,
        &game,
        2,
        state(4, b"state 4"),
        vec![event(3, b"event 3"), event(4, &binary())],
        None,
    )
    .await;
    assert_eq!(outcome, CommitOutcome::Committed);
    assert_eq!(load_state(store, &game).await, Some(state(4, b"state 4")));
    assert_eq!(
        log(store, &game).await,
        vec![
            event(1, b"event 1"),
            event(2, b"event 2"),
            event(3, b"event 3"),
            event(4, &binary()),
        ]
    );
}

/// A commit that loses the version race writes nothing: neither state, nor
/// events, nor deadline (whether it would have set, moved or cleared it).
async fn a_stale_commit_conflicts_and_changes_nothing(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("contested");
    create_due(store, &game, Some(when(1000))).await;
    let outcome = commit(
        store,
        &game,
        1,
        state(3, b"state 3"),
        vec![event(2, b"event 2"), event(3, b"event 3")],
        Some(when(3000)),
    )
    .await;
    assert_eq!(outcome, CommitOutcome::Committed);
    let state_before = load_state(store, &game).await;
    let log_before = log(store, &game).await;

    for expected in [0, 1, 2, 4, 100] {
        for deadline in [Some(when(500)), Some(when(7000)), None] {
            let outcome = commit(
                store,
                &game,
                expected,
                state(expected + 1, b"late state"),
                vec![event(expected + 1, b"late event")],
                deadline,
            )
            .await;
            assert_eq!(
                outcome,
                CommitOutcome::Conflict { current: 3 },
                "expected {expected}"
            );
            assert_eq!(load_state(store, &game).await, state_before);
            assert_eq!(log(store, &game).await, log_before);
            assert_deadline(store, &game, when(3000)).await;
        }
    }
}

async fn a_commit_to_a_missing_game_reports_version_zero(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("never-created");
    let outcome = commit(
        store,
        &game,
        3,
        state(4, b"state 4"),
        vec![event(4, b"event 4")],
        Some(when(1000)),
    )
    .await;
    assert_eq!(outcome, CommitOutcome::Conflict { current: 0 });
    assert_eq!(load_state(store, &game).await, None);
    assert!(log(store, &game).await.is_empty());
    assert!(due(store, when(60_000), ALL).await.is_empty());
}

async fn events_after_returns_exactly_the_later_events(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("long-log");
    create(store, &game).await;
    for version in 1..12u64 {
        let outcome = advance(store, &game, version, None).await;
        assert_eq!(outcome, CommitOutcome::Committed);
    }

    for after in [0u64, 1, 5, 9, 11, 12, 13, 1000] {
        let got = store
            .events_after(&game, after)
            .await
            .expect("events_after")
            .events;
        let expected: Vec<StoredEvent> = plain_log(12).into_iter().skip(after as usize).collect();
        assert_eq!(got, expected, "after {after}");
    }
}

/// `events_page` is `events_after` cut to `limit`: a bounded read of a log
/// of any length.
async fn events_page_returns_at_most_limit_later_events(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("paged-log");
    create(store, &game).await;
    for version in 1..12u64 {
        advance(store, &game, version, None).await;
    }
    let whole = plain_log(12);

    for after in [0u64, 1, 5, 11, 12, 13, 1000] {
        for limit in [1usize, 2, 3, 5, 11, 12, 13, 100] {
            let page = store
                .events_page(&game, after, limit)
                .await
                .expect("events_page")
                .events;
            let expected: Vec<StoredEvent> = whole
                .iter()
                .skip(after as usize)
                .take(limit)
                .cloned()
                .collect();
            assert_eq!(page, expected, "after {after}, limit {limit}");
        }
        // A limit of zero reads nothing.
        assert!(
            store
                .events_page(&game, after, 0)
                .await
                .expect("events_page")
                .events
                .is_empty(),
            "after {after}"
        );
    }

    // Paging through from each page's last version reads the log exactly
    // once, in order.
    for limit in [1usize, 4, 5, 12] {
        let mut read = Vec::new();
        let mut after = 0;
        loop {
            let page = store
                .events_page(&game, after, limit)
                .await
                .expect("events_page")
                .events;
            assert!(page.len() <= limit, "limit {limit}: {page:?}");
            let Some(last) = page.last() else { break };
            after = last.version;
            read.extend(page);
        }
        assert_eq!(read, whole, "limit {limit}");
    }

    // Bytes are kept as they are, and other games' logs are not read.
    let other = id("paged-log-2");
    commit(
        store,
        &other,
        0,
        state(2, b"s"),
        vec![event(1, &binary()), event(2, b"")],
        None,
    )
    .await;
    assert_eq!(
        store
            .events_page(&other, 0, 1)
            .await
            .expect("events_page")
            .events,
        vec![event(1, &binary())]
    );
    assert_eq!(
        store
            .events_page(&other, 1, 5)
            .await
            .expect("events_page")
            .events,
        vec![event(2, b"")]
    );
    assert!(
        store
            .events_page(&id("paged"), 0, 5)
            .await
            .expect("events_page")
            .events
            .is_empty()
    );
}

/// Several games' logs read at once: one answer per cursor, in the
/// cursors' order.
async fn events_after_many_reads_each_cursor(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let (a, b, missing) = (id("many-a"), id("many-b"), id("many-missing"));
    create(store, &a).await;
    advance(store, &a, 1, None).await;
    advance(store, &a, 2, None).await;
    create(store, &b).await;

    let cursors = vec![
        (a.clone(), 0),
        (b.clone(), 0),
        (missing.clone(), 0),
        (a.clone(), 2),
        (b.clone(), 1),
        (a.clone(), 1),
    ];
    let logs = store
        .events_after_many(&cursors, usize::MAX)
        .await
        .expect("events_after_many")
        .into_iter()
        .map(|read| read.events)
        .collect::<Vec<_>>();
    assert_eq!(
        logs,
        vec![
            plain_log(3),
            plain_log(1),
            vec![],
            plain_log(3)[2..].to_vec(),
            vec![],
            plain_log(3)[1..].to_vec(),
        ]
    );
    assert!(
        store
            .events_after_many(&[], 10)
            .await
            .expect("events_after_many")
            .is_empty()
    );
    // Bounded: at most `limit` events per cursor, the earliest.
    let logs = store
        .events_after_many(&[(a.clone(), 0), (b.clone(), 0), (a.clone(), 1)], 2)
        .await
        .expect("events_after_many")
        .into_iter()
        .map(|read| read.events)
        .collect::<Vec<_>>();
    assert_eq!(
        logs,
        vec![
            plain_log(3)[..2].to_vec(),
            plain_log(1),
            plain_log(3)[1..3].to_vec(),
        ]
    );
    let none = store
        .events_after_many(&[(a.clone(), 0)], 0)
        .await
        .expect("events_after_many");
    assert_eq!(none, vec![arbiter::store::LogRead::default()]);
}

// ---------------------------------------------------------------------------
// Following
// ---------------------------------------------------------------------------

async fn next_change(feed: &mut Box<dyn ChangeFeed>) -> Change {
    within("an announcement", feed.next())
        .await
        .expect("an announcement")
}

fn change_of(game: &GameId, version: u64) -> Change {
    Change {
        game: game.clone(),
        version,
        event: None,
        deadline: None,
    }
}

/// Every commit is announced once, each game's in the order of its
/// commits, with the game and its new version; a refused commit is not.
async fn commits_are_announced_in_order(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let mut feed = within("subscribe", store.changes()).await.expect("a feed");
    let (a, b) = (id("announced-a"), id("announced-b"));
    create(store, &a).await;
    create(store, &b).await;
    commit(
        store,
        &a,
        1,
        state(3, b"state 3"),
        vec![event(2, b"event 2"), event(3, b"event 3")],
        None,
    )
    .await;
    // Refused: a is at version 3.
    let refused = store
        .commit(&a, commit_of(1, state(2, b"x"), vec![event(2, b"x")], None))
        .await
        .expect("a conflict, not an error");
    assert_eq!(refused, CommitOutcome::Conflict { current: 3 });
    commit(store, &b, 1, state(2, b"b 2"), vec![event(2, b"b 2")], None).await;

    // Each game's commits in order; on a cluster, games on different nodes
    // may interleave either way.
    let mut announced = Vec::new();
    for _ in 0..4 {
        announced.push(next_change(&mut feed).await);
    }
    let of = |game: &GameId| -> Vec<Change> {
        announced
            .iter()
            .filter(|change| change.game == *game)
            .cloned()
            .collect()
    };
    assert_eq!(of(&a), [change_of(&a, 1), change_of(&a, 3)]);
    assert_eq!(of(&b), [change_of(&b, 1), change_of(&b, 2)]);
}

/// The index knows its earliest deadline, and a commit announces the
/// deadline it recorded: how the sweeper knows when to look.
async fn the_earliest_deadline_is_known_and_announced(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    assert_eq!(store.next_deadline().await.expect("read"), None);
    let mut feed = store.changes().await.expect("a feed");
    let (a, b) = (id("deadline-a"), id("deadline-b"));
    create_due(store, &a, Some(when(2_000))).await;
    create_due(store, &b, Some(when(500))).await;
    assert_eq!(store.next_deadline().await.expect("read"), Some(when(500)));
    // b's next commit takes it out of the index: a's deadline is next.
    commit(store, &b, 1, state(2, b"b 2"), vec![event(2, b"b 2")], None).await;
    assert_eq!(
        store.next_deadline().await.expect("read"),
        Some(when(2_000))
    );
    // Each game's announcements in order (on a cluster, games on different
    // nodes may be announced in either order).
    let mut announced = Vec::new();
    for _ in 0..3 {
        let change = next_change(&mut feed).await;
        announced.push((change.game, change.version, change.deadline));
    }
    announced.sort();
    assert_eq!(
        announced,
        [
            (a.clone(), 1, Some(when(2_000))),
            (b.clone(), 1, Some(when(500))),
            (b.clone(), 2, None)
        ]
    );
}

/// Feeds opened one after the other each see every later commit.
/// Announcements travel apart from commits (over pub/sub on Redis), so a
/// feed opened just after a commit returned may still hear of that commit:
/// the log, not the feed, is the truth, and a feed only wakes followers.
async fn every_feed_sees_every_later_commit(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("seen-twice");
    let mut first = store.changes().await.expect("a feed");
    create(store, &game).await;
    let mut second = store.changes().await.expect("a feed");
    commit(store, &game, 1, state(2, b"2"), vec![event(2, b"2")], None).await;
    assert_eq!(next_change(&mut first).await, change_of(&game, 1));
    assert_eq!(next_change(&mut first).await, change_of(&game, 2));
    let mut heard = next_change(&mut second).await;
    if heard == change_of(&game, 1) {
        heard = next_change(&mut second).await;
    }
    assert_eq!(heard, change_of(&game, 2));
}

// ---------------------------------------------------------------------------
// Concurrency and isolation
// ---------------------------------------------------------------------------

const RACERS: usize = 16;

/// The deadline racer `task` writes: each its own, so the index tells who
/// won.
fn racer_deadline(task: usize) -> Timestamp {
    when(1000 * (task as u64 + 1))
}

/// Many tasks commit at the same expected version at once, each with a
/// deadline of its own; returns the outcomes by task.
async fn race(store: &Arc<dyn GameStore>, game: &GameId, expected: u64) -> Vec<CommitOutcome> {
    let start = Arc::new(tokio::sync::Barrier::new(RACERS));
    let tasks: Vec<_> = (0..RACERS)
        .map(|task| {
            let store = store.clone();
            let game = game.clone();
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                let version = expected + 1;
                store
                    .commit(
                        &game,
                        commit_of(
                            expected,
                            state(version, format!("state by {task}").as_bytes()),
                            vec![event(version, format!("event by {task}").as_bytes())],
                            Some(racer_deadline(task)),
                        ),
                    )
                    .await
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for task in tasks {
        outcomes.push(
            within("racing commit", task)
                .await
                .expect("racer task")
                .expect("commit"),
        );
    }
    outcomes
}

#[track_caller]
fn single_winner(outcomes: &[CommitOutcome], current: u64) -> usize {
    let winners: Vec<usize> = outcomes
        .iter()
        .enumerate()
        .filter(|(_, outcome)| **outcome == CommitOutcome::Committed)
        .map(|(task, _)| task)
        .collect();
    assert_eq!(winners.len(), 1, "{outcomes:?}");
    for (task, outcome) in outcomes.iter().enumerate() {
        if task != winners[0] {
            assert_eq!(*outcome, CommitOutcome::Conflict { current }, "task {task}");
        }
    }
    winners[0]
}

/// Racing commits have one winner, and the index holds the winner's
/// deadline and no loser's.
async fn racing_commits_have_exactly_one_winner(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.clone();
    let game = id("race");

    // Racing creations.
    let winner = single_winner(&race(&store, &game, 0).await, 1);
    assert_eq!(
        load_state(store.as_ref(), &game).await,
        Some(state(1, format!("state by {winner}").as_bytes()))
    );
    assert_eq!(
        log(store.as_ref(), &game).await,
        vec![event(1, format!("event by {winner}").as_bytes())]
    );
    assert_deadline(store.as_ref(), &game, racer_deadline(winner)).await;

    // Racing moves.
    let second = single_winner(&race(&store, &game, 1).await, 2);
    assert_eq!(
        load_state(store.as_ref(), &game).await,
        Some(state(2, format!("state by {second}").as_bytes()))
    );
    assert_eq!(
        log(store.as_ref(), &game).await,
        vec![
            event(1, format!("event by {winner}").as_bytes()),
            event(2, format!("event by {second}").as_bytes()),
        ]
    );
    assert_deadline(store.as_ref(), &game, racer_deadline(second)).await;
}

async fn games_are_isolated_from_each_other(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let a = id("game-a");
    let b = id("game-b");
    // A prefix of another id is still another game.
    let a_prefix = id("game");

    create_due(store, &a, Some(when(1000))).await;
    assert_eq!(load_state(store, &b).await, None);
    assert_eq!(load_state(store, &a_prefix).await, None);
    assert!(log(store, &b).await.is_empty());
    assert_eq!(due(store, far_future(), ALL).await, vec![a.clone()]);

    // b is created independently, at its own versions, with its own
    // deadline.
    let outcome = commit(
        store,
        &b,
        0,
        state(1, b"b state 1"),
        vec![event(1, b"b event 1")],
        Some(when(2000)),
    )
    .await;
    assert_eq!(outcome, CommitOutcome::Committed);
    commit(
        store,
        &a,
        1,
        state(2, b"state 2"),
        vec![event(2, b"event 2")],
        None,
    )
    .await;
    assert_eq!(
        commit(
            store,
            &b,
            2,
            state(3, b"b state 3"),
            vec![event(3, b"b event 3")],
            None,
        )
        .await,
        CommitOutcome::Conflict { current: 1 }
    );

    assert_eq!(load_state(store, &a).await, Some(state(2, b"state 2")));
    assert_eq!(load_state(store, &b).await, Some(state(1, b"b state 1")));
    assert_eq!(
        log(store, &a).await,
        vec![event(1, b"event 1"), event(2, b"event 2")]
    );
    assert_eq!(log(store, &b).await, vec![event(1, b"b event 1")]);
    assert_eq!(load_state(store, &a_prefix).await, None);
    // a's commit cleared a's deadline only.
    assert_eq!(due(store, far_future(), ALL).await, vec![b.clone()]);
    assert_deadline(store, &b, when(2000)).await;

    // a's next commit leaves b's deadline alone.
    commit(
        store,
        &a,
        2,
        state(3, b"state 3"),
        vec![event(3, b"event 3")],
        Some(when(500)),
    )
    .await;
    assert_deadline(store, &b, when(2000)).await;
    assert_deadline(store, &a, when(500)).await;
}

/// A commit whose events do not continue the log is refused before anything
/// is written, on both stores: no state, no event, no deadline.
async fn a_commit_whose_events_do_not_continue_the_log_writes_nothing(backend: Backend) {
    let subject = open(backend);
    let store = &subject.store;
    let gap = id("gap");
    let malformed = |expected: u64| {
        [
            (expected + 2, vec![event(expected + 2, b"e")]),
            (expected + 1, vec![]),
            (expected, vec![]),
            (expected + 2, vec![event(expected + 1, b"e")]),
            (expected + 1, vec![event(expected + 2, b"e")]),
            (
                expected + 2,
                vec![event(expected + 2, b"e"), event(expected + 1, b"e")],
            ),
        ]
    };
    for (version, events) in malformed(0) {
        for deadline in [Some(when(1000)), None] {
            let refused = store
                .commit(
                    &gap,
                    commit_of(0, state(version, b"s"), events.clone(), deadline),
                )
                .await;
            assert!(
                matches!(refused, Err(StoreError::Corrupt(_))),
                "{refused:?}"
            );
        }
    }
    let (loaded, _) = store.load(&gap).await.expect("load");
    assert!(loaded.is_none(), "nothing was written");
    assert!(
        store
            .events_after(&gap, 0)
            .await
            .expect("events")
            .events
            .is_empty()
    );
    assert!(due(store.as_ref(), far_future(), ALL).await.is_empty());

    // On an existing game, a refused commit leaves its deadline where it
    // was: neither moved nor cleared.
    let game = id("gap-existing");
    create_due(store.as_ref(), &game, Some(when(5000))).await;
    for (version, events) in malformed(1) {
        for deadline in [Some(when(1000)), Some(when(9000)), None] {
            let refused = store
                .commit(
                    &game,
                    commit_of(1, state(version, b"s"), events.clone(), deadline),
                )
                .await;
            assert!(
                matches!(refused, Err(StoreError::Corrupt(_))),
                "{refused:?}"
            );
        }
    }
    assert_eq!(
        load_state(store.as_ref(), &game).await,
        Some(state(1, b"state 1"))
    );
    assert_eq!(log(store.as_ref(), &game).await, plain_log(1));
    assert_eq!(
        due(store.as_ref(), far_future(), ALL).await,
        vec![game.clone()]
    );
    assert_deadline(store.as_ref(), &game, when(5000)).await;
}

// ---------------------------------------------------------------------------
// The deadline index
// ---------------------------------------------------------------------------

/// An instant `offset_ms` after an arbitrary fixed one.
fn when(offset_ms: u64) -> Timestamp {
    Timestamp::from_unix_millis(1_700_000_000_000 + offset_ms)
}

/// Later than any deadline of any test.
fn far_future() -> Timestamp {
    // 2100-01-01.
    Timestamp::from_unix_millis(4_102_444_800_000)
}

/// The sweeper's repair, failing the test on a store error.
async fn repair(store: &dyn GameStore, game: &GameId, version: u64, deadline: Option<Timestamp>) {
    store
        .repair_deadline(game, version, deadline)
        .await
        .expect("repair_deadline");
}

/// The games due by `now` (at most `limit`), sorted, each checked to be
/// listed once.
async fn due(store: &dyn GameStore, now: Timestamp, limit: usize) -> Vec<GameId> {
    let mut due = store.due(now, limit).await.expect("due");
    let listed = due.len();
    due.sort();
    due.dedup();
    assert_eq!(due.len(), listed, "a game is listed twice: {due:?}");
    due
}

/// Asserts that the index holds `game` at exactly `at`: due then, and not
/// a millisecond before.
async fn assert_deadline(store: &dyn GameStore, game: &GameId, at: Timestamp) {
    let before = Timestamp::from_unix_millis(at.unix_millis() - 1);
    let early = due(store, before, ALL).await;
    assert!(
        !early.contains(game),
        "{game} is due before {at:?}: {early:?}"
    );
    let on_time = due(store, at, ALL).await;
    assert!(
        on_time.contains(game),
        "{game} is not due at {at:?}: {on_time:?}"
    );
}

/// Asserts that the index holds no deadline for `game`.
async fn assert_no_deadline(store: &dyn GameStore, game: &GameId) {
    let listed = due(store, far_future(), ALL).await;
    assert!(
        !listed.contains(game),
        "{game} is still indexed: {listed:?}"
    );
}

/// Room for every game of any test.
const ALL: usize = 1000;

async fn due_lists_the_games_whose_deadline_has_come(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let (a, b, c) = (id("due-a"), id("due-b"), id("due-c"));
    create_due(store, &a, Some(when(1000))).await;
    create_due(store, &b, Some(when(2000))).await;
    // c gets its deadline from a later commit.
    create(store, &c).await;
    for version in 1..7 {
        advance(store, &c, version, Some(when(3000))).await;
    }

    assert!(due(store, when(0), ALL).await.is_empty());
    assert!(due(store, when(999), ALL).await.is_empty());
    // A deadline at exactly "now" is due.
    assert_eq!(due(store, when(1000), ALL).await, vec![a.clone()]);
    assert_eq!(
        due(store, when(2999), ALL).await,
        vec![a.clone(), b.clone()]
    );
    assert_eq!(
        due(store, when(60_000), ALL).await,
        vec![a.clone(), b.clone(), c.clone()]
    );
    // Listing a game does not take it out of the index.
    assert_eq!(due(store, when(1000), ALL).await, vec![a]);
}

async fn due_returns_at_most_its_limit(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let games: Vec<GameId> = (0..10).map(|i| id(&format!("limited-{i}"))).collect();
    for (i, game) in games.iter().enumerate() {
        create_due(store, game, Some(when(100 * i as u64))).await;
    }
    for limit in [1, 3, 9] {
        let listed = due(store, when(10_000), limit).await;
        assert_eq!(listed.len(), limit, "limit {limit}: {listed:?}");
        assert!(listed.iter().all(|g| games.contains(g)), "{listed:?}");
    }
    assert!(due(store, when(10_000), 0).await.is_empty());
    assert_eq!(due(store, when(10_000), 10).await, games);
    assert_eq!(due(store, when(10_000), ALL).await, games);
    // Fewer due than the limit: only those.
    assert_eq!(due(store, when(150), 5).await, games[..2].to_vec());
}

/// The deadline is written by the commit itself: creating a game records
/// it, and every later commit moves it, keeps it or clears it.
async fn a_commit_writes_the_games_deadline(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("timed");
    let bystander = id("bystander");
    create_due(store, &bystander, Some(when(4000))).await;

    create_due(store, &game, Some(when(5000))).await;
    assert_deadline(store, &game, when(5000)).await;
    // Later.
    advance(store, &game, 1, Some(when(8000))).await;
    assert_deadline(store, &game, when(8000)).await;
    // Earlier: the later deadline does not linger.
    advance(store, &game, 2, Some(when(2000))).await;
    assert_deadline(store, &game, when(2000)).await;
    assert_eq!(
        due(store, when(7999), ALL).await,
        vec![bystander.clone(), game.clone()]
    );
    // Unchanged.
    advance(store, &game, 3, Some(when(2000))).await;
    assert_deadline(store, &game, when(2000)).await;
    // Several events in one commit.
    commit(
        store,
        &game,
        4,
        state(6, b"state 6"),
        vec![event(5, b"event 5"), event(6, b"event 6")],
        Some(when(3000)),
    )
    .await;
    assert_deadline(store, &game, when(3000)).await;
    // Time can no longer end it: out of the index.
    advance(store, &game, 6, None).await;
    assert_no_deadline(store, &game).await;
    // And a commit without a deadline keeps it out.
    advance(store, &game, 7, None).await;
    assert_no_deadline(store, &game).await;
    // Until a later commit puts it back.
    advance(store, &game, 8, Some(when(6000))).await;
    assert_deadline(store, &game, when(6000)).await;

    // The other game's entry was never touched.
    assert_deadline(store, &bystander, when(4000)).await;
    assert_eq!(load_state(store, &game).await, Some(state(9, b"state 9")));
    assert_eq!(log(store, &game).await.len(), 9);
}

/// A writer that read an older version cannot replace a newer deadline:
/// its commit conflicts and its repair is ignored.
async fn an_older_version_cannot_replace_a_newer_deadline(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("versioned");
    create_due(store, &game, Some(when(1000))).await;
    for version in 1..5 {
        advance(store, &game, version, Some(when(5000))).await;
    }

    // A slower writer of version 4 comes last: ignored.
    let outcome = advance(store, &game, 4, Some(when(1000))).await;
    assert_eq!(outcome, CommitOutcome::Conflict { current: 5 });
    repair(store, &game, 4, Some(when(1000))).await;
    assert!(due(store, when(4999), ALL).await.is_empty());
    assert_eq!(due(store, when(5000), ALL).await, vec![game.clone()]);
    // Nor can it remove the deadline.
    repair(store, &game, 4, None).await;
    let outcome = advance(store, &game, 4, None).await;
    assert_eq!(outcome, CommitOutcome::Conflict { current: 5 });
    assert_eq!(due(store, when(5000), ALL).await, vec![game.clone()]);
    // Nor can a version the game has not reached.
    repair(store, &game, 6, Some(when(1000))).await;
    repair(store, &game, 6, None).await;
    assert_deadline(store, &game, when(5000)).await;
    // A newer version replaces it.
    advance(store, &game, 5, Some(when(8000))).await;
    assert!(due(store, when(7999), ALL).await.is_empty());
    assert_eq!(due(store, when(8000), ALL).await, vec![game.clone()]);
    // The old version's repair is ignored now too.
    repair(store, &game, 5, Some(when(5000))).await;
    assert_deadline(store, &game, when(8000)).await;
}

/// The sweeper's repair at the game's stored version rewrites the entry,
/// earlier, later or away, and touches nothing else.
async fn the_same_version_rewrites_the_deadline(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("rewritten");
    create(store, &game).await;
    for version in 1..5 {
        advance(store, &game, version, Some(when(5000))).await;
    }
    repair(store, &game, 5, Some(when(1000))).await;
    assert_eq!(due(store, when(1000), ALL).await, vec![game.clone()]);
    // Later again: the earlier deadline does not linger.
    repair(store, &game, 5, Some(when(9000))).await;
    assert!(due(store, when(8999), ALL).await.is_empty());
    assert_eq!(due(store, when(9000), ALL).await, vec![game.clone()]);
    repair(store, &game, 5, None).await;
    assert!(due(store, far_future(), ALL).await.is_empty());
    // Putting back an entry the index lost.
    repair(store, &game, 5, Some(when(7000))).await;
    assert_deadline(store, &game, when(7000)).await;

    // Repairs never touch the game's state or log.
    assert_eq!(load_state(store, &game).await, Some(state(5, b"state 5")));
    assert_eq!(log(store, &game).await, plain_log(5));
    // And the game goes on from the same version.
    assert_eq!(
        advance(store, &game, 5, None).await,
        CommitOutcome::Committed
    );
    assert_no_deadline(store, &game).await;
}

async fn no_deadline_takes_the_game_out_of_the_index(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let (ended, running) = (id("ended"), id("still-running"));
    create_due(store, &ended, Some(when(1000))).await;
    create_due(store, &running, Some(when(1000))).await;
    advance(store, &ended, 1, None).await;
    assert_eq!(due(store, far_future(), ALL).await, vec![running.clone()]);
    // Removing what is not there is harmless, and so is removing twice.
    advance(store, &ended, 2, None).await;
    repair(store, &ended, 3, None).await;
    repair(store, &id("never-indexed"), 0, None).await;
    assert_eq!(due(store, far_future(), ALL).await, vec![running.clone()]);
    // A later version can put the game back.
    advance(store, &ended, 3, Some(when(2000))).await;
    assert_eq!(due(store, when(2000), ALL).await, vec![ended, running]);
}

/// The Redis store's bucket of a game (FNV-1a of the id, modulo 64). Only
/// used to pick ids that fill every bucket; the assertions hold whatever
/// the partition.
fn redis_bucket(id: &str) -> u32 {
    id.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    }) % 64
}

/// Ids `many-000`, `many-001`, … until every bucket of a partitioned
/// index holds at least two (in sorted order).
fn ids_in_every_bucket() -> Vec<GameId> {
    let mut counts = [0u32; 64];
    let mut ids = Vec::new();
    for i in 0.. {
        if counts.iter().all(|&count| count >= 2) {
            break;
        }
        let text = format!("many-{i:04}");
        counts[redis_bucket(&text) as usize] += 1;
        ids.push(id(&text));
    }
    ids
}

async fn the_deadlines_of_many_games_are_all_found(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let games = ids_in_every_bucket();
    let n = games.len() as u64;
    for (i, game) in games.iter().enumerate() {
        create_due(store, game, Some(when(1000 * i as u64))).await;
    }
    let last = when(1000 * (n - 1));
    assert_eq!(due(store, last, ALL).await, games);
    assert_eq!(due(store, last, games.len()).await, games);
    let half = games.len() / 2;
    assert_eq!(
        due(store, when(1000 * half as u64 - 500), ALL).await,
        games[..half].to_vec()
    );
    assert_eq!(due(store, when(0), ALL).await, games[..1].to_vec());
    // Collected a batch at a time, the way a sweeper does (ending each
    // game, which clears its deadline), nothing is missed.
    let mut swept = Vec::new();
    loop {
        let batch = due(store, last, 5).await;
        if batch.is_empty() {
            break;
        }
        assert!(batch.len() <= 5, "{batch:?}");
        for game in &batch {
            assert_eq!(
                advance(store, game, 1, None).await,
                CommitOutcome::Committed
            );
        }
        swept.extend(batch);
    }
    swept.sort();
    assert_eq!(swept, games);
}

/// An entry whose game does not exist (a stray) is removed by a repair at
/// version 0, which cannot touch the entry of a game that exists.
async fn a_repair_at_version_zero_removes_a_stray_entry(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let ghost = id("no-state");
    // A stray, planted the only way the contract allows: for a game that
    // does not exist.
    repair(store, &ghost, 0, Some(when(1000))).await;
    assert_eq!(due(store, when(1000), ALL).await, vec![ghost.clone()]);
    assert_eq!(load_state(store, &ghost).await, None);
    assert!(log(store, &ghost).await.is_empty());
    // Not at another version: the ghost is at none.
    repair(store, &ghost, 3, None).await;
    assert_eq!(due(store, when(1000), ALL).await, vec![ghost.clone()]);
    repair(store, &ghost, 0, None).await;
    assert!(due(store, far_future(), ALL).await.is_empty());
    // Again: harmless.
    repair(store, &ghost, 0, None).await;
    assert_eq!(load_state(store, &ghost).await, None);

    // A game that exists keeps its entry.
    let game = id("with-state");
    create_due(store, &game, Some(when(2000))).await;
    repair(store, &game, 0, None).await;
    repair(store, &game, 0, Some(when(500))).await;
    assert_deadline(store, &game, when(2000)).await;
    assert_eq!(load_state(store, &game).await, Some(state(1, b"state 1")));
    assert_eq!(log(store, &game).await, plain_log(1));
    // Created after a stray of its own id was planted, a game's commit
    // takes the entry over.
    let late = id("late-creation");
    repair(store, &late, 0, Some(when(100))).await;
    create_due(store, &late, Some(when(3000))).await;
    assert_deadline(store, &late, when(3000)).await;
    let late2 = id("late-creation-2");
    repair(store, &late2, 0, Some(when(100))).await;
    create_due(store, &late2, None).await;
    assert_no_deadline(store, &late2).await;
}

// ---------------------------------------------------------------------------
// Event game lists
// ---------------------------------------------------------------------------

fn event_id(event: &str) -> EventId {
    EventId::parse(event).expect("valid event id")
}

fn position(round: u32, board: u32, game: &GameId) -> EventPosition {
    EventPosition {
        round,
        board,
        game: game.clone(),
    }
}

async fn add(store: &dyn GameStore, event: &str, (round, board): (u32, u32), game: &GameId) {
    store
        .add_to_event(&event_id(event), &position(round, board, game), ROOMY)
        .await
        .expect("add_to_event");
}

/// A list size no test reaches.
const ROOMY: usize = 1_000_000;

/// Up to `limit` entries of the event's list after `after`.
async fn listed(
    store: &dyn GameStore,
    event: &str,
    after: Option<&EventPosition>,
    limit: usize,
) -> Vec<EventPosition> {
    store
        .event_games(&event_id(event), after, limit)
        .await
        .expect("event_games")
}

/// The whole list's games, in order.
async fn all_games(store: &dyn GameStore, event: &str) -> Vec<GameId> {
    games_of(&listed(store, event, None, ALL).await)
}

fn games_of(positions: &[EventPosition]) -> Vec<GameId> {
    positions.iter().map(|p| p.game.clone()).collect()
}

/// Event ids are free text: braces (Redis hash-tag delimiters), spaces,
/// separators and patterns a key layout might trip on.
const AWKWARD_EVENTS: [&str; 10] = [
    "Spring {Open} 2026 – A",
    "{",
    "}",
    "}{",
    "{}",
    "arbiter:{shared}:state",
    "event:*?[x]",
    " ",
    "日本語のイベント ♔",
    "x\u{200b}y",
];

async fn event_games_are_ordered_by_round_board_then_id(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = "Spring {Open} 2026 – A";
    let (max_round, max_board) = (Pairing::MAX_ROUND, Pairing::MAX_BOARD);
    // The expected order; ids chosen so that their order disagrees with
    // the order of rounds and boards, and ties on (round, board) are broken
    // by the id's bytes ('-' < digits < upper case < '_' < lower case; a
    // prefix first).
    let expected: Vec<EventPosition> = vec![
        position(0, 0, &id("zz-unpaired")),
        position(0, 7, &id("y-board-without-round")),
        position(1, 1, &id("-dash")),
        position(1, 1, &id("9-digit")),
        position(1, 1, &id("Upper")),
        position(1, 1, &id("_underscore")),
        position(1, 1, &id("lower")),
        position(1, 1, &id("lower-longer")),
        position(1, 1, &id("lowerX")),
        position(1, 2, &id("a-board-2")),
        position(1, 10, &id("a-board-10")),
        position(1, 11, &id("a-board-11")),
        position(1, 100, &id("a-board-100")),
        position(1, max_board, &id("a-last-board")),
        position(2, 0, &id("a-round-2")),
        position(9, 1, &id("a-round-9")),
        position(10, 0, &id("a-round-10")),
        position(999, 9_999, &id("b-999-9999")),
        // The largest round and board a pairing may have.
        position(max_round, 0, &id("b-last-round-0")),
        position(max_round, max_board - 1, &id("b-last-round-penultimate")),
        position(max_round, max_board, &id("a-last-round-last")),
    ];
    // Added in a scrambled order.
    let mut scrambled = expected.clone();
    scrambled.reverse();
    scrambled.swap(0, 7);
    scrambled.swap(3, 11);
    scrambled.swap(5, 19);
    for entry in &scrambled {
        add(store, event, (entry.round, entry.board), &entry.game).await;
    }
    // Each entry comes back whole, in order.
    assert_eq!(listed(store, event, None, ALL).await, expected);
}

async fn event_games_page_by_position_and_limit(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = "paged {event}";
    let entries: Vec<EventPosition> = (0..7)
        .map(|i| position(1, i, &id(&format!("paged-{i}"))))
        .collect();
    for entry in entries.iter().rev() {
        add(store, event, (entry.round, entry.board), &entry.game).await;
    }
    assert_eq!(listed(store, event, None, ALL).await, entries);
    for limit in 1..=8 {
        let mut collected = Vec::new();
        let mut after: Option<EventPosition> = None;
        loop {
            let page = listed(store, event, after.as_ref(), limit).await;
            assert!(page.len() <= limit, "limit {limit}: {page:?}");
            let start = collected.len();
            assert_eq!(
                page,
                entries[start..(start + limit).min(7)],
                "limit {limit}"
            );
            collected.extend(page.iter().cloned());
            match page.last() {
                Some(last) if page.len() == limit => after = Some(last.clone()),
                _ => break,
            }
        }
        assert_eq!(collected, entries, "limit {limit}");
    }
    assert_eq!(
        listed(store, event, Some(&entries[1]), 3).await,
        entries[2..5]
    );
    assert_eq!(
        listed(store, event, Some(&entries[5]), 3).await,
        entries[6..]
    );
    assert!(listed(store, event, Some(&entries[6]), 3).await.is_empty());
    // A position that is not in the list is a place in its order all the
    // same: the page starts after it.
    let between = position(1, 3, &id("zzz"));
    assert_eq!(listed(store, event, Some(&between), 2).await, entries[4..6]);
    let tie_before = position(1, 3, &id("a"));
    assert_eq!(
        listed(store, event, Some(&tie_before), 2).await,
        entries[3..5]
    );
    let beyond = position(Pairing::MAX_ROUND, Pairing::MAX_BOARD, &id("zzz"));
    assert!(listed(store, event, Some(&beyond), 3).await.is_empty());
    let before_all = position(0, 0, &id("-"));
    assert_eq!(listed(store, event, Some(&before_all), ALL).await, entries);
    // A limit of zero lists nothing, from anywhere.
    assert!(listed(store, event, None, 0).await.is_empty());
    assert!(listed(store, event, Some(&entries[2]), 0).await.is_empty());
    assert!(listed(store, event, Some(&between), 0).await.is_empty());
}

/// Keyset paging: whatever is added between two reads, a page starts right
/// after the last entry of the one before, so a reader never sees an entry
/// twice nor misses one that was there when it started, and sees every
/// later addition that sorts after its position.
async fn event_pages_neither_repeat_nor_skip_entries_added_between_reads(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = "growing event";
    let original: Vec<EventPosition> = (1..=3)
        .flat_map(|board| {
            [
                position(1, board, &id(&format!("m-{board}"))),
                position(1, board, &id(&format!("t-{board}"))),
            ]
        })
        .chain([position(2, 1, &id("r2"))])
        .collect();
    for entry in &original {
        add(store, event, (entry.round, entry.board), &entry.game).await;
    }

    let mut seen: Vec<EventPosition> = Vec::new();
    // Added before the reader's position: it has passed them.
    let mut passed: Vec<EventPosition> = Vec::new();
    // Added after the reader's position: it must see them.
    let mut ahead: Vec<EventPosition> = Vec::new();
    let mut after: Option<EventPosition> = None;
    let mut round = 0;
    loop {
        let page = listed(store, event, after.as_ref(), 3).await;
        assert!(page.len() <= 3, "{page:?}");
        seen.extend(page.iter().cloned());
        let Some(last) = page.last().cloned() else {
            break;
        };
        // Between the first reads, entries land on both sides of the
        // position, including ties on its round and board.
        round += 1;
        if round <= 4 {
            let inserts = [
                position(last.round, last.board, &id(&format!("a-{round}"))),
                position(last.round, last.board, &id(&format!("z-{round}"))),
                position(0, round, &id(&format!("early-{round}"))),
                position(1, 2, &id(&format!("n-{round}"))),
                position(3, round, &id(&format!("late-{round}"))),
            ];
            for entry in inserts {
                add(store, event, (entry.round, entry.board), &entry.game).await;
                if entry > last {
                    ahead.push(entry);
                } else {
                    passed.push(entry);
                }
            }
        }
        after = Some(last);
        assert!(round < 50, "paging does not end: {seen:?}");
    }

    // In order, without a repeat.
    assert!(
        seen.windows(2).all(|pair| pair[0] < pair[1]),
        "pages out of order or repeated: {seen:?}"
    );
    let seen_set: BTreeSet<&EventPosition> = seen.iter().collect();
    for entry in original.iter().chain(&ahead) {
        assert!(seen_set.contains(entry), "{entry:?} skipped: {seen:?}");
    }
    for entry in &passed {
        assert!(!seen_set.contains(entry), "{entry:?} seen: {seen:?}");
    }
    assert_eq!(seen.len(), original.len() + ahead.len());
    // Every entry is in the list for the next reader from the start.
    let mut everything: Vec<EventPosition> = original
        .iter()
        .chain(&ahead)
        .chain(&passed)
        .cloned()
        .collect();
    everything.sort();
    assert_eq!(listed(store, event, None, ALL).await, everything);
}

async fn adding_a_game_again_lists_it_once(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = "idempotent {event}";
    let (first, second) = (id("again-1"), id("again-2"));
    add(store, event, (1, 1), &first).await;
    add(store, event, (1, 2), &second).await;
    for _ in 0..3 {
        add(store, event, (1, 1), &first).await;
        add(store, event, (1, 2), &second).await;
    }
    let expected = vec![position(1, 1, &first), position(1, 2, &second)];
    assert_eq!(listed(store, event, None, ALL).await, expected);
    // Concurrent re-adds too (two replicas retrying the same creation).
    let shared = Arc::clone(&subject.store);
    let adds = (0..8).map(|_| {
        let store = Arc::clone(&shared);
        let entry = position(1, 1, &first);
        tokio::spawn(async move {
            store
                .add_to_event(&event_id("idempotent {event}"), &entry, ROOMY)
                .await
        })
    });
    for handle in adds.collect::<Vec<_>>() {
        handle.await.expect("task").expect("add_to_event");
    }
    assert_eq!(listed(store, event, None, ALL).await, expected);
    // Pages do not repeat it either.
    assert_eq!(listed(store, event, None, 1).await, expected[..1]);
    assert_eq!(
        listed(store, event, Some(&expected[0]), 1).await,
        expected[1..]
    );
}

async fn events_are_isolated_from_each_other(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    // Ids that differ by case, a character, or a prefix.
    let events = [
        "Spring {Open} 2026 – A",
        "Spring {Open} 2026 – B",
        "spring {open} 2026 – a",
        "Spring {Open} 2026 – ",
        "Spring {Open} 2026 – AA",
    ];
    for (i, event) in events.iter().enumerate() {
        for board in 0..=i as u32 {
            add(store, event, (1, board), &id(&format!("iso-{i}-{board}"))).await;
        }
    }
    // The same game may be listed in two events: each keeps its own entry.
    let shared = id("in-two-events");
    add(store, events[0], (5, 1), &shared).await;
    add(store, events[1], (0, 1), &shared).await;
    for (i, event) in events.iter().enumerate() {
        let mut expected: Vec<EventPosition> = (0..=i as u32)
            .map(|board| position(1, board, &id(&format!("iso-{i}-{board}"))))
            .collect();
        match i {
            0 => expected.push(position(5, 1, &shared)),
            1 => expected.insert(0, position(0, 1, &shared)),
            _ => {}
        }
        assert_eq!(listed(store, event, None, ALL).await, expected, "{event}");
        // Paging stays within the event.
        let last = expected.last().expect("an entry");
        assert!(
            listed(store, event, Some(last), ALL).await.is_empty(),
            "{event}"
        );
    }
    assert!(all_games(store, "Spring {Open} 2026").await.is_empty());
    assert!(all_games(store, "no such event").await.is_empty());
}

async fn event_ids_are_free_text(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    // A game whose Redis keys an event id below imitates.
    let game = id("shared");
    create(store, &game).await;
    for (i, event) in AWKWARD_EVENTS.iter().enumerate() {
        add(store, event, (1, 1), &id(&format!("free-{i}"))).await;
        add(store, event, (1, 2), &game).await;
    }
    for (i, event) in AWKWARD_EVENTS.iter().enumerate() {
        let first = position(1, 1, &id(&format!("free-{i}")));
        assert_eq!(
            listed(store, event, None, ALL).await,
            vec![first.clone(), position(1, 2, &game)],
            "{event:?}"
        );
        assert_eq!(
            listed(store, event, Some(&first), 1).await,
            vec![position(1, 2, &game)],
            "{event:?}"
        );
    }
    // Listing touched neither the game's state nor its log, nor the
    // deadline index.
    assert_eq!(load_state(store, &game).await, Some(state(1, b"state 1")));
    assert_eq!(log(store, &game).await, vec![event(1, b"event 1")]);
    assert!(due(store, far_future(), ALL).await.is_empty());
    // The longest event id the API accepts (128 characters, 3 bytes each).
    let long = "€".repeat(128);
    add(store, &long, (1, 1), &game).await;
    assert_eq!(all_games(store, &long).await, vec![game.clone()]);
    assert!(all_games(store, &"€".repeat(127)).await.is_empty());
}

/// Several games' states read at once come back in the order asked, a
/// missing game as none, with the time.
async fn several_states_load_together(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let (a, b, missing) = (id("many-a"), id("many-b"), id("many-missing"));
    create_due(store, &a, None).await;
    create_due(store, &b, None).await;
    let (states, now) = store
        .load_many(&[b.clone(), missing.clone(), a.clone()])
        .await
        .expect("load_many");
    assert_eq!(
        states,
        vec![Some(state(1, b"state 1")), None, Some(state(1, b"state 1"))]
    );
    assert!(now.unix_millis() > 0);
    let (none, _) = store.load_many(&[]).await.expect("load_many of nothing");
    assert!(none.is_empty());
}

// ---------------------------------------------------------------------------
// Round records
// ---------------------------------------------------------------------------

fn stored_round(version: u64, bytes: &[u8], summary: &[u8]) -> StoredRound {
    StoredRound {
        version,
        bytes: bytes.to_vec(),
        summary: summary.to_vec(),
    }
}

/// Round `number`'s record of `version`, as the round tests write it.
fn round_at(number: u32, version: u64) -> StoredRound {
    stored_round(
        version,
        format!("round {number} record {version}").as_bytes(),
        format!("round {number} summary {version}").as_bytes(),
    )
}

async fn read_round(store: &dyn GameStore, event: &EventId, number: u32) -> Option<StoredRound> {
    store.round(event, number).await.expect("round")
}

async fn put_round(
    store: &dyn GameStore,
    event: &EventId,
    number: u32,
    expected: u64,
    round: &StoredRound,
) -> bool {
    store
        .put_round(event, number, expected, round)
        .await
        .expect("put_round")
}

async fn summaries(store: &dyn GameStore, event: &EventId, limit: usize) -> Vec<(u32, Vec<u8>)> {
    store
        .round_summaries(event, limit)
        .await
        .expect("round_summaries")
}

/// The summaries of rounds `numbers` at `version`, as [`round_at`] writes
/// them.
fn summaries_at(numbers: &[u32], version: u64) -> Vec<(u32, Vec<u8>)> {
    numbers
        .iter()
        .map(|&number| (number, round_at(number, version).summary))
        .collect()
}

async fn a_round_is_absent_until_put(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("rounds absent");
    assert_eq!(read_round(store, &event, 1).await, None);
    assert!(summaries(store, &event, ALL).await.is_empty());
    assert!(put_round(store, &event, 2, 0, &round_at(2, 1)).await);
    // Another round of the same event is still absent.
    assert_eq!(read_round(store, &event, 1).await, None);
    assert_eq!(read_round(store, &event, 3).await, None);
    assert_eq!(read_round(store, &event, 2).await, Some(round_at(2, 1)));
}

async fn a_round_put_at_zero_creates_version_one_and_a_second_creation_is_refused(
    backend: Backend,
) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("rounds created once");
    let first = stored_round(1, b"first record", b"first summary");
    assert!(put_round(store, &event, 1, 0, &first).await);
    assert_eq!(read_round(store, &event, 1).await, Some(first.clone()));
    let second = stored_round(1, b"second record", b"second summary");
    assert!(!put_round(store, &event, 1, 0, &second).await);
    assert_eq!(read_round(store, &event, 1).await, Some(first.clone()));
    assert_eq!(
        summaries(store, &event, ALL).await,
        vec![(1, first.summary.clone())]
    );
}

async fn a_round_put_at_its_version_replaces_record_and_summary(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("rounds updated");
    assert!(put_round(store, &event, 4, 0, &round_at(4, 1)).await);
    // Bytes that are not text, and an empty summary, are kept as given.
    let update = StoredRound {
        version: 2,
        bytes: binary(),
        summary: Vec::new(),
    };
    assert!(put_round(store, &event, 4, 1, &update).await);
    assert_eq!(read_round(store, &event, 4).await, Some(update.clone()));
    assert_eq!(summaries(store, &event, ALL).await, vec![(4, Vec::new())]);
    // A stale writer, who read version 1, is refused and changes nothing.
    assert!(!put_round(store, &event, 4, 1, &round_at(4, 2)).await);
    assert_eq!(read_round(store, &event, 4).await, Some(update));
    let third = stored_round(3, b"third record", &binary());
    assert!(put_round(store, &event, 4, 2, &third).await);
    assert_eq!(read_round(store, &event, 4).await, Some(third.clone()));
    assert_eq!(
        summaries(store, &event, ALL).await,
        vec![(4, third.summary)]
    );
}

async fn a_round_put_whose_version_is_not_the_next_is_refused_as_corrupt(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("rounds skipping versions");
    for (expected, version) in [(0, 0), (0, 2), (1, 1), (1, 3), (u64::MAX, 0)] {
        let err = store
            .put_round(&event, 1, expected, &round_at(1, version))
            .await
            .expect_err("a version that is not the next");
        assert!(
            matches!(
                &err,
                StoreError::Corrupt(Corruption::RoundVersionNotNext { expected: e, version: v })
                    if *e == expected && *v == version
            ),
            "expected {expected}, version {version}: {err:?}"
        );
    }
    assert_eq!(read_round(store, &event, 1).await, None);
    assert!(summaries(store, &event, ALL).await.is_empty());
    // Over a stored round, too.
    assert!(put_round(store, &event, 1, 0, &round_at(1, 1)).await);
    let err = store
        .put_round(&event, 1, 1, &round_at(1, 5))
        .await
        .expect_err("a version that skips");
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    assert_eq!(read_round(store, &event, 1).await, Some(round_at(1, 1)));
}

async fn round_summaries_list_every_round_by_number_up_to_the_limit(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("rounds in order");
    // Written out of order; 10 sorts after 9, not after 1.
    for number in [10, 2, 1, 9, 3, 11] {
        assert!(put_round(store, &event, number, 0, &round_at(number, 1)).await);
    }
    assert!(put_round(store, &event, 2, 1, &round_at(2, 2)).await);
    let mut all = summaries_at(&[1, 2, 3, 9, 10, 11], 1);
    all[1] = (2, round_at(2, 2).summary);
    assert_eq!(summaries(store, &event, ALL).await, all);
    assert_eq!(summaries(store, &event, usize::MAX).await, all);
    assert_eq!(summaries(store, &event, 6).await, all);
    assert_eq!(summaries(store, &event, 4).await, all[..4]);
    assert_eq!(summaries(store, &event, 1).await, all[..1]);
    assert!(summaries(store, &event, 0).await.is_empty());
    // The highest round number is a round like any other.
    assert!(put_round(store, &event, u32::MAX, 0, &round_at(u32::MAX, 1)).await);
    assert!(put_round(store, &event, 0, 0, &round_at(0, 1)).await);
    let listed = summaries(store, &event, ALL).await;
    assert_eq!(listed.first(), Some(&(0, round_at(0, 1).summary)));
    assert_eq!(
        listed.last(),
        Some(&(u32::MAX, round_at(u32::MAX, 1).summary))
    );
    assert_eq!(listed.len(), 8);
}

async fn rounds_of_events_are_isolated_from_each_other(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    // Ids that differ by a character or a prefix, and awkward ones.
    let mut names = vec![
        "Spring {Open} 2026 – A",
        "Spring {Open} 2026 – B",
        "Spring {Open} 2026 – AA",
    ];
    names.extend(AWKWARD_EVENTS.iter().skip(1).copied());
    let events: Vec<EventId> = names.iter().map(|name| event_id(name)).collect();
    // Interleaved: every event's round 1, then every event's round 2, …;
    // event i has i + 1 rounds, each round carrying the event's index.
    for number in 1..=events.len() as u32 {
        for (i, event) in events.iter().enumerate().skip(number as usize - 1) {
            let round = stored_round(
                1,
                format!("event {i} round {number}").as_bytes(),
                format!("event {i} summary {number}").as_bytes(),
            );
            assert!(put_round(store, event, number, 0, &round).await, "{event}");
        }
    }
    for (i, event) in events.iter().enumerate() {
        let expected: Vec<(u32, Vec<u8>)> = (1..=i as u32 + 1)
            .map(|number| (number, format!("event {i} summary {number}").into_bytes()))
            .collect();
        assert_eq!(summaries(store, event, ALL).await, expected, "{event}");
        assert_eq!(
            read_round(store, event, 1).await.map(|round| round.bytes),
            Some(format!("event {i} round 1").into_bytes()),
            "{event}"
        );
        assert_eq!(
            read_round(store, event, i as u32 + 2).await,
            None,
            "{event}"
        );
    }
    // A write to one event's round is not a write to another's.
    let (a, b) = (&events[0], &events[1]);
    assert!(!put_round(store, b, 1, 0, &round_at(1, 1)).await);
    assert!(put_round(store, a, 1, 1, &round_at(1, 2)).await);
    assert_eq!(
        read_round(store, b, 1).await.map(|round| round.summary),
        Some(b"event 1 summary 1".to_vec())
    );
    // Neither the prefix of an id nor an event without rounds sees them,
    // and round records are not games of the event's list.
    assert!(
        summaries(store, &event_id("Spring {Open} 2026 – "), ALL)
            .await
            .is_empty()
    );
    assert!(
        summaries(store, &event_id("no such event"), ALL)
            .await
            .is_empty()
    );
    assert!(all_games(store, names[0]).await.is_empty());
}

async fn the_rounds_of_an_event_survive_many_puts(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("rounds rewritten");
    const ROUNDS: u32 = 12;
    const PUTS: u64 = 40;
    for number in 1..=ROUNDS {
        assert!(put_round(store, &event, number, 0, &round_at(number, 1)).await);
    }
    // Round 5 is rewritten again and again; the others only now and then.
    for version in 2..=PUTS {
        assert!(put_round(store, &event, 5, version - 1, &round_at(5, version)).await);
        if version % 10 == 0 {
            let number = (version / 10) as u32;
            let stored = read_round(store, &event, number)
                .await
                .expect("a stored round");
            let next = stored.version + 1;
            assert!(
                put_round(
                    store,
                    &event,
                    number,
                    stored.version,
                    &round_at(number, next)
                )
                .await
            );
        }
    }
    assert_eq!(read_round(store, &event, 5).await, Some(round_at(5, PUTS)));
    for number in (1..=ROUNDS).filter(|&n| n != 5) {
        let version = if (1..=4).contains(&number) { 2 } else { 1 };
        assert_eq!(
            read_round(store, &event, number).await,
            Some(round_at(number, version)),
            "round {number}"
        );
    }
    let listed = summaries(store, &event, ALL).await;
    assert_eq!(
        listed.iter().map(|(number, _)| *number).collect::<Vec<_>>(),
        (1..=ROUNDS).collect::<Vec<_>>()
    );
    assert_eq!(listed[4], (5, round_at(5, PUTS).summary));
}

/// Of writers racing to put the same round at the same version, exactly
/// one wins, and the round holds its record and its summary together.
async fn racing_round_puts_have_exactly_one_winner(backend: Backend) {
    let subject = open(backend);
    let event = event_id("rounds raced");
    for expected in 0..3u64 {
        let puts = (0..8).map(|writer| {
            let store = subject.store.clone();
            let event = event.clone();
            tokio::spawn(async move {
                let round = stored_round(
                    expected + 1,
                    format!("record by {writer}").as_bytes(),
                    format!("summary by {writer}").as_bytes(),
                );
                let won = store
                    .put_round(&event, 7, expected, &round)
                    .await
                    .expect("put_round");
                (writer, won)
            })
        });
        let mut winners = Vec::new();
        for handle in puts.collect::<Vec<_>>() {
            let (writer, won) = handle.await.expect("task");
            if won {
                winners.push(writer);
            }
        }
        assert_eq!(winners.len(), 1, "at version {expected}: {winners:?}");
        let winner = winners[0];
        assert_eq!(
            read_round(subject.store.as_ref(), &event, 7).await,
            Some(stored_round(
                expected + 1,
                format!("record by {winner}").as_bytes(),
                format!("summary by {winner}").as_bytes(),
            ))
        );
    }
}

async fn a_round_opens_only_where_no_game_was_made_beside_it_and_the_event_has_room(
    backend: Backend,
) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let name = "rounds opened";
    let event = event_id(name);
    // The round's own listings: `n` boards of round `number`.
    let boards = |number: u32, n: u32| -> Vec<EventPosition> {
        (1..=n)
            .map(|board| position(number, board, &id(&format!("r{number}b{board}"))))
            .collect()
    };
    let opened =
        |number: u32, listings: Vec<EventPosition>, max: usize, ignoring: Vec<EventPosition>| {
            let round = round_at(number, 1);
            async move {
                store
                    .open_round(
                        &event_id(name),
                        number,
                        &round,
                        &listings,
                        max,
                        &ignoring,
                        None,
                    )
                    .await
                    .expect("open_round")
            }
        };
    // A game made on its own in round 2: the round cannot open, unless the
    // caller found that listing's game missing (a stray) and ignores it.
    add(store, name, (2, 1), &id("made-alone")).await;
    assert_eq!(
        opened(2, boards(2, 3), ROOMY, Vec::new()).await,
        RoundOpening::RoundHasGames
    );
    assert_eq!(read_round(store, &event, 2).await, None);
    // Round 3 (3 games) does not fit 1 + 3 in 3.
    assert_eq!(
        opened(3, boards(3, 3), 3, Vec::new()).await,
        RoundOpening::EventFull
    );
    assert_eq!(read_round(store, &event, 3).await, None);
    // Round 1 opens: its record, its listings, and it is in creation.
    assert_eq!(
        opened(1, boards(1, 2), 5, Vec::new()).await,
        RoundOpening::Opened
    );
    assert_eq!(read_round(store, &event, 1).await, Some(round_at(1, 1)));
    assert_eq!(summaries(store, &event, ALL).await, summaries_at(&[1], 1));
    assert_eq!(
        all_games(store, name).await,
        [id("r1b1"), id("r1b2"), id("made-alone")]
    );
    assert_eq!(
        store.rounds_in_creation(&event).await.expect("in creation"),
        [1]
    );
    assert_eq!(
        opened(1, boards(1, 2), ROOMY, Vec::new()).await,
        RoundOpening::Exists
    );
    // Its listings are taken: a 3-game round now needs 3 more places.
    assert_eq!(
        opened(4, boards(4, 3), 5, Vec::new()).await,
        RoundOpening::EventFull
    );
    store.round_created(&event, 1).await.expect("created");
    store.round_created(&event, 1).await.expect("again");
    assert!(
        store
            .rounds_in_creation(&event)
            .await
            .expect("none")
            .is_empty()
    );
    // The stray of round 2, ignored: the round opens.
    assert_eq!(
        opened(
            2,
            boards(2, 1),
            ROOMY,
            vec![position(2, 1, &id("made-alone"))]
        )
        .await,
        RoundOpening::Opened
    );
    // A round 10 is not round 1: ten-digit numbers compare whole.
    add(store, name, (10, 1), &id("round-ten")).await;
    assert_eq!(
        opened(11, boards(11, 1), ROOMY, Vec::new()).await,
        RoundOpening::Opened
    );
}

async fn a_game_made_alone_is_not_listed_in_a_recorded_round(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("listed beside rounds");
    assert!(put_round(store, &event, 3, 0, &round_at(3, 1)).await);
    let list = |round: u32, board: u32, game: &'static str, max: usize| {
        let event = event.clone();
        async move {
            store
                .list_outside_rounds(&event, &position(round, board, &id(game)), max)
                .await
                .expect("list_outside_rounds")
        }
    };
    assert_eq!(list(3, 1, "beside", ROOMY).await, Listing::RoundRecorded);
    assert_eq!(list(4, 1, "elsewhere", ROOMY).await, Listing::Listed);
    assert_eq!(list(4, 1, "elsewhere", 1).await, Listing::Listed);
    assert_eq!(list(5, 1, "no-room", 1).await, Listing::Full);
    // A game of no round is listed whatever the rounds.
    assert_eq!(list(0, 0, "unpaired", ROOMY).await, Listing::Listed);
    let listed: Vec<GameId> = store
        .event_games(&event, None, 10)
        .await
        .expect("list")
        .into_iter()
        .map(|entry| entry.game)
        .collect();
    assert_eq!(listed, [id("unpaired"), id("elsewhere")]);
}

/// Every entry of event `event_id`'s log `log`, in each partition's order,
/// as (game, version, event bytes).
async fn event_log(
    store: &dyn GameStore,
    event_id: &EventId,
    log: EventLog,
) -> Vec<(String, u64, Option<Vec<u8>>)> {
    let cursors: Vec<(u32, FeedPosition)> = (0..store.feed_partitions())
        .map(|partition| (partition, FeedPosition::default()))
        .collect();
    let pages = store
        .event_feed(event_id, log, &cursors, 1_000)
        .await
        .expect("event log");
    let mut entries: Vec<_> = pages
        .into_iter()
        .flatten()
        .map(|entry| {
            (
                entry.game.as_str().to_owned(),
                entry.version,
                entry.event.map(|event| event.bytes),
            )
        })
        .collect();
    entries.sort();
    entries
}

/// A commit of a game of an event records each of its events in the
/// event's feed and its audited ones in the event's audit log too, in the
/// same atomic write; a commit naming an audited version it does not
/// carry writes nothing.
async fn an_event_audit_log_holds_the_audited_events_of_its_commits(backend: Backend) {
    let subject = open(backend);
    let store = &*subject.store;
    let cup = EventId::parse("Audit cup 2026").expect("event id");
    let other = EventId::parse("Another cup").expect("event id");
    let (a, b) = (id("audit-a"), id("audit-b"));
    let of_event = |event_id: &EventId, mut commit: Commit, audited: Vec<u64>| {
        commit.event = Some(event_id.clone());
        commit.audited = audited;
        commit
    };
    let first = of_event(
        &cup,
        commit_of(0, state(1, b"a1"), vec![event(1, b"created a")], None),
        vec![1],
    );
    assert_eq!(
        store.commit(&a, first).await.expect("commit"),
        CommitOutcome::Committed
    );
    let moves = of_event(
        &cup,
        commit_of(
            1,
            state(3, b"a3"),
            vec![event(2, b"move"), event(3, b"paused")],
            None,
        ),
        vec![3],
    );
    assert_eq!(
        store.commit(&a, moves).await.expect("commit"),
        CommitOutcome::Committed
    );
    let elsewhere = of_event(
        &other,
        commit_of(0, state(1, b"b1"), vec![event(1, b"created b")], None),
        vec![1],
    );
    assert_eq!(
        store.commit(&b, elsewhere).await.expect("commit"),
        CommitOutcome::Committed
    );
    let stray = of_event(
        &cup,
        commit_of(3, state(4, b"a4"), vec![event(4, b"move")], None),
        vec![5],
    );
    assert!(matches!(
        store.commit(&a, stray).await,
        Err(StoreError::Corrupt(Corruption::CommitNotContiguous { .. }))
    ));
    let entry =
        |game: &str, version: u64, bytes: &[u8]| (game.to_owned(), version, Some(bytes.to_vec()));
    assert_eq!(
        event_log(store, &cup, EventLog::Feed).await,
        vec![
            entry("audit-a", 1, b"created a"),
            entry("audit-a", 2, b"move"),
            entry("audit-a", 3, b"paused"),
        ]
    );
    assert_eq!(
        event_log(store, &cup, EventLog::Audit).await,
        vec![
            entry("audit-a", 1, b"created a"),
            entry("audit-a", 3, b"paused")
        ]
    );
    assert_eq!(
        event_log(store, &other, EventLog::Audit).await,
        vec![entry("audit-b", 1, b"created b")]
    );
    assert_eq!(load_state(store, &a).await, Some(state(3, b"a3")));
}

/// A game's signals: appended in order; a repeat of its group's latest
/// entry (one starting with the key it gives) written once, whatever the
/// other groups wrote since; at most `max` a group; each game its own.
async fn a_games_signals_are_appended_in_order_and_capped(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let (game, other) = (id("signalled"), id("signalled-other"));
    assert_eq!(
        store.signals(&game, 10).await.expect("read"),
        Vec::<Vec<u8>>::new()
    );
    let add = |game: &GameId, entry: &'static str, key: &'static str| {
        let game = game.clone();
        async move {
            store
                .add_signal(
                    &game,
                    entry.as_bytes(),
                    key.as_bytes(),
                    (&entry.as_bytes()[..2], 3),
                )
                .await
                .expect("add")
        }
    };
    assert_eq!(
        add(&game, "w lost - 1", "w lost - ").await,
        SignalAdded::Added(1)
    );
    // The same key again is a repeat, whatever follows it.
    assert_eq!(
        add(&game, "w lost - 2", "w lost - ").await,
        SignalAdded::Repeat
    );
    assert_eq!(
        add(&game, "w back - 3", "w back - ").await,
        SignalAdded::Added(2)
    );
    assert_eq!(
        add(&game, "b lost - 4", "b lost - ").await,
        SignalAdded::Added(3)
    );
    assert_eq!(
        add(&game, "w lost - 5", "w lost - ").await,
        SignalAdded::Added(4)
    );
    // The group's own latest is compared, not the list's.
    assert_eq!(
        add(&game, "w lost - 6", "w lost - ").await,
        SignalAdded::Repeat
    );
    // White's group is full; Black's is not.
    assert_eq!(
        add(&game, "w back - 7", "w back - ").await,
        SignalAdded::Full
    );
    assert_eq!(
        add(&game, "b back - 8", "b back - ").await,
        SignalAdded::Added(5)
    );
    assert_eq!(
        add(&other, "b lost - 9", "b lost - ").await,
        SignalAdded::Added(1)
    );
    let entries = |read: Vec<Vec<u8>>| {
        read.into_iter()
            .map(|entry| String::from_utf8(entry).expect("text"))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        entries(store.signals(&game, 10).await.expect("read")),
        [
            "w lost - 1",
            "w back - 3",
            "b lost - 4",
            "w lost - 5",
            "b back - 8"
        ]
    );
    assert_eq!(
        entries(store.signals(&game, 2).await.expect("read")),
        ["w lost - 1", "w back - 3"]
    );
    assert_eq!(
        entries(store.signals(&other, 10).await.expect("read")),
        ["b lost - 9"]
    );
    // Binary entries are kept as they are.
    let third = id("signalled-binary");
    store
        .add_signal(&third, &[0, 0xff, 1], &[0, 0xff], (&[0], 3))
        .await
        .expect("add");
    assert_eq!(
        store
            .add_signal(&third, &[0, 0xff, 2], &[0, 0xff], (&[0], 3))
            .await
            .expect("add"),
        SignalAdded::Repeat
    );
    assert_eq!(
        store.signals(&third, 3).await.expect("read"),
        vec![vec![0, 0xff, 1]]
    );
}

async fn a_team_registration_is_a_compare_and_set_that_rounds_can_pin(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("registered teams");
    let teams = |version: u64| StoredTeams {
        version,
        bytes: format!("teams {version}").into_bytes(),
    };
    assert_eq!(store.teams(&event).await.expect("read"), None);
    assert_eq!(
        store
            .put_teams(&event, 0, &teams(1), true)
            .await
            .expect("put"),
        TeamsWrite::Written
    );
    // A stale writer writes nothing.
    assert_eq!(
        store
            .put_teams(&event, 0, &teams(1), true)
            .await
            .expect("put"),
        TeamsWrite::Conflict
    );
    assert_eq!(
        store
            .put_teams(&event, 1, &teams(2), true)
            .await
            .expect("put"),
        TeamsWrite::Written
    );
    assert_eq!(store.teams(&event).await.expect("read"), Some(teams(2)));
    // A version that is not the next is refused before anything is sent.
    assert!(store.put_teams(&event, 2, &teams(4), false).await.is_err());
    // A round planned from version 1 does not open; from 2 it does.
    let listings = [position(1, 1, &id("team-r1b1"))];
    assert_eq!(
        store
            .open_round(&event, 1, &round_at(1, 1), &listings, ROOMY, &[], Some(1))
            .await
            .expect("open"),
        RoundOpening::TeamsChanged
    );
    assert_eq!(read_round(store, &event, 1).await, None);
    assert_eq!(
        store
            .open_round(&event, 1, &round_at(1, 1), &listings, ROOMY, &[], Some(2))
            .await
            .expect("open"),
        RoundOpening::Opened
    );
    // Once the event has a round, a write meant for before its rounds is
    // refused, and any other still lands.
    assert_eq!(
        store
            .put_teams(&event, 2, &teams(3), true)
            .await
            .expect("put"),
        TeamsWrite::RoundsExist
    );
    assert_eq!(store.teams(&event).await.expect("read"), Some(teams(2)));
    assert_eq!(
        store
            .put_teams(&event, 2, &teams(3), false)
            .await
            .expect("put"),
        TeamsWrite::Written
    );
    // Another event's teams are its own.
    assert_eq!(
        store.teams(&event_id("other teams")).await.expect("read"),
        None
    );
}

on_every_backend!(
    a_team_registration_is_a_compare_and_set_that_rounds_can_pin,
    a_games_signals_are_appended_in_order_and_capped,
    an_event_audit_log_holds_the_audited_events_of_its_commits,
    a_round_opens_only_where_no_game_was_made_beside_it_and_the_event_has_room,
    a_game_made_alone_is_not_listed_in_a_recorded_round,
    a_full_event_list_refuses_new_entries,
    several_states_load_together,
    a_sweep_claim_is_held_until_released_or_lapsed,
    missing_game_loads_as_none_with_the_time,
    commit_at_zero_creates_the_game,
    a_second_create_conflicts_and_writes_nothing,
    commit_at_the_current_version_appends_and_replaces,
    a_stale_commit_conflicts_and_changes_nothing,
    a_commit_to_a_missing_game_reports_version_zero,
    events_after_returns_exactly_the_later_events,
    events_page_returns_at_most_limit_later_events,
    events_after_many_reads_each_cursor,
    commits_are_announced_in_order,
    the_earliest_deadline_is_known_and_announced,
    every_feed_sees_every_later_commit,
    racing_commits_have_exactly_one_winner,
    games_are_isolated_from_each_other,
    a_commit_whose_events_do_not_continue_the_log_writes_nothing,
    due_lists_the_games_whose_deadline_has_come,
    due_returns_at_most_its_limit,
    a_commit_writes_the_games_deadline,
    an_older_version_cannot_replace_a_newer_deadline,
    the_same_version_rewrites_the_deadline,
    no_deadline_takes_the_game_out_of_the_index,
    the_deadlines_of_many_games_are_all_found,
    a_repair_at_version_zero_removes_a_stray_entry,
    event_games_are_ordered_by_round_board_then_id,
    event_games_page_by_position_and_limit,
    event_pages_neither_repeat_nor_skip_entries_added_between_reads,
    adding_a_game_again_lists_it_once,
    events_are_isolated_from_each_other,
    event_ids_are_free_text,
    a_round_is_absent_until_put,
    a_round_put_at_zero_creates_version_one_and_a_second_creation_is_refused,
    a_round_put_at_its_version_replaces_record_and_summary,
    a_round_put_whose_version_is_not_the_next_is_refused_as_corrupt,
    round_summaries_list_every_round_by_number_up_to_the_limit,
    rounds_of_events_are_isolated_from_each_other,
    the_rounds_of_an_event_survive_many_puts,
    racing_round_puts_have_exactly_one_winner,
    a_credential_is_added_once_read_with_the_time_and_replaced,
    credentials_list_in_id_order_by_pages_and_stop_at_their_limit,
);

// ---------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------

fn credential_id(n: u8) -> CredentialId {
    CredentialId::from_bytes(&[n; 10])
}

/// A change logged to `event`'s credentials' log (`None`: the platform's).
fn logged<'a>(event: Option<&'a EventId>, entry: &'a [u8]) -> CredentialLogEntry<'a> {
    CredentialLogEntry { event, entry }
}

/// The entries of a credentials' log, read in pages of two.
async fn credential_log(store: &dyn GameStore, event: Option<&EventId>) -> Vec<Vec<u8>> {
    let mut entries = Vec::new();
    let mut after = FeedPosition::default();
    loop {
        let page = store.credential_log(event, after, 2).await.expect("read");
        let Some((last, _)) = page.last() else {
            return entries;
        };
        assert!(*last > after, "positions grow");
        after = *last;
        entries.extend(page.into_iter().map(|(_, entry)| entry));
    }
}

/// A record is written once: a second add of its id returns the stored
/// record and writes nothing; it is read with the store's time, replaced
/// only where it exists, and records are binary-safe. Each write logs its
/// change in its event's log (or the platform's), in the same write; a
/// write refused logs nothing.
async fn a_credential_is_added_once_read_with_the_time_and_replaced(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("credential-log");
    let id = credential_id(1);
    let (missing, now) = store.credential(&id).await.expect("read");
    assert_eq!(missing, None);
    assert!(now > Timestamp::from_unix_millis(1_600_000_000_000));
    assert_eq!(
        store
            .add_credential(&id, &binary(), 10, logged(Some(&event), b"created 1"))
            .await
            .expect("add"),
        CredentialAdded::Added
    );
    assert_eq!(
        store
            .add_credential(&id, b"another", 10, logged(Some(&event), b"created again"))
            .await
            .expect("add again"),
        CredentialAdded::Exists(binary())
    );
    assert_eq!(store.credential(&id).await.expect("read").0, Some(binary()));
    // Replaced only from the record expected: of two racing changes, one.
    assert!(
        !store
            .replace_credential(&id, (b"other", b"x"), logged(Some(&event), b"lost race"))
            .await
            .expect("replace")
    );
    assert!(
        store
            .replace_credential(
                &id,
                (&binary(), b"revoked"),
                logged(Some(&event), &binary())
            )
            .await
            .expect("replace")
    );
    assert_eq!(
        store.credential(&id).await.expect("read").0,
        Some(b"revoked".to_vec())
    );
    let absent = credential_id(2);
    assert!(
        !store
            .replace_credential(&absent, (b"", b"x"), logged(Some(&event), b"revoked 2"))
            .await
            .expect("replace")
    );
    assert_eq!(store.credential(&absent).await.expect("read").0, None);
    let everywhere = credential_id(3);
    store
        .add_credential(&everywhere, b"platform", 10, logged(None, b"created 3"))
        .await
        .expect("add");
    assert_eq!(store.credentials(None, 10).await.expect("list").len(), 2);
    assert_eq!(
        credential_log(store, Some(&event)).await,
        vec![b"created 1".to_vec(), binary()]
    );
    assert_eq!(
        credential_log(store, None).await,
        vec![b"created 3".to_vec()]
    );
    assert_eq!(
        credential_log(store, Some(&event_id("credential-log-other"))).await,
        Vec::<Vec<u8>>::new()
    );
}

/// Listing pages through every record once in id order (whatever the
/// order they were added in); a full store refuses one more, and only
/// one of many racing adds takes its last place.
async fn credentials_list_in_id_order_by_pages_and_stop_at_their_limit(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    for n in [9u8, 3, 7, 1, 5] {
        let added = store
            .add_credential(&credential_id(n), &[n], 6, logged(None, &[n]))
            .await
            .expect("add");
        assert_eq!(added, CredentialAdded::Added);
    }
    let first = store.credentials(None, 2).await.expect("page");
    let ids = |page: &[(CredentialId, Vec<u8>)]| {
        page.iter().map(|(id, _)| id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(ids(&first), [credential_id(1), credential_id(3)]);
    assert_eq!(first[1].1, vec![3]);
    let rest = store
        .credentials(Some(&credential_id(3)), 10)
        .await
        .expect("page");
    assert_eq!(
        ids(&rest),
        [credential_id(5), credential_id(7), credential_id(9)]
    );
    assert!(
        store
            .credentials(Some(&credential_id(9)), 10)
            .await
            .expect("end")
            .is_empty()
    );
    assert!(
        store
            .credentials(None, 0)
            .await
            .expect("nothing")
            .is_empty()
    );
    // One place left, eight racing for it.
    let racing = (20..28u8).map(|n| {
        let store = subject.store.clone();
        async move {
            store
                .add_credential(&credential_id(n), &[n], 6, logged(None, &[n]))
                .await
        }
    });
    let outcomes = futures::future::join_all(racing).await;
    let added = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Ok(CredentialAdded::Added)))
        .count();
    let full = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, Ok(CredentialAdded::Full)))
        .count();
    assert_eq!((added, full), (1, 7), "{outcomes:?}");
    assert_eq!(store.credentials(None, 100).await.expect("all").len(), 6);
}

// ---------------------------------------------------------------------------
// A full event list
// ---------------------------------------------------------------------------

/// A list holds at most the entries it is allowed: one more is refused and
/// not written, an entry already there is still accepted, and of many
/// concurrent adds (replicas creating games at once) exactly as many as
/// there is room for are accepted.
async fn a_full_event_list_refuses_new_entries(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = event_id("full list");
    let entries: Vec<EventPosition> = (1..=4)
        .map(|board| position(1, board, &id(&format!("game-{board}"))))
        .collect();
    for entry in &entries[..3] {
        assert!(store.add_to_event(&event, entry, 3).await.expect("add"));
    }
    assert!(
        !store
            .add_to_event(&event, &entries[3], 3)
            .await
            .expect("add")
    );
    assert!(
        store
            .add_to_event(&event, &entries[1], 3)
            .await
            .expect("re-add")
    );
    assert_eq!(listed(store, "full list", None, ALL).await, entries[..3]);

    let shared = Arc::clone(&subject.store);
    let adds = (0..8).map(|board| {
        let store = Arc::clone(&shared);
        let entry = position(2, board, &id(&format!("racer-{board}")));
        tokio::spawn(async move { store.add_to_event(&event_id("raced list"), &entry, 5).await })
    });
    let mut accepted = 0;
    for handle in adds.collect::<Vec<_>>() {
        if handle.await.expect("task").expect("add") {
            accepted += 1;
        }
    }
    assert_eq!(accepted, 5);
    assert_eq!(listed(store, "raced list", None, ALL).await.len(), 5);
}

// ---------------------------------------------------------------------------
// Rounds and boards beyond what a pairing may hold
// ---------------------------------------------------------------------------

/// `EventPosition` takes any `u32` round and board, although a pairing
/// holds at most `Pairing::MAX_ROUND` and `Pairing::MAX_BOARD`. A store may refuse what it cannot
/// order, but must never list an entry other than the one added.
async fn any_round_and_board_is_listed_as_added_or_refused(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = "wide numbers";
    let entries = [
        position(1, 1, &id("narrow")),
        position(999_999, 999_999, &id("six-digits")),
        position(1_000_000, 0, &id("seven-digits")),
        position(2, u32::MAX, &id("widest-board")),
        position(u32::MAX, 1, &id("widest-round")),
    ];
    let mut accepted = Vec::new();
    for entry in &entries {
        if store
            .add_to_event(&event_id(event), entry, ROOMY)
            .await
            .is_ok()
        {
            accepted.push(entry.clone());
        }
    }
    accepted.sort();
    assert_eq!(listed(store, event, None, ALL).await, accepted);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_lists_any_round_and_board_as_added() {
    any_round_and_board_is_listed_as_added_or_refused(Backend::Memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_lists_any_round_and_board_as_added_or_refuses_it() {
    any_round_and_board_is_listed_as_added_or_refused(Backend::Redis).await;
}

/// A limit is a bound, not a size to allocate or a number the backend must
/// take as is: the largest one reads everything there is.
async fn the_largest_limit_reads_everything(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("unbounded");
    create_due(store, &game, Some(when(1000))).await;
    advance(store, &game, 1, Some(when(1000))).await;
    add(store, "unbounded", (1, 1), &game).await;
    assert_eq!(
        store
            .events_page(&game, 0, usize::MAX)
            .await
            .expect("events_page")
            .events,
        plain_log(2)
    );
    assert_eq!(
        store.due(far_future(), usize::MAX).await.expect("due"),
        vec![game.clone()]
    );
    assert_eq!(
        store
            .event_games(&event_id("unbounded"), None, usize::MAX)
            .await
            .expect("event_games"),
        vec![position(1, 1, &game)]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_the_largest_limit_reads_everything() {
    the_largest_limit_reads_everything(Backend::Memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_the_largest_limit_reads_everything() {
    the_largest_limit_reads_everything(Backend::Redis).await;
}

// ---------------------------------------------------------------------------
// A game added again at another position
// ---------------------------------------------------------------------------

/// The list knows nothing of games: one added at several positions (as a
/// creation retried with another pairing does) is listed at each, once
/// per position, in order, and paging meets each entry once. Readers keep
/// only the position of the game's own pairing.
async fn a_game_added_at_several_positions_is_listed_at_each(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = "moving";
    let (game, other) = (id("mover"), id("stayer"));
    add(store, event, (1, 2), &other).await;
    let positions = [(1, 1), (2, 5), (1, 3)];
    for at in positions {
        add(store, event, at, &game).await;
        // Adding again at the same position changes nothing.
        add(store, event, at, &game).await;
    }
    let entries = listed(store, event, None, ALL).await;
    let places: Vec<(u32, u32, GameId)> = entries
        .iter()
        .map(|entry| (entry.round, entry.board, entry.game.clone()))
        .collect();
    assert_eq!(
        places,
        [
            (1, 1, game.clone()),
            (1, 2, other.clone()),
            (1, 3, game.clone()),
            (2, 5, game.clone()),
        ]
    );
    let mut paged = Vec::new();
    let mut after: Option<EventPosition> = None;
    while let Some(entry) = listed(store, event, after.as_ref(), 1).await.pop() {
        paged.push(entry.clone());
        after = Some(entry);
    }
    assert_eq!(paged, entries);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_a_game_added_at_several_positions_is_listed_at_each() {
    a_game_added_at_several_positions_is_listed_at_each(Backend::Memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_a_game_added_at_several_positions_is_listed_at_each() {
    a_game_added_at_several_positions_is_listed_at_each(Backend::Redis).await;
}

// ---------------------------------------------------------------------------
// Redis: key layout and outages
// ---------------------------------------------------------------------------

async fn raw_connection(config: &RedisConfig) -> ::redis::aio::MultiplexedConnection {
    ::redis::Client::open(config.url.as_str())
        .expect("client")
        .get_multiplexed_async_connection()
        .await
        .expect("connection")
}

/// Every key of the store under `config`'s prefix.
async fn raw_keys(config: &RedisConfig) -> Vec<String> {
    let mut conn = raw_connection(config).await;
    ::redis::cmd("KEYS")
        .arg(format!("{}:*", config.key_prefix))
        .query_async(&mut conn)
        .await
        .expect("KEYS")
}

/// The one key of the store whose name ends with `suffix`.
async fn raw_key_ending(config: &RedisConfig, suffix: &str) -> String {
    let keys: Vec<String> = raw_keys(config)
        .await
        .into_iter()
        .filter(|key| key.ends_with(suffix))
        .collect();
    assert_eq!(keys.len(), 1, "one key ends with {suffix}: {keys:?}");
    keys.into_iter().next().expect("one key")
}

/// The hash tag Redis Cluster places a key by: what lies between its first
/// `{` and the next `}`, when not empty.
fn hash_tag(key: &str) -> Option<&str> {
    let open = key.find('{')?;
    let close = key[open + 1..].find('}')? + open + 1;
    (close > open + 1).then(|| &key[open + 1..close])
}

/// One script writes a game's state, log and deadline, so on a Redis
/// Cluster they must share a slot: the game's keys and the index that holds
/// its deadline carry one hash tag.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_keeps_a_game_and_its_deadline_entry_under_one_hash_tag() {
    let config = fresh_redis_config();
    let store = redis_store(&config);
    let games = ids_in_every_bucket();
    for (i, game) in games.iter().enumerate() {
        create_due(&store, game, Some(when(i as u64))).await;
        advance(&store, game, 1, Some(when(1000 + i as u64))).await;
    }
    let keys = raw_keys(&config).await;
    let mut conn = raw_connection(&config).await;
    let indexes: Vec<&String> = keys.iter().filter(|k| k.ends_with(":deadlines")).collect();
    for (i, game) in games.iter().enumerate() {
        let own: Vec<&String> = keys
            .iter()
            .filter(|key| key.contains(&format!(":{game}:")))
            .collect();
        assert_eq!(own.len(), 2, "{game}: a state and a log: {own:?}");
        let tag = hash_tag(own[0]).unwrap_or_else(|| panic!("{game}: no hash tag: {own:?}"));
        assert_eq!(hash_tag(own[1]), Some(tag), "{game}: {own:?}");
        let mut holders = Vec::new();
        for index in &indexes {
            let score: Option<u64> = ::redis::cmd("ZSCORE")
                .arg(index.as_str())
                .arg(game.as_str())
                .query_async(&mut conn)
                .await
                .expect("ZSCORE");
            if let Some(score) = score {
                holders.push((index.as_str(), score));
            }
        }
        assert_eq!(
            holders,
            vec![(
                format!("{}:{{{tag}}}:deadlines", config.key_prefix).as_str(),
                when(1000 + i as u64).unix_millis()
            )],
            "{game}: one entry, in its own bucket's index, at its latest deadline"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_calls_fail_as_unavailable_while_redis_is_down_and_recover() {
    // Redis goes down: a private one, not the one other tests share.
    let mut redis = RedisServer::start();
    let store = private_redis_store(&redis);
    within("ping", store.ping()).await.expect("ping while up");
    let game = id("survivor");
    create(&store, &game).await;

    redis.kill();
    let err = within("ping", store.ping())
        .await
        .expect_err("ping while Redis is down");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    let err = within("load", store.load(&game))
        .await
        .expect_err("load while Redis is down");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    let err = within(
        "commit",
        store.commit(
            &game,
            commit_of(1, state(2, b"s"), vec![event(2, b"e")], Some(when(1))),
        ),
    )
    .await
    .expect_err("commit while Redis is down");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    let err = within("due", store.due(far_future(), ALL))
        .await
        .expect_err("due while Redis is down");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    let err = within("repair", store.repair_deadline(&game, 1, None))
        .await
        .expect_err("repair while Redis is down");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    let err = within(
        "event_games",
        store.event_games(&event_id("down"), None, 10),
    )
    .await
    .expect_err("event_games while Redis is down");
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");

    redis.restart();
    // The store reconnects by itself; give it up to ten seconds.
    let deadline = Instant::now() + Duration::from_secs(10);
    within("recovery", async {
        loop {
            match store.ping().await {
                Ok(()) => break,
                Err(_) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(err) => panic!("ping did not recover after Redis came back: {err}"),
            }
        }
    })
    .await;
    // The restarted Redis keeps no data, but the store serves it normally.
    assert_eq!(load_state(&store, &game).await, None);
    create_due(&store, &game, Some(when(10))).await;
    assert_eq!(load_state(&store, &game).await, Some(state(1, b"state 1")));
    assert_deadline(&store, &game, when(10)).await;
}

/// If a game's state key is lost while its log survives, re-creating the
/// game is refused before anything is written: state and log must agree,
/// and the deadline index is left as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_refuses_a_state_its_log_does_not_explain() {
    let config = fresh_redis_config();
    let store = redis_store(&config);
    let game = id("orphan");
    assert_eq!(
        store
            .commit(
                &game,
                commit_of(0, state(1, b"s1"), vec![event(1, b"e1")], Some(when(1000)))
            )
            .await
            .expect("create"),
        CommitOutcome::Committed
    );
    let state_key = raw_key_ending(&config, ":orphan:state").await;
    let mut conn = raw_connection(&config).await;
    let _: () = ::redis::cmd("DEL")
        .arg(&state_key)
        .query_async(&mut conn)
        .await
        .expect("delete the state key");
    for deadline in [Some(when(9000)), Some(when(10)), None] {
        let refused = store
            .commit(
                &game,
                commit_of(0, state(1, b"s2"), vec![event(1, b"e2")], deadline),
            )
            .await;
        assert!(
            matches!(refused, Err(StoreError::Corrupt(_))),
            "{refused:?}"
        );
        let (loaded, _) = store.load(&game).await.expect("load");
        assert!(loaded.is_none(), "the state was not rewritten");
        let log = store.events_after(&game, 0).await.expect("log").events;
        assert_eq!(log, vec![event(1, b"e1")], "the log is untouched");
        assert_deadline(&store, &game, when(1000)).await;
    }
}

/// A log that lost an entry, its last or one before, no longer reaches the
/// game's version: the next commit is refused before anything is written.
/// Once the entry is back, the commit is taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_refuses_a_commit_on_a_log_that_lost_an_entry() {
    let config = fresh_redis_config();
    let store = redis_store(&config);
    let mut conn = raw_connection(&config).await;
    for (name, lost) in [("lost-last", "0-3"), ("lost-middle", "0-2")] {
        let game = id(name);
        for version in 1..=3u64 {
            let outcome = store
                .commit(
                    &game,
                    commit_of(
                        version - 1,
                        state(version, format!("s{version}").as_bytes()),
                        vec![event(version, format!("e{version}").as_bytes())],
                        None,
                    ),
                )
                .await
                .expect("commit");
            assert_eq!(outcome, CommitOutcome::Committed);
        }
        let log_key = raw_key_ending(&config, &format!(":{name}:log")).await;
        let _: () = ::redis::cmd("XDEL")
            .arg(&log_key)
            .arg(lost)
            .query_async(&mut conn)
            .await
            .expect("delete a log entry");
        let next = || commit_of(3, state(4, b"s4"), vec![event(4, b"e4")], None);
        let refused = store.commit(&game, next()).await;
        assert!(
            matches!(
                refused,
                Err(StoreError::Corrupt(Corruption::StateAndLogDisagree {
                    logged: 2,
                    ..
                }))
            ),
            "{name}: {refused:?}"
        );
        assert_eq!(load_state(&store, &game).await, Some(state(3, b"s3")));
        let log = store.events_after(&game, 0).await.expect("log").events;
        assert_eq!(log.len(), 2, "{name}: nothing appended: {log:?}");

        if lost == "0-3" {
            // The last entry put back (the stream's last id set back first,
            // as XADD takes only ids after it): the log is whole again.
            let _: () = ::redis::pipe()
                .cmd("XSETID")
                .arg(&log_key)
                .arg("0-2")
                .ignore()
                .cmd("XADD")
                .arg(&log_key)
                .arg("0-3")
                .arg("e")
                .arg(event(3, b"e3").bytes)
                .ignore()
                .query_async(&mut conn)
                .await
                .expect("put the entry back");
            let outcome = store.commit(&game, next()).await.expect("commit");
            assert_eq!(outcome, CommitOutcome::Committed);
        }
    }
}

/// A Redis that has forgotten the scripts (a restart, a failover, `SCRIPT
/// FLUSH`) still takes each commit, the commit that waits for replicas as
/// well: the script is loaded again and the commit sent once more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_commits_after_redis_forgot_the_scripts() {
    let mut conn = None;
    for wait in [
        None,
        Some(arbiter::store::WaitForReplicas {
            replicas: 0,
            timeout_ms: 100,
        }),
    ] {
        let config = RedisConfig {
            wait,
            ..fresh_redis_config()
        };
        let store = redis_store(&config);
        let conn = match &mut conn {
            Some(conn) => conn,
            None => conn.insert(raw_connection(&config).await),
        };
        let game = id("forgotten");
        for version in 1..=2u64 {
            let _: () = ::redis::cmd("SCRIPT")
                .arg("FLUSH")
                .query_async(conn)
                .await
                .expect("flush the scripts");
            let outcome = store
                .commit(
                    &game,
                    commit_of(
                        version - 1,
                        state(version, b"s"),
                        vec![event(version, b"e")],
                        None,
                    ),
                )
                .await
                .expect("commit");
            assert_eq!(outcome, CommitOutcome::Committed, "{wait:?}");
        }
        assert_eq!(load_state(&store, &game).await, Some(state(2, b"s")));
        assert_eq!(
            store
                .events_after(&game, 0)
                .await
                .expect("log")
                .events
                .len(),
            2
        );
    }
}

/// A game whose keys are lost (evicted, deleted by hand) leaves a stray
/// entry in the index: no repair at a version the game had applies any
/// more, and the repair at version 0 removes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_a_lost_games_stray_entry_is_removed_at_version_zero() {
    let config = fresh_redis_config();
    let store = redis_store(&config);
    let (lost, kept) = (id("lost"), id("kept"));
    create_due(&store, &lost, Some(when(1000))).await;
    create_due(&store, &kept, Some(when(1000))).await;
    let mut conn = raw_connection(&config).await;
    for suffix in [":lost:state", ":lost:log"] {
        let key = raw_key_ending(&config, suffix).await;
        let _: () = ::redis::cmd("DEL")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .expect("delete a key of the game");
    }
    assert_eq!(load_state(&store, &lost).await, None);
    assert_eq!(
        due(&store, when(1000), ALL).await,
        vec![kept.clone(), lost.clone()]
    );
    repair(&store, &lost, 1, None).await;
    assert_eq!(
        due(&store, when(1000), ALL).await,
        vec![kept.clone(), lost.clone()]
    );
    repair(&store, &lost, 0, None).await;
    assert_eq!(due(&store, far_future(), ALL).await, vec![kept.clone()]);
    assert_deadline(&store, &kept, when(1000)).await;
    // The id can be used again from scratch.
    create_due(&store, &lost, Some(when(2000))).await;
    assert_deadline(&store, &lost, when(2000)).await;
}

/// A commit through one Redis store is announced to the feed of another
/// on the same Redis and prefix (another replica), and not to a store of
/// another prefix, on a single Redis and on a cluster.
async fn commits_are_announced_to_other_replicas(backend: Backend) {
    let config = backend.redis_config().expect("a Redis backend");
    let writer = redis_store(&config);
    let replica = redis_store(&config);
    let stranger = redis_store(&RedisConfig {
        key_prefix: format!("{}-other", config.key_prefix),
        ..config.clone()
    });
    let mut feed = replica.changes().await.expect("a feed");
    let mut strangers_feed = stranger.changes().await.expect("a feed");
    let game = id("announced-elsewhere");
    create(&writer, &game).await;
    assert_eq!(next_change(&mut feed).await, change_of(&game, 1));
    let nothing = tokio::time::timeout(Duration::from_millis(300), strangers_feed.next()).await;
    assert!(nothing.is_err(), "{nothing:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_commits_are_announced_to_other_replicas() {
    commits_are_announced_to_other_replicas(Backend::Redis).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cluster_commits_are_announced_to_other_replicas() {
    commits_are_announced_to_other_replicas(Backend::Cluster).await;
}

/// A subscription that stays idle past its health check (a `PING` every
/// few seconds) goes on announcing: the check does not break it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_an_idle_feed_keeps_announcing() {
    let config = fresh_redis_config();
    let store = redis_store(&config);
    let mut feed = store.changes().await.expect("a feed");
    tokio::time::sleep(Duration::from_secs(6)).await;
    let game = id("announced-after-a-pause");
    let pending = tokio::spawn(async move { feed.next().await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    create(&store, &game).await;
    let change = within("an announcement", pending)
        .await
        .expect("the feed task")
        .expect("still announcing after its health check");
    assert_eq!(change, change_of(&game, 1));
}
