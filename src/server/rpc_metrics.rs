//! Per-RPC metrics: a tower layer around every gRPC service that counts
//! calls by method and status code and times them.

use std::{
    collections::HashMap,
    future::Future,
    pin::Pin,
    sync::{Arc, OnceLock},
    task::{Context, Poll},
    time::Instant,
};

use prometheus_client::metrics::{counter::Counter, histogram::Histogram};
use prost::Message;
use tonic::Code;
use tower::{Layer, Service};

use crate::{
    metrics::{MethodLabel, Metrics, RpcLabels},
    proto,
};

/// The method label of calls to paths the server does not serve, so that
/// clients cannot grow the metrics with made-up names.
const UNKNOWN: &str = "unknown";

/// Counts and times every call of the services it wraps.
#[derive(Clone)]
pub struct RpcMetricsLayer {
    metrics: Arc<Metrics>,
    /// Each path served (without its `/`), with its method's label.
    known: Arc<HashMap<String, Arc<Method>>>,
    unknown: Arc<Method>,
}

/// A method's label, and the series its answered calls go to most often,
/// found in their families on its first call and kept: a call then finds
/// no label in a family (each a hash and a lock every core shares).
struct Method {
    label: Arc<String>,
    /// Its duration histogram and its count of calls answered `OK`.
    series: OnceLock<(Histogram, Counter)>,
}

impl Method {
    fn new(label: String) -> Arc<Self> {
        Arc::new(Self {
            label: Arc::new(label),
            series: OnceLock::new(),
        })
    }

    /// The method's duration histogram and `OK` count, made in `metrics`
    /// on first use (the exported text is what the families alone would
    /// give: a series appears once a call was answered).
    fn series(&self, metrics: &Metrics) -> &(Histogram, Counter) {
        self.series.get_or_init(|| {
            let duration = metrics
                .rpc_duration
                .get_or_create(&MethodLabel {
                    method: Arc::clone(&self.label),
                })
                .clone();
            let ok = metrics
                .rpcs
                .get_or_create(&RpcLabels {
                    method: Arc::clone(&self.label),
                    code: code_name(Code::Ok),
                })
                .clone();
            (duration, ok)
        })
    }
}

impl RpcMetricsLayer {
    /// Records into `metrics`, naming the methods of the public contract,
    /// health and reflection (any other path is `unknown`).
    pub fn new(metrics: Arc<Metrics>) -> Self {
        let mut paths: Vec<String> = [
            "grpc.health.v1.Health/Check",
            "grpc.health.v1.Health/Watch",
            "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect();
        if let Ok(files) = prost_types::FileDescriptorSet::decode(proto::FILE_DESCRIPTOR_SET) {
            for file in &files.file {
                for service in &file.service {
                    for method in &service.method {
                        paths.push(format!(
                            "{}.{}/{}",
                            file.package(),
                            service.name(),
                            method.name()
                        ));
                    }
                }
            }
        }
        let known = paths
            .into_iter()
            .map(|path| {
                // The package is the same for every method of the contract.
                let label = path.trim_start_matches("chessarbiter.v1.").to_owned();
                (path, Method::new(label))
            })
            .collect();
        Self {
            metrics,
            known: Arc::new(known),
            unknown: Method::new(UNKNOWN.to_owned()),
        }
    }
}

impl<S> Layer<S> for RpcMetricsLayer {
    type Service = RpcMetrics<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RpcMetrics {
            inner,
            layer: self.clone(),
        }
    }
}

/// A service whose calls are counted and timed.
#[derive(Clone)]
pub struct RpcMetrics<S> {
    inner: S,
    layer: RpcMetricsLayer,
}

impl<S, B, R> Service<http::Request<B>> for RpcMetrics<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Counted<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let path = request.uri().path().trim_start_matches('/');
        let method = Arc::clone(self.layer.known.get(path).unwrap_or(&self.layer.unknown));
        let started = Instant::now();
        Counted {
            call: self.inner.call(request),
            record: Some(Record {
                metrics: Arc::clone(&self.layer.metrics),
                method,
                started,
            }),
        }
    }
}

pin_project_lite::pin_project! {
    /// A call's future, recording the call once it is answered (inline in
    /// the call's own future: every call of the server passes through it).
    pub struct Counted<F> {
        #[pin]
        call: F,
        record: Option<Record>,
    }
}

/// What a call's record needs once it is answered.
struct Record {
    metrics: Arc<Metrics>,
    method: Arc<Method>,
    started: Instant,
}

impl Record {
    /// Counts and times the call, answered with `result`.
    fn answered<R, E>(self, result: &Result<http::Response<R>, E>) {
        // An error is in the headers (a trailers-only response); a
        // success's status comes in the trailers, after the body.
        let code = match result {
            Ok(response) => response
                .headers()
                .get("grpc-status")
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.parse::<i32>().ok())
                .map_or(Code::Ok, Code::from_i32),
            Err(_) => Code::Internal,
        };
        let (duration, ok) = self.method.series(&self.metrics);
        duration.observe(self.started.elapsed().as_secs_f64());
        if code == Code::Ok {
            ok.inc();
        } else {
            self.metrics
                .rpcs
                .get_or_create(&RpcLabels {
                    method: Arc::clone(&self.method.label),
                    code: code_name(code),
                })
                .inc();
        }
    }
}

impl<F, R, E> Future for Counted<F>
where
    F: Future<Output = Result<http::Response<R>, E>>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let result = std::task::ready!(this.call.poll(cx));
        if let Some(record) = this.record.take() {
            record.answered(&result);
        }
        Poll::Ready(result)
    }
}

/// The canonical name of a status code, as the gRPC specification writes
/// it.
fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}
