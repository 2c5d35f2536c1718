//! Following every game of an event in one stream, for dashboards and
//! broadcasts: each game's events exactly once and in order, resumable from
//! an opaque cursor of bounded size: a position in each partition of the
//! event's feed (at most one per partition, whatever the event's size).
//!
//! A watcher catches up from the store in bounded pages, then takes the
//! entries the replica's follower of the event broadcasts (see
//! [`hub`](super::hub)), so an idle event costs no reads and a move costs
//! the same whatever the number of watchers.
//!
//! A public watcher (anyone but the admin) holds each event of a game with
//! a broadcast delay until the delay has passed since the event's time;
//! what follows it in the same feed partition waits behind it, so the
//! cursor never passes an event not yet sent.

use std::{
    collections::{BTreeMap, BTreeSet, HashMap, VecDeque},
    sync::Arc,
    time::Duration,
};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use tokio::{
    sync::broadcast::{self, error::RecvError},
    time::Instant,
};
use tokio_util::sync::CancellationToken;

use super::{Encoded, EventItem, FeedItem, WatchContext, timer::Timer};
use crate::{
    arbiter::{ArbiterError, MatchScoreRead, Placement, Reader},
    domain::{
        EventId, EventKind, FieldError, GameEvent, GameId, Rejection, Timestamp,
        stored::packed::{self, Writer},
    },
    store::{EventLog, FeedPosition, StoreError},
};

/// Games whose placement (broadcast delay, round) a watcher remembers; it
/// forgets them all beyond this (and reads them again when it needs to).
const REMEMBERED_PLACEMENTS: usize = 4096;

/// Pages of every partition read per catch-up step: a watcher catching up
/// on a long event does so in bounded pieces (at most this many pages of
/// 64 entries per partition).
const CATCH_UP_PAGES: usize = 1;

/// One event of one game, a team match's score after it, or a heartbeat,
/// with the cursor to resume after it.
#[derive(Clone, Debug)]
pub struct EventUpdate {
    /// The game, its event and the event's bytes (shared by the streams
    /// of this replica that send it); `None` for a heartbeat or a match's
    /// score.
    pub event: Option<(GameId, Arc<GameEvent>, Arc<Encoded>)>,
    /// The score of a registered teams' match, after the event of one of
    /// its games that decided a board.
    pub match_score: Option<MatchScoreRead>,
    /// The server time of a heartbeat (of the event for an event).
    pub at: Timestamp,
    /// Resume after this update by passing it back.
    pub cursor: String,
}

/// Whether `event` decides a board of a match: a game's end, a result set
/// or corrected, an abort.
fn decides_a_board(event: &GameEvent) -> bool {
    matches!(
        event.kind,
        EventKind::GameEnded { .. } | EventKind::ResultSet { .. } | EventKind::GameAborted { .. }
    )
}

/// A watcher's position in an event's feed.
pub struct EventWatcher {
    ctx: WatchContext,
    event_id: EventId,
    /// The position delivered, per partition, as the cursor says it.
    delivered: BTreeMap<u32, FeedPosition>,
    /// The position queued, per partition (ahead of `delivered` by what is
    /// pending).
    queued: BTreeMap<u32, FeedPosition>,
    pending: VecDeque<FeedItem>,
    /// The follower's entries, once caught up.
    entries: Option<broadcast::Receiver<Arc<EventItem>>>,
    /// How long the stream may stay silent before a heartbeat.
    heartbeat: Duration,
    last_sent: Instant,
    /// Rings for the next heartbeat or release.
    timer: Timer,
    /// Whether the watcher is the public, who sees each game under its
    /// broadcast delay (the admin sees everything live).
    public: bool,
    /// Only the games of this round, if given.
    round: Option<u32>,
    /// Each game's placement (fixed when the game was created), learned as
    /// needed: its delay for a public watcher, its round for a watcher of
    /// one round.
    placements: HashMap<GameId, Placement>,
    /// A match's score to send next, after the event that changed it.
    score_next: Option<EventUpdate>,
}

impl EventWatcher {
    /// A watcher of `event_id` resuming after `cursor` (empty: from the
    /// start of the event).
    pub(in crate::arbiter) fn start(
        ctx: WatchContext,
        event_id: EventId,
        cursor: &str,
        heartbeat: Duration,
        reader: &Reader,
        round: Option<u32>,
    ) -> Result<Self, ArbiterError> {
        let delivered = decode_cursor(cursor, ctx.reads.partitions())?;
        let public = !reader.sees_event_live(Some(&event_id));
        Ok(Self {
            ctx,
            event_id,
            queued: delivered.clone(),
            delivered,
            pending: VecDeque::new(),
            entries: None,
            heartbeat,
            last_sent: Instant::now(),
            timer: Timer::new(),
            public,
            round,
            placements: HashMap::new(),
            score_next: None,
        })
    }

    /// The next update, waiting for one if need be; the stream has no end of
    /// its own, since an event may gain games at any time.
    pub async fn next(
        &mut self,
        shutdown: &CancellationToken,
    ) -> Result<EventUpdate, ArbiterError> {
        if let Some(score) = self.score_next.take() {
            return Ok(score);
        }
        loop {
            let (due, until_release) = self.next_due().await?;
            if let Some(item) = due.and_then(|index| self.pending.remove(index)) {
                self.delivered.insert(item.partition, item.position);
                if self.round.is_some_and(|round| {
                    self.placements.get(&item.game).map(|p| p.round) != Some(round)
                }) {
                    // A game of another round: passed over, the cursor
                    // moving on past it.
                    continue;
                }
                self.last_sent = Instant::now();
                let cursor = encode_cursor(&self.delivered);
                // A score follows an event as it happens, not one a stream
                // catches up on (the score is the match's now).
                if item.live && decides_a_board(&item.event) {
                    self.score_next = self.score_after(&item.game, &item.event, &cursor).await;
                }
                return Ok(EventUpdate {
                    cursor,
                    at: item.event.at,
                    event: Some((item.game, item.event, item.encoded)),
                    match_score: None,
                });
            }
            let quiet = self.last_sent.elapsed();
            if quiet >= self.heartbeat {
                self.last_sent = Instant::now();
                match self.ctx.clock.now().await {
                    Ok(at) => {
                        return Ok(EventUpdate {
                            event: None,
                            match_score: None,
                            at,
                            cursor: encode_cursor(&self.delivered),
                        });
                    }
                    // A stalled store skips a heartbeat, not the stream
                    // (the event's follower retries its reads).
                    Err(StoreError::Unavailable(_) | StoreError::NotReplicated { .. }) => continue,
                    Err(err) => return Err(err.into()),
                }
            }
            let Some(entries) = self.entries.as_mut() else {
                // Catching up reads the store page after page: a shutdown
                // ends it between pages.
                if shutdown.is_cancelled() {
                    return Err(ArbiterError::ShuttingDown);
                }
                self.catch_up().await?;
                continue;
            };
            let wait = until_release.map_or(self.heartbeat - quiet, |release| {
                release.min(self.heartbeat - quiet)
            });
            self.timer.set(Instant::now() + wait);
            // An entry already received is taken without looking at the
            // shutdown token (which takes its lock): a stream that is behind
            // the follower sees the shutdown once it has taken what the
            // hub's buffer holds for it.
            let received = tokio::select! {
                biased;
                received = entries.recv() => Some(received),
                () = self.timer.rung() => None,
                () = shutdown.cancelled() => return Err(ArbiterError::ShuttingDown),
            };
            match received {
                // Quiet (or woken early): the next turn sees which.
                None => {}
                Some(Ok(item)) => match item.as_ref() {
                    EventItem::Entry(entry) => self.queue(FeedItem {
                        partition: entry.partition,
                        position: entry.position,
                        game: entry.game.clone(),
                        event: entry.event.clone(),
                        encoded: entry.encoded.clone(),
                        live: true,
                    }),
                    EventItem::Failed(err) => return Err(err.clone().into()),
                },
                Some(Err(RecvError::Lagged(_))) => {
                    return Err(ArbiterError::EventWatcherTooSlow {
                        event_id: self.event_id.clone(),
                        buffer: self.ctx.hub.buffer(),
                    });
                }
                // The follower stopped: catch up from the store again.
                Some(Err(RecvError::Closed)) => self.entries = None,
            }
        }
    }

    /// The update with the score of the match `game` is a board of, to
    /// follow its `event` (with the same cursor); `None` outside a
    /// registered teams' match, or should the match not be read (the
    /// score is left out, not the stream: `GetTeamStandings` has it).
    async fn score_after(
        &self,
        game: &GameId,
        event: &GameEvent,
        cursor: &str,
    ) -> Option<EventUpdate> {
        match self
            .ctx
            .games
            .match_score(game, event.version, self.public)
            .await
        {
            Ok(score) => score.map(|score| EventUpdate {
                event: None,
                match_score: Some(score),
                at: event.at,
                cursor: cursor.to_owned(),
            }),
            Err(err) => {
                tracing::warn!(game_id = %game, error = %err, "a match's score was not read");
                None
            }
        }
    }

    /// Which queued entry to send next, if one may be sent now, and how
    /// long until the next held one may be. The admin's are sent in order
    /// at once; the public's once their game's delay has passed since their
    /// time, each partition in order (an entry waits behind a held one of
    /// its partition).
    async fn next_due(&mut self) -> Result<(Option<usize>, Option<Duration>), ArbiterError> {
        if self.pending.is_empty() {
            return Ok((None, None));
        }
        if !self.public && self.round.is_none() {
            return Ok((Some(0), None));
        }
        let unknown: Vec<GameId> = self
            .pending
            .iter()
            .filter(|item| !self.placements.contains_key(&item.game))
            .map(|item| item.game.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if !unknown.is_empty() {
            self.learn_placements(&unknown).await?;
        }
        if !self.public {
            return Ok((Some(0), None));
        }
        let now = self.ctx.clock.now().await?;
        let mut blocked = BTreeSet::new();
        let mut earliest: Option<Timestamp> = None;
        for (index, item) in self.pending.iter().enumerate() {
            if blocked.contains(&item.partition) {
                continue;
            }
            let placement = self.placements.get(&item.game).copied().unwrap_or_default();
            if self.round.is_some_and(|round| placement.round != round) {
                // Another round's event is passed over at once: it holds
                // nothing back, whatever its game's delay.
                return Ok((Some(index), None));
            }
            let delay = placement.delay;
            let release = delay.release(item.event.at);
            if release <= now {
                return Ok((Some(index), None));
            }
            blocked.insert(item.partition);
            earliest = Some(earliest.map_or(release, |known| known.min(release)));
        }
        let wait = earliest.map(|at| Duration::from_millis(at.millis_since(now)));
        Ok((None, wait))
    }

    /// Learns the placements of `games` (from the replica's, which reads a
    /// game once for all its watchers).
    async fn learn_placements(&mut self, games: &[GameId]) -> Result<(), ArbiterError> {
        let learned = self.ctx.games.placements_of(games).await?;
        if self.placements.len() + learned.len() > REMEMBERED_PLACEMENTS {
            self.placements.clear();
        }
        self.placements.extend(learned);
        Ok(())
    }

    /// Reads the next pages of every partition after what is queued; once
    /// nothing more is there, subscribes to the event's follower and reads
    /// once more, so that nothing committed meanwhile falls between.
    async fn catch_up(&mut self) -> Result<(), ArbiterError> {
        let hub = self.ctx.hub.clone();
        let _turn = hub.catch_up_turn().await;
        let reads = self.ctx.reads.clone();
        let partitions = 0..reads.partitions();
        let (items, complete) = reads
            .read_feed(
                &self.event_id,
                EventLog::Feed,
                &self.queued,
                partitions.clone(),
                CATCH_UP_PAGES,
            )
            .await?;
        self.queue_all(items);
        if complete {
            let entries = self.ctx.hub.subscribe_event(&self.event_id, &self.queued);
            let (items, _) = reads
                .read_feed(
                    &self.event_id,
                    EventLog::Feed,
                    &self.queued,
                    partitions,
                    usize::MAX,
                )
                .await?;
            self.queue_all(items);
            self.entries = Some(entries);
        }
        Ok(())
    }

    /// Queues entries of several partitions in the order they were
    /// committed (positions are comparable across partitions only roughly:
    /// each game's own events stay in order).
    fn queue_all(&mut self, mut items: Vec<FeedItem>) {
        items.sort_by_key(|item| item.position);
        for item in items {
            self.queue(item);
        }
    }

    /// Queues an entry unless it is not after what is queued in its
    /// partition.
    fn queue(&mut self, item: FeedItem) {
        let queued = self.queued.entry(item.partition).or_default();
        if item.position > *queued {
            *queued = item.position;
            self.pending.push_back(item);
        }
    }
}

fn invalid_cursor() -> ArbiterError {
    invalid_cursor_in("after_cursor")
}

fn invalid_cursor_in(field: &'static str) -> ArbiterError {
    ArbiterError::from(Rejection::InvalidField(FieldError::new(
        field,
        "is not a cursor this server issued",
    )))
}

/// A position in each partition of an event's log, from a cursor made by
/// [`encode_cursor`]; a cursor this server did not issue is refused as an
/// invalid `field`.
pub(in crate::arbiter) fn decode_cursor_in(
    cursor: &str,
    partitions: u32,
    field: &'static str,
) -> Result<BTreeMap<u32, FeedPosition>, ArbiterError> {
    decode_cursor(cursor, partitions).map_err(|_| invalid_cursor_in(field))
}

/// How the cursors this release writes start: the positions as varints.
const CURSOR: &str = "c3.";

/// How the cursors of earlier releases start, still read: the positions as
/// `partition:major-minor` lines.
const TEXT_CURSOR: &str = "c2.";

/// The cursor of `delivered`, base64url-encoded behind its format marker:
/// the earliest major as a varint, then each partition in order as three
/// varints, the partitions skipped since the one before, its major above
/// the earliest, and its minor. Majors are times in milliseconds, close to
/// each other: a whole event's cursor is a few hundred bytes.
pub(in crate::arbiter) fn encode_cursor(delivered: &BTreeMap<u32, FeedPosition>) -> String {
    let mut out = Writer::default();
    if let Some(base) = delivered.values().map(|at| at.major).min() {
        out.varint(base);
        let mut next = 0;
        for (partition, at) in delivered {
            out.varint(u64::from(partition - next));
            out.varint(at.major - base);
            out.varint(at.minor);
            next = partition + 1;
        }
    }
    let bytes = out.finish();
    let mut cursor = String::with_capacity(CURSOR.len() + bytes.len().div_ceil(3) * 4);
    cursor.push_str(CURSOR);
    URL_SAFE_NO_PAD.encode_string(bytes, &mut cursor);
    cursor
}

fn decode_cursor(
    cursor: &str,
    partitions: u32,
) -> Result<BTreeMap<u32, FeedPosition>, ArbiterError> {
    if cursor.is_empty() {
        return Ok(BTreeMap::new());
    }
    if let Some(body) = cursor.strip_prefix(CURSOR) {
        let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| invalid_cursor())?;
        return decode_positions(&bytes, partitions).ok_or_else(invalid_cursor);
    }
    let body = cursor
        .strip_prefix(TEXT_CURSOR)
        .ok_or_else(invalid_cursor)?;
    let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| invalid_cursor())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid_cursor())?;
    let mut delivered = BTreeMap::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        let (partition, at) = line.split_once(':').ok_or_else(invalid_cursor)?;
        let (major, minor) = at.split_once('-').ok_or_else(invalid_cursor)?;
        let partition = partition.parse::<u32>().map_err(|_| invalid_cursor())?;
        if partition >= partitions || delivered.contains_key(&partition) {
            return Err(invalid_cursor());
        }
        let position = FeedPosition {
            major: major.parse().map_err(|_| invalid_cursor())?,
            minor: minor.parse().map_err(|_| invalid_cursor())?,
        };
        delivered.insert(partition, position);
    }
    Ok(delivered)
}

/// The positions [`encode_cursor`] wrote in `bytes`; `None` for anything
/// it could not have written.
fn decode_positions(bytes: &[u8], partitions: u32) -> Option<BTreeMap<u32, FeedPosition>> {
    let mut delivered = BTreeMap::new();
    if bytes.is_empty() {
        return Some(delivered);
    }
    let mut input = packed::Reader::new(bytes);
    let base = input.varint().ok()?;
    let mut next = 0_u32;
    while !input.is_empty() {
        let partition = next.checked_add(input.varint32().ok()?)?;
        if partition >= partitions {
            return None;
        }
        let position = FeedPosition {
            major: base.checked_add(input.varint().ok()?)?,
            minor: input.varint().ok()?,
        };
        delivered.insert(partition, position);
        next = partition + 1;
    }
    // The earliest major is some partition's.
    delivered
        .values()
        .any(|at| at.major == base)
        .then_some(delivered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watchers_cursor_is_the_cursor_of_its_positions() {
        let mut positions = BTreeMap::new();
        positions.insert(
            5,
            FeedPosition {
                major: 17,
                minor: 2,
            },
        );
        assert_eq!(
            decode_cursor(&encode_cursor(&positions), 64).unwrap(),
            positions
        );
        for (partition, major, minor) in [(0, 9, 0), (63, 1_765_000_000_000, 7), (5, 18, 0)] {
            positions.insert(partition, FeedPosition { major, minor });
            assert_eq!(
                decode_cursor(&encode_cursor(&positions), 64).unwrap(),
                positions
            );
        }
        assert!(
            decode_cursor(&encode_cursor(&BTreeMap::new()), 64)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn cursors_round_trip_and_forgeries_are_refused() {
        let mut delivered = BTreeMap::new();
        delivered.insert(
            3,
            FeedPosition {
                major: 1_700_000_000_123,
                minor: 4,
            },
        );
        delivered.insert(63, FeedPosition { major: 9, minor: 0 });
        let cursor = encode_cursor(&delivered);
        assert!(cursor.starts_with("c3."));
        assert_eq!(decode_cursor(&cursor, 64).unwrap(), delivered);
        assert!(decode_cursor("", 64).unwrap().is_empty());
        assert!(
            decode_cursor(&encode_cursor(&BTreeMap::new()), 64)
                .unwrap()
                .is_empty()
        );
        // A cursor of the releases before reads as it did.
        let encoded = |text: &str| format!("c2.{}", URL_SAFE_NO_PAD.encode(text));
        assert_eq!(
            decode_cursor(&encoded("3:1700000000123-4\n63:9-0"), 64).unwrap(),
            delivered
        );
        let varints = |numbers: &[u64]| {
            let mut out = Writer::default();
            for number in numbers {
                out.varint(*number);
            }
            format!("c3.{}", URL_SAFE_NO_PAD.encode(out.finish()))
        };
        assert_eq!(
            decode_cursor(&varints(&[9, 3, 1_700_000_000_114, 4, 59, 0, 0]), 64).unwrap(),
            delivered
        );
        for forged in [
            "x".to_owned(),
            "c2.!!!".to_owned(),
            "c3.!!!".to_owned(),
            // A partition beyond the event's.
            varints(&[9, 64, 0, 0]),
            varints(&[9, 3, 0, 0, 60, 0, 0]),
            // A partition skipping past the largest number.
            varints(&[9, 3, 0, 0, u64::from(u32::MAX), 0, 0]),
            // A major beyond the largest number.
            varints(&[9, 3, u64::MAX, 0]),
            // An earliest major that is no partition's.
            varints(&[8, 3, 1, 0]),
            // A base and nothing else, or a position cut short.
            varints(&[9]),
            varints(&[9, 3, 0]),
            format!("c3.{}", URL_SAFE_NO_PAD.encode([0x89])),
            // A cursor of the previous format (per game).
            format!("c1.{}", URL_SAFE_NO_PAD.encode("g-1:7")),
            encoded("64:1-0"),
            encoded("3:1-0\n3:2-0"),
            encoded("3:1"),
            encoded("x:1-0"),
            encoded("3:1-x"),
        ] {
            assert!(decode_cursor(&forged, 64).is_err(), "{forged}");
        }
    }

    #[test]
    fn a_cursor_stays_small_whatever_the_event() {
        let full: BTreeMap<u32, FeedPosition> = (0..64)
            .map(|partition| {
                (
                    partition,
                    FeedPosition {
                        major: u64::from(u32::MAX) * 1000,
                        minor: 99,
                    },
                )
            })
            .collect();
        assert!(encode_cursor(&full).len() < 2_500);
        // Over a day of play, every partition's position far apart.
        let day: BTreeMap<u32, FeedPosition> = (0..64)
            .map(|partition| {
                (
                    partition,
                    FeedPosition {
                        major: 1_765_000_000_000 + u64::from(partition) * 1_350_000,
                        minor: 3,
                    },
                )
            })
            .collect();
        let cursor = encode_cursor(&day);
        assert!(cursor.len() < 600, "{} bytes", cursor.len());
        assert_eq!(decode_cursor(&cursor, 64).unwrap(), day);
    }
}
