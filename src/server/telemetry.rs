//! Logs and traces: log lines (text or JSON) for every process, and, when
//! the standard `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, OpenTelemetry traces
//! exported over OTLP/gRPC: a span per RPC (continuing the caller's W3C
//! `traceparent`), with the game id when the call names one, and a span per
//! store operation (with Redis: its round trip). JSON log lines written
//! inside an RPC carry its `trace_id`.

use std::sync::atomic::{AtomicBool, Ordering};

use opentelemetry::{
    global,
    propagation::Extractor,
    trace::{TraceContextExt, TracerProvider as _},
};
use opentelemetry_sdk::{Resource, propagation::TraceContextPropagator, trace::SdkTracerProvider};
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::{EnvFilter, Layer, layer::SubscriberExt, util::SubscriberInitExt};

use super::LogFormat;

/// Whether spans are exported: without an exporter a call's span needs no
/// trace context.
static EXPORTING: AtomicBool = AtomicBool::new(false);

/// Keeps the trace exporter running; dropping it flushes the spans not yet
/// sent.
pub struct Telemetry {
    provider: Option<SdkTracerProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.provider.take()
            && let Err(err) = provider.shutdown()
        {
            eprintln!("traces not flushed: {err}");
        }
    }
}

/// Whether the environment asks for traces.
fn tracing_wanted() -> bool {
    [
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    ]
    .iter()
    .any(|name| std::env::var(name).is_ok_and(|value| !value.trim().is_empty()))
}

/// Sets up logging in `format`, and trace export when it is asked for.
/// Call once, inside the Tokio runtime.
pub fn init(format: LogFormat) -> Telemetry {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let logs = match format {
        // Colours only on a terminal: a log file or a pipe gets plain text.
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stdout()))
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer().json().boxed(),
    };
    let mut failure = None;
    let provider = if tracing_wanted() {
        match opentelemetry_otlp::SpanExporter::builder()
            .with_tonic()
            .build()
        {
            Ok(exporter) => Some(
                SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(
                        Resource::builder()
                            .with_service_name(
                                std::env::var("OTEL_SERVICE_NAME")
                                    .unwrap_or_else(|_| "chess-arbiter".to_owned()),
                            )
                            .build(),
                    )
                    .build(),
            ),
            Err(err) => {
                failure = Some(err.to_string());
                None
            }
        }
    } else {
        None
    };
    let traces = provider.as_ref().map(|provider| {
        EXPORTING.store(true, Ordering::Relaxed);
        global::set_text_map_propagator(TraceContextPropagator::new());
        tracing_opentelemetry::layer().with_tracer(provider.tracer("chess-arbiter"))
    });
    tracing_subscriber::registry()
        .with(filter)
        .with(logs)
        .with(traces)
        .init();
    if let Some(err) = failure {
        tracing::error!(error = %err, "traces cannot be exported");
    } else if provider.is_some() {
        tracing::info!("exporting traces over OTLP");
    }
    Telemetry { provider }
}

/// Reads a W3C trace context from request headers.
struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// The span of one gRPC call: its method, the caller's trace continued,
/// and room for the game id and the trace id its log lines carry.
pub fn rpc_span(request: &http::Request<()>) -> tracing::Span {
    let span = tracing::info_span!(
        "rpc",
        otel.name = %request.uri().path().trim_start_matches('/'),
        otel.kind = "server",
        rpc.system = "grpc",
        rpc.method = %request.uri().path(),
        game_id = tracing::field::Empty,
        trace_id = tracing::field::Empty,
    );
    if !EXPORTING.load(Ordering::Relaxed) {
        return span;
    }
    let parent = global::get_text_map_propagator(|propagator| {
        propagator.extract(&Headers(request.headers()))
    });
    if parent.span().span_context().is_valid() {
        let _ = span.set_parent(parent);
    }
    let context = span.context();
    let trace = context.span().span_context().trace_id();
    if trace != opentelemetry::trace::TraceId::INVALID {
        span.record("trace_id", tracing::field::display(trace));
    }
    span
}
