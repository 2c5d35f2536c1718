//! The latest heartbeat of each game watched on this replica: a game is
//! read for a heartbeat at most once a second, however many of its
//! watchers are due one.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::time::Instant;

use super::{Heartbeat, WatchContext};
use crate::{arbiter::ArbiterError, domain::GameId};

/// The latest heartbeat of each watched game, and when it was read.
#[derive(Clone, Default)]
pub(in crate::arbiter) struct Heartbeats(Arc<Mutex<HashMap<GameId, (Instant, Heartbeat)>>>);

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

impl WatchContext {
    /// A heartbeat with the game as it stands, at most a second old (reading it
    /// also settles a flag that fell while nobody moved).
    pub(super) async fn heartbeat(
        &self,
        id: &GameId,
        seen: u64,
    ) -> Result<Heartbeat, ArbiterError> {
        if let Some(beat) = self.heartbeats.recent(id, seen) {
            return Ok(beat);
        }
        let (game, now) = self.games.current(id).await?;
        let beat = Heartbeat {
            at: now,
            version: game.version(),
            clock: game.clock_view(now),
        };
        self.heartbeats.keep(id, beat);
        Ok(beat)
    }
}
