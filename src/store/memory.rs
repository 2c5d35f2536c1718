//! The embedded in-memory store: the default when no Redis is configured.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap},
    sync::{Arc, Mutex, MutexGuard},
    time::{SystemTime, UNIX_EPOCH},
};

use async_trait::async_trait;
use tokio::sync::broadcast;

use super::{
    Change, ChangeFeed, ChangeFeeds, Commit, CommitOutcome, CredentialAdded, CredentialLogEntry,
    Credentials, Deadlines, EventIndex, EventLog, EventPosition, FeedEntry, FeedPosition, GameLog,
    Listing, LogRead, RoundOpening, Rounds, SignalAdded, Signals, StoreError, StoredArchive,
    StoredEvent, StoredRound, StoredState, StoredTeams, TeamsWrite,
};
use crate::domain::{EventId, GameId, Timestamp, access::CredentialId};

struct Entry {
    state: StoredState,
    /// The archived start of the log, if the game has been archived.
    archive: Option<StoredArchive>,
    /// The entries after the archive.
    events: Vec<StoredEvent>,
}

impl Entry {
    /// The last version the archive holds (0: none).
    fn archived_through(&self) -> u64 {
        self.archive.as_ref().map_or(0, |archive| archive.through)
    }
}

/// The deadline index: which game needs the sweeper when.
#[derive(Default)]
struct DeadlineIndex {
    by_time: BTreeSet<(Timestamp, GameId)>,
    by_game: HashMap<GameId, Timestamp>,
}

impl DeadlineIndex {
    fn set(&mut self, id: &GameId, deadline: Option<Timestamp>) {
        if let Some(previous) = self.by_game.remove(id) {
            self.by_time.remove(&(previous, id.clone()));
        }
        if let Some(at) = deadline {
            self.by_time.insert((at, id.clone()));
            self.by_game.insert(id.clone(), at);
        }
    }
}

/// Games, the deadline index and the events' feeds, under one lock so that
/// a commit updates them at once.
#[derive(Default)]
struct Games {
    entries: HashMap<GameId, Entry>,
    deadlines: DeadlineIndex,
    /// Per event and log, each game event recorded: (game, version), in
    /// commit order; the position of an entry is its index plus one.
    feeds: HashMap<(EventLog, EventId), Vec<(GameId, u64)>>,
}

/// The credentials' records and the logs of their changes.
#[derive(Default)]
struct CredentialStore {
    records: BTreeMap<CredentialId, Vec<u8>>,
    logs: HashMap<Option<EventId>, Vec<Vec<u8>>>,
}

impl CredentialStore {
    fn log(&mut self, change: CredentialLogEntry<'_>) {
        self.logs
            .entry(change.event.cloned())
            .or_default()
            .push(change.entry.to_vec());
    }
}

/// Announcements a feed may fall behind by before it reports a gap.
const ANNOUNCEMENTS: usize = 4096;

/// Keeps games in this process's memory; they vanish when it exits.
#[derive(Clone)]
pub struct MemoryStore {
    games: Arc<Mutex<Games>>,
    events: Arc<Mutex<HashMap<EventId, BTreeSet<EventPosition>>>>,
    /// Each event's round records, by round number.
    rounds: Arc<Mutex<HashMap<EventId, BTreeMap<u32, StoredRound>>>>,
    /// Each event's team registration.
    teams: Arc<Mutex<HashMap<EventId, StoredTeams>>>,
    /// Each event's rounds still in creation (locked after `events` and
    /// `rounds` when taken with them).
    in_creation: Arc<Mutex<HashMap<EventId, BTreeSet<u32>>>>,
    /// Announces every commit.
    changes: broadcast::Sender<Change>,
    /// The credentials' records, by id, and the logs of their changes, by
    /// event (`None`: the platform's), written under the records' lock.
    credentials: Arc<Mutex<CredentialStore>>,
    /// Each game's fair-play signals, in the order added.
    signals: Arc<Mutex<HashMap<GameId, Vec<Vec<u8>>>>>,
}

/// Lists `position` in an event's `games` unless they hold `max_entries`
/// others; `true` when it is listed (it was already, or now is). Listed at
/// each position it is added at, as in Redis: readers keep only a game's
/// own position.
fn list(games: &mut BTreeSet<EventPosition>, position: &EventPosition, max_entries: usize) -> bool {
    if games.contains(position) {
        return true;
    }
    if games.len() >= max_entries {
        return false;
    }
    games.insert(position.clone());
    true
}

impl Default for MemoryStore {
    fn default() -> Self {
        Self {
            games: Arc::default(),
            events: Arc::default(),
            rounds: Arc::default(),
            teams: Arc::default(),
            in_creation: Arc::default(),
            changes: broadcast::channel(ANNOUNCEMENTS).0,
            credentials: Arc::default(),
            signals: Arc::default(),
        }
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn credentials(&self) -> MutexGuard<'_, CredentialStore> {
        // Every mutation of the records and logs is a single step, so a
        // poisoned lock is safe to keep using.
        self.credentials
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn lock(&self) -> MutexGuard<'_, Games> {
        // A panic while holding the lock cannot leave an entry half-written
        // (every mutation below is a single assignment), so a poisoned lock
        // is safe to keep using.
        self.games
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn read_log(&self, id: &GameId, after: u64, limit: usize) -> LogRead {
        self.lock()
            .entries
            .get(id)
            .map(|entry| LogRead {
                archive: entry
                    .archive
                    .clone()
                    .filter(|archive| after < archive.through),
                events: entry
                    .events
                    .iter()
                    .filter(|event| event.version > after)
                    .take(limit)
                    .cloned()
                    .collect(),
            })
            .unwrap_or_default()
    }
}

fn system_now() -> Timestamp {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    Timestamp::from_unix_millis(u64::try_from(millis).unwrap_or(u64::MAX))
}

#[async_trait]
impl GameLog for MemoryStore {
    async fn now(&self) -> Result<Timestamp, StoreError> {
        Ok(system_now())
    }

    async fn load(&self, id: &GameId) -> Result<(Option<StoredState>, Timestamp), StoreError> {
        let state = self.lock().entries.get(id).map(|entry| entry.state.clone());
        Ok((state, system_now()))
    }

    async fn commit(&self, id: &GameId, commit: Commit) -> Result<CommitOutcome, StoreError> {
        super::check_commit(&commit)?;
        let mut games = self.lock();
        let current = games.entries.get(id).map_or(0, |entry| entry.state.version);
        if current != commit.expected {
            return Ok(CommitOutcome::Conflict { current });
        }
        let Commit {
            state,
            events,
            deadline,
            event,
            audited,
            ..
        } = commit;
        let version = state.version;
        if let Some(event_id) = &event {
            let feed = games
                .feeds
                .entry((EventLog::Feed, event_id.clone()))
                .or_default();
            feed.extend(events.iter().map(|logged| (id.clone(), logged.version)));
            if !audited.is_empty() {
                let audit = games
                    .feeds
                    .entry((EventLog::Audit, event_id.clone()))
                    .or_default();
                audit.extend(audited.iter().map(|version| (id.clone(), *version)));
            }
        }
        match games.entries.get_mut(id) {
            Some(entry) => {
                entry.state = state;
                entry.events.extend(events);
            }
            None => {
                games.entries.insert(
                    id.clone(),
                    Entry {
                        state,
                        archive: None,
                        events,
                    },
                );
            }
        }
        games.deadlines.set(id, deadline);
        // Sent under the lock, so announcements keep the commits' order;
        // nobody listening is not an error.
        let _ = self.changes.send(Change {
            game: id.clone(),
            version,
            event,
            deadline,
        });
        Ok(CommitOutcome::Committed)
    }

    async fn events_after(&self, id: &GameId, after: u64) -> Result<LogRead, StoreError> {
        Ok(self.read_log(id, after, usize::MAX))
    }

    async fn events_page(
        &self,
        id: &GameId,
        after: u64,
        limit: usize,
    ) -> Result<LogRead, StoreError> {
        Ok(self.read_log(id, after, limit))
    }

    async fn archive(&self, id: &GameId, archive: StoredArchive) -> Result<bool, StoreError> {
        let mut games = self.lock();
        let Some(entry) = games.entries.get_mut(id) else {
            return Ok(false);
        };
        if entry.state.version != archive.through {
            return Ok(false);
        }
        entry.archive = Some(archive);
        entry.events.clear();
        games.deadlines.set(id, None);
        Ok(true)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

#[async_trait]
impl EventIndex for MemoryStore {
    async fn add_to_event(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<bool, StoreError> {
        let mut events = self
            .events
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(list(
            events.entry(event_id.clone()).or_default(),
            position,
            max_entries,
        ))
    }

    async fn list_outside_rounds(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<Listing, StoreError> {
        // The list, then the rounds: the order `open_round` takes them in.
        let mut events = self
            .events
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let rounds = self
            .rounds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let recorded = position.round > 0
            && rounds
                .get(event_id)
                .is_some_and(|event| event.contains_key(&position.round));
        if recorded {
            return Ok(Listing::RoundRecorded);
        }
        let games = events.entry(event_id.clone()).or_default();
        Ok(if list(games, position, max_entries) {
            Listing::Listed
        } else {
            Listing::Full
        })
    }

    async fn event_games(
        &self,
        event_id: &EventId,
        after: Option<&EventPosition>,
        limit: usize,
    ) -> Result<Vec<EventPosition>, StoreError> {
        let events = self
            .events
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(events
            .get(event_id)
            .map(|games| {
                games
                    .iter()
                    .filter(|listed| after.is_none_or(|after| *listed > after))
                    .take(limit)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default())
    }
}

#[async_trait]
impl Rounds for MemoryStore {
    async fn round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<Option<StoredRound>, StoreError> {
        let rounds = self
            .rounds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(rounds
            .get(event_id)
            .and_then(|event| event.get(&number))
            .cloned())
    }

    async fn put_round(
        &self,
        event_id: &EventId,
        number: u32,
        expected: u64,
        round: &StoredRound,
    ) -> Result<bool, StoreError> {
        super::check_round(expected, round)?;
        let mut rounds = self
            .rounds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let event = rounds.entry(event_id.clone()).or_default();
        let current = event.get(&number).map_or(0, |stored| stored.version);
        if current != expected {
            return Ok(false);
        }
        event.insert(number, round.clone());
        Ok(true)
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
        super::check_round(0, round)?;
        let mut events = self
            .events
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut rounds = self
            .rounds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let event = rounds.entry(event_id.clone()).or_default();
        if event.contains_key(&number) {
            return Ok(RoundOpening::Exists);
        }
        if let Some(expected) = teams {
            let registered = self
                .teams
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .get(event_id)
                .map_or(0, |stored| stored.version);
            if registered != expected {
                return Ok(RoundOpening::TeamsChanged);
            }
        }
        let games = events.entry(event_id.clone()).or_default();
        if games
            .iter()
            .any(|g| g.round == number && !ignoring.contains(g))
        {
            return Ok(RoundOpening::RoundHasGames);
        }
        let new = listings.iter().filter(|l| !games.contains(*l)).count();
        if games.len().saturating_add(new) > max_event_games {
            return Ok(RoundOpening::EventFull);
        }
        games.extend(listings.iter().cloned());
        event.insert(number, round.clone());
        self.in_creation
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .entry(event_id.clone())
            .or_default()
            .insert(number);
        Ok(RoundOpening::Opened)
    }

    async fn teams(&self, event_id: &EventId) -> Result<Option<StoredTeams>, StoreError> {
        Ok(self
            .teams
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(event_id)
            .cloned())
    }

    async fn put_teams(
        &self,
        event_id: &EventId,
        expected: u64,
        teams: &StoredTeams,
        before_rounds: bool,
    ) -> Result<TeamsWrite, StoreError> {
        super::check_next(expected, teams.version)?;
        // The rounds, then the teams: the order `open_round` takes them in.
        let rounds = self
            .rounds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut registered = self
            .teams
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let current = registered.get(event_id).map_or(0, |stored| stored.version);
        if current != expected {
            return Ok(TeamsWrite::Conflict);
        }
        if before_rounds && rounds.get(event_id).is_some_and(|event| !event.is_empty()) {
            return Ok(TeamsWrite::RoundsExist);
        }
        registered.insert(event_id.clone(), teams.clone());
        Ok(TeamsWrite::Written)
    }

    async fn rounds_in_creation(&self, event_id: &EventId) -> Result<Vec<u32>, StoreError> {
        Ok(self
            .in_creation
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(event_id)
            .map(|rounds| rounds.iter().copied().collect())
            .unwrap_or_default())
    }

    async fn round_created(&self, event_id: &EventId, number: u32) -> Result<(), StoreError> {
        if let Some(rounds) = self
            .in_creation
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get_mut(event_id)
        {
            rounds.remove(&number);
        }
        Ok(())
    }

    async fn round_summaries(
        &self,
        event_id: &EventId,
        limit: usize,
    ) -> Result<Vec<(u32, Vec<u8>)>, StoreError> {
        let rounds = self
            .rounds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(rounds
            .get(event_id)
            .map(|event| {
                event
                    .iter()
                    .take(limit)
                    .map(|(number, round)| (*number, round.summary.clone()))
                    .collect()
            })
            .unwrap_or_default())
    }
}

#[async_trait]
impl Deadlines for MemoryStore {
    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<GameId>, StoreError> {
        Ok(self
            .lock()
            .deadlines
            .by_time
            .iter()
            .take_while(|(at, _)| *at <= now)
            .take(limit)
            .map(|(_, id)| id.clone())
            .collect())
    }

    async fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError> {
        Ok(self.lock().deadlines.by_time.first().map(|(at, _)| *at))
    }

    async fn repair_deadline(
        &self,
        id: &GameId,
        version: u64,
        deadline: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        let mut games = self.lock();
        let current = games.entries.get(id).map_or(0, |entry| entry.state.version);
        if current == version {
            games.deadlines.set(id, deadline);
        }
        Ok(())
    }
}

#[async_trait]
impl ChangeFeeds for MemoryStore {
    async fn changes(&self) -> Result<Box<dyn ChangeFeed>, StoreError> {
        Ok(Box::new(MemoryFeed(self.changes.subscribe())))
    }

    fn feed_partitions(&self) -> u32 {
        1
    }

    fn feed_partition(&self, _id: &GameId) -> u32 {
        0
    }

    async fn event_feed(
        &self,
        event_id: &EventId,
        log: EventLog,
        cursors: &[(u32, FeedPosition)],
        limit: usize,
    ) -> Result<Vec<Vec<FeedEntry>>, StoreError> {
        let games = self.lock();
        let feed = games.feeds.get(&(log, event_id.clone()));
        Ok(cursors
            .iter()
            .map(|(partition, after)| {
                let Some(feed) = feed.filter(|_| *partition == 0) else {
                    return Vec::new();
                };
                let start = usize::try_from(after.major).unwrap_or(usize::MAX);
                feed.iter()
                    .enumerate()
                    .skip(start)
                    .take(limit)
                    .filter_map(|(index, (game, version))| {
                        let entry = games.entries.get(game)?;
                        let event = if *version <= entry.archived_through() {
                            None
                        } else {
                            Some(
                                entry
                                    .events
                                    .iter()
                                    .find(|logged| logged.version == *version)?
                                    .clone(),
                            )
                        };
                        Some(FeedEntry {
                            position: FeedPosition {
                                major: index as u64 + 1,
                                minor: 0,
                            },
                            game: game.clone(),
                            version: *version,
                            event,
                        })
                    })
                    .collect()
            })
            .collect())
    }
}

/// The announcements of a memory store.
struct MemoryFeed(broadcast::Receiver<Change>);

#[async_trait]
impl ChangeFeed for MemoryFeed {
    async fn next(&mut self) -> Result<Change, StoreError> {
        match self.0.recv().await {
            Ok(change) => Ok(change),
            Err(broadcast::error::RecvError::Lagged(missed)) => Err(StoreError::Unavailable(
                format!("{missed} commit announcements were missed"),
            )),
            Err(broadcast::error::RecvError::Closed) => Err(StoreError::Unavailable(
                "the store announces no more commits".to_owned(),
            )),
        }
    }
}

#[async_trait]
impl Credentials for MemoryStore {
    async fn add_credential(
        &self,
        id: &CredentialId,
        record: &[u8],
        max: usize,
        change: CredentialLogEntry<'_>,
    ) -> Result<CredentialAdded, StoreError> {
        let mut credentials = self.credentials();
        if let Some(existing) = credentials.records.get(id) {
            return Ok(CredentialAdded::Exists(existing.clone()));
        }
        if credentials.records.len() >= max {
            return Ok(CredentialAdded::Full);
        }
        credentials.records.insert(id.clone(), record.to_vec());
        credentials.log(change);
        Ok(CredentialAdded::Added)
    }

    async fn credential(
        &self,
        id: &CredentialId,
    ) -> Result<(Option<Vec<u8>>, Timestamp), StoreError> {
        Ok((self.credentials().records.get(id).cloned(), system_now()))
    }

    async fn replace_credential(
        &self,
        id: &CredentialId,
        (expected, record): (&[u8], &[u8]),
        change: CredentialLogEntry<'_>,
    ) -> Result<bool, StoreError> {
        let mut credentials = self.credentials();
        let Some(stored) = credentials.records.get_mut(id) else {
            return Ok(false);
        };
        if stored.as_slice() != expected {
            return Ok(false);
        }
        *stored = record.to_vec();
        credentials.log(change);
        Ok(true)
    }

    async fn credentials(
        &self,
        after: Option<&CredentialId>,
        limit: usize,
    ) -> Result<Vec<(CredentialId, Vec<u8>)>, StoreError> {
        use std::ops::Bound;
        let credentials = self.credentials();
        let from = after.map_or(Bound::Unbounded, |after| Bound::Excluded(after.clone()));
        Ok(credentials
            .records
            .range((from, Bound::Unbounded))
            .take(limit)
            .map(|(id, record)| (id.clone(), record.clone()))
            .collect())
    }

    async fn credential_log(
        &self,
        event: Option<&EventId>,
        after: FeedPosition,
        limit: usize,
    ) -> Result<Vec<(FeedPosition, Vec<u8>)>, StoreError> {
        // An entry's position is its index plus one, as in the events' feeds.
        let credentials = self.credentials();
        let skip = usize::try_from(after.major).unwrap_or(usize::MAX);
        Ok(credentials
            .logs
            .get(&event.cloned())
            .map(|log| {
                log.iter()
                    .enumerate()
                    .skip(skip)
                    .take(limit)
                    .map(|(index, entry)| {
                        let position = FeedPosition {
                            major: index as u64 + 1,
                            minor: 0,
                        };
                        (position, entry.clone())
                    })
                    .collect()
            })
            .unwrap_or_default())
    }
}

#[async_trait]
impl Signals for MemoryStore {
    async fn add_signal(
        &self,
        id: &GameId,
        entry: &[u8],
        repeat_key: &[u8],
        (group, max): (&[u8], usize),
    ) -> Result<SignalAdded, StoreError> {
        let mut signals = self
            .signals
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let entries = signals.entry(id.clone()).or_default();
        let of_group: Vec<&Vec<u8>> = entries.iter().filter(|e| e.starts_with(group)).collect();
        if of_group
            .last()
            .is_some_and(|latest| latest.starts_with(repeat_key))
        {
            return Ok(SignalAdded::Repeat);
        }
        if of_group.len() >= max {
            return Ok(SignalAdded::Full);
        }
        entries.push(entry.to_vec());
        Ok(SignalAdded::Added(entries.len()))
    }

    async fn signals(&self, id: &GameId, max: usize) -> Result<Vec<Vec<u8>>, StoreError> {
        let signals = self
            .signals
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        Ok(signals
            .get(id)
            .map(|entries| entries.iter().take(max).cloned().collect())
            .unwrap_or_default())
    }
}
