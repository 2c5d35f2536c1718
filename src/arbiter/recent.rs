//! The games this replica read or committed last, each with the exact
//! bytes of its stored state, so that a state read again unchanged is not
//! decoded again.
//!
//! A move reads its game's state and decodes it; the game's next move,
//! played on the same replica, reads back the very bytes the first one
//! wrote. Decoding them was about a tenth of a move's CPU. A state is
//! taken from here only when the bytes read from the store are equal to
//! the bytes remembered, byte for byte, so what the arbiter decides on is
//! always what the store holds: the store stays the only truth, and a
//! state another replica wrote is decoded as before.
//!
//! A committed game is remembered as it was encoded, which is the game its
//! bytes decode to (the encoding's round trip is tested, and checked on
//! every commit in debug builds), with where its setup is in them: the
//! game's next state, sharing that setup, copies its bytes from there
//! rather than encoding it again (a third of a state's encoding, the same
//! in every version).

use std::{
    collections::HashMap,
    ops::Range,
    sync::{Arc, Mutex, PoisonError},
};

use crate::{
    domain::{EncodedSetup, Game, GameId},
    store::StoredState,
};

/// How many games a replica remembers. Past that it forgets one at
/// random for each new one (a few megabytes at most).
pub(super) const RECENT_STATES: usize = 2048;

/// A game's stored state and the game it decodes to.
pub(super) struct Remembered {
    bytes: Vec<u8>,
    game: Arc<Game>,
    /// Where the setup is in `bytes`, when this replica wrote them.
    setup: Option<Range<usize>>,
}

impl Remembered {
    /// The game's encoded setup, for the next version's state to copy
    /// (when this replica wrote the state remembered).
    pub(super) fn setup(&self) -> Option<EncodedSetup<'_>> {
        let bytes = self.bytes.get(self.setup.clone()?)?;
        Some(EncodedSetup {
            game: &self.game,
            bytes,
        })
    }
}

/// The games a replica read or committed last, by id.
#[derive(Clone)]
pub(super) struct RecentStates {
    games: Arc<Mutex<HashMap<GameId, Arc<Remembered>>>>,
    capacity: usize,
}

impl Default for RecentStates {
    fn default() -> Self {
        Self::with_capacity(RECENT_STATES)
    }
}

impl RecentStates {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            games: Arc::default(),
            capacity,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, Arc<Remembered>>> {
        self.games.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The game `state` (read for `id`) decodes to, if these are the bytes
    /// remembered for it.
    ///
    /// The game is shared, not copied: a command decides on it and makes
    /// a new game of its own for what it changes.
    pub(super) fn get(&self, id: &GameId, state: &StoredState) -> Option<Arc<Game>> {
        let remembered = self.lock().get(id).cloned()?;
        (remembered.bytes == state.bytes && remembered.game.version() == state.version)
            .then(|| Arc::clone(&remembered.game))
    }

    /// What is remembered of the game `id`, whatever its version.
    pub(super) fn remembered(&self, id: &GameId) -> Option<Arc<Remembered>> {
        self.lock().get(id).cloned()
    }

    /// Remembers that `bytes` are the stored state of `game`, its setup at
    /// `setup` in them when known.
    pub(super) fn remember(&self, game: &Arc<Game>, bytes: Vec<u8>, setup: Option<Range<usize>>) {
        let remembered = Arc::new(Remembered {
            bytes,
            game: Arc::clone(game),
            setup,
        });
        let mut games = self.lock();
        if games.len() >= self.capacity && !games.contains_key(game.id()) {
            // The map's order is its hasher's: random, and cheap to take.
            if let Some(forgotten) = games.keys().next().cloned() {
                games.remove(&forgotten);
            }
        }
        games.insert(game.id().clone(), remembered);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::test_support::{at, plain_setup, seats};

    fn game(id: &str) -> Arc<Game> {
        Arc::new(Game::create(GameId::parse(id).unwrap(), plain_setup(), seats(), at(0)).0)
    }

    fn stored(game: &Game, bytes: &[u8]) -> StoredState {
        StoredState {
            version: game.version(),
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn a_state_is_taken_only_for_the_same_bytes_and_version() {
        let recent = RecentStates::default();
        let one = game("one");
        recent.remember(&one, b"state one".to_vec(), None);
        assert_eq!(
            recent.get(one.id(), &stored(&one, b"state one")),
            Some(one.clone())
        );
        // The very game remembered, shared rather than copied.
        let shared = recent.get(one.id(), &stored(&one, b"state one")).unwrap();
        assert!(Arc::ptr_eq(&shared, &one));
        // Other bytes (another replica's commit): decoded as read.
        assert_eq!(
            recent.get(one.id(), &stored(&one, b"state one, later")),
            None
        );
        assert_eq!(
            recent.get(
                one.id(),
                &StoredState {
                    version: one.version() + 1,
                    bytes: b"state one".to_vec(),
                }
            ),
            None
        );
        // Another game's id never finds it.
        let two = game("two");
        assert_eq!(recent.get(two.id(), &stored(&two, b"state one")), None);
    }

    #[test]
    fn it_remembers_a_bounded_number_of_games() {
        let recent = RecentStates::with_capacity(3);
        for index in 0..10 {
            let each = game(&format!("game-{index}"));
            recent.remember(&each, format!("state {index}").into_bytes(), None);
            assert!(recent.len() <= 3);
            // The newest is always kept.
            assert!(
                recent
                    .get(
                        each.id(),
                        &stored(&each, format!("state {index}").as_bytes())
                    )
                    .is_some()
            );
        }
        // Remembering a game again replaces it, without forgetting another.
        let full = RecentStates::with_capacity(3);
        let games: Vec<Arc<Game>> = (0..3).map(|index| game(&format!("kept-{index}"))).collect();
        for each in &games {
            full.remember(each, each.id().to_string().into_bytes(), None);
        }
        full.remember(&games[0], b"kept-0, later".to_vec(), None);
        assert_eq!(full.len(), 3);
        assert!(
            full.get(games[0].id(), &stored(&games[0], b"kept-0, later"))
                .is_some()
        );
        assert!(
            full.get(games[0].id(), &stored(&games[0], b"kept-0"))
                .is_none()
        );
        for each in &games[1..] {
            let bytes = each.id().to_string().into_bytes();
            assert!(full.get(each.id(), &stored(each, &bytes)).is_some());
        }
    }
}
