//! Following a game for a watcher: a snapshot or the missed events first,
//! then every new event exactly once, in version order, until the game ends.
//! New events come from the replica's [`hub`](super::hub); the watcher
//! checks their order itself and fills any gap from the store.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::{
    sync::broadcast::{self, error::RecvError},
    time::Instant,
};
use tokio_util::sync::CancellationToken;

use super::{
    Arbiter, ArbiterError, GameView, ResumeToken, codec,
    hub::{self, HubItem},
};
use crate::{
    domain::{ClockView, GameEvent, GameId, GameStatus, Timestamp},
    store::StoreError,
};

/// One message for a watcher.
#[derive(Clone, Debug)]
pub enum WatchItem {
    /// The whole game as of its version, with the token of that version's
    /// event to resume after it.
    Snapshot(Box<GameView>, ResumeToken),
    /// One event, following the previous item without a gap, with the
    /// token to resume after it.
    Event(Arc<GameEvent>, ResumeToken),
    /// Nothing happened for a while.
    Heartbeat(Heartbeat),
}

/// A sign of life on a quiet stream.
#[derive(Clone, Copy, Debug)]
pub struct Heartbeat {
    /// The server time.
    pub at: Timestamp,
    /// The game's version as the server sees it (0 on an event's stream).
    pub version: u64,
    /// The clocks as of `at`, in a timed game.
    pub clock: Option<ClockView>,
}

/// Where a watcher starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WatchFrom {
    /// A snapshot of the game as it stands, then what follows.
    Snapshot,
    /// After a version, trusted to be the watcher's.
    Version(u64),
    /// After the event a token names, which must still be in the game's
    /// history.
    Token(ResumeToken),
}

/// A watcher's position in one game's event log.
pub struct Watcher {
    arbiter: Arbiter,
    id: GameId,
    /// The game's events from the hub; none once the game has ended.
    events: Option<broadcast::Receiver<Arc<HubItem>>>,
    /// How long the stream may stay silent before a heartbeat.
    heartbeat: Duration,
    /// When the last item was handed out.
    last_sent: Instant,
    /// The version of the last item handed out.
    cursor: u64,
    pending: VecDeque<WatchItem>,
    /// The game's final event has been queued: nothing follows it.
    complete: bool,
}

impl Watcher {
    pub(super) async fn start(
        arbiter: Arbiter,
        id: GameId,
        from: WatchFrom,
        heartbeat: Duration,
    ) -> Result<Self, ArbiterError> {
        let (game, now) = arbiter.load_current(&id).await?;
        let current = game.version();
        let after = match from {
            WatchFrom::Snapshot => 0,
            WatchFrom::Version(after) => after,
            WatchFrom::Token(token) => token.version(),
        };
        if after > current {
            return Err(match from {
                // The watcher saw that event: the game has lost it since.
                WatchFrom::Token(token) => ArbiterError::HistoryRewritten {
                    game_id: id,
                    version: token.version(),
                },
                _ => ArbiterError::VersionAhead {
                    requested: after,
                    current,
                },
            });
        }
        // Subscribed before the catch-up is read, so that nothing committed
        // meanwhile falls between the two; a finished game has nothing more
        // to follow.
        let events =
            (game.status() == GameStatus::Active).then(|| arbiter.hub.subscribe(&id, current));
        let mut watcher = Self {
            arbiter: arbiter.clone(),
            id: id.clone(),
            events,
            heartbeat,
            last_sent: Instant::now(),
            cursor: after,
            pending: VecDeque::new(),
            complete: false,
        };
        if after == 0 {
            // A new watcher gets the game as it stands, then what follows.
            let after = current.saturating_sub(1);
            let read = arbiter.store.events_page(&id, after, 1).await?;
            let latest = codec::decode_log(&id, after, 1, &read)?;
            let latest = latest
                .first()
                .filter(|event| event.version == current)
                .ok_or_else(|| {
                    StoreError::Corrupt(format!("game {id} has no event at version {current}"))
                })?;
            watcher.cursor = current;
            watcher.complete = game.status() != GameStatus::Active;
            watcher.pending.push_back(WatchItem::Snapshot(
                Box::new(arbiter.view(game, now, false).await?),
                ResumeToken::of(&id, latest),
            ));
        } else {
            watcher.complete = game.status() != GameStatus::Active && after == current;
            // The missed events, read from the one the watcher saw when it
            // names it, to check that it is still there.
            let checked = matches!(from, WatchFrom::Token(_));
            let mut missed =
                hub::read_after(arbiter.store.as_ref(), &id, after - u64::from(checked)).await?;
            if let WatchFrom::Token(token) = from {
                let seen = (!missed.is_empty()).then(|| missed.remove(0));
                if seen.is_none_or(|(_, seen)| seen != token) {
                    return Err(ArbiterError::HistoryRewritten {
                        game_id: id,
                        version: token.version(),
                    });
                }
            }
            watcher.accept(missed)?;
        }
        Ok(watcher)
    }

    /// The next item, waiting for the game to change if need be. `Ok(None)`
    /// means the game has ended and everything has been sent.
    pub async fn next(
        &mut self,
        shutdown: &CancellationToken,
    ) -> Result<Option<WatchItem>, ArbiterError> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                self.last_sent = Instant::now();
                return Ok(Some(item));
            }
            if self.complete {
                return Ok(None);
            }
            let quiet = self.last_sent.elapsed();
            if quiet >= self.heartbeat {
                self.last_sent = Instant::now();
                let beat =
                    heartbeat_now(self.arbiter.clone(), self.id.clone(), self.cursor).await?;
                return Ok(Some(WatchItem::Heartbeat(beat)));
            }
            let Some(events) = self.events.as_mut() else {
                // Not active when the watch started, yet not complete: a
                // game aborted or ended by an event still being read.
                let missed =
                    hub::read_after(self.arbiter.store.as_ref(), &self.id, self.cursor).await?;
                self.accept(missed)?;
                if self.pending.is_empty() {
                    self.complete = true;
                }
                continue;
            };
            let received = tokio::select! {
                () = shutdown.cancelled() => return Err(ArbiterError::ShuttingDown),
                received = tokio::time::timeout(self.heartbeat - quiet, events.recv()) => received,
            };
            match received {
                // Quiet: the next turn sends a heartbeat.
                Err(_elapsed) => {}
                Ok(Ok(item)) => match item.as_ref() {
                    HubItem::Event(event, token) => {
                        if event.version == self.cursor + 1 {
                            self.accept(vec![(event.clone(), *token)])?;
                        } else if event.version > self.cursor {
                            self.fill_gap().await?;
                        }
                    }
                    HubItem::Failed(err) => return Err(err.clone().into()),
                },
                Ok(Err(RecvError::Lagged(_))) => {
                    return Err(ArbiterError::WatcherTooSlow {
                        game_id: self.id.clone(),
                        buffer: self.arbiter.hub.buffer(),
                        version: self.cursor,
                    });
                }
                // The follower stopped without a final event this watcher
                // has: follow again, from the store first.
                Ok(Err(RecvError::Closed)) => {
                    self.events = Some(self.arbiter.hub.subscribe(&self.id, self.cursor));
                    self.fill_gap().await?;
                }
            }
        }
    }

    /// Reads from the store what follows the cursor (events the hub sent
    /// before this watcher caught up, or a follower restarted behind it).
    async fn fill_gap(&mut self) -> Result<(), ArbiterError> {
        let missed = hub::read_after(self.arbiter.store.as_ref(), &self.id, self.cursor).await?;
        self.accept(missed)
    }

    /// Queues the events that follow the cursor, checking there is no gap.
    fn accept(&mut self, events: Vec<(Arc<GameEvent>, ResumeToken)>) -> Result<(), ArbiterError> {
        let (events, tokens): (Vec<_>, Vec<_>) = events
            .into_iter()
            .filter(|(event, _)| event.version > self.cursor)
            .unzip();
        codec::check_contiguous(&self.id, self.cursor, events.iter().map(Arc::as_ref))?;
        let events = events.into_iter().zip(tokens);
        for (event, token) in events {
            self.cursor = event.version;
            self.complete = event.is_final();
            self.pending.push_back(WatchItem::Event(event, token));
        }
        if self.complete {
            // Nothing follows: the hub's copy is no longer needed.
            self.events = None;
        }
        Ok(())
    }
}

/// The latest heartbeat of each game watched on this replica: a game is
/// read for a heartbeat at most once a second, however many of its
/// watchers are due one.
#[derive(Clone, Default)]
pub(super) struct Heartbeats(Arc<Mutex<HashMap<GameId, (Instant, Heartbeat)>>>);

/// How long a game's heartbeat serves its other watchers.
const HEARTBEAT_REUSE: Duration = Duration::from_secs(1);

impl Heartbeats {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, (Instant, Heartbeat)>> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A heartbeat of game `id` read less than a second ago, and not behind
    /// version `seen` (a heartbeat never tells a watcher of an older game
    /// than the events it has).
    fn recent(&self, id: &GameId, seen: u64) -> Option<Heartbeat> {
        self.lock()
            .get(id)
            .filter(|(read, beat)| read.elapsed() < HEARTBEAT_REUSE && beat.version >= seen)
            .map(|(_, beat)| *beat)
    }

    fn keep(&self, id: &GameId, beat: Heartbeat) {
        let mut beats = self.lock();
        // Games nobody has needed a heartbeat of for a while are dropped.
        if beats.len() >= 1024 {
            beats.retain(|_, (read, _)| read.elapsed() < HEARTBEAT_REUSE);
        }
        // A read that finished late does not replace a newer one.
        if beats.get(id).is_some_and(|(_, kept)| kept.at > beat.at) {
            return;
        }
        beats.insert(id.clone(), (Instant::now(), beat));
    }
}

/// A heartbeat with the game as it stands, at most a second old (reading it
/// also settles a flag that fell while nobody moved).
async fn heartbeat_now(arbiter: Arbiter, id: GameId, seen: u64) -> Result<Heartbeat, ArbiterError> {
    if let Some(beat) = arbiter.heartbeats.recent(&id, seen) {
        return Ok(beat);
    }
    let (game, now) = arbiter.load_current(&id).await?;
    let beat = Heartbeat {
        at: now,
        version: game.version(),
        clock: game.clock_view(now),
    };
    arbiter.heartbeats.keep(&id, beat);
    Ok(beat)
}

impl Arbiter {
    /// Starts following a game's events for a watcher (see [`Watcher`]),
    /// with a heartbeat whenever the stream has been quiet for `heartbeat`.
    pub async fn watch(
        &self,
        id: &GameId,
        from: WatchFrom,
        heartbeat: Duration,
    ) -> Result<Watcher, ArbiterError> {
        Watcher::start(self.clone(), id.clone(), from, heartbeat).await
    }
}
