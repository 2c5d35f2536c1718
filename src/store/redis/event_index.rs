//! Each tournament event's list of games, a sorted set in list order.

use async_trait::async_trait;

use super::{
    RedisStore, count,
    keys::{event_member, event_position},
};
use crate::{
    domain::EventId,
    store::{EventIndex, EventPosition, Listing, StoreError},
};

impl RedisStore {
    /// Runs `list_in_event.lua`: 1 listed, 0 full, 2 refused by the record
    /// of round `refused_by` (0: no round refuses it).
    async fn list(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
        refused_by: u32,
    ) -> Result<u8, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        self.endpoint
            .bounded(
                self.list_in_event
                    .key(self.keys.event_key(event_id))
                    .key(self.keys.rounds_key(event_id))
                    .arg(event_member(position))
                    .arg(max_entries)
                    .arg(refused_by)
                    .invoke_async(&mut conn),
            )
            .await
    }
}

#[async_trait]
impl EventIndex for RedisStore {
    async fn add_to_event(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<bool, StoreError> {
        Ok(self.list(event_id, position, max_entries, 0).await? == 1)
    }

    async fn list_outside_rounds(
        &self,
        event_id: &EventId,
        position: &EventPosition,
        max_entries: usize,
    ) -> Result<Listing, StoreError> {
        Ok(
            match self
                .list(event_id, position, max_entries, position.round)
                .await?
            {
                1 => Listing::Listed,
                2 => Listing::RoundRecorded,
                _ => Listing::Full,
            },
        )
    }

    async fn event_games(
        &self,
        event_id: &EventId,
        after: Option<&EventPosition>,
        limit: usize,
    ) -> Result<Vec<EventPosition>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut conn = self.endpoint.connection().await?;
        let start = after.map_or("-".to_owned(), |after| format!("({}", event_member(after)));
        let members: Vec<String> = self
            .endpoint
            .bounded(
                redis::cmd("ZRANGE")
                    .arg(self.keys.event_key(event_id))
                    .arg(start)
                    .arg("+")
                    .arg("BYLEX")
                    .arg("LIMIT")
                    .arg(0)
                    .arg(count(limit))
                    .query_async(&mut conn),
            )
            .await?;
        members
            .iter()
            .map(|member| event_position(member))
            .collect()
    }
}
