//! Redis Cluster beyond the suite that runs on it as a backend: a primary
//! killed under load (with `WAIT`, no acknowledged move is lost and
//! watchers resume without a gap), readiness when a shard is lost, and the
//! start-up checks on every node.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter::{
    proto,
    server::StoreChoice,
    store::{GameLog, RedisStore, WaitForReplicas},
};
use futures::StreamExt;
use tonic::Code;

use crate::common::{
    Client, NewGame, RedisCluster, TestApp, create, create_request, fresh_cluster_config, get_full,
    make_move, pairing, redis_cli, seat, settings, ucis,
};

/// A line of 20 plies with no repetition: every game of the test follows
/// it, so the moves each game holds must be a prefix of it.
const LINE: [&str; 20] = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    "c3", "O-O", "h3", "Nb8", "d4", "Nbd7",
];

/// The same line in UCI, as the game reports its moves.
const LINE_UCI: [&str; 20] = [
    "e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4", "g8f6", "e1g1", "f8e7", "f1e1", "b7b5",
    "a4b3", "d7d6", "c2c3", "e8g8", "h2h3", "c6b8", "d2d4", "b8d7",
];

/// Plays `LINE[ply]` in `game`, sending the same request again while the
/// store is unavailable (a failover): the ply makes a repeat land once.
async fn play_through_failover(client: &mut Client, game: &NewGame, ply: usize) {
    let token = if ply.is_multiple_of(2) {
        &game.white
    } else {
        &game.black
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let request = make_move(&game.id, ply as i32, LINE[ply]);
        match seat(client, token, request).await {
            Ok(after) => {
                assert_eq!(after.ply as usize, ply + 1, "{}", game.id);
                return;
            }
            Err(status) if status.code() == Code::Unavailable => {
                assert!(
                    Instant::now() < deadline,
                    "the cluster did not recover within 60 s: {status:?}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(status) => panic!("ply {ply} of {}: {status:?}", game.id),
        }
    }
}

/// Watches `game_id` until `last_version`, resuming after every error from
/// the last version seen; returns the version of the first snapshot and
/// every event version received after it.
async fn watch_resuming(mut client: Client, game_id: String, last_version: i32) -> (i32, Vec<i32>) {
    let mut first = None;
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let after = seen.last().copied().or(first).unwrap_or(0);
        if after >= last_version {
            return (first.unwrap_or(0), seen);
        }
        assert!(Instant::now() < deadline, "watch of {game_id}: {seen:?}");
        let stream = client
            .watch_game(proto::WatchGameRequest {
                game_id: game_id.clone(),
                after_version: after,
                ..Default::default()
            })
            .await;
        let Ok(stream) = stream else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let mut stream = stream.into_inner();
        while let Ok(Some(message)) =
            tokio::time::timeout(Duration::from_secs(30), stream.next()).await
        {
            let Ok(message) = message else { break };
            match message.kind {
                Some(proto::watch_game_response::Kind::Event(event)) => {
                    seen.push(event.version);
                    if event.version >= last_version {
                        break;
                    }
                }
                Some(proto::watch_game_response::Kind::Snapshot(game)) if first.is_none() => {
                    first = Some(game.version);
                }
                _ => {}
            }
        }
    }
}

/// The port of a primary that holds some of the games' states.
fn a_primary_with_games(cluster: &RedisCluster) -> u16 {
    cluster
        .ports()
        .into_iter()
        .find(|port| {
            redis_cli(*port, &["ROLE"]).starts_with("master")
                && redis_cli(*port, &["--scan", "--pattern", "*:state"])
                    .lines()
                    .count()
                    > 0
        })
        .expect("a primary that holds games")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_primary_fails_over_under_load_without_losing_an_acknowledged_move() {
    let mut cluster = RedisCluster::start();
    let mut config = cluster.config("failover");
    config.wait = Some(WaitForReplicas {
        replicas: 1,
        timeout_ms: 1000,
    });
    let app = TestApp::spawn_with(settings(StoreChoice::Redis(config.clone())), None).await;
    let mut admin = app.admin_client().await;
    let mut games = Vec::new();
    for board in 1..=12 {
        let mut request = create_request(&format!("failover-{board}"), "");
        request.pairing = Some(pairing("cluster-failover", 1, board));
        games.push(create(&mut admin, request).await.expect("create"));
    }
    let victim = a_primary_with_games(&cluster);

    // Each game has a watcher that resumes after every error.
    let last_version = LINE.len() as i32 + 1;
    let mut watchers = Vec::new();
    for game in &games {
        let client = app.client().await;
        watchers.push(tokio::spawn(watch_resuming(
            client,
            game.id.clone(),
            last_version,
        )));
    }

    // Four players play every game's line a ply at a time; the primary dies
    // after the first few plies.
    let games = Arc::new(games);
    let played = Arc::new(AtomicUsize::new(0));
    let mut players = Vec::new();
    for player in 0..4 {
        let games = games.clone();
        let played = played.clone();
        let mut client = app.client().await;
        players.push(tokio::spawn(async move {
            for ply in 0..LINE.len() {
                for (index, game) in games.iter().enumerate() {
                    if index % 4 == player {
                        play_through_failover(&mut client, game, ply).await;
                        played.fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
        }));
    }
    let total = games.len() * LINE.len();
    while played.load(Ordering::SeqCst) < total / 4 {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    cluster.node_mut(victim).kill();
    // Its replica is promoted; the node is replaced by an empty one that
    // replicates the promoted node, so that commits in its slots can be
    // confirmed again. Meanwhile they are answered UNAVAILABLE.
    let promoted = the_promoted_replica(&cluster, victim);
    cluster.wait_until_ok_without(victim, Duration::from_secs(30));
    cluster.replace_as_replica(victim, promoted);
    cluster.wait_until_ok(Duration::from_secs(30));
    for player in players {
        player.await.expect("a player");
    }

    // Every acknowledged move is there, in order, once.
    let mut client = app.client().await;
    for game in games.iter() {
        let held = get_full(&mut client, &game.id).await;
        assert_eq!(ucis(&held), LINE_UCI, "{}", game.id);
    }
    // Every watcher saw every version once, in order.
    for watcher in watchers {
        let (first, seen) = watcher.await.expect("a watcher");
        assert_eq!(seen, (first + 1..=last_version).collect::<Vec<_>>());
    }

    // Readiness: with a shard lost (both its nodes killed), the slots it
    // held take no writes and the store is not ready.
    let store = RedisStore::new(&config).expect("store");
    store
        .ping()
        .await
        .expect("ready while every slot is served");
    cluster.node_mut(promoted).kill();
    cluster.node_mut(victim).kill();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match store.ping().await {
            Err(error) => {
                assert!(error.to_string().contains("Redis"), "{error}");
                break;
            }
            Ok(()) => {
                assert!(Instant::now() < deadline, "still ready without a shard");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Waits for a live primary other than `dead` without a replica: the one
/// promoted in place of `dead`.
fn the_promoted_replica(cluster: &RedisCluster, dead: u16) -> u16 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let promoted = cluster
            .ports()
            .into_iter()
            .filter(|port| *port != dead)
            .find(|port| {
                let info = redis_cli(*port, &["INFO", "replication"]);
                info.contains("role:master") && info.contains("connected_slaves:0")
            });
        if let Some(port) = promoted {
            return port;
        }
        assert!(Instant::now() < deadline, "no replica promoted in 30 s");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The start-up checks ask every primary of the cluster, naming each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn durability_checks_ask_every_node() {
    let store = RedisStore::new(&fresh_cluster_config()).expect("store");
    let findings = store
        .durability_findings()
        .await
        .expect("the nodes answer CONFIG");
    // The test cluster keeps no persistence: each of its three primaries
    // says so.
    assert_eq!(findings.len(), 3, "{findings:?}");
    assert!(
        findings
            .iter()
            .all(|finding| finding.contains("Redis node 127.0.0.1:")
                && finding.contains("persistence")),
        "{findings:?}"
    );
}
