//! A game as the store holds it, in readable form, for an arbiter looking
//! into a disputed game.

use super::{Arbiter, ArbiterError, codec};
use crate::domain::{
    GameId,
    access::{Action, Principal},
    stored::encoding,
};

/// The stored records of one game, decoded to JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspection {
    /// The stored state.
    pub state_json: String,
    /// Every event, in version order.
    pub events_json: Vec<String>,
    /// Bytes the stored state takes.
    pub state_bytes: usize,
    /// The last version the archive holds (0: none).
    pub archived_through: u64,
    /// Bytes the archive takes.
    pub archive_bytes: usize,
    /// Bytes the live log entries take.
    pub log_bytes: usize,
}

impl Arbiter {
    /// Game `id` as stored: its state as it is (a flag that has fallen is
    /// not ruled on here) and its whole log.
    pub async fn inspect(&self, id: &GameId, by: &Principal) -> Result<Inspection, ArbiterError> {
        let (state, _) = self.store.load(id).await?;
        let state = state.ok_or_else(|| ArbiterError::NotFound(id.clone()))?;
        let game = codec::decode_state(&state)?;
        by.authorize(Action::Inspect, game.pairing().event_id.as_ref())?;
        let read = self.store.events_after(id, 0).await?;
        let events = codec::decode_log(id, 0, usize::MAX, &read)?;
        Ok(Inspection {
            state_json: encoding::readable_game(&game),
            events_json: events.iter().map(encoding::readable_event).collect(),
            state_bytes: state.bytes.len(),
            archived_through: read.archive.as_ref().map_or(0, |archive| archive.through),
            archive_bytes: read
                .archive
                .as_ref()
                .map_or(0, |archive| archive.bytes.len()),
            log_bytes: read.events.iter().map(|event| event.bytes.len()).sum(),
        })
    }
}
