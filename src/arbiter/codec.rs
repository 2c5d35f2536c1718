//! Games and events to and from the store's opaque records, in the
//! domain's versioned encoding (see [`crate::domain::encoding`]).

use crate::{
    domain::{
        Game, GameEvent, GameId,
        encoding::{self, DecodeError},
    },
    store::{StoreError, StoredEvent, StoredState},
};

fn corrupt(err: DecodeError) -> StoreError {
    StoreError::Corrupt(err.to_string())
}

/// A game's state as the store keeps it.
pub fn encode_state(game: &Game) -> Result<StoredState, StoreError> {
    Ok(StoredState {
        version: game.version(),
        bytes: encoding::encode_game(game).map_err(corrupt)?,
    })
}

/// A game from its stored state.
pub fn decode_state(state: &StoredState) -> Result<Game, StoreError> {
    let game = encoding::decode_game(&state.bytes).map_err(corrupt)?;
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
    Ok(StoredEvent {
        version: event.version,
        bytes: encoding::encode_event(event).map_err(corrupt)?,
    })
}

/// An event from the store.
pub fn decode_event(stored: &StoredEvent) -> Result<GameEvent, StoreError> {
    let event = encoding::decode_event(&stored.bytes).map_err(corrupt)?;
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
pub fn check_contiguous<'a>(
    id: &GameId,
    after: u64,
    events: impl IntoIterator<Item = &'a GameEvent>,
) -> Result<(), StoreError> {
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
