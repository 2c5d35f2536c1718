//! Following every game of an event in one stream, for dashboards and
//! broadcasts: each game's events exactly once and in order, resumable from
//! an opaque cursor that records how far each game has been delivered.

use std::{
    collections::{BTreeMap, VecDeque},
    time::Duration,
};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use tokio_util::sync::CancellationToken;

use super::{Arbiter, ArbiterError, codec};
use tokio::time::Instant;

use crate::{
    domain::{EventId, EventKind, FieldError, GameEvent, GameId, Rejection, Timestamp},
    store::EventPosition,
};

/// How long a pass that found nothing waits before looking again.
const POLL: Duration = Duration::from_millis(200);
/// Games read per batch of the event's list.
const BATCH: usize = 500;
/// Events read per game and pass: a watcher catching up on a long event
/// reads it in bounded pieces rather than in one reply.
const EVENTS_PER_GAME: usize = 64;
/// Events queued at most before the watcher delivers them: a pass that has
/// queued this many stops, and the next one goes on from the cursor.
const MAX_PENDING: usize = 4_096;

/// One event of one game, or a heartbeat, with the cursor to resume after
/// it.
#[derive(Clone, Debug)]
pub struct EventUpdate {
    /// The game and its event; `None` for a heartbeat.
    pub event: Option<(GameId, GameEvent)>,
    /// The server time of a heartbeat (of the last read for an event).
    pub at: Timestamp,
    /// Resume after this update by passing it back.
    pub cursor: String,
}

/// A watcher's position in every game of an event.
pub struct EventWatcher {
    arbiter: Arbiter,
    event_id: EventId,
    /// The last version delivered, per game.
    delivered: BTreeMap<GameId, u64>,
    /// Where each game seen belongs in this event (`None`: elsewhere), to
    /// pass over listings that a refused or interrupted creation left.
    placed: BTreeMap<GameId, Option<(u32, u32)>>,
    pending: VecDeque<(GameId, GameEvent)>,
    /// How long the stream may stay silent before a heartbeat.
    heartbeat: Duration,
    last_sent: Instant,
}

impl EventWatcher {
    /// A watcher of `event_id` resuming after `cursor` (empty: from the
    /// start of every game).
    pub fn start(
        arbiter: Arbiter,
        event_id: EventId,
        cursor: &str,
        heartbeat: Duration,
    ) -> Result<Self, ArbiterError> {
        Ok(Self {
            arbiter,
            event_id,
            delivered: decode_cursor(cursor)?,
            placed: BTreeMap::new(),
            pending: VecDeque::new(),
            heartbeat,
            last_sent: Instant::now(),
        })
    }

    /// The next update, waiting for one if need be; the stream has no end of
    /// its own, since an event may gain games at any time.
    pub async fn next(
        &mut self,
        shutdown: &CancellationToken,
    ) -> Result<EventUpdate, ArbiterError> {
        loop {
            if let Some((game_id, event)) = self.pending.pop_front() {
                self.delivered.insert(game_id.clone(), event.version);
                self.last_sent = Instant::now();
                return Ok(EventUpdate {
                    cursor: encode_cursor(&self.delivered),
                    at: event.at,
                    event: Some((game_id, event)),
                });
            }
            if shutdown.is_cancelled() {
                return Err(ArbiterError::ShuttingDown);
            }
            if self.last_sent.elapsed() >= self.heartbeat {
                self.last_sent = Instant::now();
                return Ok(EventUpdate {
                    event: None,
                    at: self.arbiter.store.now().await?,
                    cursor: encode_cursor(&self.delivered),
                });
            }
            self.read_new().await?;
            if self.pending.is_empty() {
                tokio::select! {
                    () = shutdown.cancelled() => return Err(ArbiterError::ShuttingDown),
                    () = tokio::time::sleep(POLL) => {}
                }
            }
        }
    }

    /// Queues every event not yet delivered, game by game in round and
    /// board order.
    async fn read_new(&mut self) -> Result<(), ArbiterError> {
        let store = self.arbiter.store.clone();
        let mut after = None;
        loop {
            let listed = store
                .event_games(&self.event_id, after.as_ref(), BATCH)
                .await?;
            let exhausted = listed.len() < BATCH;
            let cursors: Vec<(GameId, u64)> = listed
                .iter()
                .map(|entry| {
                    let delivered = self.delivered.get(&entry.game).copied().unwrap_or(0);
                    (entry.game.clone(), delivered)
                })
                .collect();
            after = listed.last().cloned();
            let logs = store.events_after_many(&cursors, EVENTS_PER_GAME).await?;
            for ((entry, (id, after)), log) in listed.iter().zip(cursors).zip(logs) {
                let events = log
                    .iter()
                    .map(codec::decode_event)
                    .collect::<Result<Vec<_>, _>>()?;
                if events.is_empty() || !self.belongs(entry, &events).await? {
                    continue;
                }
                codec::check_contiguous(&id, after, &events)?;
                self.pending
                    .extend(events.into_iter().map(|event| (id.clone(), event)));
            }
            if exhausted || self.pending.len() >= MAX_PENDING {
                return Ok(());
            }
        }
    }
}

impl EventWatcher {
    /// Whether `entry` is where its game belongs in this event, learnt from
    /// the game's creation event when the watcher reads it from the start,
    /// or from the game itself when it resumes.
    async fn belongs(
        &mut self,
        entry: &EventPosition,
        events: &[GameEvent],
    ) -> Result<bool, ArbiterError> {
        if !self.placed.contains_key(&entry.game) {
            let pairing = match events.first().map(|event| &event.kind) {
                Some(EventKind::GameCreated { setup }) => setup.pairing().clone(),
                _ => match self.arbiter.load_current(&entry.game).await {
                    Ok((game, _)) => game.pairing().clone(),
                    Err(ArbiterError::NotFound(_)) => return Ok(false),
                    Err(err) => return Err(err),
                },
            };
            let place = (pairing.event_id.as_ref() == Some(&self.event_id))
                .then_some((pairing.round, pairing.board));
            self.placed.insert(entry.game.clone(), place);
        }
        Ok(self.placed.get(&entry.game) == Some(&Some((entry.round, entry.board))))
    }
}

fn invalid_cursor() -> ArbiterError {
    ArbiterError::from(Rejection::InvalidField(FieldError::new(
        "after_cursor",
        "is not a cursor this server issued",
    )))
}

/// `game:version` lines, base64url-encoded behind a format marker.
fn encode_cursor(delivered: &BTreeMap<GameId, u64>) -> String {
    let text: Vec<String> = delivered
        .iter()
        .map(|(id, version)| format!("{id}:{version}"))
        .collect();
    format!("c1.{}", URL_SAFE_NO_PAD.encode(text.join("\n")))
}

fn decode_cursor(cursor: &str) -> Result<BTreeMap<GameId, u64>, ArbiterError> {
    let mut delivered = BTreeMap::new();
    if cursor.is_empty() {
        return Ok(delivered);
    }
    let body = cursor.strip_prefix("c1.").ok_or_else(invalid_cursor)?;
    let bytes = URL_SAFE_NO_PAD.decode(body).map_err(|_| invalid_cursor())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid_cursor())?;
    for line in text.lines().filter(|line| !line.is_empty()) {
        let (id, version) = line.rsplit_once(':').ok_or_else(invalid_cursor)?;
        let id = GameId::parse(id).map_err(|_| invalid_cursor())?;
        let version = version.parse::<u64>().map_err(|_| invalid_cursor())?;
        delivered.insert(id, version);
    }
    Ok(delivered)
}

impl Arbiter {
    /// Starts following every game of an event (see [`EventWatcher`]).
    pub fn watch_event(
        &self,
        event_id: &EventId,
        cursor: &str,
        heartbeat: Duration,
    ) -> Result<EventWatcher, ArbiterError> {
        EventWatcher::start(self.clone(), event_id.clone(), cursor, heartbeat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_forgeries_are_refused() {
        let mut delivered = BTreeMap::new();
        delivered.insert(GameId::parse("g-1").unwrap(), 7);
        delivered.insert(GameId::parse("g_2").unwrap(), 1);
        let cursor = encode_cursor(&delivered);
        assert_eq!(decode_cursor(&cursor).unwrap(), delivered);
        assert!(decode_cursor("").unwrap().is_empty());
        for forged in [
            "x",
            "c1.!!!",
            "c2.Zzo3",
            &format!("c1.{}", URL_SAFE_NO_PAD.encode("a{b}:1")),
        ] {
            assert!(decode_cursor(forged).is_err(), "{forged}");
        }
    }
}
