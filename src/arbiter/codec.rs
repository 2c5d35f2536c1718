//! Encoding of game states and events for the store (JSON: readable with
//! `redis-cli` when an arbiter needs to look at a disputed game).

use crate::{
    domain::{Game, GameEvent, GameId},
    store::{StoreError, StoredEvent, StoredState},
};

/// A game's state as the store keeps it.
pub fn encode_state(game: &Game) -> Result<StoredState, StoreError> {
    let bytes = serde_json::to_vec(game)
        .map_err(|err| StoreError::Corrupt(format!("cannot encode game {}: {err}", game.id())))?;
    Ok(StoredState {
        version: game.version(),
        bytes,
    })
}

/// A game from its stored state.
pub fn decode_state(state: &StoredState) -> Result<Game, StoreError> {
    let game: Game = serde_json::from_slice(&state.bytes)
        .map_err(|err| StoreError::Corrupt(format!("cannot decode game state: {err}")))?;
    if game.version() != state.version {
        return Err(StoreError::Corrupt(format!(
            "game {} is stored at version {} but its state says {}",
            game.id(),
            state.version,
            game.version()
        )));
    }
    Ok(game)
}

/// An event as the store keeps it.
pub fn encode_event(event: &GameEvent) -> Result<StoredEvent, StoreError> {
    let bytes = serde_json::to_vec(event)
        .map_err(|err| StoreError::Corrupt(format!("cannot encode event: {err}")))?;
    Ok(StoredEvent {
        version: event.version,
        bytes,
    })
}

/// An event from the store.
pub fn decode_event(stored: &StoredEvent) -> Result<GameEvent, StoreError> {
    let event: GameEvent = serde_json::from_slice(&stored.bytes)
        .map_err(|err| StoreError::Corrupt(format!("cannot decode event: {err}")))?;
    if event.version != stored.version {
        return Err(StoreError::Corrupt(format!(
            "log entry {} holds an event of version {}",
            stored.version, event.version
        )));
    }
    Ok(event)
}

/// Checks that `events` are exactly the versions after `after`, one by one:
/// a log with a hole (or out of order) is corrupt, never silently skipped.
pub fn check_contiguous(id: &GameId, after: u64, events: &[GameEvent]) -> Result<(), StoreError> {
    for (expected, event) in (after + 1..).zip(events) {
        if event.version != expected {
            return Err(StoreError::Corrupt(format!(
                "game {id} log jumps from version {} to {}",
                expected - 1,
                event.version
            )));
        }
    }
    Ok(())
}
