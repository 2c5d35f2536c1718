//! Games, events and rounds to and from the store's opaque records, in
//! the domain's versioned encoding (see [`crate::domain::stored::encoding`]
//! and [`crate::domain::stored::round_record`]).

use std::ops::Range;

use crate::{
    domain::{
        EncodedSetup, Game, GameEvent, GameId, Round, RoundSummary, TeamRegistration,
        stored::archive,
        stored::encoding::{self, DecodeError},
        stored::round_record,
    },
    store::{
        Corruption, LogRead, StoreError, StoredArchive, StoredEvent, StoredRound, StoredState,
        StoredTeams,
    },
};

pub fn corrupt(err: DecodeError) -> StoreError {
    StoreError::Corrupt(Corruption::Decode(err))
}

/// A round's record and summary as the store keeps them, at `version`.
pub fn encode_round(round: &Round, version: u64) -> Result<StoredRound, StoreError> {
    Ok(StoredRound {
        version,
        bytes: round_record::encode_round(round).map_err(corrupt)?,
        summary: round_record::encode_summary(&round.summary()).map_err(corrupt)?,
    })
}

/// A round from its stored record.
pub fn decode_round(stored: &StoredRound) -> Result<Round, StoreError> {
    round_record::decode_round(&stored.bytes).map_err(corrupt)
}

/// An event's team registration as the store keeps it, at `version`.
pub fn encode_teams(teams: &TeamRegistration, version: u64) -> Result<StoredTeams, StoreError> {
    Ok(StoredTeams {
        version,
        bytes: round_record::encode_teams(teams).map_err(corrupt)?,
    })
}

/// An event's team registration from its stored form.
pub fn decode_teams(stored: &StoredTeams) -> Result<TeamRegistration, StoreError> {
    round_record::decode_teams(&stored.bytes).map_err(corrupt)
}

/// A round's summary from its stored form.
pub fn decode_round_summary(bytes: &[u8]) -> Result<RoundSummary, StoreError> {
    round_record::decode_summary(bytes).map_err(corrupt)
}

/// A game's state as the store keeps it.
pub fn encode_state(game: &Game) -> Result<StoredState, StoreError> {
    Ok(encode_state_after(game, None)?.0)
}

/// As [`encode_state`], taking the setup's bytes from `earlier` when it
/// shares the game's setup; with where the setup is in the state's bytes.
pub fn encode_state_after(
    game: &Game,
    earlier: Option<EncodedSetup<'_>>,
) -> Result<(StoredState, Option<Range<usize>>), StoreError> {
    let encoded = encoding::encode_game_after(game, earlier).map_err(corrupt)?;
    Ok((
        StoredState {
            version: game.version(),
            bytes: encoded.bytes,
        },
        encoded.setup,
    ))
}

/// A game from its stored state.
pub fn decode_state(state: &StoredState) -> Result<Game, StoreError> {
    let game = encoding::decode_game(&state.bytes).map_err(corrupt)?;
    if game.version() != state.version {
        return Err(StoreError::Corrupt(Corruption::StateVersion {
            game: game.id().clone(),
            stored: state.version,
            state: game.version(),
        }));
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

/// An event of a commit that leaves `game`, as the store keeps it (see
/// [`encoding::encode_event_of`]).
pub fn encode_event_of(event: &GameEvent, game: &Game) -> Result<StoredEvent, StoreError> {
    Ok(StoredEvent {
        version: event.version,
        bytes: encoding::encode_event_of(event, game).map_err(corrupt)?,
    })
}

/// The versions of `events` that are administrative acts, for the audit
/// log of the game's event.
pub fn audited(events: &[GameEvent]) -> Vec<u64> {
    events
        .iter()
        .filter(|event| event.audit().is_some())
        .map(|event| event.version)
        .collect()
}

/// An event from the store.
pub fn decode_event(stored: &StoredEvent) -> Result<GameEvent, StoreError> {
    let event = encoding::decode_event(&stored.bytes).map_err(corrupt)?;
    if event.version != stored.version {
        return Err(StoreError::Corrupt(Corruption::EventVersion {
            entry: stored.version,
            event: event.version,
        }));
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
            return Err(StoreError::Corrupt(Corruption::LogGap {
                game: id.clone(),
                from: expected - 1,
                to: event.version,
            }));
        }
    }
    Ok(())
}

/// The events of a log read with a version above `after`, at most `limit`
/// of them, checked to follow on from `after` with no gap.
pub fn decode_log(
    id: &GameId,
    after: u64,
    limit: usize,
    read: &LogRead,
) -> Result<Vec<GameEvent>, StoreError> {
    let mut events = Vec::new();
    if let Some(stored) = &read.archive {
        let archived = archive::unpack(&stored.bytes).map_err(|source| {
            StoreError::Corrupt(Corruption::Archive {
                game: id.clone(),
                source,
            })
        })?;
        if archived.len() as u64 != stored.through {
            return Err(StoreError::Corrupt(Corruption::ArchiveLength {
                game: id.clone(),
                through: stored.through,
                events: archived.len(),
            }));
        }
        events.extend(
            archived
                .into_iter()
                .filter(|event| event.version > after)
                .take(limit),
        );
    }
    for stored in &read.events {
        if events.len() >= limit {
            break;
        }
        events.push(decode_event(stored)?);
    }
    check_contiguous(id, after, &events)?;
    Ok(events)
}

/// The archive of a whole log (see [`archive::pack`]).
pub fn encode_archive(id: &GameId, events: &[GameEvent]) -> Result<StoredArchive, StoreError> {
    let bytes = archive::pack(events).map_err(|source| {
        StoreError::Corrupt(Corruption::Unarchivable {
            game: id.clone(),
            source,
        })
    })?;
    Ok(StoredArchive {
        through: events.last().map_or(0, |event| event.version),
        bytes,
    })
}
