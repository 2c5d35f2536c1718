//! The sweep: ends games that time decided while nobody was looking.

use super::{Arbiter, ArbiterError};

impl Arbiter {
    /// Ends, by time, up to `limit` games whose flag or default time is due
    /// by now, committing each ending exactly once whatever the number of
    /// replicas sweeping (the store's compare-and-set decides). Returns how
    /// many due games it looked at.
    pub async fn sweep(&self, limit: usize) -> Result<usize, ArbiterError> {
        let now = self.store.now().await?;
        let due = self.store.due(now, limit).await?;
        for id in &due {
            match self.load_current(id).await {
                // Time ended the game (its commit cleared its deadline), or
                // the entry was early: put back the game's own deadline,
                // unless the game has changed since.
                Ok((game, _)) => {
                    self.store
                        .repair_deadline(id, game.version(), game.deadline())
                        .await?;
                }
                Err(ArbiterError::NotFound(_)) => {
                    self.store.repair_deadline(id, 0, None).await?;
                }
                Err(err) => {
                    tracing::warn!(game_id = %id, error = %err, "sweeping a due game failed");
                }
            }
        }
        Ok(due.len())
    }
}
