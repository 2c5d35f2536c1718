//! Real `redis-server` processes on free loopback ports: one shared by the
//! whole test binary, where each test keeps to a key prefix of its own, and
//! private ones for the tests that stop or restart Redis.

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    path::Path,
    process::{Child, ChildStdin, Command, Stdio},
    sync::{
        LazyLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter::store::RedisConfig;

/// A running `redis-server`.
pub struct RedisServer {
    process: Option<Process>,
    port: u16,
    dir: tempfile::TempDir,
    /// The arguments it was started with, to restart it alike.
    args: Vec<String>,
}

/// The Redis every test shares, started on first use. Statics are never
/// dropped: its watchdog stops it when the test process exits.
static SHARED: LazyLock<RedisServer> = LazyLock::new(RedisServer::start);

/// A store configuration on the shared Redis under a fresh key prefix, so
/// that a test sees only its own keys.
pub fn fresh_redis_config() -> RedisConfig {
    RedisConfig {
        url: SHARED.url(),
        key_prefix: unique_key_prefix(),
        tls: Default::default(),
        wait: None,
    }
}

/// A key prefix no other store of this test process uses; the random part
/// keeps test processes apart too should they ever share a server.
pub(super) fn unique_key_prefix() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("t-{n}-{:08x}", rand::random::<u32>())
}

/// How to tell that a server just started is ready.
#[derive(Clone, Copy)]
pub(super) enum Ready {
    /// It answers a plain-text PING.
    Pings,
    /// Its port accepts connections (a TLS server cannot be pinged in
    /// plain text).
    Listens,
}

impl RedisServer {
    /// Starts a server on a free port with the arguments `args` gives for
    /// that port and a fresh directory, trying another port when one is
    /// taken meanwhile. Panics (failing the test loudly) when
    /// `redis-server` is not installed or never comes up.
    pub(super) fn start_on_free_port(
        what: &str,
        ready: Ready,
        args: impl Fn(u16, &Path) -> Vec<String>,
    ) -> Self {
        for _ in 0..5 {
            let dir = tempfile::tempdir().expect("temporary directory for redis-server");
            let port = free_port();
            let args = args(port, dir.path());
            let process = Process::spawn_args(dir.path(), &args);
            let mut server = Self {
                process: Some(process),
                port,
                dir,
                args,
            };
            let up = match ready {
                Ready::Pings => server.wait_until_ready(Duration::from_secs(10)),
                Ready::Listens => server.wait_until_listening(Duration::from_secs(10)),
            };
            if up {
                return server;
            }
            server.kill();
        }
        panic!("{what} did not start on any free port");
    }

    /// Starts a fresh, empty, non-persistent Redis of the caller's own (for
    /// tests that stop or restart it).
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts a server of the caller's own with `extra` arguments after
    /// its port (e.g. `--maxmemory-policy allkeys-lru`).
    pub fn start_with(extra: &[String]) -> Self {
        Self::start_on_free_port("redis-server", Ready::Pings, |port, dir| {
            let mut args = vec!["--port".to_owned(), port.to_string()];
            args.extend(Process::defaults(dir));
            // Given last, so that they override the defaults.
            args.extend_from_slice(extra);
            args
        })
    }

    /// Starts a Redis of the caller's own that speaks only TLS, with the
    /// given server certificate and key; with `clients_ca`, it requires
    /// clients to present a certificate that CA signed (mutual TLS).
    pub fn start_tls(cert: &Path, key: &Path, clients_ca: Option<&Path>) -> Self {
        Self::start_on_free_port("a TLS redis-server", Ready::Listens, |port, dir| {
            let mut args: Vec<String> = vec![
                "--port".into(),
                "0".into(),
                "--tls-port".into(),
                port.to_string(),
                "--tls-cert-file".into(),
                cert.display().to_string(),
                "--tls-key-file".into(),
                key.display().to_string(),
            ];
            match clients_ca {
                Some(ca) => args.extend([
                    "--tls-ca-cert-file".into(),
                    ca.display().to_string(),
                    "--tls-auth-clients".into(),
                    "yes".into(),
                ]),
                None => args.extend(["--tls-auth-clients".into(), "no".into()]),
            }
            args.extend(Process::defaults(dir));
            args
        })
    }

    /// Waits until its port accepts connections.
    fn wait_until_listening(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.process.as_mut().is_some_and(Process::has_exited) {
                return false;
            }
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// Starts a replica of the server on `primary_port`.
    pub fn start_replica_of(primary_port: u16) -> Self {
        Self::start_with(&[
            "--replicaof".to_owned(),
            "127.0.0.1".to_owned(),
            primary_port.to_string(),
        ])
    }

    /// Starts a Sentinel watching the primary on `primary_port` under the
    /// name `service`, with a quorum of 2 and quick failure detection.
    pub fn start_sentinel(service: &str, primary_port: u16) -> Self {
        Self::start_on_free_port("a sentinel", Ready::Pings, |port, dir| {
            let config = dir.join("sentinel.conf");
            std::fs::write(
                &config,
                format!(
                    "port {port}\nbind 127.0.0.1\ndir {dir}\n\
                     sentinel monitor {service} 127.0.0.1 {primary_port} 2\n\
                     sentinel down-after-milliseconds {service} 400\n\
                     sentinel failover-timeout {service} 2000\n\
                     sentinel parallel-syncs {service} 1\n",
                    dir = dir.display()
                ),
            )
            .expect("write sentinel.conf");
            vec![config.display().to_string(), "--sentinel".to_owned()]
        })
    }

    /// The URL to reach it.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The directory it keeps its files in.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops it (as an outage would).
    pub fn kill(&mut self) {
        if let Some(process) = self.process.take() {
            process.kill();
        }
    }

    /// Starts it again on the same port with the same arguments (its data is
    /// gone: it keeps none; a cluster node keeps its cluster configuration).
    pub fn restart(&mut self) {
        self.kill();
        self.process = Some(Process::spawn_args(self.dir.path(), &self.args));
        assert!(
            self.wait_until_ready(Duration::from_secs(10)),
            "redis-server did not come back"
        );
    }

    fn wait_until_ready(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.process.as_mut().is_some_and(Process::has_exited) {
                return false;
            }
            if ping(self.port) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A `redis-server` and its watchdog: a shell that waits for end-of-file
/// on a pipe from this process, which comes when this process exits in
/// any way (even killed), and then kills the server and removes its
/// directory. Without it the shared server, never dropped, would outlive
/// the tests.
struct Process {
    redis: Child,
    watchdog: Child,
    /// The watchdog's end of the pipe: held, never written.
    _lifeline: ChildStdin,
}

impl Process {
    /// Loopback only, no persistence, files in `dir`.
    fn defaults(dir: &Path) -> Vec<String> {
        let mut args: Vec<String> = [
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
        ]
        .map(str::to_owned)
        .to_vec();
        args.push(dir.display().to_string());
        args
    }

    /// `redis-server` with exactly `args`, watched so that it dies with
    /// this process.
    fn spawn_args(dir: &Path, args: &[String]) -> Self {
        let redis = Command::new("redis-server")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("cannot start redis-server: is it installed? `scripts/test` installs it");
        let mut watchdog = Command::new("sh")
            .args([
                "-c",
                r#"cat >/dev/null; kill -KILL "$1"; rm -rf "$2""#,
                "redis-watchdog",
                &redis.id().to_string(),
            ])
            .arg(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the redis-server watchdog");
        let lifeline = watchdog.stdin.take().expect("watchdog stdin");
        Self {
            redis,
            watchdog,
            _lifeline: lifeline,
        }
    }

    fn has_exited(&mut self) -> bool {
        matches!(self.redis.try_wait(), Ok(Some(_)))
    }

    /// Kills the server at once. The watchdog goes first, so that it never
    /// signals a process id that may have been reused.
    fn kill(mut self) {
        let _ = self.watchdog.kill();
        let _ = self.watchdog.wait();
        let _ = self.redis.kill();
        let _ = self.redis.wait();
    }
}

fn ping(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut reply = [0u8; 7];
    matches!(stream.read(&mut reply), Ok(n) if reply[..n].starts_with(b"+PONG"))
}

/// The arguments every server takes: loopback only, no persistence, its
/// files in `dir`.
pub(super) fn defaults(dir: &Path) -> Vec<String> {
    Process::defaults(dir)
}

/// A port nobody listens on right now.
pub(super) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}
