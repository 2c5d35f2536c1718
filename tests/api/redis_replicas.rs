//! Redis with replicas, started here: under Sentinel (one primary, one
//! replica, three Sentinels) the server finds the primary and follows it
//! when the primary dies and the replica is promoted; readiness refuses a
//! replica; commits can wait for replicas (`WAIT`).

use std::time::{Duration, Instant};

use arbiter::{server::StoreChoice, store::RedisConfig};
use tonic::Code;

use crate::common::{
    RedisServer, TestApp, create, create_request, get_full, make_move, seat, settings, ucis,
};

/// Asks a server something over a plain connection.
async fn query<T: ::redis::FromRedisValue>(port: u16, command: &mut ::redis::Cmd) -> T {
    let client = ::redis::Client::open(format!("redis://127.0.0.1:{port}/")).expect("client");
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .expect("connection");
    command.query_async(&mut conn).await.expect("reply")
}

/// Waits (bounded) until `check` holds.
async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what} did not happen within 30 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_go_on_after_the_primary_fails_over() {
    let mut primary = RedisServer::start();
    let replica = RedisServer::start_replica_of(primary.port());
    let sentinels: Vec<RedisServer> = (0..3)
        .map(|_| RedisServer::start_sentinel("games", primary.port()))
        .collect();
    eventually("the replica's first sync", async || {
        let info: String = query(replica.port(), ::redis::cmd("INFO").arg("replication")).await;
        info.contains("master_link_status:up")
    })
    .await;
    eventually("every Sentinel to see the replica", async || {
        for sentinel in &sentinels {
            let replicas: Vec<::redis::Value> = query(
                sentinel.port(),
                ::redis::cmd("SENTINEL").arg("replicas").arg("games"),
            )
            .await;
            if replicas.is_empty() {
                return false;
            }
        }
        true
    })
    .await;

    let hosts: Vec<String> = sentinels
        .iter()
        .map(|sentinel| format!("127.0.0.1:{}", sentinel.port()))
        .collect();
    let store = StoreChoice::Redis(RedisConfig {
        url: format!("redis+sentinel://{}/games", hosts.join(",")),
        key_prefix: "sentinel".to_owned(),
        tls: Default::default(),
        wait: None,
    });
    let app = TestApp::spawn_with(settings(store), None).await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("failover", ""))
        .await
        .expect("created through the Sentinels' primary");
    let mut client = app.client().await;
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("e4");
    seat(&mut client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect("e5");
    // The writes are on the replica before the primary dies (this test is
    // about following the primary, not about asynchronous replication).
    let copies: i64 = query(primary.port(), ::redis::cmd("WAIT").arg(1).arg(5000)).await;
    assert_eq!(copies, 1);

    primary.kill();

    // Calls fail as unavailable until a Sentinel promotes the replica,
    // then go to it; the move is applied once however often it is sent.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match seat(&mut client, &game.white, make_move(&game.id, 2, "Nf3")).await {
            Ok(after) => {
                assert_eq!(after.ply, 3);
                break;
            }
            Err(status) if status.code() == Code::Unavailable => {
                assert!(Instant::now() < deadline, "no failover in 30 s: {status:?}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(status) => panic!("unexpected refusal during the failover: {status:?}"),
        }
    }
    let game_now = get_full(&mut client, &game.id).await;
    assert_eq!(ucis(&game_now), ["e2e4", "e7e5", "g1f3"]);
    let role: Vec<::redis::Value> = query(replica.port(), &mut ::redis::cmd("ROLE")).await;
    assert_eq!(
        role.first(),
        Some(&::redis::Value::BulkString(b"master".to_vec())),
        "the replica was promoted"
    );
    seat(&mut client, &game.black, make_move(&game.id, 3, "Nc6"))
        .await
        .expect("play goes on on the new primary");
}

/// Readiness tells the truth: a Redis that answers but refuses writes (a
/// replica) leaves the store not ready, and the error says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_is_not_ready_for_commits() {
    use arbiter::store::{GameLog, RedisStore};
    let primary = RedisServer::start();
    let replica = RedisServer::start_replica_of(primary.port());
    let on_replica = RedisStore::new(&RedisConfig {
        url: replica.url(),
        key_prefix: "replica".to_owned(),
        tls: Default::default(),
        wait: None,
    })
    .expect("store");
    let error = on_replica
        .ping()
        .await
        .expect_err("a replica refuses writes");
    assert!(
        error.to_string().to_lowercase().contains("read only"),
        "{error}"
    );
    let on_primary = RedisStore::new(&RedisConfig {
        url: primary.url(),
        key_prefix: "replica".to_owned(),
        tls: Default::default(),
        wait: None,
    })
    .expect("store");
    on_primary.ping().await.expect("the primary takes writes");
}

/// With `WAIT` for one replica, commits are acknowledged while the replica
/// keeps up; once it is gone a commit is answered UNAVAILABLE, saying why,
/// and so is its retry (the game holds the move, but no replica does);
/// once a replica has it again, the retry is acknowledged, played once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_wait_for_a_replica_when_asked() {
    use arbiter::store::WaitForReplicas;
    let primary = RedisServer::start();
    let mut replica = RedisServer::start_replica_of(primary.port());
    eventually("the replica's first sync", async || {
        let info: String = query(replica.port(), ::redis::cmd("INFO").arg("replication")).await;
        info.contains("master_link_status:up")
    })
    .await;
    let store = StoreChoice::Redis(RedisConfig {
        url: primary.url(),
        key_prefix: "wait".to_owned(),
        tls: Default::default(),
        wait: Some(WaitForReplicas {
            replicas: 1,
            timeout_ms: 300,
        }),
    });
    let app = TestApp::spawn_with(settings(store), None).await;
    let mut admin = app.admin_client().await;
    let game = create(&mut admin, create_request("waited", ""))
        .await
        .expect("created and replicated");
    let mut client = app.client().await;
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("replicated move");
    let copied: i64 = query(replica.port(), &mut ::redis::cmd("DBSIZE")).await;
    assert!(copied > 0, "the replica has the game");

    replica.kill();
    let refused = seat(&mut client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect_err("no replica to confirm the move");
    assert_eq!(refused.code(), Code::Unavailable);
    assert!(refused.message().contains("replicas"), "{refused:?}");
    let retried = seat(&mut client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect_err("still no replica to confirm the move");
    assert_eq!(retried.code(), Code::Unavailable);
    assert!(retried.message().contains("replicas"), "{retried:?}");

    // The move is on the primary: once the replica is back and has it, the
    // retry is recognised and acknowledged, not played twice.
    replica.restart();
    eventually("the replica's sync after its restart", async || {
        let info: String = query(replica.port(), ::redis::cmd("INFO").arg("replication")).await;
        info.contains("master_link_status:up")
    })
    .await;
    let after = seat(&mut client, &game.black, make_move(&game.id, 1, "e5"))
        .await
        .expect("a retry of the applied move");
    assert_eq!(after.ply, 2);
    assert_eq!(
        ucis(&get_full(&mut client, &game.id).await),
        ["e2e4", "e7e5"]
    );
}

/// Redis settings that can lose games are found: eviction and no
/// persistence; a server told to require durability refuses to start on
/// such a Redis, and starts on a safe one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_settings_that_lose_games_are_found() {
    use arbiter::store::RedisStore;
    let args = |list: &[&str]| list.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    let risky = RedisServer::start_with(&args(&["--maxmemory-policy", "allkeys-lru"]));
    let safe = RedisServer::start_with(&args(&["--appendonly", "yes"]));
    let config = |redis: &RedisServer| RedisConfig {
        url: redis.url(),
        key_prefix: "durability".to_owned(),
        tls: Default::default(),
        wait: None,
    };
    let findings = RedisStore::new(&config(&risky))
        .expect("store")
        .durability_findings()
        .await
        .expect("Redis answers CONFIG");
    assert_eq!(findings.len(), 2, "{findings:?}");
    assert!(findings[0].contains("allkeys-lru"), "{findings:?}");
    assert!(findings[1].contains("persistence"), "{findings:?}");
    let none = RedisStore::new(&config(&safe))
        .expect("store")
        .durability_findings()
        .await
        .expect("Redis answers CONFIG");
    assert!(none.is_empty(), "{none:?}");

    let mut required = settings(StoreChoice::Redis(config(&risky)));
    required.require_durable_redis = true;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("port");
    let refused = arbiter::server::serve(
        required,
        listener,
        tokio_util::sync::CancellationToken::new(),
    )
    .await
    .expect_err("a Redis that may lose games is refused");
    assert!(refused.to_string().contains("allkeys-lru"), "{refused}");

    let mut required = settings(StoreChoice::Redis(config(&safe)));
    required.require_durable_redis = true;
    let app = TestApp::spawn_with(required, None).await;
    let mut admin = app.admin_client().await;
    create(&mut admin, create_request("durable", ""))
        .await
        .expect("a server on a durable Redis");
}
