//! The arbiter over a store that records what every commit writes.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::*;
use crate::{
    domain::{
        EventId, GameRules, NewGame, Pairing, Player, Ply, Rejection, ReportedLag, RequestId,
        StartPosition, Variant, access::CredentialId,
    },
    store::{
        ChangeFeed, ChangeFeeds, CredentialAdded, CredentialLogEntry, Credentials, Deadlines,
        EventIndex, EventLog, EventPosition, FeedEntry, FeedPosition, GameLog, Listing, LogRead,
        MemoryStore, RoundOpening, Rounds, SignalAdded, Signals, StoreError, StoredArchive,
        StoredRound, StoredState, StoredTeams, TeamsWrite,
    },
};

/// Bytes and events written by each commit.
type Writes = Arc<Mutex<Vec<(usize, usize)>>>;

/// Every store call, by name, in order.
type Calls = Arc<Mutex<Vec<&'static str>>>;

/// How many of the store's recorded calls were `name`.
fn count(calls: &Calls, name: &str) -> usize {
    calls
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .iter()
        .filter(|call| **call == name)
        .count()
}

struct RecordingStore {
    inner: MemoryStore,
    writes: Writes,
    calls: Calls,
    /// How many of the next loads fail, as on a stalled store.
    stalled_loads: Arc<std::sync::atomic::AtomicUsize>,
}

impl RecordingStore {
    fn record(&self, call: &'static str) {
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(call);
    }
}

#[async_trait]
impl GameLog for RecordingStore {
    async fn now(&self) -> Result<Timestamp, StoreError> {
        self.record("now");
        // As over the wire, the answer comes on a later poll: callers at
        // the same moment overlap.
        tokio::task::yield_now().await;
        self.inner.now().await
    }

    async fn load(&self, id: &GameId) -> Result<(Option<StoredState>, Timestamp), StoreError> {
        self.record("load");
        // As over the wire, the answer takes a while: readers at the same
        // moment overlap (a mere yield would let the second poll finish it).
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
        let stalled = self.stalled_loads.fetch_update(
            std::sync::atomic::Ordering::SeqCst,
            std::sync::atomic::Ordering::SeqCst,
            |n| n.checked_sub(1),
        );
        if stalled.is_ok() {
            return Err(StoreError::Unavailable("stalled".to_owned()));
        }
        self.inner.load(id).await
    }

    async fn load_many(
        &self,
        ids: &[GameId],
    ) -> Result<(Vec<Option<StoredState>>, Timestamp), StoreError> {
        self.record("load_many");
        self.inner.load_many(ids).await
    }

    async fn commit(&self, id: &GameId, commit: Commit) -> Result<CommitOutcome, StoreError> {
        self.record("commit");
        let bytes =
            commit.state.bytes.len() + commit.events.iter().map(|e| e.bytes.len()).sum::<usize>();
        self.writes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((bytes, commit.events.len()));
        self.inner.commit(id, commit).await
    }

    async fn events_after(&self, id: &GameId, after: u64) -> Result<LogRead, StoreError> {
        self.record("events_after");
        self.inner.events_after(id, after).await
    }

    async fn events_page(
        &self,
        id: &GameId,
        after: u64,
        limit: usize,
    ) -> Result<LogRead, StoreError> {
        self.record("events_page");
        self.inner.events_page(id, after, limit).await
    }

    async fn archive(&self, id: &GameId, archive: StoredArchive) -> Result<bool, StoreError> {
        self.record("archive");
        self.inner.archive(id, archive).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

#[async_trait]
impl EventIndex for RecordingStore {
    async fn add_to_event(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<bool, StoreError> {
        self.record("add_to_event");
        self.inner
            .add_to_event(event_id, position, max_entries)
            .await
    }

    async fn list_outside_rounds(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<Listing, StoreError> {
        self.record("list_outside_rounds");
        self.inner
            .list_outside_rounds(event_id, position, max_entries)
            .await
    }

    async fn event_games(
        &self,
        event_id: &EventId,
        after: Option<&EventPosition>,
        limit: usize,
    ) -> Result<Vec<EventPosition>, StoreError> {
        self.record("event_games");
        self.inner.event_games(event_id, after, limit).await
    }
}

#[async_trait]
impl Signals for RecordingStore {
    async fn add_signal(
        &self,
        id: &GameId,
        entry: &[u8],
        repeat_key: &[u8],
        (group, max): (&[u8], usize),
    ) -> Result<SignalAdded, StoreError> {
        self.record("add_signal");
        self.inner
            .add_signal(id, entry, repeat_key, (group, max))
            .await
    }

    async fn signals(&self, id: &GameId, max: usize) -> Result<Vec<Vec<u8>>, StoreError> {
        self.record("signals");
        self.inner.signals(id, max).await
    }
}

#[async_trait]
impl Credentials for RecordingStore {
    async fn add_credential(
        &self,
        id: &CredentialId,
        record: &[u8],
        max: usize,
        change: CredentialLogEntry<'_>,
    ) -> Result<CredentialAdded, StoreError> {
        self.record("add_credential");
        self.inner.add_credential(id, record, max, change).await
    }

    async fn credential(
        &self,
        id: &CredentialId,
    ) -> Result<(Option<Vec<u8>>, Timestamp), StoreError> {
        self.record("credential");
        self.inner.credential(id).await
    }

    async fn replace_credential(
        &self,
        id: &CredentialId,
        (expected, record): (&[u8], &[u8]),
        change: CredentialLogEntry<'_>,
    ) -> Result<bool, StoreError> {
        self.record("replace_credential");
        self.inner
            .replace_credential(id, (expected, record), change)
            .await
    }

    async fn credentials(
        &self,
        after: Option<&CredentialId>,
        limit: usize,
    ) -> Result<Vec<(CredentialId, Vec<u8>)>, StoreError> {
        self.record("credentials");
        self.inner.credentials(after, limit).await
    }

    async fn credential_log(
        &self,
        event: Option<&EventId>,
        after: FeedPosition,
        limit: usize,
    ) -> Result<Vec<(FeedPosition, Vec<u8>)>, StoreError> {
        self.record("credential_log");
        self.inner.credential_log(event, after, limit).await
    }
}

#[async_trait]
impl Rounds for RecordingStore {
    async fn round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<Option<StoredRound>, StoreError> {
        self.record("round");
        self.inner.round(event_id, number).await
    }

    async fn put_round(
        &self,
        event_id: &EventId,
        number: u32,
        expected: u64,
        round: &StoredRound,
    ) -> Result<bool, StoreError> {
        self.record("put_round");
        self.inner
            .put_round(event_id, number, expected, round)
            .await
    }

    async fn open_round(
        &self,
        event_id: &EventId,
        number: u32,
        round: &StoredRound,
        listings: &[EventPosition],
        max_event_games: usize,
        ignoring: &[EventPosition],
        teams: Option<u64>,
    ) -> Result<RoundOpening, StoreError> {
        self.record("open_round");
        self.inner
            .open_round(
                event_id,
                number,
                round,
                listings,
                max_event_games,
                ignoring,
                teams,
            )
            .await
    }

    async fn teams(&self, event_id: &EventId) -> Result<Option<StoredTeams>, StoreError> {
        self.record("teams");
        self.inner.teams(event_id).await
    }

    async fn put_teams(
        &self,
        event_id: &EventId,
        expected: u64,
        teams: &StoredTeams,
        before_rounds: bool,
    ) -> Result<TeamsWrite, StoreError> {
        self.record("put_teams");
        self.inner
            .put_teams(event_id, expected, teams, before_rounds)
            .await
    }

    async fn rounds_in_creation(&self, event_id: &EventId) -> Result<Vec<u32>, StoreError> {
        self.record("rounds_in_creation");
        self.inner.rounds_in_creation(event_id).await
    }

    async fn round_created(&self, event_id: &EventId, number: u32) -> Result<(), StoreError> {
        self.record("round_created");
        self.inner.round_created(event_id, number).await
    }

    async fn round_summaries(
        &self,
        event_id: &EventId,
        limit: usize,
    ) -> Result<Vec<(u32, Vec<u8>)>, StoreError> {
        self.record("round_summaries");
        self.inner.round_summaries(event_id, limit).await
    }
}

#[async_trait]
impl Deadlines for RecordingStore {
    async fn claim_sweep(&self, id: &GameId, for_ms: u64) -> Result<bool, StoreError> {
        self.record("claim_sweep");
        self.inner.claim_sweep(id, for_ms).await
    }

    async fn release_sweep(&self, id: &GameId) -> Result<(), StoreError> {
        self.record("release_sweep");
        self.inner.release_sweep(id).await
    }

    async fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError> {
        self.inner.next_deadline().await
    }

    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<GameId>, StoreError> {
        self.record("due");
        self.inner.due(now, limit).await
    }

    async fn repair_deadline(
        &self,
        id: &GameId,
        version: u64,
        deadline: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        self.record("repair_deadline");
        self.inner.repair_deadline(id, version, deadline).await
    }
}

#[async_trait]
impl ChangeFeeds for RecordingStore {
    async fn changes(&self) -> Result<Box<dyn ChangeFeed>, StoreError> {
        self.record("changes");
        self.inner.changes().await
    }

    fn feed_partitions(&self) -> u32 {
        self.inner.feed_partitions()
    }

    fn feed_partition(&self, id: &GameId) -> u32 {
        self.inner.feed_partition(id)
    }

    async fn event_feed(
        &self,
        event_id: &EventId,
        log: EventLog,
        cursors: &[(u32, FeedPosition)],
        limit: usize,
    ) -> Result<Vec<Vec<FeedEntry>>, StoreError> {
        self.record("event_feed");
        self.inner.event_feed(event_id, log, cursors, limit).await
    }
}

fn arbiter() -> (Arbiter, Writes) {
    let (arbiter, writes, _) = recording_arbiter();
    (arbiter, writes)
}

fn recording_arbiter() -> (Arbiter, Writes, Calls) {
    let (arbiter, writes, calls, _) = stalling_arbiter();
    (arbiter, writes, calls)
}

/// An arbiter over a recording store whose loads fail while the counter
/// it returns is above zero.
fn stalling_arbiter() -> (Arbiter, Writes, Calls, Arc<std::sync::atomic::AtomicUsize>) {
    let writes = Writes::default();
    let calls = Calls::default();
    let stalled_loads = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let store = RecordingStore {
        inner: MemoryStore::new(),
        writes: writes.clone(),
        calls: calls.clone(),
        stalled_loads: stalled_loads.clone(),
    };
    (
        Arbiter::new(Arc::new(store), SeatKeys::from_secret(b"test")),
        writes,
        calls,
        stalled_loads,
    )
}

fn new_game() -> NewGame {
    NewGame::new(
        Player::parse("white", "w", "White").unwrap(),
        Player::parse("black", "b", "Black").unwrap(),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .unwrap()
}

/// A new game between White and Black, created by the platform.
async fn created_game(arbiter: &Arbiter) -> CreatedGame {
    arbiter
        .create_game(None, new_game(), "platform")
        .await
        .unwrap()
}

/// Blocks of knight shuffles (each position repeating, never five times)
/// separated by a pawn move of each side: 140 half-moves in all.
fn long_line() -> Vec<String> {
    let mut line = Vec::new();
    for rank in [("3", "6"), ("4", "5")] {
        for file in ["a", "b", "c", "d", "e", "g", "h"] {
            line.extend(["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"].map(String::from));
            line.push(format!("{file}{}", rank.0));
            line.push(format!("{file}{}", rank.1));
        }
    }
    line
}

#[tokio::test]
async fn bytes_written_per_move_do_not_grow_with_the_game() {
    let (arbiter, writes) = arbiter();
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    let line = long_line();
    for (ply, mv) in line.iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.tokens.white
        } else {
            &created.tokens.black
        };
        let ply = u32::try_from(ply).unwrap();
        arbiter
            .make_move(&id, token, Ply::new(ply), mv, false, ReportedLag::NONE)
            .await
            .unwrap_or_else(|err| panic!("{mv} at ply {ply}: {err}"));
    }
    let writes = writes.lock().unwrap().clone();
    let moves = &writes[1..];
    assert_eq!(moves.len(), 140);
    assert!(moves.iter().all(|&(_, events)| events == 1));
    let early = moves[..10].iter().map(|&(bytes, _)| bytes).max().unwrap();
    let late = moves[130..].iter().map(|&(bytes, _)| bytes).max().unwrap();
    // If the moves were kept in the state, 130 more of them would add
    // kilobytes; only counters and the (bounded) repetition history vary.
    assert!(
        late <= early + 300,
        "early {early} bytes, late {late} bytes"
    );
}

#[tokio::test]
async fn a_retry_is_recognised_after_the_opponent_replied() {
    let (arbiter, writes) = arbiter();
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    let (white, black) = (&created.tokens.white, &created.tokens.black);
    arbiter
        .make_move(&id, white, Ply::new(0), "e4", false, ReportedLag::NONE)
        .await
        .unwrap();
    arbiter
        .make_move(&id, black, Ply::new(1), "c5", false, ReportedLag::NONE)
        .await
        .unwrap();
    let commits = writes.lock().unwrap().len();
    let view = arbiter
        .make_move(&id, white, Ply::new(0), "e4", false, ReportedLag::NONE)
        .await
        .unwrap();
    assert_eq!(view.game.ply(), Ply::new(2));
    assert!(view.events.is_empty(), "a retry produces no event");
    assert_eq!(
        writes.lock().unwrap().len(),
        commits,
        "a retry writes nothing"
    );
    let refused = arbiter
        .make_move(&id, white, Ply::new(0), "d4", false, ReportedLag::NONE)
        .await;
    assert!(matches!(
        refused,
        Err(ArbiterError::Rejected {
            rejection: Rejection::StalePly { .. },
            ..
        })
    ));
    let refused = arbiter
        .make_move(&id, black, Ply::new(0), "e4", false, ReportedLag::NONE)
        .await;
    assert!(
        matches!(
            refused,
            Err(ArbiterError::Rejected {
                rejection: Rejection::StalePly { .. },
                ..
            })
        ),
        "the other seat cannot claim White's move as its retry"
    );
}

#[tokio::test]
async fn a_token_of_another_game_is_not_a_seat() {
    let (arbiter, _) = arbiter();
    let first = created_game(&arbiter).await;
    let second = created_game(&arbiter).await;
    let refused = arbiter
        .make_move(
            second.game.id(),
            &first.tokens.white,
            Ply::START,
            "e4",
            false,
            ReportedLag::NONE,
        )
        .await;
    assert!(matches!(refused, Err(ArbiterError::NotASeat)));
}

#[tokio::test]
async fn a_repeated_request_id_returns_the_same_game_and_tokens() {
    let (arbiter, _) = arbiter();
    let key = RequestId::parse("r1-b1").unwrap();
    let first = arbiter
        .create_game(key.clone(), new_game(), "platform")
        .await
        .unwrap();
    let again = arbiter
        .create_game(key.clone(), new_game(), "platform")
        .await
        .unwrap();
    assert_eq!(first.game.id(), again.game.id());
    assert_eq!(first.tokens, again.tokens);
    let other = NewGame::new(
        Player::parse("white", "w", "White").unwrap(),
        Player::parse("black", "someone-else", "").unwrap(),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .unwrap();
    assert!(matches!(
        arbiter.create_game(key, other, "platform").await,
        Err(ArbiterError::RequestIdReused { .. })
    ));
}

#[tokio::test]
async fn tokens_issued_under_another_secret_are_not_reissued() {
    let store: Arc<dyn GameStore> = Arc::new(MemoryStore::new());
    let key = RequestId::parse("r1-b2").unwrap();
    let first = Arbiter::new(store.clone(), SeatKeys::from_secret(b"one"));
    first
        .create_game(key.clone(), new_game(), "platform")
        .await
        .unwrap();
    let second = Arbiter::new(store, SeatKeys::from_secret(b"two"));
    assert!(matches!(
        second.create_game(key, new_game(), "platform").await,
        Err(ArbiterError::TokensNotReissuable { .. })
    ));
}

#[tokio::test]
async fn watchers_finding_the_clock_stale_together_read_the_stores_time_once() {
    let (arbiter, _, calls) = recording_arbiter();
    let times = futures::future::join_all((0..20).map(|_| arbiter.clock.now())).await;
    assert!(times.iter().all(Result::is_ok));
    let reads = |calls: &Calls| count(calls, "now");
    assert_eq!(reads(&calls), 1);
    // Within the second, the reading serves without the store.
    arbiter.clock.now().await.unwrap();
    assert_eq!(reads(&calls), 1);
}

/// Watchers that start on a game together share one read of it, and one
/// snapshot, which each of their streams sends as the same bytes.
#[tokio::test]
async fn watchers_starting_together_share_one_read_and_one_snapshot() {
    let (arbiter, _, calls) = recording_arbiter();
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    calls.lock().unwrap().clear();
    let watchers = futures::future::join_all(
        (0..20).map(|_| arbiter.watch(&id, WatchFrom::Snapshot, QUIET, &Reader::PUBLIC)),
    )
    .await;
    let loads = count(&calls, "load");
    assert_eq!(loads, 1, "{:?}", calls.lock().unwrap());
    let mut snapshots = Vec::new();
    for watcher in watchers {
        let mut watcher = watcher.unwrap();
        match next_item(&mut watcher).await {
            Ok(Some(WatchItem::Snapshot(snapshot, token))) => snapshots.push((snapshot, token)),
            other => panic!("a snapshot first: {other:?}"),
        }
    }
    let (first, token) = &snapshots[0];
    assert_eq!(first.view.game.version(), created.game.version());
    let bytes = first
        .encoded
        .get_or_encode(token, || bytes::Bytes::from_static(b"the snapshot"));
    for (snapshot, other) in &snapshots {
        assert!(Arc::ptr_eq(snapshot, first));
        assert_eq!(other, token);
        let sent = snapshot
            .encoded
            .get_or_encode(other, || unreachable!("encoded again"));
        assert_eq!(sent.as_ptr(), bytes.as_ptr());
    }
}

#[tokio::test]
async fn a_move_costs_one_load_and_one_commit_and_reads_no_log() {
    let (arbiter, _, calls) = recording_arbiter();
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    let line = long_line();
    for ply in 0..140u32 {
        calls.lock().unwrap().clear();
        let token = if ply % 2 == 0 {
            &created.tokens.white
        } else {
            &created.tokens.black
        };
        let done = arbiter
            .make_move(
                &id,
                token,
                Ply::new(ply),
                &line[ply as usize],
                false,
                ReportedLag::NONE,
            )
            .await
            .unwrap();
        assert_eq!(done.events.len(), 1, "ply {ply}: {:?}", done.events);
        assert_eq!(*calls.lock().unwrap(), ["load", "commit"], "ply {ply}");
    }
    // A retry of the latest move costs one load and no commit.
    calls.lock().unwrap().clear();
    arbiter
        .make_move(
            &id,
            &created.tokens.black,
            Ply::new(139),
            &line[139],
            false,
            ReportedLag::NONE,
        )
        .await
        .unwrap();
    assert_eq!(*calls.lock().unwrap(), ["load"]);
}

#[tokio::test]
async fn games_that_cannot_be_read_do_not_keep_the_sweeper_from_the_others() {
    use crate::{
        domain::{DelayMode, Period, Schedule, TimeControl, Timing},
        store::{Commit, StoredEvent, StoredState},
    };
    let (arbiter, _, _) = recording_arbiter();
    // More unreadable due games than one sweep takes, all due before the
    // real game's flag.
    let store = arbiter.store.clone();
    let now = store.now().await.unwrap();
    let early = Timestamp::from_unix_millis(now.unix_millis() - 60_000);
    for n in 0..210 {
        let id = GameId::parse(&format!("poison-{n}")).unwrap();
        let commit = Commit {
            expected: 0,
            state: StoredState {
                version: 1,
                bytes: b"not a game".to_vec(),
            },
            events: vec![StoredEvent {
                version: 1,
                bytes: b"not an event".to_vec(),
            }],
            deadline: Some(early),
            event: None,
            audited: Vec::new(),
        };
        store.commit(&id, commit).await.unwrap();
    }
    let control = TimeControl::new(
        "time_control",
        vec![Period {
            time_ms: 100,
            moves: 0,
            increment_ms: 0,
            delay_ms: 0,
        }],
        DelayMode::Simple,
    )
    .unwrap();
    let timed = new_game().with_clock(
        Some(Timing {
            white: control.clone(),
            black: control,
            clock_starts_after_first_moves: false,
        }),
        Schedule::default(),
    );
    let created = arbiter.create_game(None, timed, "platform").await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    for _ in 0..3 {
        arbiter.sweep(200).await.unwrap();
    }
    let stored = store.load(created.game.id()).await.unwrap().0.unwrap();
    let game = codec::decode_state(&stored).unwrap();
    assert_eq!(
        game.result().map(|r| r.termination),
        Some(crate::domain::Termination::Timeout),
        "the flag was swept although 210 unreadable games came first"
    );
    // Each was set aside once (then left alone for its backoff), and
    // counted for the metrics port.
    assert_eq!(arbiter.metrics().set_aside.get(), 210);
}

/// A game of `event` on `board` of round 1, between players of its own.
fn event_game(event: &EventId, board: u32) -> NewGame {
    NewGame::new(
        Player::parse("white", &format!("w{board}"), "White").unwrap(),
        Player::parse("black", &format!("b{board}"), "Black").unwrap(),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::parse(event.as_str(), 1, board).unwrap(),
        GameRules::default(),
    )
    .unwrap()
}

#[tokio::test]
async fn an_events_standings_read_its_games_in_one_round_trip() {
    let (arbiter, _, calls) = recording_arbiter();
    let event = EventId::parse("club-open").unwrap();
    for board in 1..=30 {
        let new = event_game(&event, board);
        arbiter.create_game(None, new, "platform").await.unwrap();
    }
    calls.lock().unwrap().clear();
    let read = arbiter
        .standings(
            &event,
            Default::default(),
            Default::default(),
            &Reader::PUBLIC,
        )
        .await
        .unwrap();
    assert_eq!(read.rows.len(), 60);
    assert_eq!(read.counted, 0);
    assert_eq!(read.next, None);
    // One read for its rounds (their byes, and which are still being
    // created), one for the list, one for the games; and, the list holding
    // a round with no summary (games made one at a time), one for the
    // rounds again, in case that round was opened meanwhile.
    assert_eq!(
        *calls.lock().unwrap(),
        [
            "round_summaries",
            "event_games",
            "load_many",
            "round_summaries"
        ]
    );
}

/// A page of full games holds a bounded number of moves: a game that would
/// take it past the bound opens the next page (a page's first game always
/// fits), and the pages together list every game once, in order.
#[tokio::test]
async fn a_page_of_full_games_holds_a_bounded_number_of_moves() {
    let (arbiter, _, _) = recording_arbiter();
    let arbiter = arbiter.with_max_page_moves(10);
    let event = EventId::parse("long games").unwrap();
    let line = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"];
    let mut ids = Vec::new();
    for board in 1..=4 {
        let new = event_game(&event, board);
        let created = arbiter.create_game(None, new, "platform").await.unwrap();
        let id = created.game.id().clone();
        // Boards 1 and 2 six moves each, 3 and 4 two each.
        let moves = if board <= 2 { 6 } else { 2 };
        for (ply, mv) in line.iter().take(moves).enumerate() {
            let token = if ply % 2 == 0 {
                &created.tokens.white
            } else {
                &created.tokens.black
            };
            arbiter
                .make_move(
                    &id,
                    token,
                    Ply::new(u32::try_from(ply).unwrap()),
                    mv,
                    false,
                    ReportedLag::NONE,
                )
                .await
                .unwrap();
        }
        ids.push(id);
    }
    let mut pages = Vec::new();
    let mut after = None;
    loop {
        let (games, next) = arbiter
            .list_games(
                &event,
                ListFilter::default(),
                after,
                20,
                true,
                &Reader::PUBLIC,
            )
            .await
            .unwrap();
        pages.push(
            games
                .iter()
                .map(|view| (view.game.id().clone(), view.moves.len()))
                .collect::<Vec<_>>(),
        );
        match next {
            Some(position) => after = Some(position),
            None => break,
        }
    }
    assert_eq!(
        pages,
        [
            vec![(ids[0].clone(), 6)],
            vec![
                (ids[1].clone(), 6),
                (ids[2].clone(), 2),
                (ids[3].clone(), 2)
            ],
        ]
    );
    // Without the moves, one page holds them all.
    let (games, next) = arbiter
        .list_games(
            &event,
            ListFilter::default(),
            None,
            20,
            false,
            &Reader::PUBLIC,
        )
        .await
        .unwrap();
    assert_eq!(games.len(), 4);
    assert_eq!(next, None);
}

/// A heartbeat further off than any test waits.
const QUIET: std::time::Duration = std::time::Duration::from_secs(600);

/// A public watcher of `id` from `from`, its heartbeat [`QUIET`].
async fn watch_quietly(arbiter: &Arbiter, id: &GameId, from: WatchFrom) -> Watcher {
    arbiter
        .watch(id, from, QUIET, &Reader::PUBLIC)
        .await
        .unwrap()
}

/// The next item of a watcher, within a bound that fails the test rather
/// than hang it.
async fn next_item(watcher: &mut Watcher) -> Result<Option<WatchItem>, ArbiterError> {
    let never = tokio_util::sync::CancellationToken::new();
    tokio::time::timeout(std::time::Duration::from_secs(20), watcher.next(&never))
        .await
        .expect("a watch item in time")
}

/// The version of the event `watcher` gets next.
async fn next_event(watcher: &mut Watcher) -> u64 {
    let Ok(Some(WatchItem::Event(shared))) = next_item(watcher).await else {
        panic!("the move's event");
    };
    shared.event.version
}

/// Plays `san` as ply `ply` of `created`, for the side to move.
async fn play(arbiter: &Arbiter, created: &CreatedGame, ply: usize, san: &str) {
    let token = if ply.is_multiple_of(2) {
        &created.tokens.white
    } else {
        &created.tokens.black
    };
    arbiter
        .make_move(
            created.game.id(),
            token,
            Ply::new(u32::try_from(ply).expect("a ply")),
            san,
            false,
            ReportedLag::NONE,
        )
        .await
        .unwrap();
}

/// Many watchers of a game share one follower; a watcher that does not
/// read falls behind its buffer and is ended, resumable, while the others
/// get every event once, in order; once the game has ended the replica
/// follows nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_watcher_is_ended_and_the_others_get_every_event() {
    let (arbiter, _) = arbiter();
    let arbiter = arbiter.with_watch_buffer(8);
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    let mut slow = watch_quietly(&arbiter, &id, WatchFrom::Version(1)).await;
    let mut readers = Vec::new();
    for _ in 0..5 {
        readers.push(watch_quietly(&arbiter, &id, WatchFrom::Version(1)).await);
    }
    assert_eq!(arbiter.hub.followed(), 1, "one follower for the game");

    let line = long_line();
    let plies = 20;
    for (ply, san) in line.iter().take(plies).enumerate() {
        play(&arbiter, &created, ply, san).await;
        // Each reader gets the move before the next one is played.
        for reader in &mut readers {
            assert_eq!(next_event(reader).await, ply as u64 + 2);
        }
    }

    // The slow watcher gets what its buffer kept no more: it is ended,
    // saying where to resume.
    let ended = loop {
        match next_item(&mut slow).await {
            Ok(Some(WatchItem::Event(_))) => {}
            other => break other,
        }
    };
    assert!(
        matches!(
            ended,
            Err(ArbiterError::WatcherTooSlow {
                version: 1,
                buffer: 8,
                ..
            })
        ),
        "{ended:?}"
    );

    // Resigning ends the game: the readers get the final event, and the
    // replica stops following it.
    arbiter.resign(&id, &created.tokens.black).await.unwrap();
    for reader in &mut readers {
        let Ok(Some(WatchItem::Event(shared))) = next_item(reader).await else {
            panic!("the final event");
        };
        assert!(shared.event.is_final());
        assert!(matches!(next_item(reader).await, Ok(None)));
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while arbiter.hub.followed() > 0 {
        assert!(std::time::Instant::now() < deadline, "still followed");
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// A new game of event "cup" on `board`.
fn new_cup_game(board: u32) -> NewGame {
    event_game(&EventId::parse("cup").unwrap(), board)
}

/// Store reads of event feeds and game logs recorded so far.
fn feed_reads(calls: &Calls) -> usize {
    calls
        .lock()
        .unwrap()
        .iter()
        .filter(|call| matches!(**call, "event_feed" | "events_page" | "events_after"))
        .count()
}

/// A public watcher of event "cup", from its start.
fn cup_watcher(arbiter: &Arbiter) -> EventWatcher {
    arbiter
        .watch_event(
            &EventId::parse("cup").unwrap(),
            "",
            std::time::Duration::from_secs(600),
            &Reader::PUBLIC,
            None,
        )
        .unwrap()
}

/// Starts `watchers` watchers of event "cup" that forward every game event
/// they get; returns their receivers.
async fn cup_watchers(
    arbiter: &Arbiter,
    watchers: usize,
) -> Vec<tokio::sync::mpsc::UnboundedReceiver<u64>> {
    let mut receivers = Vec::new();
    for _ in 0..watchers {
        let mut watcher = cup_watcher(arbiter);
        let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let never = tokio_util::sync::CancellationToken::new();
            while let Ok(update) = watcher.next(&never).await {
                if let Some((_, event, _)) = update.event
                    && sender.send(event.version).is_err()
                {
                    return;
                }
            }
        });
        receivers.push(receiver);
    }
    receivers
}

/// Waits for each watcher's next event and checks its version.
async fn each_gets(receivers: &mut [tokio::sync::mpsc::UnboundedReceiver<u64>], version: u64) {
    for receiver in receivers {
        let got = tokio::time::timeout(std::time::Duration::from_secs(20), receiver.recv())
            .await
            .expect("an event in time");
        assert_eq!(got, Some(version));
    }
}

/// What one move costs in reads for the watchers of its event, and what an
/// idle event costs: the same for one watcher as for fifty (the replica's
/// follower reads the feed once per move, in the partition the move was
/// announced in), and nothing while idle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_events_watchers_cost_the_same_reads_however_many_and_none_while_idle() {
    let mut per_move = Vec::new();
    for watchers in [1, 50] {
        let (arbiter, _, calls) = recording_arbiter();
        let mut games = Vec::new();
        for board in 1..=20 {
            games.push(
                arbiter
                    .create_game(None, new_cup_game(board), "platform")
                    .await
                    .unwrap(),
            );
        }
        let mut receivers = cup_watchers(&arbiter, watchers).await;
        // Each catches up on the creations.
        for _ in &games {
            each_gets(&mut receivers, 1).await;
        }
        // Let the follower settle, then count what one move costs.
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        calls.lock().unwrap().clear();
        let game = &games[7];
        arbiter
            .make_move(
                game.game.id(),
                &game.tokens.white,
                Ply::new(0),
                "e4",
                false,
                ReportedLag::NONE,
            )
            .await
            .unwrap();
        each_gets(&mut receivers, 2).await;
        per_move.push(feed_reads(&calls));

        // Idle: no read at all.
        calls.lock().unwrap().clear();
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        assert_eq!(feed_reads(&calls), 0, "{:?}", calls.lock().unwrap());
    }
    assert_eq!(per_move[0], per_move[1], "reads per move: {per_move:?}");
    assert!(per_move[0] <= 2, "reads per move: {per_move:?}");
}

/// Heartbeats of a quiet game read it at most about once a second for all
/// its watchers, and never tell a watcher of a version behind its events.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_read_a_game_once_for_all_its_watchers() {
    let (arbiter, _, calls) = recording_arbiter();
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    let beat_every = std::time::Duration::from_millis(100);
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let mut watcher = arbiter
            .watch(&id, WatchFrom::Version(1), beat_every, &Reader::PUBLIC)
            .await
            .unwrap();
        tasks.push(tokio::spawn(async move {
            let mut beats = 0;
            while beats < 10 {
                match next_item(&mut watcher).await {
                    Ok(Some(WatchItem::Heartbeat(beat))) => {
                        assert!(beat.version >= 1);
                        beats += 1;
                    }
                    other => panic!("a heartbeat: {other:?}"),
                }
            }
        }));
    }
    calls.lock().unwrap().clear();
    let started = std::time::Instant::now();
    for task in tasks {
        task.await.unwrap();
    }
    let seconds = started.elapsed().as_secs_f64();
    let loads = count(&calls, "load");
    // 200 heartbeats in about a second: a handful of reads, not 200.
    assert!(
        (loads as f64) <= 2.0 * seconds + 3.0,
        "{loads} loads in {seconds:.1} s"
    );
}

/// A heartbeat that cannot read the game (a stalled store) is skipped, and
/// the stream goes on: the next heartbeat, and the next event, come.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_store_skips_a_heartbeat_not_the_stream() {
    let (arbiter, _, _, stalled_loads) = stalling_arbiter();
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    let beat_every = std::time::Duration::from_millis(50);
    let mut watcher = arbiter
        .watch(&id, WatchFrom::Version(1), beat_every, &Reader::PUBLIC)
        .await
        .unwrap();
    // Past the shared heartbeat's second, so that the next one reads.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    stalled_loads.store(3, std::sync::atomic::Ordering::SeqCst);
    match next_item(&mut watcher).await {
        Ok(Some(WatchItem::Heartbeat(beat))) => assert_eq!(beat.version, 1),
        other => panic!("a heartbeat once the store answers: {other:?}"),
    }
    assert_eq!(stalled_loads.load(std::sync::atomic::Ordering::SeqCst), 0);
    arbiter
        .make_move(
            &id,
            &created.tokens.white,
            Ply::new(0),
            "e4",
            false,
            ReportedLag::NONE,
        )
        .await
        .unwrap();
    loop {
        match next_item(&mut watcher).await {
            Ok(Some(WatchItem::Event(shared))) => {
                assert_eq!(shared.event.version, 2);
                break;
            }
            Ok(Some(WatchItem::Heartbeat(_))) => {}
            other => panic!("the move: {other:?}"),
        }
    }
}

#[tokio::test]
async fn public_reads_of_a_delayed_game_go_on_from_the_view_before() {
    let (arbiter, _, calls) = recording_arbiter();
    let delay = crate::domain::BroadcastDelay::parse("delay", 3_600_000).unwrap();
    let created = arbiter
        .create_game(None, new_game().with_broadcast_delay(delay), "platform")
        .await
        .unwrap();
    let id = created.game.id().clone();
    let line = long_line();
    for (ply, text) in line.iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.tokens.white
        } else {
            &created.tokens.black
        };
        let ply = Ply::new(u32::try_from(ply).unwrap());
        arbiter
            .make_move(&id, token, ply, text, false, ReportedLag::NONE)
            .await
            .unwrap();
    }
    let (live, _) = arbiter.load(&id).await.unwrap();
    let read = arbiter.store.events_page(&id, 0, 1_000).await.unwrap();
    let events = codec::decode_log(&id, 0, 1_000, &read).unwrap();
    assert!(
        events.len() > 128,
        "more than a page: {} events",
        events.len()
    );
    calls.lock().unwrap().clear();
    // The public reads the game at each event's time, one after the other,
    // as a busy game's public does: each read sees exactly the game as it
    // stood then, and reads at most one page of the log however long the
    // game (none once nothing was committed after its cut-off).
    for event in &events {
        let now = event.at.plus_millis(3_600_000);
        let (view, as_of) = arbiter.public_game((*live).clone(), now).await.unwrap();
        assert_eq!(as_of, event.at);
        let fresh = crate::domain::public_view(&live, &events, event.at).unwrap();
        assert_eq!(format!("{view:?}"), format!("{fresh:?}"));
    }
    let pages = count(&calls, "events_page");
    assert!(
        pages <= events.len(),
        "{pages} pages for {} reads",
        events.len()
    );
}

/// A public event watcher learns each game's broadcast delay from the
/// replica, which reads a game for it once, not once per watcher.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_event_watchers_share_what_the_replica_read_of_the_delays() {
    let (arbiter, _, calls) = recording_arbiter();
    for board in 1..=20 {
        arbiter
            .create_game(None, new_cup_game(board), "platform")
            .await
            .unwrap();
    }
    let mut first = cup_watchers(&arbiter, 1).await;
    for _ in 0..20 {
        each_gets(&mut first, 1).await;
    }
    let loads = |calls: &Calls| count(calls, "load_many");
    assert!(loads(&calls) >= 1, "the first watcher read the games");
    calls.lock().unwrap().clear();
    let mut more = cup_watchers(&arbiter, 50).await;
    for _ in 0..20 {
        each_gets(&mut more, 1).await;
    }
    assert_eq!(loads(&calls), 0, "{:?}", calls.lock().unwrap());
}

/// A shutdown ends the watchers that wait on their game's events (told by
/// the hub, not by a token each watches), and a watcher that starts after
/// it ends once it has had its snapshot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shutdown_ends_the_watchers_waiting_on_their_games() {
    let (arbiter, _) = arbiter();
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    let shutdown = tokio_util::sync::CancellationToken::new();
    arbiter.end_watches_on(shutdown.clone());
    let mut waiting = Vec::new();
    for _ in 0..3 {
        let mut watcher = watch_quietly(&arbiter, &id, WatchFrom::Snapshot).await;
        assert!(matches!(
            next_item(&mut watcher).await,
            Ok(Some(WatchItem::Snapshot(..)))
        ));
        // Waiting for the game's next event; the token it is given never
        // fires.
        waiting.push(tokio::spawn(async move { next_item(&mut watcher).await }));
    }
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    shutdown.cancel();
    for watcher in waiting {
        assert!(matches!(
            watcher.await.unwrap(),
            Err(ArbiterError::ShuttingDown)
        ));
    }
    let mut late = watch_quietly(&arbiter, &id, WatchFrom::Snapshot).await;
    assert!(matches!(
        next_item(&mut late).await,
        Ok(Some(WatchItem::Snapshot(..)))
    ));
    assert!(matches!(
        next_item(&mut late).await,
        Err(ArbiterError::ShuttingDown)
    ));
}

/// A shutdown ends an event watcher still catching up on the store,
/// before its next page, not once it has caught up.
#[tokio::test]
async fn a_shutdown_ends_an_event_watcher_catching_up() {
    let (arbiter, _) = arbiter();
    for board in 1..=3 {
        arbiter
            .create_game(None, new_cup_game(board), "platform")
            .await
            .unwrap();
    }
    let mut watcher = cup_watcher(&arbiter);
    let shutdown = tokio_util::sync::CancellationToken::new();
    shutdown.cancel();
    assert!(matches!(
        watcher.next(&shutdown).await,
        Err(ArbiterError::ShuttingDown)
    ));
}

/// The server reads commit announcements on a thread of its own: they
/// still wake the followers of the games watched on the runtime's workers.
#[tokio::test]
async fn announcements_read_on_a_thread_of_their_own_wake_the_watchers() {
    let shutdown = tokio_util::sync::CancellationToken::new();
    let side =
        crate::server::runtime::side_thread("test-announce", shutdown.clone()).expect("a thread");
    let (arbiter, _) = arbiter();
    let arbiter = arbiter.with_announcements_on(side.clone());
    let created = created_game(&arbiter).await;
    let id = created.game.id().clone();
    let mut watcher = watch_quietly(&arbiter, &id, WatchFrom::Version(1)).await;
    assert_eq!(
        side.metrics().num_alive_tasks(),
        1,
        "the subscription runs on the thread given"
    );
    for (ply, san) in ["e4", "e5", "Nf3"].iter().enumerate() {
        play(&arbiter, &created, ply, san).await;
        assert_eq!(next_event(&mut watcher).await, ply as u64 + 2);
    }
    shutdown.cancel();
}
