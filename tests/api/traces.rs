//! Traces: the server binary, pointed at an OTLP collector by the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT`, exports a span per RPC that continues
//! the caller's W3C trace and names the game, with a span per store
//! operation inside it; its JSON log lines carry the trace id.

use std::{
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use arbiter::proto::{
    admin_service_client::AdminServiceClient, arbiter_service_client::ArbiterServiceClient,
};
use opentelemetry_proto::tonic::{
    collector::trace::v1::{
        ExportTraceServiceRequest, ExportTraceServiceResponse,
        trace_service_server::{TraceService, TraceServiceServer},
    },
    common::v1::any_value,
    trace::v1::Span,
};
use tokio_stream::wrappers::TcpListenerStream;
use tonic::{Request, Response, Status};

use crate::common::{ADMIN_TOKEN, TOKEN_SECRET, create_request, make_move};

/// Every span exported to it.
#[derive(Clone, Default)]
struct Collector {
    spans: Arc<Mutex<Vec<Span>>>,
}

#[tonic::async_trait]
impl TraceService for Collector {
    async fn export(
        &self,
        request: Request<ExportTraceServiceRequest>,
    ) -> Result<Response<ExportTraceServiceResponse>, Status> {
        let mut spans = self.spans.lock().expect("spans");
        for resource in request.into_inner().resource_spans {
            for scope in resource.scope_spans {
                spans.extend(scope.spans);
            }
        }
        Ok(Response::new(ExportTraceServiceResponse::default()))
    }
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|attribute| attribute.key == key)
        .and_then(|attribute| attribute.value.as_ref())
        .and_then(|value| match &value.value {
            Some(any_value::Value::StringValue(text)) => Some(text.clone()),
            _ => None,
        })
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn with_trace<T>(message: T, traceparent: &str, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    request
        .metadata_mut()
        .insert("traceparent", traceparent.parse().expect("ascii"));
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    request
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_are_traced_into_the_callers_trace() {
    let collector = Collector::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let collector_port = listener.local_addr().expect("address").port();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(collector.clone()))
            .serve_with_incoming(TcpListenerStream::new(listener)),
    );
    let port = crate::common::free_port().port();
    let logs = tempfile::NamedTempFile::new().expect("log file");
    let _server = Server(
        Command::new(env!("CARGO_BIN_EXE_chess-arbiter"))
            .env("ARBITER_LISTEN", format!("127.0.0.1:{port}"))
            .env("ARBITER_ADMIN_TOKEN", ADMIN_TOKEN)
            .env("ARBITER_TOKEN_SECRET", TOKEN_SECRET)
            .env("ARBITER_LOG_FORMAT", "json")
            .env(
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                format!("http://127.0.0.1:{collector_port}"),
            )
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env("RUST_LOG", "info")
            .stdout(logs.reopen().expect("log file"))
            .stderr(Stdio::null())
            .spawn()
            .expect("start the server"),
    );
    let address = format!("http://127.0.0.1:{port}");
    let channel = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Ok(channel) = tonic::transport::Channel::from_shared(address.clone())
                .expect("uri")
                .connect()
                .await
            {
                return channel;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the server starts");

    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let traceparent = format!("00-{trace_id}-00f067aa0ba902b7-01");
    let created = AdminServiceClient::new(channel.clone())
        .create_game(with_trace(
            create_request("", ""),
            &traceparent,
            ADMIN_TOKEN,
        ))
        .await
        .expect("created")
        .into_inner();
    let game_id = created.game.expect("game").game_id;
    ArbiterServiceClient::new(channel)
        .make_move(with_trace(
            make_move(&game_id, 0, "e4"),
            &traceparent,
            &created.white_token,
        ))
        .await
        .expect("a move");

    let ours = |span: &Span| hex(&span.trace_id) == trace_id;
    let spans = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let spans = collector.spans.lock().expect("spans").clone();
            if spans
                .iter()
                .any(|span| ours(span) && span.name.ends_with("ArbiterService/MakeMove"))
                && spans
                    .iter()
                    .filter(|span| ours(span) && span.name == "commit")
                    .count()
                    >= 2
            {
                return spans;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the spans reach the collector");
    let rpc = spans
        .iter()
        .find(|span| ours(span) && span.name == "chessarbiter.v1.ArbiterService/MakeMove")
        .expect("the MakeMove span");
    assert_eq!(
        hex(&rpc.parent_span_id),
        "00f067aa0ba902b7",
        "the caller's span is its parent"
    );
    assert_eq!(attribute(rpc, "game_id").as_deref(), Some(game_id.as_str()));
    let commit = spans
        .iter()
        .find(|span| ours(span) && span.name == "commit" && span.parent_span_id == rpc.span_id)
        .expect("the commit inside the MakeMove call");
    assert_eq!(attribute(commit, "operation").as_deref(), Some("commit"));

    // The creation's log line carries the trace id.
    let text = std::fs::read_to_string(logs.path()).expect("logs");
    let line = text
        .lines()
        .find(|line| line.contains("game created"))
        .unwrap_or_else(|| panic!("no creation line in:\n{text}"));
    assert!(
        line.contains(&format!("\"trace_id\":\"{trace_id}\"")),
        "{line}"
    );
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
