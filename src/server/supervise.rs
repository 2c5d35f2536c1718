//! Supervision of the server's background work: a task that panics is
//! logged and started again after a pause, and its state is visible in gRPC
//! health under its own name, so that a wedged replica can be told apart
//! and restarted by the orchestrator.

use std::{future::Future, time::Duration};

use tokio_util::sync::CancellationToken;
use tonic_health::{ServingStatus, server::HealthReporter};

/// The health name of the flag sweeper.
pub const SWEEPER: &str = "sweeper";

/// The pause before a task that panicked is started again.
const RESTART_PAUSE: Duration = Duration::from_secs(1);

/// Runs the task `start` makes, under health name `name`, until it ends by
/// itself (on `shutdown`): after a panic it is reported `NOT_SERVING`,
/// logged with the panic's message, and started again after a pause.
pub async fn supervise<F, T>(
    name: &'static str,
    reporter: HealthReporter,
    shutdown: CancellationToken,
    start: F,
) where
    F: Fn() -> T,
    T: Future<Output = ()> + Send + 'static,
{
    let mut restarts: u64 = 0;
    loop {
        reporter
            .set_service_status(name, ServingStatus::Serving)
            .await;
        match tokio::spawn(start()).await {
            Ok(()) => return,
            Err(err) if err.is_panic() => {
                restarts += 1;
                let payload = err.into_panic();
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|text| (*text).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_owned());
                tracing::error!(
                    task = name,
                    restarts,
                    panic = %message,
                    "a background task panicked; starting it again"
                );
                reporter
                    .set_service_status(name, ServingStatus::NotServing)
                    .await;
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(RESTART_PAUSE) => {}
                }
            }
            // Cancelled: the runtime is shutting down.
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    };

    use tonic_health::pb::{HealthCheckRequest, health_server::Health};

    use super::*;

    async fn status(health: &impl Health, name: &str) -> i32 {
        health
            .check(tonic::Request::new(HealthCheckRequest {
                service: name.to_owned(),
            }))
            .await
            .map(|response| response.into_inner().status)
            .unwrap_or(-1)
    }

    #[tokio::test]
    async fn a_task_that_panics_is_started_again() {
        let (reporter, service) = tonic_health::server::health_reporter();
        let health = tonic_health::server::HealthService::from_health_reporter(reporter.clone());
        drop(service);
        let starts = Arc::new(AtomicUsize::new(0));
        let shutdown = CancellationToken::new();
        let supervised = {
            let starts = starts.clone();
            let shutdown = shutdown.clone();
            tokio::spawn(supervise("worker", reporter, shutdown.clone(), move || {
                let starts = starts.clone();
                let shutdown = shutdown.clone();
                async move {
                    if starts.fetch_add(1, Ordering::SeqCst) == 0 {
                        panic!("poisoned on the first run");
                    }
                    shutdown.cancelled().await;
                }
            }))
        };
        // Down after the panic, then up again once restarted.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while starts.load(Ordering::SeqCst) < 2 {
            assert!(tokio::time::Instant::now() < deadline, "not restarted");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            status(&health, "worker").await,
            tonic_health::pb::health_check_response::ServingStatus::Serving as i32
        );
        shutdown.cancel();
        tokio::time::timeout(Duration::from_secs(5), supervised)
            .await
            .expect("ends on shutdown")
            .expect("the supervisor itself never panics");
        assert_eq!(starts.load(Ordering::SeqCst), 2);
    }
}
