//! Watching: a stream that follows one game, or every game of a tournament
//! event, and the replica-wide machinery that keeps it cheap.
//!
//! - `game`: a game's watcher (a snapshot or the missed events, then each
//!   event once, in order; under a broadcast delay, the public's view held
//!   back by the delay); `event`: an event's watcher, resumable from a
//!   cursor of bounded size.
//! - `hub`: fan-out only. A replica follows a watched game's log (or an
//!   event's feed) once, however many of its streams watch it, woken by
//!   the commit announcements (see [`super::announcements`]).
//! - `encoded`: an event's wire form, made once for all its streams, and a
//!   snapshot's for the watchers that start from one read;
//!   `timer`: a watcher's timer, set once rather than for every event;
//!   `reads`: the one path by which watchers and the hub read the store;
//!   `clock`: the store's time, read at most once a second for all
//!   watchers; `heartbeats`: a quiet game read at most once a second for
//!   all its watchers; `joined`: the reads of watchers starting on a game
//!   together, made once for all of them; `resume_token`: the token that
//!   names an event a watcher has seen.
//!
//! A watcher gets a [`WatchContext`], not the arbiter: the store reads, the
//! hub, the clock, the heartbeats, the joined reads, and [`Games`], the
//! questions it asks of the arbiter.

mod clock;
mod encoded;
mod event;
mod game;
mod heartbeats;
mod hub;
mod joined;
mod reads;
mod resume_token;
mod timer;

use std::sync::Arc;

use async_trait::async_trait;

pub(super) use self::clock::SharedClock;
pub use self::encoded::{Encoded, EncodedWith};
pub use self::event::{EventUpdate, EventWatcher};
pub(super) use self::event::{decode_cursor_in, encode_cursor};
pub use self::game::{Heartbeat, SharedEvent, SharedSnapshot, WatchFrom, WatchItem, Watcher};
pub(super) use self::heartbeats::Heartbeats;
pub(super) use self::hub::FeedItem;
use self::hub::{EventItem, HubItem};
pub(super) use self::hub::{WATCHER_BUFFER, WatchHub};
pub(super) use self::joined::Joins;
pub(super) use self::reads::StoreReads;
pub use self::resume_token::{InvalidResumeToken, ResumeToken};
use super::ArbiterError;
use crate::domain::{Game, GameId, Timestamp};

/// What a watcher asks of the arbiter about games.
#[async_trait]
pub(super) trait Games: Send + Sync {
    /// Game `id` as it stands now, with any ending time has decided
    /// committed first, and "now".
    async fn current(&self, id: &GameId) -> Result<(Game, Timestamp), ArbiterError>;

    /// `live`, read at `now`, as the public sees it under its broadcast
    /// delay, and the instant it is shown as of.
    async fn public(&self, live: Game, now: Timestamp) -> Result<(Game, Timestamp), ArbiterError>;

    /// The broadcast delays and rounds of `games`.
    async fn placements_of(
        &self,
        games: &[GameId],
    ) -> Result<Vec<(GameId, crate::arbiter::Placement)>, ArbiterError>;

    /// The score of the registered teams' match `game` is a board of,
    /// after its event of version `version`, as the public sees it when
    /// `public`; `None` outside such a match. Read once per replica.
    async fn match_score(
        &self,
        game: &GameId,
        version: u64,
        public: bool,
    ) -> Result<Option<crate::arbiter::MatchScoreRead>, ArbiterError>;
}

/// Everything a watcher uses.
#[derive(Clone)]
pub(super) struct WatchContext {
    pub(super) games: Arc<dyn Games>,
    pub(super) reads: StoreReads,
    pub(super) hub: WatchHub,
    pub(super) clock: SharedClock,
    pub(super) heartbeats: Heartbeats,
    pub(super) joins: Joins,
}
