//! A real `redis-server` on a free loopback port, started for one test and
//! stopped when dropped.

use std::{
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

/// A running `redis-server` owned by a test.
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
}

impl RedisServer {
    /// Starts a fresh, empty, non-persistent Redis. Panics (failing the test
    /// loudly) when `redis-server` is not installed or does not come up.
    pub fn start() -> Self {
        let mut dir = tempfile::tempdir().expect("temporary directory for redis-server");
        for _ in 0..5 {
            let port = free_port();
            let mut server = Self {
                child: Some(spawn_redis(port, dir.path())),
                port,
                dir,
            };
            if server.wait_until_ready(Duration::from_secs(10)) {
                return server;
            }
            server.kill();
            dir = std::mem::replace(&mut server.dir, tempfile::tempdir().expect("tempdir"));
        }
        panic!("redis-server did not start on any free port");
    }

    /// The URL to reach it.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Its port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops it (as an outage would).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port (data is gone: it keeps none).
    pub fn restart(&mut self) {
        self.kill();
        let child = spawn_redis(self.port, self.dir.path());
        self.child = Some(child);
        assert!(
            self.wait_until_ready(Duration::from_secs(10)),
            "redis-server did not come back"
        );
    }

    fn wait_until_ready(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(child) = self.child.as_mut()
                && let Ok(Some(_)) = child.try_wait()
            {
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

fn spawn_redis(port: u16, dir: &std::path::Path) -> Child {
    Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
        ])
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start redis-server: is it installed? `scripts/test` installs it")
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

/// A port nobody listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}
