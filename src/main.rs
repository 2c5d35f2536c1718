//! The chess arbiter server.

use std::process::ExitCode;

use arbiter::server::{self, Config};
use clap::Parser;
use tokio_util::sync::CancellationToken;

/// mimalloc rather than the system's allocator: a move allocates and frees
/// many small buffers (the request, the state, the events, the reply), and
/// with glibc's malloc that took about a seventh of the server's CPU under
/// load; measured side by side in docs/benchmarks.md. It is built without
/// asking for transparent huge pages (the `no_thp` feature): with them, 10,000
/// open watch streams held 7.4 KB each instead of 6.3, the idle server
/// 30 MB instead of 17, and the kernel's zeroing of huge pages took a fifth
/// of the server's CPU while 100,000 streams opened. An idle worker gives
/// its freed memory back (see `server::runtime`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match server::runtime::build() {
        Ok(runtime) => runtime.block_on(run()),
        Err(err) => {
            eprintln!("cannot start the runtime: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> ExitCode {
    let config = Config::parse();
    // Flushes the spans not yet exported when main returns.
    let _telemetry = server::telemetry::init(config.log_format);
    let settings = match config.settings() {
        Ok(settings) => settings,
        Err(message) => {
            tracing::error!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(listener) => listener,
        Err(err) => {
            tracing::error!(address = %config.listen, error = %err, "cannot listen");
            return ExitCode::FAILURE;
        }
    };

    let shutdown = CancellationToken::new();
    tokio::spawn(cancel_on_signal(shutdown.clone()));
    let mut serving = tokio::spawn(server::serve(settings, listener, shutdown.clone()));

    let outcome = tokio::select! {
        outcome = &mut serving => outcome,
        () = shutdown.cancelled() => {
            // Bound the time open requests get to finish.
            match tokio::time::timeout(config.shutdown_grace(), &mut serving).await {
                Ok(outcome) => outcome,
                Err(_) => {
                    tracing::warn!("shutdown grace period over; exiting with requests still open");
                    return ExitCode::SUCCESS;
                }
            }
        }
    };
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(err)) => {
            tracing::error!(error = %err, "server failed");
            ExitCode::FAILURE
        }
        Err(err) => {
            tracing::error!(error = %err, "server task failed");
            ExitCode::FAILURE
        }
    }
}

/// Fires `shutdown` on SIGINT or SIGTERM.
async fn cancel_on_signal(shutdown: CancellationToken) {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(err) => {
                tracing::warn!(error = %err, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = interrupt => tracing::info!("SIGINT received: shutting down"),
        () = terminate => tracing::info!("SIGTERM received: shutting down"),
    }
    shutdown.cancel();
}
