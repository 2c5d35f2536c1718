//! The memory a burst of the costliest public reads holds: the server
//! binary in a process of its own (so that only its memory is counted),
//! an event whose TRF report is as large as a reply may be, and 16
//! concurrent exports of it and 16 concurrent standings, each read by a
//! client that does not send a token. The server's peak resident memory
//! may grow by at most [`BURST_BOUND_BYTES`] over what it held before.
//!
//! Beside it, the memory of watch streams once they have closed: the server
//! gives it back to the system (see `server::runtime`).
//!
//! The bound is what the docs' cost model states: at most
//! `MAX_CONCURRENT_EVENT_READS` (4) whole-event reads computed at once, each
//! holding the event's records and a report of at most `MAX_TRF_BYTES`,
//! and every reply in flight at most `MAX_TRF_BYTES` more (its protobuf
//! copy).

use std::{
    net::SocketAddr,
    process::{Child, Command, Stdio},
    time::Duration,
};

use arbiter::{
    arbiter::MAX_TRF_BYTES,
    proto::{
        self, admin_service_client::AdminServiceClient,
        arbiter_service_client::ArbiterServiceClient,
    },
};
use tonic::transport::Channel;

use crate::common::{
    self, ADMIN_TOKEN, TOKEN_SECRET, admin, create, create_request, fresh_redis_config,
};

/// How much the server's peak memory may grow over a burst of 16 exports
/// of the largest report and 16 standings of the same event.
const BURST_BOUND_BYTES: u64 = 200 * 1024 * 1024;

/// The server binary in a process of its own, ended when dropped.
struct ServerProcess {
    child: Child,
    addr: SocketAddr,
}

impl ServerProcess {
    fn start(redis: Option<(String, String)>) -> Self {
        Self::start_with(redis, &[])
    }

    fn start_with(redis: Option<(String, String)>, settings: &[(&str, &str)]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("address");
        let mut command = Command::new(env!("CARGO_BIN_EXE_chess-arbiter"));
        command
            .env_clear()
            .env("ARBITER_LISTEN", addr.to_string())
            .env("ARBITER_ADMIN_TOKEN", ADMIN_TOKEN)
            .env("ARBITER_TOKEN_SECRET", TOKEN_SECRET)
            .env("RUST_LOG", "warn")
            // What is bounded here is memory, not time: 32 of the costliest
            // reads at once take seconds in a debug build on a busy machine,
            // and must not run into the default 10 s request timeout.
            .env("ARBITER_REQUEST_TIMEOUT_MILLIS", "120000")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        command.envs(settings.iter().copied());
        if let Some((url, prefix)) = redis {
            command
                .env("ARBITER_REDIS_URL", url)
                .env("ARBITER_REDIS_KEY_PREFIX", prefix);
        }
        let child = command.spawn().expect("start the server binary");
        Self { child, addr }
    }

    async fn channel(&self) -> Channel {
        for _ in 0..500 {
            if let Ok(channel) = Channel::from_shared(format!("http://{}", self.addr))
                .expect("uri")
                .connect()
                .await
            {
                return channel;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the server binary did not listen on {}", self.addr);
    }

    /// A line of the process's `/proc/<pid>/status`, in bytes.
    fn status_bytes(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("the server's status");
        status
            .lines()
            .find_map(|line| line.strip_prefix(field))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map(|kb| kb * 1024)
            .unwrap_or_else(|| panic!("{field} in /proc status"))
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn a_burst_of_the_costliest_reads_holds_bounded_memory(redis: Option<(String, String)>) {
    let server = ServerProcess::start(redis);
    let channel = server.channel().await;
    let mut admin_client = AdminServiceClient::new(channel.clone());
    let event = "largest report";
    // 195 games in the last round allowed: 390 players, a report just
    // under the limit.
    for board in 1..=195 {
        let mut request = create_request("", "");
        request.pairing = Some(common::pairing(event, 1_000, board));
        for (seat, side) in [(&mut request.white, "w"), (&mut request.black, "b")] {
            *seat = Some(proto::Player {
                id: format!("{board}{side}-{}", "i".repeat(100)),
                name: "\u{265A}".repeat(200),
                ..Default::default()
            });
        }
        admin_client
            .create_game(admin(request))
            .await
            .expect("create");
    }
    let client = ArbiterServiceClient::new(channel);
    let trf = client
        .clone()
        .export_trf(proto::ExportTrfRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("the largest report is served")
        .into_inner()
        .trf;
    assert!(
        trf.len() > MAX_TRF_BYTES * 9 / 10 && trf.len() <= MAX_TRF_BYTES,
        "{} bytes",
        trf.len()
    );
    let before = server.status_bytes("VmRSS:");
    let exports = (0..16).map(|_| {
        let mut client = client.clone();
        tokio::spawn(async move {
            client
                .export_trf(proto::ExportTrfRequest {
                    event_id: event.to_owned(),
                    ..Default::default()
                })
                .await
                .map(|reply| reply.into_inner().trf.len())
        })
    });
    let standings = (0..16).map(|_| {
        let mut client = client.clone();
        tokio::spawn(async move {
            client
                .get_standings(proto::GetStandingsRequest {
                    event_id: event.to_owned(),
                    ..Default::default()
                })
                .await
                .map(|reply| reply.into_inner().standings.len())
        })
    });
    let reads: Vec<_> = exports.chain(standings).collect();
    for (index, read) in reads.into_iter().enumerate() {
        let size = read.await.expect("task").expect("served");
        let expected = if index < 16 { trf.len() } else { 390 };
        assert_eq!(size, expected);
    }
    let peak = server.status_bytes("VmHWM:");
    let grown = peak.saturating_sub(before);
    eprintln!(
        "memory_bound: {} MB resident before the burst, peak {} MB, grown {} MB",
        before >> 20,
        peak >> 20,
        grown >> 20
    );
    assert!(
        grown <= BURST_BOUND_BYTES,
        "peak memory grew by {grown} bytes, over {BURST_BOUND_BYTES}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_the_costliest_reads_holds_bounded_memory_in_memory() {
    a_burst_of_the_costliest_reads_holds_bounded_memory(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_the_costliest_reads_holds_bounded_memory_on_redis() {
    let config = fresh_redis_config();
    a_burst_of_the_costliest_reads_holds_bounded_memory(Some((config.url, config.key_prefix)))
        .await;
}

/// Watch streams opened, then closed, in the test of the memory given back.
const STREAMS: usize = 4_000;

/// Connections the streams are spread over.
const CONNECTIONS: usize = 8;

/// How long the server has to give the streams' memory back once they
/// have closed.
const GIVEN_BACK_WITHIN: Duration = Duration::from_secs(20);

async fn closed_streams_give_their_memory_back(redis: Option<(String, String)>) {
    let server =
        ServerProcess::start_with(redis, &[("ARBITER_MAX_STREAMS_PER_CONNECTION", "1000")]);
    let channel = server.channel().await;
    let game = create(
        &mut AdminServiceClient::new(channel),
        create_request("", ""),
    )
    .await
    .expect("create");
    let idle = server.status_bytes("VmRSS:");
    let mut clients = Vec::new();
    for _ in 0..CONNECTIONS {
        clients.push(ArbiterServiceClient::new(server.channel().await));
    }
    let opening = (0..STREAMS).map(|n| {
        let mut client = clients[n % CONNECTIONS].clone();
        let game_id = game.id.clone();
        tokio::spawn(async move {
            let mut stream = client
                .watch_game(proto::WatchGameRequest {
                    game_id,
                    ..Default::default()
                })
                .await
                .expect("the stream opens")
                .into_inner();
            let snapshot = stream.message().await.expect("a snapshot").expect("open");
            assert!(
                matches!(
                    snapshot.kind,
                    Some(proto::watch_game_response::Kind::Snapshot(_))
                ),
                "{snapshot:?}"
            );
            stream
        })
    });
    let mut streams = Vec::new();
    for stream in opening.collect::<Vec<_>>() {
        streams.push(stream.await.expect("task"));
    }
    let open = server.status_bytes("VmRSS:");
    let held = open.saturating_sub(idle);
    // What the streams hold, or there is nothing to give back.
    assert!(
        held >= 8 << 20,
        "{STREAMS} open streams hold only {held} bytes over the idle server's {idle}"
    );
    drop(streams);
    drop(clients);
    let deadline = std::time::Instant::now() + GIVEN_BACK_WITHIN;
    let mut now_held = held;
    while std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        now_held = server.status_bytes("VmRSS:").saturating_sub(idle);
        if now_held <= held / 2 {
            break;
        }
    }
    eprintln!(
        "memory_bound: idle {} MB, {STREAMS} streams open {} MB, closed {} MB over idle",
        idle >> 20,
        held >> 20,
        now_held >> 20
    );
    assert!(
        now_held <= held / 2,
        "{STREAMS} closed streams still hold {now_held} of the {held} bytes they held open"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_watch_streams_give_their_memory_back_in_memory() {
    closed_streams_give_their_memory_back(None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closed_watch_streams_give_their_memory_back_on_redis() {
    let config = fresh_redis_config();
    closed_streams_give_their_memory_back(Some((config.url, config.key_prefix))).await;
}
