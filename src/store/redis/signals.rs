//! The games' fair-play signals: a list per game beside its state, in the
//! game's slot (see [`super::keys`]).

use async_trait::async_trait;

use super::RedisStore;
use crate::{
    domain::GameId,
    store::{Corruption, SignalAdded, Signals, StoreError},
};

#[async_trait]
impl Signals for RedisStore {
    async fn add_signal(
        &self,
        id: &GameId,
        entry: &[u8],
        repeat_key: &[u8],
        (group, max): (&[u8], usize),
    ) -> Result<SignalAdded, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let outcome: i64 = self
            .endpoint
            .bounded(
                self.add_signal
                    .key(self.keys.signals_key(id))
                    .arg(entry)
                    .arg(repeat_key)
                    .arg(max)
                    .arg(group)
                    .invoke_async(&mut conn),
            )
            .await?;
        match outcome {
            -1 => Ok(SignalAdded::Repeat),
            -2 => Ok(SignalAdded::Full),
            count => usize::try_from(count).map(SignalAdded::Added).map_err(|_| {
                StoreError::Corrupt(Corruption::Reply {
                    what: "a game's signals",
                    detail: format!("add_signal answered {count}"),
                })
            }),
        }
    }

    async fn signals(&self, id: &GameId, max: usize) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let last = isize::try_from(max).unwrap_or(isize::MAX) - 1;
        self.endpoint
            .bounded(
                redis::cmd("LRANGE")
                    .arg(self.keys.signals_key(id))
                    .arg(0)
                    .arg(last)
                    .query_async(&mut conn),
            )
            .await
    }
}
