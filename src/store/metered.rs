//! A store that records every operation's latency and failures in the
//! server's metrics, and a span for traces, around any other store.

use std::{sync::Arc, time::Instant};

use async_trait::async_trait;
use tracing::Instrument;

use super::{
    ChangeFeed, ChangeFeeds, Commit, CommitOutcome, CredentialAdded, CredentialLogEntry,
    Credentials, Deadlines, EventIndex, EventLog, EventPosition, FeedEntry, FeedPosition, GameLog,
    GameStore, Listing, LogRead, RoundOpening, Rounds, SignalAdded, Signals, StoreError,
    StoredArchive, StoredRound, StoredState, StoredTeams, TeamsWrite,
};
use crate::{
    domain::{EventId, GameId, Timestamp, access::CredentialId},
    metrics::Metrics,
};

/// `inner`, measured.
pub struct MeteredStore {
    inner: Arc<dyn GameStore>,
    metrics: Arc<Metrics>,
}

impl MeteredStore {
    /// Measures `inner` into `metrics`.
    pub fn new(inner: Arc<dyn GameStore>, metrics: Arc<Metrics>) -> Self {
        Self { inner, metrics }
    }

    async fn measured<T>(
        &self,
        operation: &'static str,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        let started = Instant::now();
        let span = tracing::info_span!("store", otel.name = operation, operation);
        let result = call.instrument(span).await;
        self.metrics
            .store_operation(operation, started.elapsed(), result.is_err());
        result
    }
}

#[async_trait]
impl GameLog for MeteredStore {
    async fn now(&self) -> Result<Timestamp, StoreError> {
        self.measured("now", self.inner.now()).await
    }

    async fn load(&self, id: &GameId) -> Result<(Option<StoredState>, Timestamp), StoreError> {
        self.measured("load", self.inner.load(id)).await
    }

    async fn load_many(
        &self,
        ids: &[GameId],
    ) -> Result<(Vec<Option<StoredState>>, Timestamp), StoreError> {
        self.measured("load_many", self.inner.load_many(ids)).await
    }

    async fn commit(&self, id: &GameId, commit: Commit) -> Result<CommitOutcome, StoreError> {
        self.measured("commit", self.inner.commit(id, commit)).await
    }

    async fn confirm_durable(&self, id: &GameId) -> Result<(), StoreError> {
        self.measured("confirm_durable", self.inner.confirm_durable(id))
            .await
    }

    async fn events_after(&self, id: &GameId, after: u64) -> Result<LogRead, StoreError> {
        self.measured("events_after", self.inner.events_after(id, after))
            .await
    }

    async fn events_page(
        &self,
        id: &GameId,
        after: u64,
        limit: usize,
    ) -> Result<LogRead, StoreError> {
        self.measured("events_page", self.inner.events_page(id, after, limit))
            .await
    }

    async fn events_after_many(
        &self,
        cursors: &[(GameId, u64)],
        limit: usize,
    ) -> Result<Vec<LogRead>, StoreError> {
        self.measured(
            "events_after_many",
            self.inner.events_after_many(cursors, limit),
        )
        .await
    }

    async fn archive(&self, id: &GameId, archive: StoredArchive) -> Result<bool, StoreError> {
        self.measured("archive", self.inner.archive(id, archive))
            .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.measured("ping", self.inner.ping()).await
    }
}

#[async_trait]
impl EventIndex for MeteredStore {
    async fn add_to_event(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<bool, StoreError> {
        self.measured(
            "add_to_event",
            self.inner.add_to_event(event_id, position, max_entries),
        )
        .await
    }

    async fn list_outside_rounds(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<Listing, StoreError> {
        self.measured(
            "list_outside_rounds",
            self.inner
                .list_outside_rounds(event_id, position, max_entries),
        )
        .await
    }

    async fn event_games(
        &self,
        event_id: &EventId,
        after: Option<&EventPosition>,
        limit: usize,
    ) -> Result<Vec<EventPosition>, StoreError> {
        self.measured(
            "event_games",
            self.inner.event_games(event_id, after, limit),
        )
        .await
    }
}

#[async_trait]
impl Deadlines for MeteredStore {
    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<GameId>, StoreError> {
        self.measured("due", self.inner.due(now, limit)).await
    }

    async fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError> {
        self.measured("next_deadline", self.inner.next_deadline())
            .await
    }

    async fn repair_deadline(
        &self,
        id: &GameId,
        version: u64,
        deadline: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        self.measured(
            "repair_deadline",
            self.inner.repair_deadline(id, version, deadline),
        )
        .await
    }

    async fn claim_sweep(&self, id: &GameId, for_ms: u64) -> Result<bool, StoreError> {
        self.measured("claim_sweep", self.inner.claim_sweep(id, for_ms))
            .await
    }

    async fn release_sweep(&self, id: &GameId) -> Result<(), StoreError> {
        self.measured("release_sweep", self.inner.release_sweep(id))
            .await
    }
}

#[async_trait]
impl ChangeFeeds for MeteredStore {
    async fn changes(&self) -> Result<Box<dyn ChangeFeed>, StoreError> {
        self.measured("changes", self.inner.changes()).await
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
        self.measured(
            "event_feed",
            self.inner.event_feed(event_id, log, cursors, limit),
        )
        .await
    }
}

#[async_trait]
impl Rounds for MeteredStore {
    async fn round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<Option<StoredRound>, StoreError> {
        self.measured("round", self.inner.round(event_id, number))
            .await
    }

    async fn put_round(
        &self,
        event_id: &EventId,
        number: u32,
        expected: u64,
        round: &StoredRound,
    ) -> Result<bool, StoreError> {
        self.measured(
            "put_round",
            self.inner.put_round(event_id, number, expected, round),
        )
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
        self.measured(
            "open_round",
            self.inner.open_round(
                event_id,
                number,
                round,
                listings,
                max_event_games,
                ignoring,
                teams,
            ),
        )
        .await
    }

    async fn teams(&self, event_id: &EventId) -> Result<Option<StoredTeams>, StoreError> {
        self.measured("teams", self.inner.teams(event_id)).await
    }

    async fn put_teams(
        &self,
        event_id: &EventId,
        expected: u64,
        teams: &StoredTeams,
        before_rounds: bool,
    ) -> Result<TeamsWrite, StoreError> {
        self.measured(
            "put_teams",
            self.inner
                .put_teams(event_id, expected, teams, before_rounds),
        )
        .await
    }

    async fn rounds_in_creation(&self, event_id: &EventId) -> Result<Vec<u32>, StoreError> {
        self.measured(
            "rounds_in_creation",
            self.inner.rounds_in_creation(event_id),
        )
        .await
    }

    async fn round_created(&self, event_id: &EventId, number: u32) -> Result<(), StoreError> {
        self.measured("round_created", self.inner.round_created(event_id, number))
            .await
    }

    async fn round_summaries(
        &self,
        event_id: &EventId,
        limit: usize,
    ) -> Result<Vec<(u32, Vec<u8>)>, StoreError> {
        self.measured(
            "round_summaries",
            self.inner.round_summaries(event_id, limit),
        )
        .await
    }
}

#[async_trait]
impl Credentials for MeteredStore {
    async fn add_credential(
        &self,
        id: &CredentialId,
        record: &[u8],
        max: usize,
        change: CredentialLogEntry<'_>,
    ) -> Result<CredentialAdded, StoreError> {
        self.measured(
            "add_credential",
            self.inner.add_credential(id, record, max, change),
        )
        .await
    }

    async fn credential(
        &self,
        id: &CredentialId,
    ) -> Result<(Option<Vec<u8>>, Timestamp), StoreError> {
        self.measured("credential", self.inner.credential(id)).await
    }

    async fn replace_credential(
        &self,
        id: &CredentialId,
        (expected, record): (&[u8], &[u8]),
        change: CredentialLogEntry<'_>,
    ) -> Result<bool, StoreError> {
        self.measured(
            "replace_credential",
            self.inner
                .replace_credential(id, (expected, record), change),
        )
        .await
    }

    async fn credentials(
        &self,
        after: Option<&CredentialId>,
        limit: usize,
    ) -> Result<Vec<(CredentialId, Vec<u8>)>, StoreError> {
        self.measured("credentials", self.inner.credentials(after, limit))
            .await
    }

    async fn credential_log(
        &self,
        event: Option<&EventId>,
        after: FeedPosition,
        limit: usize,
    ) -> Result<Vec<(FeedPosition, Vec<u8>)>, StoreError> {
        self.measured(
            "credential_log",
            self.inner.credential_log(event, after, limit),
        )
        .await
    }
}

#[async_trait]
impl Signals for MeteredStore {
    async fn add_signal(
        &self,
        id: &GameId,
        entry: &[u8],
        repeat_key: &[u8],
        (group, max): (&[u8], usize),
    ) -> Result<SignalAdded, StoreError> {
        self.measured(
            "add_signal",
            self.inner.add_signal(id, entry, repeat_key, (group, max)),
        )
        .await
    }

    async fn signals(&self, id: &GameId, max: usize) -> Result<Vec<Vec<u8>>, StoreError> {
        self.measured("signals", self.inner.signals(id, max)).await
    }
}
