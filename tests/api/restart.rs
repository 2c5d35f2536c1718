//! A game outlives the server process that created it: Redis keeps it.

use crate::common;

use arbiter::proto::{self, game_event::Kind};
use common::{Backend, TestApp, drain, get, play_line};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_a_server_restart() {
    let app = TestApp::spawn(Backend::Redis).await;
    let settings = app.settings.clone();
    let game = app.new_game().await;
    let mut client = app.client().await;
    let before = play_line(&mut client, &game, &["e4", "e5", "Bc4", "Nc6"]).await;
    let redis = app.stop().await;

    let app = TestApp::spawn_with(settings, redis).await;
    let mut client = app.client().await;
    let after_restart = get(&mut client, &game.id).await;
    assert_eq!(
        after_restart, before,
        "the restarted server sees the same game"
    );

    // A watcher resumes across the restart from the last version it knew.
    let mut stream = client
        .watch_game(proto::WatchGameRequest {
            game_id: game.id.clone(),
            after_version: before.version,
        })
        .await
        .expect("watch")
        .into_inner();

    // The same seat tokens still work.
    let end = play_line(&mut client, &game, &["Qh5", "Nf6", "Qxf7#"]).await;
    assert_eq!(end.moves.len(), 7);
    assert_eq!(
        end.result.expect("result").outcome,
        proto::Outcome::WhiteWins as i32
    );

    let mut versions = Vec::new();
    for event in drain(&mut stream).await {
        assert!(!matches!(event.kind, Some(Kind::Snapshot(_))));
        versions.push(event.version);
    }
    let expected: Vec<u64> = (before.version + 1..=end.version).collect();
    assert_eq!(versions, expected);
}
