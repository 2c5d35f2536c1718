//! Persistence of games: a state per game and its append-only event log.
//!
//! The store knows nothing about chess. A game is an opaque state blob with a
//! version, plus a log of opaque events numbered by version. The one write,
//! [`GameLog::commit`], is an atomic compare-and-set of the version that
//! writes the state and appends the events together, so the state and the
//! log never disagree and a version is committed at most once. Once a game
//! is over, [`GameLog::archive`] replaces the start of its log with one
//! opaque record (the codec's compact archive), under the same
//! compare-and-set; reads return that archive with the entries after it.
//!
//! - [`GameStore`] is seven traits: [`GameLog`], [`EventIndex`],
//!   [`Deadlines`], [`ChangeFeeds`], [`Rounds`], [`Credentials`] and
//!   [`Signals`] (the games' fair-play signals); [`StoreParts`]
//!   (`parts`) assembles a store from parts, so a wrapper implements only
//!   what it changes.
//! - `corruption`: why stored data cannot be used ([`Corruption`]).
//! - `redis`: the production store ([`RedisStore`]); `memory`: the
//!   embedded one ([`MemoryStore`]); `metered`: any store, with its
//!   latencies and failures recorded ([`MeteredStore`]).

mod corruption;
mod memory;
mod metered;
mod parts;
mod redis;

use async_trait::async_trait;
use thiserror::Error;

pub use self::corruption::Corruption;
pub use self::memory::MemoryStore;
pub use self::metered::MeteredStore;
pub use self::parts::StoreParts;

pub use self::redis::{RedisConfig, RedisStore, RedisTls, WaitForReplicas};
use crate::domain::{EventId, GameId, Timestamp, access::CredentialId};

/// A game's state as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredState {
    /// The version of the game's latest event.
    pub version: u64,
    /// The encoded state.
    pub bytes: Vec<u8>,
}

/// One entry of a game's event log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEvent {
    /// The version the event produced (1, 2, 3, … with no gap).
    pub version: u64,
    /// The encoded event.
    pub bytes: Vec<u8>,
}

/// The archived start of a game's log: versions 1 to `through` in one
/// record, kept as it was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredArchive {
    /// The last version the archive holds.
    pub through: u64,
    /// The encoded archive.
    pub bytes: Vec<u8>,
}

/// What a read of a game's log found: the archive, when the read reaches
/// into the archived versions, then entries after it in version order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogRead {
    /// The archive, when some of the versions asked for are in it.
    pub archive: Option<StoredArchive>,
    /// Entries after the archive (or after the version asked for).
    pub events: Vec<StoredEvent>,
}

/// One atomic write: if the game's stored version is `expected` (0: the
/// game must not exist), its state becomes `state`, `events` are appended,
/// and the deadline index records `deadline` for it (or forgets it), all
/// together or not at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    /// The version the decision was taken on.
    pub expected: u64,
    /// The new state.
    pub state: StoredState,
    /// The events, versions `expected + 1` to `state.version`.
    pub events: Vec<StoredEvent>,
    /// When the game next needs the sweeper (a flag or a default time);
    /// `None` when time can no longer end it.
    pub deadline: Option<Timestamp>,
    /// The tournament event the game belongs to, if any: the events are
    /// also recorded in that event's feed (see [`ChangeFeeds::event_feed`]).
    pub event: Option<EventId>,
    /// The versions among `events` that are administrative acts: with an
    /// `event`, they are also recorded in that event's audit log.
    pub audited: Vec<u64>,
}

/// One of the two logs every tournament event has, each partitioned like
/// the other and written by the commits of its games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventLog {
    /// Every event of every game.
    Feed,
    /// The administrative acts among them (a commit's `audited` events).
    Audit,
}

/// A position in one partition of an event's feed; positions only grow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FeedPosition {
    /// The major part (Redis: the stream entry's milliseconds).
    pub major: u64,
    /// The minor part (Redis: the entry's sequence number).
    pub minor: u64,
}

/// One entry of an event's feed: an event of one of its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeedEntry {
    /// Where the entry is in its partition.
    pub position: FeedPosition,
    /// The game.
    pub game: GameId,
    /// The version of the game's event.
    pub version: u64,
    /// The game's event, or `None` when it is in the game's archive (read
    /// the game's log for it).
    pub event: Option<StoredEvent>,
}

/// A game's place in its event's list: round, board, then game id.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventPosition {
    /// The round (0 when none).
    pub round: u32,
    /// The board (0 when none).
    pub board: u32,
    /// The game.
    pub game: GameId,
}

impl EventPosition {
    /// A position just before every game of round `round` (none for round
    /// 0, the first of the list): after the last place round `round - 1`
    /// can hold, the highest board and the highest game id.
    pub fn before_round(round: u32) -> Option<Self> {
        let previous = round.checked_sub(1)?;
        let last = "z".repeat(GameId::MAX_LEN);
        Some(Self {
            round: previous,
            board: u32::MAX,
            game: GameId::parse(&last).ok()?,
        })
    }
}

/// What a commit did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitOutcome {
    /// The state was written and the events appended.
    Committed,
    /// Another writer got there first: the game is at `current` (0 when it
    /// does not exist), and nothing was written.
    Conflict {
        /// The stored version.
        current: u64,
    },
}

/// Why the store could not serve a request.
#[derive(Clone, Debug, Error)]
pub enum StoreError {
    /// The backing service cannot be reached or did not answer in time.
    /// The text is for the server's log (it may name addresses): clients
    /// are told only that storage is unavailable.
    #[error("storage unavailable: {0}")]
    Unavailable(String),
    /// A commit reached fewer replicas than required in time: it is on the
    /// primary, and a retry is acknowledged once the replicas have it.
    #[error(
        "storage unavailable: the commit reached {confirmed} of the {required} replicas required \
         within {timeout_ms} ms; it is on the primary but could be lost in a failover, so retry"
    )]
    NotReplicated {
        /// Replicas that confirmed it.
        confirmed: i64,
        /// Replicas required.
        required: u32,
        /// How long it waited for them.
        timeout_ms: u32,
    },
    /// Stored data is not in the expected shape.
    #[error("stored data is corrupt: {0}")]
    Corrupt(Corruption),
}

/// Checks that a commit's events number exactly the versions from
/// `expected + 1` to the new state's version, so that no store can be asked
/// to write a state its log does not explain.
fn check_commit(commit: &Commit) -> Result<(), StoreError> {
    let Commit {
        expected,
        state,
        events,
        ..
    } = commit;
    let expected = *expected;
    let contiguous = events
        .iter()
        .enumerate()
        .all(|(i, event)| event.version == expected + 1 + i as u64);
    let audited_logged = commit
        .audited
        .iter()
        .all(|version| (expected + 1..=state.version).contains(version));
    if events.is_empty()
        || !contiguous
        || !audited_logged
        || state.version != expected + events.len() as u64
    {
        return Err(StoreError::Corrupt(Corruption::CommitNotContiguous {
            expected,
            to: state.version,
            events: events.iter().map(|e| e.version).collect(),
        }));
    }
    Ok(())
}

/// Checks that a round write carries the version after the one it
/// expects, so that no store stores a version twice or skips one.
fn check_round(expected: u64, round: &StoredRound) -> Result<(), StoreError> {
    check_next(expected, round.version)
}

/// Refuses a write at `version` over one at `expected` unless it is the
/// next.
fn check_next(expected: u64, version: u64) -> Result<(), StoreError> {
    if expected.checked_add(1) != Some(version) {
        return Err(StoreError::Corrupt(Corruption::RoundVersionNotNext {
            expected,
            version,
        }));
    }
    Ok(())
}

/// The persistence of games, in seven parts that a wrapper can take one at
/// a time (see [`StoreParts`]). Both implementations pass the same
/// behavioural test suite.
pub trait GameStore:
    GameLog + EventIndex + Deadlines + ChangeFeeds + Rounds + Credentials + Signals
{
}

impl<T: GameLog + EventIndex + Deadlines + ChangeFeeds + Rounds + Credentials + Signals + ?Sized>
    GameStore for T
{
}

/// What [`Signals::add_signal`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignalAdded {
    /// The entry is written; the game holds this many now.
    Added(usize),
    /// The game's latest entry starts with the same key: nothing was
    /// written.
    Repeat,
    /// The group holds as many entries as it may: nothing was written.
    Full,
}

/// Each game's fair-play signals: a list of opaque entries beside the
/// game (in its slot), appended one at a time.
#[async_trait]
pub trait Signals: Send + Sync + 'static {
    /// Appends `entry` to game `id`'s signals, unless the latest entry of
    /// its group (the entries that start with `group`) starts with
    /// `repeat_key`, or the group holds `max` entries, checked and written
    /// together.
    async fn add_signal(
        &self,
        id: &GameId,
        entry: &[u8],
        repeat_key: &[u8],
        limit: (&[u8], usize),
    ) -> Result<SignalAdded, StoreError>;

    /// Game `id`'s signals in the order they were added, at most `max`.
    async fn signals(&self, id: &GameId, max: usize) -> Result<Vec<Vec<u8>>, StoreError>;
}

/// What [`Credentials::add_credential`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CredentialAdded {
    /// The record is written.
    Added,
    /// A record of that id exists (here as stored): nothing was written.
    Exists(Vec<u8>),
    /// The store holds as many credentials as it may: nothing was written.
    Full,
}

/// A change to append to a credentials' log in the same write as the
/// record it changes: the log of the event the credential is confined to,
/// or the platform's (`event: None`) for one of every event.
#[derive(Clone, Copy, Debug)]
pub struct CredentialLogEntry<'a> {
    /// Whose log.
    pub event: Option<&'a EventId>,
    /// The entry, opaque.
    pub entry: &'a [u8],
}

/// The credentials' records, opaque, by their identifiers, and the logs of
/// their changes.
#[async_trait]
pub trait Credentials: Send + Sync + 'static {
    /// Writes credential `id`'s record, unless one of that id exists or
    /// `max` others are stored, checked and written together; with the
    /// record, appends `change` to its log.
    async fn add_credential(
        &self,
        id: &CredentialId,
        record: &[u8],
        max: usize,
        change: CredentialLogEntry<'_>,
    ) -> Result<CredentialAdded, StoreError>;

    /// Credential `id`'s record, if any, and the current time, read
    /// together.
    async fn credential(
        &self,
        id: &CredentialId,
    ) -> Result<(Option<Vec<u8>>, Timestamp), StoreError>;

    /// Replaces credential `id`'s record, when it is `expected`, with
    /// `record`, and appends `change` to its log; `false`, writing
    /// nothing, when it has none or another (a compare-and-set, so that of
    /// two racing changes one is written).
    async fn replace_credential(
        &self,
        id: &CredentialId,
        records: (&[u8], &[u8]),
        change: CredentialLogEntry<'_>,
    ) -> Result<bool, StoreError>;

    /// Up to `limit` entries of the credentials' log of `event` (`None`:
    /// the platform's), after `after` (from the start when it is the
    /// default position), each with its position, in the order appended.
    async fn credential_log(
        &self,
        event: Option<&EventId>,
        after: FeedPosition,
        limit: usize,
    ) -> Result<Vec<(FeedPosition, Vec<u8>)>, StoreError>;

    /// Up to `limit` records in the order of their ids, after `after`
    /// (from the first when `None`).
    async fn credentials(
        &self,
        after: Option<&CredentialId>,
        limit: usize,
    ) -> Result<Vec<(CredentialId, Vec<u8>)>, StoreError>;
}

/// Each game's state and event log: the reads, the one atomic commit,
/// and the archive that replaces an ended game's log.
#[async_trait]
pub trait GameLog: Send + Sync + 'static {
    /// The current time, from the one clock every replica shares.
    async fn now(&self) -> Result<Timestamp, StoreError>;

    /// A game's state (if it exists) and the current time, read together.
    async fn load(&self, id: &GameId) -> Result<(Option<StoredState>, Timestamp), StoreError>;

    /// Several games' states (each if it exists) and the current time, read
    /// together: one round trip for a whole page of an event.
    async fn load_many(
        &self,
        ids: &[GameId],
    ) -> Result<(Vec<Option<StoredState>>, Timestamp), StoreError> {
        let mut states = Vec::with_capacity(ids.len());
        let mut now = self.now().await?;
        for id in ids {
            let (state, at) = self.load(id).await?;
            states.push(state);
            now = at;
        }
        Ok((states, now))
    }

    /// Applies `commit` atomically (see [`Commit`]), or reports the
    /// conflict and writes nothing.
    async fn commit(&self, id: &GameId, commit: Commit) -> Result<CommitOutcome, StoreError>;

    /// Makes what the store holds of game `id` as safe as a commit would
    /// make it (with Redis `WAIT`: on the replicas), before a command found
    /// already applied is acknowledged: the first attempt's commit may have
    /// been answered unavailable because it was not replicated yet.
    async fn confirm_durable(&self, id: &GameId) -> Result<(), StoreError> {
        let _ = id;
        Ok(())
    }

    /// Every event with a version greater than `after`: the archive when
    /// it holds some of them, then the entries after it.
    async fn events_after(&self, id: &GameId, after: u64) -> Result<LogRead, StoreError>;

    /// The events with a version greater than `after`, at most `limit`
    /// entries: the archive when it holds some of them (whole: the caller
    /// takes what it needs), then at most `limit` entries after it.
    async fn events_page(
        &self,
        id: &GameId,
        after: u64,
        limit: usize,
    ) -> Result<LogRead, StoreError>;

    /// For each `(game, after)`, [`GameLog::events_page`]: several games'
    /// logs read at once, in bounded pages.
    async fn events_after_many(
        &self,
        cursors: &[(GameId, u64)],
        limit: usize,
    ) -> Result<Vec<LogRead>, StoreError> {
        let mut all = Vec::with_capacity(cursors.len());
        for (id, after) in cursors {
            all.push(self.events_page(id, *after, limit).await?);
        }
        Ok(all)
    }

    /// If game `id` is stored at version `archive.through`, keeps `archive`
    /// in place of its log (the entries and any earlier archive) and
    /// removes its deadline entry; `false`, writing nothing, when the game
    /// has moved on (or does not exist).
    async fn archive(&self, id: &GameId, archive: StoredArchive) -> Result<bool, StoreError>;

    /// Checks that the store can be reached and accepts writes, as a commit
    /// needs.
    async fn ping(&self) -> Result<(), StoreError>;
}

/// Each tournament event's list of its games, by round and board.
#[async_trait]
pub trait EventIndex: Send + Sync + 'static {
    /// Adds a game to event `event_id`'s list at `position` (idempotent),
    /// ordered by round, board and id, unless the list already holds
    /// `max_entries` others: then `false`, and nothing is written. Done
    /// before the game's creation is committed, so a listing may name a
    /// game that does not exist (yet), or, after a refused creation, one
    /// that belongs elsewhere: readers keep only a game listed at its own
    /// pairing.
    async fn add_to_event(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<bool, StoreError>;

    /// Lists a game made outside any round's record (`CreateGame`) at
    /// `position`, as [`EventIndex::add_to_event`] does, unless the list
    /// already holds `max_entries` others ([`Listing::Full`]) or the event
    /// has a record of round `position.round` ([`Listing::RoundRecorded`]:
    /// that round's games are its record's), checked and written together,
    /// so that a round and a game made beside it never both take a board.
    async fn list_outside_rounds(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<Listing, StoreError>;

    /// Up to `limit` of the event's games in order, after `after` (from the
    /// start when `None`): a position in the list stays valid whatever is
    /// added to it.
    async fn event_games(
        &self,
        event_id: &EventId,
        after: Option<&EventPosition>,
        limit: usize,
    ) -> Result<Vec<EventPosition>, StoreError>;
}

/// A round's record as stored: opaque bytes with a version, and a short
/// summary of it that event-wide reads (standings, exports) take for every
/// round at once without reading whole records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRound {
    /// 1 when created, one more with every update.
    pub version: u64,
    /// The encoded record.
    pub bytes: Vec<u8>,
    /// The encoded summary.
    pub summary: Vec<u8>,
}

/// What [`EventIndex::list_outside_rounds`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listing {
    /// The game is listed (it was already, or now is).
    Listed,
    /// The list is full: nothing was written.
    Full,
    /// The event has a record of the game's round: nothing was written.
    RoundRecorded,
}

/// What [`Rounds::open_round`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundOpening {
    /// The round's record is written, at version 1.
    Opened,
    /// The round has a record already: nothing was written.
    Exists,
    /// The event lists games in the round (made outside any record):
    /// nothing was written.
    RoundHasGames,
    /// The event's list could not take the round's games within its
    /// limit: nothing was written.
    EventFull,
    /// The event's team registration is not at the version the round was
    /// planned from: nothing was written.
    TeamsChanged,
}

/// An event's team registration as stored: opaque bytes with a version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredTeams {
    /// 1 when first registered, one more with every change.
    pub version: u64,
    /// The encoded registration.
    pub bytes: Vec<u8>,
}

/// What [`Rounds::put_teams`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeamsWrite {
    /// The registration is written.
    Written,
    /// The registration is at another version: nothing was written.
    Conflict,
    /// The write was to be made only while the event has no round, and it
    /// has one: nothing was written.
    RoundsExist,
}

/// Each tournament event's round records, one per round number, all of an
/// event's in one place (on Redis Cluster: one hash slot, the event's).
#[async_trait]
pub trait Rounds: Send + Sync + 'static {
    /// Round `number` of event `event_id`, if it has a record.
    async fn round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<Option<StoredRound>, StoreError>;

    /// Writes `round` (record and summary together) as round `number` of
    /// event `event_id` if the stored record is at version `expected` (0:
    /// there is none); `round.version` must be `expected + 1`. `false`,
    /// writing nothing, when another writer got there first.
    async fn put_round(
        &self,
        event_id: &EventId,
        number: u32,
        expected: u64,
        round: &StoredRound,
    ) -> Result<bool, StoreError>;

    /// Opens round `number` of event `event_id`: writes its first record
    /// (`round.version` must be 1), lists its games at `listings` and
    /// marks the round in creation (see [`Rounds::rounds_in_creation`]),
    /// unless the round has a record already ([`RoundOpening::Exists`]),
    /// the event lists a game in that round other than those of `ignoring`
    /// (listings whose games the caller found missing or elsewhere:
    /// [`RoundOpening::RoundHasGames`]), or the list cannot take the
    /// round's games within `max_event_games` ([`RoundOpening::EventFull`]).
    /// A round of team matches, planned from the event's team registration
    /// at version `teams`, is refused ([`RoundOpening::TeamsChanged`])
    /// when the registration is at another. All checked and written
    /// together, so that a round never shares its boards with games made
    /// beside it, a full event refuses it before any game exists, and its
    /// line-ups are those of the registration it opens under, whatever
    /// else is being created at once.
    #[allow(clippy::too_many_arguments)]
    async fn open_round(
        &self,
        event_id: &EventId,
        number: u32,
        round: &StoredRound,
        listings: &[EventPosition],
        max_event_games: usize,
        ignoring: &[EventPosition],
        teams: Option<u64>,
    ) -> Result<RoundOpening, StoreError>;

    /// The team registration of event `event_id`, if it has one.
    async fn teams(&self, event_id: &EventId) -> Result<Option<StoredTeams>, StoreError>;

    /// Writes `teams` as event `event_id`'s team registration if the
    /// stored one is at version `expected` (0: there is none);
    /// `teams.version` must be `expected + 1`. With `before_rounds`, only
    /// while the event has no round record, checked in the same step.
    async fn put_teams(
        &self,
        event_id: &EventId,
        expected: u64,
        teams: &StoredTeams,
        before_rounds: bool,
    ) -> Result<TeamsWrite, StoreError>;

    /// The rounds of event `event_id` still in creation: opened, and not
    /// yet marked created.
    async fn rounds_in_creation(&self, event_id: &EventId) -> Result<Vec<u32>, StoreError>;

    /// Marks round `number` of event `event_id` created (every game
    /// exists); idempotent.
    async fn round_created(&self, event_id: &EventId, number: u32) -> Result<(), StoreError>;

    /// The summaries of every round of event `event_id` with a record, by
    /// round number, at most `limit` of them (the lowest numbers).
    async fn round_summaries(
        &self,
        event_id: &EventId,
        limit: usize,
    ) -> Result<Vec<(u32, Vec<u8>)>, StoreError>;
}

/// The deadline index the flag sweeper works from, and the claims that
/// let one replica, not all of them, handle a due game.
#[async_trait]
pub trait Deadlines: Send + Sync + 'static {
    /// Up to `limit` games whose recorded deadline is at or before `now`.
    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<GameId>, StoreError>;

    /// The earliest deadline recorded in the index, if any.
    async fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError>;

    /// Sets the deadline index entry of game `id` to `deadline`, but only
    /// while the game is still stored at `version` (0: while it does not
    /// exist, which with `None` removes a stray entry). The sweeper's repair for an
    /// entry that no longer matches its game; commits keep the index right
    /// by themselves.
    async fn repair_deadline(
        &self,
        id: &GameId,
        version: u64,
        deadline: Option<Timestamp>,
    ) -> Result<(), StoreError>;

    /// Claims the sweeper's work on game `id` for `for_ms` milliseconds:
    /// `true` for the first replica to ask, `false` for every other until
    /// the claim expires, so that one replica, not all of them, decides a
    /// due game (a helpmate search on a flag can take a while) or archives
    /// its log. A claim is only a saving: the compare-and-set of the
    /// commit still decides who commits. A store that serves one process
    /// grants every claim.
    async fn claim_sweep(&self, id: &GameId, for_ms: u64) -> Result<bool, StoreError> {
        let _ = (id, for_ms);
        Ok(true)
    }

    /// Releases a claim of [`Deadlines::claim_sweep`] (whoever holds it:
    /// at worst another replica handles the game too).
    async fn release_sweep(&self, id: &GameId) -> Result<(), StoreError> {
        let _ = id;
        Ok(())
    }
}

/// Announcements of commits, for waking watchers, and each tournament
/// event's feed of its games' events.
#[async_trait]
pub trait ChangeFeeds: Send + Sync + 'static {
    /// Announcements of every commit from now on, for waking watchers.
    async fn changes(&self) -> Result<Box<dyn ChangeFeed>, StoreError>;

    /// How many partitions every event's feed has.
    fn feed_partitions(&self) -> u32;

    /// The partition of an event's feed that game `id`'s events go to.
    fn feed_partition(&self, id: &GameId) -> u32;

    /// For each `(partition, after)`, at most `limit` entries of event
    /// `event_id`'s log `log` after `after`, in order: each game's events
    /// in version order, games interleaved as they were committed.
    async fn event_feed(
        &self,
        event_id: &EventId,
        log: EventLog,
        cursors: &[(u32, FeedPosition)],
        limit: usize,
    ) -> Result<Vec<Vec<FeedEntry>>, StoreError>;
}

/// A commit, as announced: game `game` is now at `version`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The game.
    pub game: GameId,
    /// Its version after the commit.
    pub version: u64,
    /// The tournament event whose feed the commit added to, if any.
    pub event: Option<EventId>,
    /// When the game next needs the sweeper, as the commit recorded it.
    pub deadline: Option<Timestamp>,
}

/// Announcements of commits, each game's in the order of its commits
/// (games on different nodes of a cluster may interleave otherwise). Best
/// effort: the log stays the truth, and announcements made while a feed
/// was broken are not repeated, so a reader that gets an error reads the
/// logs it follows again.
#[async_trait]
pub trait ChangeFeed: Send {
    /// The next announcement, waiting for it. An error means the feed is
    /// broken and announcements may have been missed: ask the store for a
    /// new feed.
    async fn next(&mut self) -> Result<Change, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(round: u32, board: u32, game: &str) -> EventPosition {
        EventPosition {
            round,
            board,
            game: GameId::parse(game).unwrap(),
        }
    }

    #[test]
    fn a_round_starts_after_every_place_of_the_round_before() {
        assert_eq!(EventPosition::before_round(0), None);
        let start = EventPosition::before_round(3).unwrap();
        for earlier in [at(2, u32::MAX, "zzzz"), at(2, 7, "z"), at(0, 0, "a")] {
            assert!(earlier < start, "{earlier:?}");
        }
        for later in [at(3, 0, "0"), at(3, 0, "-"), at(3, 1, "a"), at(4, 0, "a")] {
            assert!(later > start, "{later:?}");
        }
    }
}
