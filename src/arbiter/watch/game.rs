//! Following a game for a watcher: a snapshot or the missed events first,
//! then every new event exactly once, in version order, until the game ends.
//! New events come from the replica's [`hub`](super::hub); the watcher
//! checks their order itself and fills any gap from the store.
//!
//! A public watcher of a game with a broadcast delay gets the game as it
//! stood the delay earlier, then holds each event it receives until the
//! delay has passed since the event's time; its heartbeats tell the time
//! and the clocks as of the same shifted instant.

use std::{collections::VecDeque, future::Future, sync::Arc, task::Poll, time::Duration};

use tokio::{
    sync::broadcast::{self, error::RecvError},
    time::Instant,
};
use tokio_util::sync::CancellationToken;

#[cfg(doc)]
use super::WatchHub;
use super::{Encoded, EncodedWith, HubItem, ResumeToken, WatchContext, timer::Timer};
use crate::{
    arbiter::{ArbiterError, GameView, Reader, codec},
    domain::{BroadcastDelay, ClockView, GameEvent, GameId, GameStatus, Replay, Timestamp},
    store::{Corruption, StoreError},
};

/// One message for a watcher.
#[derive(Clone, Debug)]
pub enum WatchItem {
    /// The whole game as of its version, with the token of that version's
    /// event to resume after it.
    Snapshot(Arc<SharedSnapshot>, ResumeToken),
    /// One event, following the previous item without a gap (shared by
    /// every watcher the replica's follower handed it to).
    Event(Arc<SharedEvent>),
    /// Nothing happened for a while.
    Heartbeat(Heartbeat),
}

/// An event as watchers have it: with the token to resume after it and
/// its wire form, made once for every watcher the replica's follower hands
/// it to.
#[derive(Debug)]
pub struct SharedEvent {
    /// The event.
    pub event: Arc<GameEvent>,
    /// The token of the event, to resume after it.
    pub token: ResumeToken,
    /// The event's message, made by the first of its streams to send it.
    pub encoded: Encoded,
}

impl SharedEvent {
    /// `event`, with its `token`, not yet encoded.
    pub(in crate::arbiter) fn new(event: Arc<GameEvent>, token: ResumeToken) -> Self {
        Self {
            event,
            token,
            encoded: Encoded::default(),
        }
    }
}

/// A game as watchers start from it: the view each is sent first, shared
/// by the watchers that started from the same read of the game, and its
/// wire form, made once for them.
#[derive(Debug)]
pub struct SharedSnapshot {
    /// The game as of its version, without its moves.
    pub view: GameView,
    /// The snapshot's message, made by the first of its streams to send
    /// it, with the resume token it was made with.
    pub encoded: EncodedWith<ResumeToken>,
}

impl SharedSnapshot {
    /// `game` as of `as_of`, not yet encoded.
    pub(in crate::arbiter) fn new(game: crate::domain::Game, as_of: Timestamp) -> Self {
        Self {
            view: GameView {
                game,
                moves: Vec::new(),
                as_of,
            },
            encoded: EncodedWith::default(),
        }
    }
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

impl WatchFrom {
    /// The version the watcher has seen (0: none, it wants a snapshot).
    fn after(self) -> u64 {
        match self {
            Self::Snapshot => 0,
            Self::Version(after) => after,
            Self::Token(token) => token.version(),
        }
    }
}

/// A watcher's position in one game's event log.
pub struct Watcher {
    ctx: WatchContext,
    id: GameId,
    /// The game's events from the hub; none once the game has ended.
    events: Option<broadcast::Receiver<HubItem>>,
    /// How long the stream may stay silent before a heartbeat.
    heartbeat: Duration,
    /// When the last item was handed out.
    last_sent: Instant,
    /// Rings for the next heartbeat or release.
    timer: Timer,
    /// The version of the last item handed out.
    cursor: u64,
    pending: VecDeque<WatchItem>,
    /// The game's final event has been received: nothing follows it.
    complete: bool,
    /// For a public watcher of a delayed game: the events received but not
    /// yet released (boxed: most watchers have none, and the public game it
    /// holds is most of a watcher's size).
    delayed: Option<Box<Delayed>>,
}

/// What a public watcher of a delayed game holds back.
struct Delayed {
    delay: BroadcastDelay,
    /// Events received, in order, each released once the delay has passed
    /// since its time.
    held: VecDeque<Arc<SharedEvent>>,
    /// The game as the public sees it: replayed up to the events released
    /// (the clocks of its heartbeats).
    public: Replay,
}

impl Delayed {
    /// When the first event held is released.
    fn next_release(&self) -> Option<Timestamp> {
        self.held
            .front()
            .map(|shared| self.delay.release(shared.event.at))
    }
}

/// For a watcher resuming with a token, checks that the event it names is
/// still the first of `missed` (read from that event on), and takes it off.
fn still_there(
    missed: &mut Vec<(Arc<GameEvent>, ResumeToken)>,
    from: WatchFrom,
    id: &GameId,
) -> Result<(), ArbiterError> {
    if let WatchFrom::Token(token) = from {
        let seen = (!missed.is_empty()).then(|| missed.remove(0));
        if seen.is_none_or(|(_, seen)| seen != token) {
            return Err(ArbiterError::HistoryRewritten {
                game_id: id.clone(),
                version: token.version(),
            });
        }
    }
    Ok(())
}

impl Watcher {
    pub(in crate::arbiter) async fn start(
        ctx: WatchContext,
        id: GameId,
        from: WatchFrom,
        heartbeat: Duration,
        reader: &Reader,
    ) -> Result<Self, ArbiterError> {
        // Held shared across the reads below, and sent as it is: a start's
        // future is alive for each of the watchers that wait on one joined
        // read, and a game inline would make each of them a kilobyte
        // larger. For the same reason the rarer paths' futures are boxed.
        let read = ctx.joined_current(&id).await?;
        let game = &read.view.game;
        if !reader.sees_live(game) {
            let (game, now) = (game.clone(), read.view.as_of);
            return Box::pin(Self::start_delayed(ctx, game, now, from, heartbeat)).await;
        }
        let current = game.version();
        let after = from.after();
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
        let events = (game.status() == GameStatus::Active).then(|| ctx.hub.subscribe(&id, current));
        let mut watcher = Self {
            ctx: ctx.clone(),
            id: id.clone(),
            events,
            heartbeat,
            last_sent: Instant::now(),
            timer: Timer::new(),
            cursor: after,
            pending: VecDeque::new(),
            complete: false,
            delayed: None,
        };
        if after == 0 {
            // A new watcher gets the game as it stands, then what follows.
            let token = ctx.joined_token(&id, current).await?;
            watcher.cursor = current;
            watcher.complete = game.status() != GameStatus::Active;
            watcher
                .pending
                .push_back(WatchItem::Snapshot(read.clone(), token));
        } else {
            watcher.complete = game.status() != GameStatus::Active && after == current;
            // The missed events, read from the one the watcher saw when it
            // names it, to check that it is still there.
            let checked = matches!(from, WatchFrom::Token(_));
            let mut missed =
                Box::pin(ctx.reads.read_after(&id, after - u64::from(checked))).await?;
            still_there(&mut missed, from, &id)?;
            watcher.accept(missed)?;
        }
        Ok(watcher)
    }

    /// A public watcher of `game`, read at `now`, whose delay hides its
    /// latest events: it starts from the game as the public sees it, and
    /// holds every later event until its release.
    async fn start_delayed(
        ctx: WatchContext,
        game: crate::domain::Game,
        now: Timestamp,
        from: WatchFrom,
        heartbeat: Duration,
    ) -> Result<Self, ArbiterError> {
        let id = game.id().clone();
        let delay = game.setup().broadcast_delay();
        let current = game.version();
        let active = game.status() == GameStatus::Active;
        let (public, as_of) = ctx.games.public(game, now).await?;
        let seen = public.version();
        let after = from.after();
        if after > current
            && let WatchFrom::Token(token) = from
        {
            return Err(ArbiterError::HistoryRewritten {
                game_id: id,
                version: token.version(),
            });
        }
        if after > seen {
            // Not yet public: to the public the game has not reached it.
            return Err(ArbiterError::VersionAhead {
                requested: after,
                current: seen,
            });
        }
        // As for a live watcher: subscribed before the catch-up is read.
        let events = active.then(|| ctx.hub.subscribe(&id, current));
        let mut watcher = Self {
            ctx: ctx.clone(),
            id: id.clone(),
            events,
            heartbeat,
            last_sent: Instant::now(),
            timer: Timer::new(),
            cursor: after,
            pending: VecDeque::new(),
            complete: false,
            delayed: Some(Box::new(Delayed {
                delay,
                held: VecDeque::new(),
                public: Replay::resume(public.clone()),
            })),
        };
        let checked = matches!(from, WatchFrom::Token(_));
        let read_after = if after == 0 {
            seen
        } else {
            after - u64::from(checked)
        };
        let mut missed = ctx.reads.read_after(&id, read_after).await?;
        still_there(&mut missed, from, &id)?;
        if after == 0 {
            // The snapshot is the game the public sees, with the token of
            // its latest event.
            let token = ctx.joined_token(&id, seen).await?;
            watcher.cursor = seen;
            watcher.pending.push_back(WatchItem::Snapshot(
                Arc::new(SharedSnapshot::new(public, as_of)),
                token,
            ));
        }
        watcher.accept(missed)?;
        if !active && watcher.cursor == current {
            // Everything there is has been read.
            watcher.complete = true;
        }
        Ok(watcher)
    }

    /// Moves the held events whose release time has come to the queue,
    /// in order; the public view follows them.
    async fn release_due(&mut self) -> Result<(), ArbiterError> {
        let Some(delayed) = self.delayed.as_mut() else {
            return Ok(());
        };
        if delayed.held.is_empty() {
            return Ok(());
        }
        let now = self.ctx.clock.now().await?;
        while delayed.next_release().is_some_and(|release| release <= now) {
            let Some(shared) = delayed.held.pop_front() else {
                break;
            };
            if shared.event.version == delayed.public.game().version() + 1 {
                delayed.public.apply(&shared.event).map_err(|err| {
                    StoreError::Corrupt(Corruption::DoesNotReplay {
                        game: self.id.clone(),
                        source: err,
                    })
                })?;
            }
            self.pending.push_back(WatchItem::Event(shared));
        }
        Ok(())
    }

    /// How long until the first held event is released, if one is held.
    async fn until_release(&self) -> Result<Option<Duration>, ArbiterError> {
        let Some(release) = self.delayed.as_deref().and_then(Delayed::next_release) else {
            return Ok(None);
        };
        let now = self.ctx.clock.now().await?;
        Ok(Some(Duration::from_millis(release.millis_since(now))))
    }

    /// A delayed watcher's heartbeat: the time and the clocks as of now
    /// less the delay, and the version the public has seen.
    async fn delayed_heartbeat(&self, delayed: &Delayed) -> Result<Heartbeat, ArbiterError> {
        let at = delayed.delay.cutoff(self.ctx.clock.now().await?);
        let game = delayed.public.game();
        Ok(Heartbeat {
            at,
            version: game.version(),
            clock: game.clock_view(at),
        })
    }

    /// The next item, waiting for the game to change if need be. `Ok(None)`
    /// means the game has ended and everything has been sent. A watcher
    /// following its game's events ends with [`ArbiterError::ShuttingDown`]
    /// when the hub says so ([`Arbiter::end_watches_on`]); `shutdown` ends
    /// one that waits otherwise (holding delayed events, reading the store).
    ///
    /// [`Arbiter::end_watches_on`]: crate::arbiter::Arbiter::end_watches_on
    pub async fn next(
        &mut self,
        shutdown: &CancellationToken,
    ) -> Result<Option<WatchItem>, ArbiterError> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                self.last_sent = Instant::now();
                return Ok(Some(item));
            }
            self.release_due().await?;
            if !self.pending.is_empty() {
                continue;
            }
            let holding = self
                .delayed
                .as_ref()
                .is_some_and(|delayed| !delayed.held.is_empty());
            if self.complete && !holding {
                return Ok(None);
            }
            // Whether a heartbeat is due is asked only once the timer has
            // rung: until then this deadline is ahead, or the wait below
            // finds it passed and the next turn asks.
            if self.timer.has_rung() && self.last_sent.elapsed() >= self.heartbeat {
                self.last_sent = Instant::now();
                let beat = match &self.delayed {
                    Some(delayed) => self.delayed_heartbeat(delayed).await,
                    None => self.ctx.heartbeat(&self.id, self.cursor).await,
                };
                match beat {
                    Ok(beat) => return Ok(Some(WatchItem::Heartbeat(beat))),
                    // A stalled store skips a heartbeat, not the stream:
                    // the game's follower, which retries its reads, ends
                    // the stream if the store stays away.
                    Err(ArbiterError::Store(
                        StoreError::Unavailable(_) | StoreError::NotReplicated { .. },
                    )) => continue,
                    Err(err) => return Err(err),
                }
            }
            self.timer.set(self.last_sent + self.heartbeat);
            if let Some(release) = self.until_release().await? {
                self.timer.set(Instant::now() + release);
            }
            if self.complete {
                // Everything is received; the rest is held for its release.
                tokio::select! {
                    () = shutdown.cancelled() => return Err(ArbiterError::ShuttingDown),
                    () = self.timer.rung() => {}
                }
                continue;
            }
            let Some(events) = self.events.as_mut() else {
                // Not active when the watch started, yet not complete: a
                // game aborted or ended by an event still being read.
                let before = self.cursor;
                let missed = self.ctx.reads.read_after(&self.id, self.cursor).await?;
                self.accept(missed)?;
                if self.cursor == before {
                    self.complete = true;
                }
                continue;
            };
            // The shutdown comes from the hub, with the game's events
            // ([`WatchHub::shut_down`]): waiting on a token of its own as
            // well would cost each watcher a registration with each event.
            if self.ctx.hub.shutting_down() {
                return Err(ArbiterError::ShuttingDown);
            }
            let received = {
                let timer = &mut self.timer;
                let mut recv = std::pin::pin!(events.recv());
                std::future::poll_fn(|cx| {
                    if let Poll::Ready(received) = recv.as_mut().poll(cx) {
                        return Poll::Ready(Some(received));
                    }
                    timer.poll_rung(cx).map(|()| None)
                })
                .await
            };
            match received {
                // Quiet (or woken early): the next turn sees which.
                None => {}
                Some(Ok(item)) => match item {
                    HubItem::Event(shared) => {
                        let version = shared.event.version;
                        if version == self.cursor + 1 {
                            // Handed out at once (nothing is queued while
                            // the watcher waits), or held for its release.
                            if let Some(item) = self.accept_one(shared) {
                                self.last_sent = Instant::now();
                                return Ok(Some(item));
                            }
                        } else if version > self.cursor {
                            self.fill_gap().await?;
                        }
                    }
                    HubItem::Failed(err) => return Err(err.as_ref().clone().into()),
                    HubItem::ShuttingDown => return Err(ArbiterError::ShuttingDown),
                },
                Some(Err(RecvError::Lagged(_))) => {
                    return Err(ArbiterError::WatcherTooSlow {
                        game_id: self.id.clone(),
                        buffer: self.ctx.hub.buffer(),
                        version: self.cursor,
                    });
                }
                // The follower stopped without a final event this watcher
                // has: follow again, from the store first.
                Some(Err(RecvError::Closed)) => {
                    self.events = Some(self.ctx.hub.subscribe(&self.id, self.cursor));
                    self.fill_gap().await?;
                }
            }
        }
    }

    /// Reads from the store what follows the cursor (events the hub sent
    /// before this watcher caught up, or a follower restarted behind it).
    async fn fill_gap(&mut self) -> Result<(), ArbiterError> {
        let missed = self.ctx.reads.read_after(&self.id, self.cursor).await?;
        self.accept(missed)
    }

    /// Queues the events read from the store that follow the cursor,
    /// checking there is no gap.
    fn accept(&mut self, events: Vec<(Arc<GameEvent>, ResumeToken)>) -> Result<(), ArbiterError> {
        let (events, tokens): (Vec<_>, Vec<_>) = events
            .into_iter()
            .filter(|(event, _)| event.version > self.cursor)
            .unzip();
        codec::check_contiguous(&self.id, self.cursor, events.iter().map(Arc::as_ref))?;
        for (event, token) in events.into_iter().zip(tokens) {
            if let Some(item) = self.accept_one(Arc::new(SharedEvent::new(event, token))) {
                self.pending.push_back(item);
            }
        }
        Ok(())
    }

    /// Takes `event`, the one that follows the cursor: held for its
    /// release by a delayed watcher, else the item to hand out.
    fn accept_one(&mut self, shared: Arc<SharedEvent>) -> Option<WatchItem> {
        self.cursor = shared.event.version;
        self.complete = shared.event.is_final();
        if self.complete {
            // Nothing follows: the hub's copy is no longer needed.
            self.events = None;
        }
        match self.delayed.as_mut() {
            Some(delayed) => {
                delayed.held.push_back(shared);
                None
            }
            None => Some(WatchItem::Event(shared)),
        }
    }
}
