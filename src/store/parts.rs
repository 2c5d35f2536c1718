//! A store assembled from parts, each part from an implementation of its
//! own, so that a wrapper (metering, fault injection, recording) implements
//! only the part it changes and takes the rest from the store it wraps.

use std::sync::Arc;

use async_trait::async_trait;

use super::{
    ChangeFeed, ChangeFeeds, Commit, CommitOutcome, CredentialAdded, CredentialLogEntry,
    Credentials, Deadlines, EventIndex, EventLog, EventPosition, FeedEntry, FeedPosition, GameLog,
    GameStore, Listing, LogRead, RoundOpening, Rounds, SignalAdded, Signals, StoreError,
    StoredArchive, StoredRound, StoredState, StoredTeams, TeamsWrite,
};
use crate::domain::{EventId, GameId, Timestamp, access::CredentialId};

/// The seven parts of a [`GameStore`], each behind its own implementation.
#[derive(Clone)]
pub struct StoreParts {
    log: Arc<dyn GameLog>,
    event_index: Arc<dyn EventIndex>,
    deadlines: Arc<dyn Deadlines>,
    change_feeds: Arc<dyn ChangeFeeds>,
    rounds: Arc<dyn Rounds>,
    credentials: Arc<dyn Credentials>,
    signals: Arc<dyn Signals>,
}

impl StoreParts {
    /// Every part from `store`.
    pub fn of(store: Arc<dyn GameStore>) -> Self {
        Self {
            log: store.clone(),
            event_index: store.clone(),
            deadlines: store.clone(),
            change_feeds: store.clone(),
            rounds: store.clone(),
            credentials: store.clone(),
            signals: store,
        }
    }

    /// The games' states and logs from `log` instead.
    #[must_use]
    pub fn with_log(mut self, log: Arc<dyn GameLog>) -> Self {
        self.log = log;
        self
    }

    /// The events' lists of games from `event_index` instead.
    #[must_use]
    pub fn with_event_index(mut self, event_index: Arc<dyn EventIndex>) -> Self {
        self.event_index = event_index;
        self
    }

    /// The deadline index and sweep claims from `deadlines` instead.
    #[must_use]
    pub fn with_deadlines(mut self, deadlines: Arc<dyn Deadlines>) -> Self {
        self.deadlines = deadlines;
        self
    }

    /// The announcements and events' feeds from `change_feeds` instead.
    #[must_use]
    pub fn with_change_feeds(mut self, change_feeds: Arc<dyn ChangeFeeds>) -> Self {
        self.change_feeds = change_feeds;
        self
    }

    /// The events' round records from `rounds` instead.
    #[must_use]
    pub fn with_rounds(mut self, rounds: Arc<dyn Rounds>) -> Self {
        self.rounds = rounds;
        self
    }

    /// The credentials' records from `credentials` instead.
    #[must_use]
    pub fn with_credentials(mut self, credentials: Arc<dyn Credentials>) -> Self {
        self.credentials = credentials;
        self
    }
}

#[async_trait]
impl GameLog for StoreParts {
    async fn now(&self) -> Result<Timestamp, StoreError> {
        self.log.now().await
    }

    async fn load(&self, id: &GameId) -> Result<(Option<StoredState>, Timestamp), StoreError> {
        self.log.load(id).await
    }

    async fn load_many(
        &self,
        ids: &[GameId],
    ) -> Result<(Vec<Option<StoredState>>, Timestamp), StoreError> {
        self.log.load_many(ids).await
    }

    async fn commit(&self, id: &GameId, commit: Commit) -> Result<CommitOutcome, StoreError> {
        self.log.commit(id, commit).await
    }

    async fn confirm_durable(&self, id: &GameId) -> Result<(), StoreError> {
        self.log.confirm_durable(id).await
    }

    async fn events_after(&self, id: &GameId, after: u64) -> Result<LogRead, StoreError> {
        self.log.events_after(id, after).await
    }

    async fn events_page(
        &self,
        id: &GameId,
        after: u64,
        limit: usize,
    ) -> Result<LogRead, StoreError> {
        self.log.events_page(id, after, limit).await
    }

    async fn events_after_many(
        &self,
        cursors: &[(GameId, u64)],
        limit: usize,
    ) -> Result<Vec<LogRead>, StoreError> {
        self.log.events_after_many(cursors, limit).await
    }

    async fn archive(&self, id: &GameId, archive: StoredArchive) -> Result<bool, StoreError> {
        self.log.archive(id, archive).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.log.ping().await
    }
}

#[async_trait]
impl EventIndex for StoreParts {
    async fn add_to_event(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<bool, StoreError> {
        self.event_index
            .add_to_event(event_id, position, max_entries)
            .await
    }

    async fn list_outside_rounds(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<Listing, StoreError> {
        self.event_index
            .list_outside_rounds(event_id, position, max_entries)
            .await
    }

    async fn event_games(
        &self,
        event_id: &EventId,
        after: Option<&EventPosition>,
        limit: usize,
    ) -> Result<Vec<EventPosition>, StoreError> {
        self.event_index.event_games(event_id, after, limit).await
    }
}

#[async_trait]
impl Deadlines for StoreParts {
    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<GameId>, StoreError> {
        self.deadlines.due(now, limit).await
    }

    async fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError> {
        self.deadlines.next_deadline().await
    }

    async fn repair_deadline(
        &self,
        id: &GameId,
        version: u64,
        deadline: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        self.deadlines.repair_deadline(id, version, deadline).await
    }

    async fn claim_sweep(&self, id: &GameId, for_ms: u64) -> Result<bool, StoreError> {
        self.deadlines.claim_sweep(id, for_ms).await
    }

    async fn release_sweep(&self, id: &GameId) -> Result<(), StoreError> {
        self.deadlines.release_sweep(id).await
    }
}

#[async_trait]
impl ChangeFeeds for StoreParts {
    async fn changes(&self) -> Result<Box<dyn ChangeFeed>, StoreError> {
        self.change_feeds.changes().await
    }

    fn feed_partitions(&self) -> u32 {
        self.change_feeds.feed_partitions()
    }

    fn feed_partition(&self, id: &GameId) -> u32 {
        self.change_feeds.feed_partition(id)
    }

    async fn event_feed(
        &self,
        event_id: &EventId,
        log: EventLog,
        cursors: &[(u32, FeedPosition)],
        limit: usize,
    ) -> Result<Vec<Vec<FeedEntry>>, StoreError> {
        self.change_feeds
            .event_feed(event_id, log, cursors, limit)
            .await
    }
}

#[async_trait]
impl Rounds for StoreParts {
    async fn round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<Option<StoredRound>, StoreError> {
        self.rounds.round(event_id, number).await
    }

    async fn put_round(
        &self,
        event_id: &EventId,
        number: u32,
        expected: u64,
        round: &StoredRound,
    ) -> Result<bool, StoreError> {
        self.rounds
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
        self.rounds
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
        self.rounds.teams(event_id).await
    }

    async fn put_teams(
        &self,
        event_id: &EventId,
        expected: u64,
        teams: &StoredTeams,
        before_rounds: bool,
    ) -> Result<TeamsWrite, StoreError> {
        self.rounds
            .put_teams(event_id, expected, teams, before_rounds)
            .await
    }

    async fn rounds_in_creation(&self, event_id: &EventId) -> Result<Vec<u32>, StoreError> {
        self.rounds.rounds_in_creation(event_id).await
    }

    async fn round_created(&self, event_id: &EventId, number: u32) -> Result<(), StoreError> {
        self.rounds.round_created(event_id, number).await
    }

    async fn round_summaries(
        &self,
        event_id: &EventId,
        limit: usize,
    ) -> Result<Vec<(u32, Vec<u8>)>, StoreError> {
        self.rounds.round_summaries(event_id, limit).await
    }
}

#[async_trait]
impl Credentials for StoreParts {
    async fn add_credential(
        &self,
        id: &CredentialId,
        record: &[u8],
        max: usize,
        change: CredentialLogEntry<'_>,
    ) -> Result<CredentialAdded, StoreError> {
        self.credentials
            .add_credential(id, record, max, change)
            .await
    }

    async fn credential(
        &self,
        id: &CredentialId,
    ) -> Result<(Option<Vec<u8>>, Timestamp), StoreError> {
        self.credentials.credential(id).await
    }

    async fn replace_credential(
        &self,
        id: &CredentialId,
        (expected, record): (&[u8], &[u8]),
        change: CredentialLogEntry<'_>,
    ) -> Result<bool, StoreError> {
        self.credentials
            .replace_credential(id, (expected, record), change)
            .await
    }

    async fn credentials(
        &self,
        after: Option<&CredentialId>,
        limit: usize,
    ) -> Result<Vec<(CredentialId, Vec<u8>)>, StoreError> {
        self.credentials.credentials(after, limit).await
    }

    async fn credential_log(
        &self,
        event: Option<&EventId>,
        after: FeedPosition,
        limit: usize,
    ) -> Result<Vec<(FeedPosition, Vec<u8>)>, StoreError> {
        self.credentials.credential_log(event, after, limit).await
    }
}

#[async_trait]
impl Signals for StoreParts {
    async fn add_signal(
        &self,
        id: &GameId,
        entry: &[u8],
        repeat_key: &[u8],
        (group, max): (&[u8], usize),
    ) -> Result<SignalAdded, StoreError> {
        self.signals
            .add_signal(id, entry, repeat_key, (group, max))
            .await
    }

    async fn signals(&self, id: &GameId, max: usize) -> Result<Vec<Vec<u8>>, StoreError> {
        self.signals.signals(id, max).await
    }
}
