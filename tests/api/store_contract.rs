//! The behavioural contract of `GameStore`, run against every store: the
//! in-memory one and Redis. The store knows nothing of chess, so states and
//! events here are arbitrary bytes.

use crate::common;

use std::{
    sync::Arc,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

use arbiter::{
    domain::{EventId, GameId, Timestamp},
    store::{
        CommitOutcome, GameStore, MemoryStore, RedisConfig, RedisStore, StoreError, StoredEvent,
        StoredState,
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
    })
}

fn open(backend: Backend) -> Subject {
    let store: Arc<dyn GameStore> = match backend {
        Backend::Memory => Arc::new(MemoryStore::new()),
        Backend::Redis => Arc::new(redis_store(&fresh_redis_config())),
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
    store.events_after(game, 0).await.expect("events_after")
}

/// Creates `game` at version 1 with one event.
async fn create(store: &dyn GameStore, game: &GameId) {
    let outcome = store
        .commit(game, 0, state(1, b"state 1"), vec![event(1, b"event 1")])
        .await
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Committed);
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
            .is_empty()
    );
}

async fn commit_at_zero_creates_the_game(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("fresh");
    let outcome = store
        .commit(&game, 0, state(1, &binary()), vec![event(1, &binary())])
        .await
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Committed);

    let (loaded, now) = store.load(&game).await.expect("load");
    assert_eq!(loaded, Some(state(1, &binary())));
    assert_plausible_now(now);
    assert_eq!(log(store, &game).await, vec![event(1, &binary())]);

    // Empty bytes are bytes too.
    let empty = id("empty");
    let outcome = store
        .commit(&empty, 0, state(1, b""), vec![event(1, b"")])
        .await
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Committed);
    assert_eq!(load_state(store, &empty).await, Some(state(1, b"")));
    assert_eq!(log(store, &empty).await, vec![event(1, b"")]);
}

async fn a_second_create_conflicts_and_writes_nothing(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("taken");
    create(store, &game).await;

    let outcome = store
        .commit(
            &game,
            0,
            state(1, b"impostor state"),
            vec![event(1, b"impostor event")],
        )
        .await
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Conflict { current: 1 });
    assert_eq!(load_state(store, &game).await, Some(state(1, b"state 1")));
    assert_eq!(log(store, &game).await, vec![event(1, b"event 1")]);
}

// ---------------------------------------------------------------------------
// Committing
// ---------------------------------------------------------------------------

async fn commit_at_the_current_version_appends_and_replaces(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("growing");
    create(store, &game).await;

    let outcome = store
        .commit(&game, 1, state(2, b"state 2"), vec![event(2, b"event 2")])
        .await
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Committed);
    assert_eq!(load_state(store, &game).await, Some(state(2, b"state 2")));

    // Several events in one commit.
    let outcome = store
        .commit(
            &game,
            2,
            state(4, b"state 4"),
            vec![event(3, b"event 3"), event(4, &binary())],
        )
        .await
        .expect("commit");
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

async fn a_stale_commit_conflicts_and_changes_nothing(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("contested");
    create(store, &game).await;
    let outcome = store
        .commit(
            &game,
            1,
            state(3, b"state 3"),
            vec![event(2, b"event 2"), event(3, b"event 3")],
        )
        .await
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Committed);
    let state_before = load_state(store, &game).await;
    let log_before = log(store, &game).await;

    for expected in [0, 1, 2, 4, 100] {
        let outcome = store
            .commit(
                &game,
                expected,
                state(expected + 1, b"late state"),
                vec![event(expected + 1, b"late event")],
            )
            .await
            .expect("commit");
        assert_eq!(
            outcome,
            CommitOutcome::Conflict { current: 3 },
            "expected {expected}"
        );
        assert_eq!(load_state(store, &game).await, state_before);
        assert_eq!(log(store, &game).await, log_before);
    }
}

async fn a_commit_to_a_missing_game_reports_version_zero(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("never-created");
    let outcome = store
        .commit(&game, 3, state(4, b"state 4"), vec![event(4, b"event 4")])
        .await
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Conflict { current: 0 });
    assert_eq!(load_state(store, &game).await, None);
    assert!(log(store, &game).await.is_empty());
}

async fn events_after_returns_exactly_the_later_events(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("long-log");
    create(store, &game).await;
    for version in 2..=12u64 {
        let outcome = store
            .commit(
                &game,
                version - 1,
                state(version, format!("state {version}").as_bytes()),
                vec![event(version, format!("event {version}").as_bytes())],
            )
            .await
            .expect("commit");
        assert_eq!(outcome, CommitOutcome::Committed);
    }

    for after in [0u64, 1, 5, 9, 11, 12, 13, 1000] {
        let got = store
            .events_after(&game, after)
            .await
            .expect("events_after");
        let expected: Vec<StoredEvent> = (after + 1..=12)
            .map(|v| event(v, format!("event {v}").as_bytes()))
            .collect();
        assert_eq!(got, expected, "after {after}");
    }
}

// ---------------------------------------------------------------------------
// Following
// ---------------------------------------------------------------------------

async fn a_follower_returns_existing_events_at_once(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("followed");
    create(store, &game).await;
    store
        .commit(
            &game,
            1,
            state(3, b"state 3"),
            vec![event(2, b"event 2"), event(3, b"event 3")],
        )
        .await
        .expect("commit");

    let mut follower = store.follow(&game).await.expect("follow");
    // The wait is far longer than the test's patience: only an immediate
    // answer passes.
    let long = Duration::from_secs(600);
    let batch = within("next_batch", follower.next_batch(0, long))
        .await
        .expect("next_batch");
    assert_eq!(
        batch,
        vec![
            event(1, b"event 1"),
            event(2, b"event 2"),
            event(3, b"event 3")
        ]
    );
    let batch = within("next_batch", follower.next_batch(1, long))
        .await
        .expect("next_batch");
    assert_eq!(batch, vec![event(2, b"event 2"), event(3, b"event 3")]);
}

async fn a_follower_returns_an_empty_batch_when_nothing_arrives(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("quiet");
    create(store, &game).await;

    let mut follower = store.follow(&game).await.expect("follow");
    let short = Duration::from_millis(200);
    for _ in 0..2 {
        let batch = within("next_batch", follower.next_batch(1, short))
            .await
            .expect("next_batch");
        assert!(batch.is_empty(), "{batch:?}");
    }
    // A follower of a game that does not exist sees nothing either.
    let mut follower = store.follow(&id("absent")).await.expect("follow");
    let batch = within("next_batch", follower.next_batch(0, short))
        .await
        .expect("next_batch");
    assert!(batch.is_empty(), "{batch:?}");
}

async fn a_waiting_follower_wakes_up_on_a_commit(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.clone();
    let game = id("awaited");
    create(store.as_ref(), &game).await;

    let mut follower = store.follow(&game).await.expect("follow");
    let writer = {
        let store = store.clone();
        let game = game.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            store
                .commit(&game, 1, state(2, b"state 2"), vec![event(2, b"event 2")])
                .await
        })
    };
    // The wait is far longer than the test's patience: only a wake-up by the
    // commit passes.
    let batch = within(
        "next_batch",
        follower.next_batch(1, Duration::from_secs(600)),
    )
    .await
    .expect("next_batch");
    assert_eq!(batch, vec![event(2, b"event 2")]);
    let outcome = within("writer", writer)
        .await
        .expect("writer task")
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Committed);

    // The same follower keeps working for the next commit.
    let writer = {
        let store = store.clone();
        let game = game.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            store
                .commit(
                    &game,
                    2,
                    state(4, b"state 4"),
                    vec![event(3, b"event 3"), event(4, b"event 4")],
                )
                .await
        })
    };
    let mut seen = Vec::new();
    within("the next two events", async {
        while seen.len() < 2 {
            let after = seen.last().map_or(2, |e: &StoredEvent| e.version);
            let batch = follower
                .next_batch(after, Duration::from_secs(600))
                .await
                .expect("next_batch");
            seen.extend(batch);
        }
    })
    .await;
    assert_eq!(seen, vec![event(3, b"event 3"), event(4, b"event 4")]);
    let outcome = within("writer", writer)
        .await
        .expect("writer task")
        .expect("commit");
    assert_eq!(outcome, CommitOutcome::Committed);
}

// ---------------------------------------------------------------------------
// Concurrency and isolation
// ---------------------------------------------------------------------------

const RACERS: usize = 16;

/// Many tasks commit at the same expected version at once; returns the
/// outcomes by task.
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
                        expected,
                        state(version, format!("state by {task}").as_bytes()),
                        vec![event(version, format!("event by {task}").as_bytes())],
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
}

async fn games_are_isolated_from_each_other(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let a = id("game-a");
    let b = id("game-b");
    // A prefix of another id is still another game.
    let a_prefix = id("game");

    create(store, &a).await;
    assert_eq!(load_state(store, &b).await, None);
    assert_eq!(load_state(store, &a_prefix).await, None);
    assert!(log(store, &b).await.is_empty());

    // b is created independently, at its own versions.
    store
        .commit(&b, 0, state(1, b"b state 1"), vec![event(1, b"b event 1")])
        .await
        .expect("commit");
    store
        .commit(&a, 1, state(2, b"state 2"), vec![event(2, b"event 2")])
        .await
        .expect("commit");
    assert_eq!(
        store
            .commit(&b, 2, state(3, b"b state 3"), vec![event(3, b"b event 3")])
            .await
            .expect("commit"),
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

    // A follower of b is not woken by a's events.
    let mut follower = store.follow(&b).await.expect("follow");
    store
        .commit(&a, 2, state(3, b"state 3"), vec![event(3, b"event 3")])
        .await
        .expect("commit");
    let batch = within(
        "next_batch",
        follower.next_batch(1, Duration::from_millis(200)),
    )
    .await
    .expect("next_batch");
    assert!(batch.is_empty(), "{batch:?}");
}

/// A commit whose events do not continue the log is refused before anything
/// is written, on both stores.
async fn a_commit_whose_events_do_not_continue_the_log_writes_nothing(backend: Backend) {
    let subject = open(backend);
    let store = &subject.store;
    let id = id("gap");
    for (version, events) in [
        (2, vec![event(2, b"e")]),
        (1, vec![]),
        (2, vec![event(1, b"e")]),
    ] {
        let refused = store.commit(&id, 0, state(version, b"s"), events).await;
        assert!(
            matches!(refused, Err(StoreError::Corrupt(_))),
            "{refused:?}"
        );
    }
    let (loaded, _) = store.load(&id).await.expect("load");
    assert!(loaded.is_none(), "nothing was written");
    assert!(store.events_after(&id, 0).await.expect("events").is_empty());
}

// ---------------------------------------------------------------------------
// The deadline index
// ---------------------------------------------------------------------------

/// An instant `offset_ms` after an arbitrary fixed one.
fn when(offset_ms: u64) -> Timestamp {
    Timestamp::from_unix_millis(1_700_000_000_000 + offset_ms)
}

async fn index(store: &dyn GameStore, game: &GameId, version: u64, deadline: Option<Timestamp>) {
    store
        .index_deadline(game, version, deadline)
        .await
        .expect("index_deadline");
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

/// Room for every game of any test.
const ALL: usize = 1000;

async fn due_lists_the_games_whose_deadline_has_come(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let (a, b, c) = (id("due-a"), id("due-b"), id("due-c"));
    index(store, &a, 1, Some(when(1000))).await;
    index(store, &b, 1, Some(when(2000))).await;
    index(store, &c, 7, Some(when(3000))).await;

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
        index(store, game, 1, Some(when(100 * i as u64))).await;
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

async fn an_older_version_cannot_replace_a_newer_deadline(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("versioned");
    index(store, &game, 5, Some(when(5000))).await;

    // A slower writer of version 4 comes last: ignored.
    index(store, &game, 4, Some(when(1000))).await;
    assert!(due(store, when(4999), ALL).await.is_empty());
    assert_eq!(due(store, when(5000), ALL).await, vec![game.clone()]);
    // Nor can it remove the deadline.
    index(store, &game, 4, None).await;
    assert_eq!(due(store, when(5000), ALL).await, vec![game.clone()]);
    // A newer version replaces it.
    index(store, &game, 6, Some(when(8000))).await;
    assert!(due(store, when(7999), ALL).await.is_empty());
    assert_eq!(due(store, when(8000), ALL).await, vec![game]);
}

async fn the_same_version_rewrites_the_deadline(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let game = id("rewritten");
    index(store, &game, 5, Some(when(5000))).await;
    index(store, &game, 5, Some(when(1000))).await;
    assert_eq!(due(store, when(1000), ALL).await, vec![game.clone()]);
    // Later again: the earlier deadline does not linger.
    index(store, &game, 5, Some(when(9000))).await;
    assert!(due(store, when(8999), ALL).await.is_empty());
    assert_eq!(due(store, when(9000), ALL).await, vec![game.clone()]);
    index(store, &game, 5, None).await;
    assert!(due(store, when(60_000), ALL).await.is_empty());
}

async fn no_deadline_takes_the_game_out_of_the_index(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let (ended, running) = (id("ended"), id("still-running"));
    index(store, &ended, 3, Some(when(1000))).await;
    index(store, &running, 3, Some(when(1000))).await;
    index(store, &ended, 4, None).await;
    assert_eq!(due(store, when(60_000), ALL).await, vec![running.clone()]);
    // Removing what is not there is harmless, and so is removing twice.
    index(store, &ended, 5, None).await;
    index(store, &id("never-indexed"), 1, None).await;
    assert_eq!(due(store, when(60_000), ALL).await, vec![running]);
    // A later version can put the game back.
    index(store, &ended, 6, Some(when(2000))).await;
    assert_eq!(due(store, when(2000), ALL).await.len(), 2);
}

async fn the_deadlines_of_many_games_are_all_found(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    // Enough games to land in every bucket of a partitioned index.
    let games: Vec<GameId> = (0..48).map(|i| id(&format!("many-{i:02}"))).collect();
    for (i, game) in games.iter().enumerate() {
        index(store, game, 1 + i as u64, Some(when(1000 * i as u64))).await;
    }
    assert_eq!(due(store, when(47_000), ALL).await, games);
    assert_eq!(due(store, when(47_000), games.len()).await, games);
    assert_eq!(due(store, when(23_500), ALL).await, games[..24].to_vec());
    assert_eq!(due(store, when(0), ALL).await, games[..1].to_vec());
    // Collected a batch at a time, the way a sweeper does, nothing is
    // missed.
    let mut swept = Vec::new();
    loop {
        let batch = due(store, when(47_000), 5).await;
        if batch.is_empty() {
            break;
        }
        assert!(batch.len() <= 5, "{batch:?}");
        for game in &batch {
            index(store, game, 100, None).await;
        }
        swept.extend(batch);
    }
    swept.sort();
    assert_eq!(swept, games);
}

async fn the_deadline_index_is_independent_of_game_state(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    // A game that has no state can be indexed, listed and removed.
    let ghost = id("no-state");
    index(store, &ghost, 3, Some(when(1000))).await;
    assert_eq!(due(store, when(1000), ALL).await, vec![ghost.clone()]);
    assert_eq!(load_state(store, &ghost).await, None);
    assert!(log(store, &ghost).await.is_empty());
    index(store, &ghost, u64::MAX, None).await;
    assert!(due(store, when(60_000), ALL).await.is_empty());

    // Indexing leaves a game's state and log alone, and committing leaves
    // its deadline alone.
    let game = id("with-state");
    create(store, &game).await;
    index(store, &game, 1, Some(when(2000))).await;
    assert_eq!(load_state(store, &game).await, Some(state(1, b"state 1")));
    assert_eq!(log(store, &game).await, vec![event(1, b"event 1")]);
    store
        .commit(&game, 1, state(2, b"state 2"), vec![event(2, b"event 2")])
        .await
        .expect("commit");
    assert_eq!(due(store, when(2000), ALL).await, vec![game]);
}

// ---------------------------------------------------------------------------
// Event game lists
// ---------------------------------------------------------------------------

fn event_id(event: &str) -> EventId {
    EventId::parse(event).expect("valid event id")
}

async fn add(store: &dyn GameStore, event: &str, order: (u32, u32), game: &GameId) {
    store
        .add_to_event(&event_id(event), order, game)
        .await
        .expect("add_to_event");
}

async fn listed(store: &dyn GameStore, event: &str, offset: usize, limit: usize) -> Vec<GameId> {
    store
        .event_games(&event_id(event), offset, limit)
        .await
        .expect("event_games")
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
    // The expected order; ids chosen so that their order disagrees with
    // the order of rounds and boards, and ties on (round, board) are broken
    // by the id's bytes ('-' < digits < upper case < '_' < lower case).
    let expected: Vec<((u32, u32), GameId)> = vec![
        ((0, 0), id("zz-unpaired")),
        ((1, 1), id("-dash")),
        ((1, 1), id("9-digit")),
        ((1, 1), id("Upper")),
        ((1, 1), id("_underscore")),
        ((1, 1), id("lower")),
        ((1, 2), id("a-board-2")),
        ((1, 10), id("a-board-10")),
        ((1, u32::MAX), id("a-last-board")),
        ((2, 0), id("a-round-2")),
        ((9, 1), id("a-round-9")),
        ((10, 0), id("a-round-10")),
        // The largest round whose boards a double-precision score still
        // orders exactly (2^21 - 1).
        ((2_097_151, 0), id("b-huge-round-0")),
        ((2_097_151, u32::MAX - 1), id("b-huge-round-penultimate")),
        ((2_097_151, u32::MAX), id("a-huge-round-last")),
    ];
    // Added in a scrambled order.
    let mut scrambled = expected.clone();
    scrambled.reverse();
    scrambled.swap(0, 7);
    scrambled.swap(3, 11);
    for (order, game) in &scrambled {
        add(store, event, *order, game).await;
    }
    let ids: Vec<GameId> = expected.into_iter().map(|(_, game)| game).collect();
    assert_eq!(listed(store, event, 0, ALL).await, ids);
}

async fn event_games_page_by_offset_and_limit(backend: Backend) {
    let subject = open(backend);
    let store = subject.store.as_ref();
    let event = "paged {event}";
    let games: Vec<GameId> = (0..7).map(|i| id(&format!("paged-{i}"))).collect();
    for (board, game) in games.iter().enumerate().rev() {
        add(store, event, (1, board as u32), game).await;
    }
    assert_eq!(listed(store, event, 0, ALL).await, games);
    for limit in 1..=8 {
        let mut collected = Vec::new();
        let mut offset = 0;
        loop {
            let page = listed(store, event, offset, limit).await;
            assert!(page.len() <= limit, "limit {limit}: {page:?}");
            assert_eq!(page, games[offset.min(7)..(offset + limit).min(7)]);
            offset += page.len();
            collected.extend(page.iter().cloned());
            if page.len() < limit {
                break;
            }
        }
        assert_eq!(collected, games, "limit {limit}");
    }
    assert_eq!(listed(store, event, 2, 3).await, games[2..5]);
    assert_eq!(listed(store, event, 6, 3).await, games[6..]);
    assert!(listed(store, event, 7, 3).await.is_empty());
    assert!(listed(store, event, 1000, 3).await.is_empty());
    assert!(listed(store, event, 0, 0).await.is_empty());
    assert!(listed(store, event, 3, 0).await.is_empty());
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
    assert_eq!(
        listed(store, event, 0, ALL).await,
        vec![first.clone(), second.clone()]
    );
    // Concurrent re-adds too (two replicas healing the same creation).
    let shared = Arc::clone(&subject.store);
    let adds = (0..8).map(|_| {
        let store = Arc::clone(&shared);
        let game = first.clone();
        tokio::spawn(async move {
            store
                .add_to_event(&event_id("idempotent {event}"), (1, 1), &game)
                .await
        })
    });
    for handle in adds.collect::<Vec<_>>() {
        handle.await.expect("task").expect("add_to_event");
    }
    assert_eq!(listed(store, event, 0, ALL).await, vec![first, second]);
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
        let mut expected: Vec<GameId> = (0..=i as u32)
            .map(|board| id(&format!("iso-{i}-{board}")))
            .collect();
        match i {
            0 => expected.push(shared.clone()),
            1 => expected.insert(0, shared.clone()),
            _ => {}
        }
        assert_eq!(listed(store, event, 0, ALL).await, expected, "{event}");
    }
    assert!(listed(store, "Spring {Open} 2026", 0, ALL).await.is_empty());
    assert!(listed(store, "no such event", 0, ALL).await.is_empty());
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
        assert_eq!(
            listed(store, event, 0, ALL).await,
            vec![id(&format!("free-{i}")), game.clone()],
            "{event:?}"
        );
        assert_eq!(
            listed(store, event, 1, 1).await,
            vec![game.clone()],
            "{event:?}"
        );
    }
    // Listing touched neither the game's state nor its log, nor the
    // deadline index.
    assert_eq!(load_state(store, &game).await, Some(state(1, b"state 1")));
    assert_eq!(log(store, &game).await, vec![event(1, b"event 1")]);
    assert!(due(store, when(60_000), ALL).await.is_empty());
    // The longest event id the API accepts (128 characters, 3 bytes each).
    let long = "€".repeat(128);
    add(store, &long, (1, 1), &game).await;
    assert_eq!(listed(store, &long, 0, ALL).await, vec![game.clone()]);
    assert!(listed(store, &"€".repeat(127), 0, ALL).await.is_empty());
}

on_every_backend!(
    missing_game_loads_as_none_with_the_time,
    commit_at_zero_creates_the_game,
    a_second_create_conflicts_and_writes_nothing,
    commit_at_the_current_version_appends_and_replaces,
    a_stale_commit_conflicts_and_changes_nothing,
    a_commit_to_a_missing_game_reports_version_zero,
    events_after_returns_exactly_the_later_events,
    a_follower_returns_existing_events_at_once,
    a_follower_returns_an_empty_batch_when_nothing_arrives,
    a_waiting_follower_wakes_up_on_a_commit,
    racing_commits_have_exactly_one_winner,
    games_are_isolated_from_each_other,
    a_commit_whose_events_do_not_continue_the_log_writes_nothing,
    due_lists_the_games_whose_deadline_has_come,
    due_returns_at_most_its_limit,
    an_older_version_cannot_replace_a_newer_deadline,
    the_same_version_rewrites_the_deadline,
    no_deadline_takes_the_game_out_of_the_index,
    the_deadlines_of_many_games_are_all_found,
    the_deadline_index_is_independent_of_game_state,
    event_games_are_ordered_by_round_board_then_id,
    event_games_page_by_offset_and_limit,
    adding_a_game_again_lists_it_once,
    events_are_isolated_from_each_other,
    event_ids_are_free_text,
);

// ---------------------------------------------------------------------------
// Redis outages
// ---------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_ping_fails_while_redis_is_down_and_recovers() {
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
    create(&store, &game).await;
    assert_eq!(load_state(&store, &game).await, Some(state(1, b"state 1")));
}

/// If a game's state key is lost while its log survives, re-creating the
/// game is refused before anything is written: state and log must agree.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_refuses_a_state_its_log_does_not_explain() {
    let config = fresh_redis_config();
    let store = redis_store(&config);
    let game = id("orphan");
    assert_eq!(
        store
            .commit(&game, 0, state(1, b"s1"), vec![event(1, b"e1")])
            .await
            .expect("create"),
        CommitOutcome::Committed
    );
    let client = ::redis::Client::open(config.url.as_str()).expect("client");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("connection");
    let _: () = ::redis::cmd("DEL")
        .arg(format!("{}:{{orphan}}:state", config.key_prefix))
        .query_async(&mut conn)
        .await
        .expect("delete the state key");
    let refused = store
        .commit(&game, 0, state(1, b"s2"), vec![event(1, b"e2")])
        .await;
    assert!(
        matches!(refused, Err(StoreError::Corrupt(_))),
        "{refused:?}"
    );
    let (loaded, _) = store.load(&game).await.expect("load");
    assert!(loaded.is_none(), "the state was not rewritten");
    let log = store.events_after(&game, 0).await.expect("log");
    assert_eq!(log, vec![event(1, b"e1")], "the log is untouched");
}
