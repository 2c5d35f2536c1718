//! The metrics port: `GET /metrics` in the OpenMetrics text format, for
//! Prometheus to scrape.

use std::{net::SocketAddr, sync::Arc};

use axum::{Router, http::header, response::IntoResponse, routing::get};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::ServeError;
use crate::metrics::Metrics;

/// The content type of the OpenMetrics text format.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Serves `metrics` on `address` until `shutdown`.
pub async fn serve(
    address: SocketAddr,
    metrics: Arc<Metrics>,
    shutdown: CancellationToken,
) -> Result<tokio::task::JoinHandle<()>, ServeError> {
    let listener = TcpListener::bind(address)
        .await
        .map_err(|err| format!("cannot listen for metrics on {address}: {err}"))?;
    tracing::info!(address = %listener.local_addr()?, "serving metrics on /metrics");
    let app = Router::new().route(
        "/metrics",
        get(move || {
            let metrics = metrics.clone();
            async move { ([(header::CONTENT_TYPE, OPENMETRICS)], metrics.render()).into_response() }
        }),
    );
    Ok(tokio::spawn(async move {
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await;
        if let Err(err) = served {
            tracing::error!(error = %err, "the metrics port stopped");
        }
    }))
}
