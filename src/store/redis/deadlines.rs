//! The deadline index the sweeper reads, and the replicas' sweep claims.

use async_trait::async_trait;

use super::{
    RedisStore, count, deadline_arg,
    keys::{BUCKETS, Keys},
};
use crate::{
    domain::{GameId, Timestamp},
    store::{Corruption, Deadlines, StoreError},
};

#[async_trait]
impl Deadlines for RedisStore {
    async fn due(&self, now: Timestamp, limit: usize) -> Result<Vec<GameId>, StoreError> {
        let commands = (0..BUCKETS)
            .map(|bucket| {
                let tag = format!("{{g{bucket}}}");
                let mut command = redis::cmd("ZRANGEBYSCORE");
                command
                    .arg(self.keys.deadlines_key(&tag))
                    .arg("-inf")
                    .arg(now.unix_millis())
                    .arg("LIMIT")
                    .arg(0)
                    .arg(count(limit));
                (tag, command)
            })
            .collect();
        let buckets = self
            .batch(commands)
            .await?
            .into_iter()
            .map(|reply| {
                redis::from_redis_value::<Vec<String>>(reply).map_err(|err| {
                    StoreError::Corrupt(Corruption::Reply {
                        what: "deadline index",
                        detail: err.to_string(),
                    })
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(buckets
            .into_iter()
            .flatten()
            .filter_map(|id| GameId::parse(&id).ok())
            .take(limit)
            .collect())
    }

    async fn next_deadline(&self) -> Result<Option<Timestamp>, StoreError> {
        let commands = (0..BUCKETS)
            .map(|bucket| {
                let tag = format!("{{g{bucket}}}");
                let mut command = redis::cmd("ZRANGE");
                command
                    .arg(self.keys.deadlines_key(&tag))
                    .arg(0)
                    .arg(0)
                    .arg("WITHSCORES");
                (tag, command)
            })
            .collect();
        let mut earliest: Option<Timestamp> = None;
        for reply in self.batch(commands).await? {
            let first: Vec<(String, f64)> = redis::from_redis_value(reply).map_err(|err| {
                StoreError::Corrupt(Corruption::Reply {
                    what: "deadline index",
                    detail: err.to_string(),
                })
            })?;
            for (_, score) in first {
                // Scores are whole milliseconds since the epoch.
                let at = Timestamp::from_unix_millis(score.max(0.0) as u64);
                earliest = Some(earliest.map_or(at, |known| known.min(at)));
            }
        }
        Ok(earliest)
    }

    async fn claim_sweep(&self, id: &GameId, for_ms: u64) -> Result<bool, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let claimed: Option<String> = self
            .endpoint
            .bounded(
                redis::cmd("SET")
                    .arg(self.keys.sweep_claim_key(id))
                    .arg(1)
                    .arg("NX")
                    .arg("PX")
                    .arg(for_ms.max(1))
                    .query_async(&mut conn),
            )
            .await?;
        Ok(claimed.is_some())
    }

    async fn release_sweep(&self, id: &GameId) -> Result<(), StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let _: i64 = self
            .endpoint
            .bounded(
                redis::cmd("DEL")
                    .arg(self.keys.sweep_claim_key(id))
                    .query_async(&mut conn),
            )
            .await?;
        Ok(())
    }

    async fn repair_deadline(
        &self,
        id: &GameId,
        version: u64,
        deadline: Option<Timestamp>,
    ) -> Result<(), StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let _: u8 = self
            .endpoint
            .bounded(
                self.repair
                    .key(self.keys.state_key(id))
                    .key(self.keys.deadlines_key(&Keys::bucket_tag(id)))
                    .arg(version)
                    .arg(deadline_arg(deadline))
                    .arg(id.as_str())
                    .invoke_async(&mut conn),
            )
            .await?;
        Ok(())
    }
}
