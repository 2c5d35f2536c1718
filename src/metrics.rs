//! The service's Prometheus metrics: one registry per server, filled by the
//! api layer (per RPC), the arbiter (what games do), the sweeper and the
//! store (every operation's latency and errors), and served on the metrics
//! port in the OpenMetrics text format.
//!
//! Every name is `arbiter_…`; `deploy/grafana/chess-arbiter.json` uses exactly
//! these names, and a test checks that it names no other.

use std::{
    sync::{Arc, atomic::AtomicU64},
    time::Duration,
};

use prometheus_client::{
    encoding::{EncodeLabelSet, text::encode},
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{Histogram, exponential_buckets},
    },
    registry::{Metric, Registry, Unit},
};

/// The labels of a per-RPC count.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RpcLabels {
    /// `Service/Method`, e.g. `ArbiterService/MakeMove` (shared: a call
    /// takes it without a copy).
    pub method: Arc<String>,
    /// The gRPC status code's name (`OK`, `INVALID_ARGUMENT`, …).
    pub code: &'static str,
}

/// The label of a per-RPC latency.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct MethodLabel {
    /// `Service/Method`.
    pub method: Arc<String>,
}

/// The label of a store operation.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OperationLabel {
    /// The operation (`load`, `commit`, `events_page`, …).
    pub operation: &'static str,
}

/// How a game ended.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TerminationLabel {
    /// The termination (`checkmate`, `resignation`, `timeout`, …, or
    /// `aborted`).
    pub termination: String,
}

/// Who committed an ending that time decided.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ByLabel {
    /// `sweeper`, or `request` (a read or command that found the flag down).
    pub by: &'static str,
}

/// Which dead-position analysis ran.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AnalysisLabel {
    /// `fast` (chasolver's fast test, on a move's path) or `full` (the
    /// background analysis: the fast test, then the helpmate search).
    pub kind: &'static str,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;

fn analysis_histogram() -> Histogram {
    // 1 µs to about 17 s: the fast test takes microseconds on most
    // positions and seconds on a few.
    Histogram::new(exponential_buckets(0.000_001, 4.0, 13))
}

fn latency_histogram() -> Histogram {
    // 50 µs to about 1.6 s.
    Histogram::new(exponential_buckets(0.000_05, 2.0, 16))
}

/// Every metric of one server.
pub struct Metrics {
    registry: Registry,
    /// The name of every family registered, as the text format writes it
    /// (before the `_total`, `_bucket`, … suffixes of its samples).
    names: Vec<String>,
    /// RPCs answered, by method and status code.
    pub rpcs: Family<RpcLabels, Counter>,
    /// Time to answer an RPC (to its response headers; for a stream, its
    /// opening), by method.
    pub rpc_duration: Histograms<MethodLabel>,
    /// Moves committed.
    pub moves: Counter,
    /// Games created.
    pub games_created: Counter,
    /// Games ended, by termination (`aborted` for aborted games).
    pub games_ended: Family<TerminationLabel, Counter>,
    /// Arbiter's rulings committed (decisions and corrections).
    pub rulings: Counter,
    /// Results that await an arbiter's review (a flag whose helpmate search
    /// could not decide whether the opponent can mate).
    pub awaiting_review: Counter,
    /// Commits that lost a version race and were decided again.
    pub conflicts: Counter,
    /// Endings that time decided (flags, default times), by who committed
    /// them.
    pub time_endings: Family<ByLabel, Counter>,
    /// How far behind the earliest due deadline the sweeper was at its
    /// latest pass (0 when nothing was due).
    pub sweeper_lag: Gauge<f64, AtomicU64>,
    /// Logs of ended games archived.
    pub archives: Counter,
    /// Due games the sweeper could not read and set aside (retried with a
    /// growing backoff).
    pub set_aside: Counter,
    /// Time each store operation took, by operation.
    pub store_duration: Histograms<OperationLabel>,
    /// Store operations that failed, by operation.
    pub store_errors: Family<OperationLabel, Counter>,
    /// Watch streams (WatchGame and WatchEvent) open.
    pub watch_streams: Gauge,
    /// Time each dead-position analysis took, by kind.
    pub analysis_seconds: Histograms<AnalysisLabel>,
    /// Moves committed before the fast test answered (over its budget, or
    /// every slot busy); the background analysis follows up.
    pub analysis_over_budget: Counter,
    /// Positions the background analysis could not decide.
    pub analysis_undecided: Counter,
    /// Positions dropped from a full background queue.
    pub analysis_dropped: Counter,
}

/// Registers families under `arbiter_`, remembering each one's name as
/// the text format writes it.
struct Registrar<'a> {
    registry: &'a mut Registry,
    names: &'a mut Vec<String>,
}

impl Registrar<'_> {
    fn plain(&mut self, name: &str, help: &str, metric: impl Metric) {
        self.names.push(format!("arbiter_{name}"));
        self.registry.register(name, help, metric);
    }

    fn seconds(&mut self, name: &str, help: &str, metric: impl Metric) {
        self.names.push(format!("arbiter_{name}_seconds"));
        self.registry
            .register_with_unit(name, help, Unit::Seconds, metric);
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Metrics")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut metrics = Self {
            registry: Registry::with_prefix("arbiter"),
            names: Vec::new(),
            rpcs: Family::default(),
            rpc_duration: Family::new_with_constructor(latency_histogram),
            moves: Counter::default(),
            games_created: Counter::default(),
            games_ended: Family::default(),
            rulings: Counter::default(),
            awaiting_review: Counter::default(),
            conflicts: Counter::default(),
            time_endings: Family::default(),
            sweeper_lag: Gauge::default(),
            archives: Counter::default(),
            set_aside: Counter::default(),
            store_duration: Family::new_with_constructor(latency_histogram),
            store_errors: Family::default(),
            watch_streams: Gauge::default(),
            analysis_seconds: Family::new_with_constructor(analysis_histogram),
            analysis_over_budget: Counter::default(),
            analysis_undecided: Counter::default(),
            analysis_dropped: Counter::default(),
        };
        let mut register = Registrar {
            registry: &mut metrics.registry,
            names: &mut metrics.names,
        };
        register.plain(
            "grpc_requests",
            "gRPC calls answered, by method and status code",
            metrics.rpcs.clone(),
        );
        register.seconds(
            "grpc_request_duration",
            "Time to answer a gRPC call (a stream: to open it), by method",
            metrics.rpc_duration.clone(),
        );
        register.plain("moves_committed", "Moves committed", metrics.moves.clone());
        register.plain(
            "games_created",
            "Games created",
            metrics.games_created.clone(),
        );
        register.plain(
            "games_ended",
            "Games ended, by termination (aborted games as aborted)",
            metrics.games_ended.clone(),
        );
        register.plain(
            "rulings",
            "Arbiter's rulings committed (decisions and corrections)",
            metrics.rulings.clone(),
        );
        register.plain(
            "results_awaiting_review",
            "Games ended with a result that awaits an arbiter's review (needs_review): a flag \
             whose helpmate search could not decide",
            metrics.awaiting_review.clone(),
        );
        register.plain(
            "commit_conflicts",
            "Commits that lost a version race to another writer and were decided again",
            metrics.conflicts.clone(),
        );
        register.plain(
            "time_endings",
            "Endings that time decided (flags, default times), by who committed them: the \
             sweeper, or a request that found the flag down",
            metrics.time_endings.clone(),
        );
        register.seconds(
            "sweeper_lag",
            "How far behind the earliest due deadline the sweeper was at its latest pass",
            metrics.sweeper_lag.clone(),
        );
        register.plain(
            "logs_archived",
            "Logs of ended games archived",
            metrics.archives.clone(),
        );
        register.plain(
            "sweeper_set_aside",
            "Due games the sweeper could not read (corrupt, or written by a newer release) and \
             set aside, to retry with a growing backoff",
            metrics.set_aside.clone(),
        );
        register.seconds(
            "store_operation_duration",
            "Time a store operation (Redis round trips, or the embedded store) took",
            metrics.store_duration.clone(),
        );
        register.plain(
            "store_errors",
            "Store operations that failed",
            metrics.store_errors.clone(),
        );
        register.plain(
            "watch_streams_open",
            "Watch streams (WatchGame, WatchEvent) open",
            metrics.watch_streams.clone(),
        );
        register.seconds(
            "dead_position_analysis_duration",
            "Time a dead-position analysis took: `fast` on a move's path, `full` in the \
             background",
            metrics.analysis_seconds.clone(),
        );
        register.plain(
            "dead_position_analysis_over_budget",
            "Moves committed before the fast dead-position test answered; the background \
             analysis follows up",
            metrics.analysis_over_budget.clone(),
        );
        register.plain(
            "dead_position_analysis_undecided",
            "Positions the background dead-position analysis could not decide",
            metrics.analysis_undecided.clone(),
        );
        register.plain(
            "dead_position_analysis_dropped",
            "Positions dropped from a full background analysis queue",
            metrics.analysis_dropped.clone(),
        );
        metrics
    }
}

impl Metrics {
    /// A fresh set, shared by everything that records into it.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Every metric, in the OpenMetrics text format.
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = encode(&mut text, &self.registry);
        text
    }

    /// The name of every metric family, as the text format writes it.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Records one store operation.
    pub fn store_operation(&self, operation: &'static str, took: Duration, failed: bool) {
        let label = OperationLabel { operation };
        self.store_duration
            .get_or_create(&label)
            .observe(took.as_secs_f64());
        if failed {
            self.store_errors.get_or_create(&label).inc();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `arbiter_*` name the Grafana dashboard in `deploy/` queries
    /// is a family the server registers.
    #[test]
    fn the_dashboard_names_only_registered_metrics() {
        let metrics = Metrics::default();
        let dashboard = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/deploy/grafana/chess-arbiter.json"
        ))
        .expect("the dashboard");
        let mut queried = 0;
        for (start, _) in dashboard.match_indices("arbiter_") {
            let name: String = dashboard[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let family = ["_bucket", "_count", "_sum", "_total"]
                .iter()
                .find_map(|suffix| name.strip_suffix(suffix))
                .unwrap_or(&name);
            assert!(
                metrics.names().iter().any(|known| known == family),
                "the dashboard queries {name}, which the server does not export"
            );
            queried += 1;
        }
        assert!(queried >= 14, "{queried} queries");
        // And every family the server registers shows on the dashboard.
        for name in metrics.names() {
            assert!(dashboard.contains(name.as_str()), "{name} is on no panel");
        }
    }

    /// The names registered are the names the text format writes.
    #[test]
    fn registered_names_are_the_exported_ones() {
        let metrics = Metrics::default();
        metrics
            .rpcs
            .get_or_create(&RpcLabels {
                method: Arc::new("ArbiterService/GetGame".to_owned()),
                code: "OK",
            })
            .inc();
        metrics.store_operation("load", Duration::from_millis(1), true);
        metrics
            .rpc_duration
            .get_or_create(&MethodLabel {
                method: Arc::new("ArbiterService/GetGame".to_owned()),
            })
            .observe(0.001);
        metrics
            .games_ended
            .get_or_create(&TerminationLabel {
                termination: "checkmate".to_owned(),
            })
            .inc();
        metrics
            .time_endings
            .get_or_create(&ByLabel { by: "sweeper" })
            .inc();
        metrics
            .analysis_seconds
            .get_or_create(&AnalysisLabel { kind: "fast" })
            .observe(0.000_002);
        let text = metrics.render();
        for name in metrics.names() {
            assert!(
                text.contains(&format!("# TYPE {name} ")),
                "{name} not in:\n{text}"
            );
        }
    }

    /// Each store operation's observations and failures show once each in
    /// the exported text, by operation.
    #[test]
    fn store_operations_count_once_each() {
        let metrics = Metrics::default();
        for _ in 0..3 {
            metrics.store_operation("load", Duration::from_millis(1), false);
        }
        metrics.store_operation("commit", Duration::from_millis(1), true);
        metrics.store_operation("now", Duration::from_millis(1), false);
        let text = metrics.render();
        for (operation, count) in [("load", 3), ("commit", 1), ("now", 1)] {
            let line = format!(
                "arbiter_store_operation_duration_seconds_count{{operation=\"{operation}\"}} {count}"
            );
            assert!(text.contains(&line), "{line} not in:\n{text}");
        }
        assert!(
            text.contains("arbiter_store_errors_total{operation=\"commit\"} 1"),
            "{text}"
        );
    }
}
