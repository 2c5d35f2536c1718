//! The flag sweeper: ends games whose flag falls (or whose default time
//! runs out) while nobody reads or writes them.
//!
//! Every replica runs one. They all read the store's deadline index and
//! commit endings through the store's compare-and-set, so each game ends
//! exactly once however many replicas race for it.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::arbiter::Arbiter;

/// How often the index is read. Together with the time one sweep takes,
/// this bounds how late an unattended flag is noticed.
const INTERVAL: Duration = Duration::from_millis(50);

/// Games handled per sweep; a full batch is followed at once by another.
const BATCH: usize = 200;

/// Sweeps until `shutdown`.
pub async fn run(arbiter: Arbiter, shutdown: CancellationToken) {
    let mut failing = false;
    loop {
        let result = arbiter.sweep(BATCH).await;
        match result {
            Ok(handled) => {
                if failing {
                    tracing::info!("flag sweeper working again");
                    failing = false;
                }
                if handled >= BATCH {
                    continue;
                }
            }
            Err(err) => {
                if !failing {
                    tracing::warn!(error = %err, "flag sweeper cannot read the deadline index");
                    failing = true;
                }
            }
        }
        tokio::select! {
            () = shutdown.cancelled() => break,
            () = tokio::time::sleep(INTERVAL) => {}
        }
    }
}
