//! gRPC health: `liveness` is serving while the process runs; `readiness`
//! (and the arbiter service's own name) follow whether storage answers;
//! `sweeper` follows the flag sweeper's supervisor.

use std::{sync::Arc, time::Duration};

use tokio_util::sync::CancellationToken;
use tonic_health::{ServingStatus, server::HealthReporter};

use crate::{
    proto::{
        admin_service_server::AdminServiceServer, arbiter_service_server::ArbiterServiceServer,
    },
    store::GameStore,
};

/// The service name that follows storage reachability.
pub const READINESS: &str = "readiness";
/// The service name that is serving while the process runs.
pub const LIVENESS: &str = "liveness";

/// How often storage is probed: a lost store shows in readiness within a
/// second, for one small write a second.
const PROBE_INTERVAL: Duration = Duration::from_secs(1);

/// Registers every service name before the server accepts a connection:
/// live, not ready until storage has answered once, and the sweeper not
/// serving until its supervisor starts it.
pub async fn register(reporter: &HealthReporter) {
    reporter
        .set_service_status(LIVENESS, ServingStatus::Serving)
        .await;
    reporter
        .set_service_status(super::supervise::SWEEPER, ServingStatus::NotServing)
        .await;
    set_ready(reporter, ServingStatus::NotServing).await;
}

/// Keeps the readiness statuses current until `shutdown`, then marks the
/// server not ready so that load balancers stop sending it requests.
pub async fn report(
    reporter: HealthReporter,
    store: Arc<dyn GameStore>,
    shutdown: CancellationToken,
) {
    let mut last = None;
    loop {
        let status = match store.ping().await {
            Ok(()) => ServingStatus::Serving,
            Err(err) => {
                if last != Some(ServingStatus::NotServing) {
                    tracing::warn!(error = %err, "storage unreachable: not ready");
                }
                ServingStatus::NotServing
            }
        };
        if last != Some(status) {
            if status == ServingStatus::Serving && last.is_some() {
                tracing::info!("storage reachable again: ready");
            }
            set_ready(&reporter, status).await;
            last = Some(status);
        }
        tokio::select! {
            () = shutdown.cancelled() => break,
            () = tokio::time::sleep(PROBE_INTERVAL) => {}
        }
    }
    set_ready(&reporter, ServingStatus::NotServing).await;
}

async fn set_ready(reporter: &HealthReporter, status: ServingStatus) {
    reporter.set_service_status(READINESS, status).await;
    match status {
        ServingStatus::Serving => {
            reporter
                .set_serving::<ArbiterServiceServer<crate::api::ArbiterApi>>()
                .await;
            reporter
                .set_serving::<AdminServiceServer<crate::api::ArbiterApi>>()
                .await;
        }
        _ => {
            reporter
                .set_not_serving::<ArbiterServiceServer<crate::api::ArbiterApi>>()
                .await;
            reporter
                .set_not_serving::<AdminServiceServer<crate::api::ArbiterApi>>()
                .await;
        }
    }
}
