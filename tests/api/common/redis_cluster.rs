//! A real Redis Cluster of three primaries with one replica each, on free
//! loopback ports: one shared by the whole test binary, where each test
//! keeps to a key prefix of its own, and private ones for the tests that
//! kill nodes.

use std::{
    process::Command,
    sync::LazyLock,
    time::{Duration, Instant},
};

use arbiter::store::RedisConfig;

use super::redis_server::{Ready, RedisServer, defaults, free_port, unique_key_prefix};

/// A running cluster: its nodes, primaries first.
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
}

/// The cluster every test shares, started on first use.
static SHARED: LazyLock<RedisCluster> = LazyLock::new(RedisCluster::start);

/// A store configuration on the shared cluster under a fresh key prefix.
pub fn fresh_cluster_config() -> RedisConfig {
    SHARED.config(&unique_key_prefix())
}

const PRIMARIES: usize = 3;

impl RedisCluster {
    /// Starts six nodes and forms a cluster of three primaries with one
    /// replica each; panics (failing the test loudly) when it does not
    /// come up.
    pub fn start() -> Self {
        let nodes: Vec<RedisServer> = (0..PRIMARIES * 2)
            .map(|_| {
                // The cluster bus gets a free port of its own (by default
                // it is the port + 10000, which may be taken or too high).
                let bus = free_port();
                RedisServer::start_on_free_port("a cluster node", Ready::Pings, move |port, dir| {
                    let mut args: Vec<String> = [
                        "--port",
                        &port.to_string(),
                        "--cluster-enabled",
                        "yes",
                        "--cluster-port",
                        &bus.to_string(),
                        "--cluster-config-file",
                        "nodes.conf",
                        "--cluster-node-timeout",
                        "1000",
                        // A replica's first sync starts at once, not after
                        // the default five seconds.
                        "--repl-diskless-sync-delay",
                        "0",
                    ]
                    .map(str::to_owned)
                    .to_vec();
                    args.extend(defaults(dir));
                    args
                })
            })
            .collect();
        let mut create = Command::new("redis-cli");
        create.arg("--cluster").arg("create");
        for node in &nodes {
            create.arg(format!("127.0.0.1:{}", node.port()));
        }
        let output = create
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .output()
            .expect("cannot run redis-cli: is it installed? `scripts/test` installs it");
        assert!(
            output.status.success(),
            "redis-cli --cluster create failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let cluster = Self { nodes };
        cluster.wait_until_ok(Duration::from_secs(30));
        cluster
    }

    /// The `redis+cluster://` URL of its nodes.
    pub fn url(&self) -> String {
        let nodes: Vec<String> = self
            .nodes
            .iter()
            .map(|node| format!("127.0.0.1:{}", node.port()))
            .collect();
        format!("redis+cluster://{}", nodes.join(","))
    }

    /// A store configuration on it with `key_prefix`.
    pub fn config(&self, key_prefix: &str) -> RedisConfig {
        RedisConfig {
            url: self.url(),
            key_prefix: key_prefix.to_owned(),
            tls: Default::default(),
            wait: None,
        }
    }

    /// The ports of its nodes.
    pub fn ports(&self) -> Vec<u16> {
        self.nodes.iter().map(RedisServer::port).collect()
    }

    /// The node on `port`, to kill it.
    pub fn node_mut(&mut self, port: u16) -> &mut RedisServer {
        self.nodes
            .iter_mut()
            .find(|node| node.port() == port)
            .expect("a node of the cluster")
    }

    /// Brings the dead node on `port` back as a new, empty node that
    /// replicates the primary on `primary`, as an operator replaces a node
    /// that lost its data: it must not come back with its old cluster
    /// configuration, claiming slots it no longer holds any data for.
    pub fn replace_as_replica(&mut self, port: u16, primary: u16) {
        let node = self.node_mut(port);
        node.kill();
        let _ = std::fs::remove_file(node.dir().join("nodes.conf"));
        node.restart();
        let primary_id = redis_cli(primary, &["CLUSTER", "MYID"]);
        let output = Command::new("redis-cli")
            .args(["--cluster", "add-node"])
            .arg(format!("127.0.0.1:{port}"))
            .arg(format!("127.0.0.1:{primary}"))
            .args(["--cluster-slave", "--cluster-master-id", primary_id.trim()])
            .output()
            .expect("redis-cli");
        assert!(
            output.status.success(),
            "redis-cli --cluster add-node failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    /// Waits until every node says the cluster is ok and every slot is
    /// served.
    pub fn wait_until_ok(&self, limit: Duration) {
        self.wait_until_ok_without(0, limit);
    }

    /// Waits until every node but the one on `dead` (0: none) says the
    /// cluster is ok and every slot is served.
    pub fn wait_until_ok_without(&self, dead: u16, limit: Duration) {
        let deadline = Instant::now() + limit;
        loop {
            let ok = self
                .nodes
                .iter()
                .filter(|node| node.port() != dead)
                .all(|node| {
                    cluster_info(node.port()).is_some_and(|info| {
                        info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384")
                    })
                });
            if ok {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the Redis Cluster did not come up"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Whether the node on `port` is a replica whose link to its primary is up.
fn replica_is_up(port: u16) -> bool {
    Command::new("redis-cli")
        .args(["-p", &port.to_string(), "INFO", "replication"])
        .output()
        .is_ok_and(|output| {
            let info = String::from_utf8_lossy(&output.stdout);
            info.contains("role:slave") && info.contains("master_link_status:up")
        })
}

/// What `redis-cli` prints for `args` sent to the node on `port`.
pub fn redis_cli(port: u16, args: &[&str]) -> String {
    let output = Command::new("redis-cli")
        .args(["-p", &port.to_string()])
        .args(args)
        .output()
        .expect("cannot run redis-cli: is it installed? `scripts/test` installs it");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `CLUSTER INFO` of the node on `port`, if it answers.
fn cluster_info(port: u16) -> Option<String> {
    let output = Command::new("redis-cli")
        .args(["-p", &port.to_string(), "CLUSTER", "INFO"])
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}
