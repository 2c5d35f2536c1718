//! A game outlives the server process that created it: Redis keeps it.

use crate::common;

use arbiter::proto;
use common::{Backend, TestApp, WatchKind, drain_messages, get, get_full, play_line, watch};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_survives_a_server_restart() {
    let app = TestApp::spawn(Backend::Redis).await;
    let settings = app.settings.clone();
    let game = app.new_game().await;
    let mut client = app.client().await;
    let before = play_line(&mut client, &game, &["e4", "e5", "Bc4", "Nc6"]).await;
    let before_full = get_full(&mut client, &game.id).await;
    let redis = app.stop().await;

    let app = TestApp::spawn_with(settings, redis).await;
    let mut client = app.client().await;
    let after_restart = get(&mut client, &game.id).await;
    assert_eq!(
        after_restart, before,
        "the restarted server sees the same game"
    );
    assert_eq!(
        get_full(&mut client, &game.id).await,
        before_full,
        "and the same moves"
    );

    // A watcher resumes across the restart from the last version it knew.
    let mut stream = watch(&mut client, &game.id, before.version).await;

    // The same seat tokens still work.
    let end = play_line(&mut client, &game, &["Qh5", "Nf6", "Qxf7#"]).await;
    assert_eq!(end.ply, 7);
    assert_eq!(get_full(&mut client, &game.id).await.moves.len(), 7);
    assert_eq!(
        end.result.expect("result").outcome,
        proto::Outcome::WhiteWins as i32
    );

    let mut versions = Vec::new();
    for message in drain_messages(&mut stream).await {
        let WatchKind::Event(event) = message else {
            panic!("a resumed watch sends events only, not {message:?}");
        };
        versions.push(event.version);
    }
    let expected: Vec<i32> = (before.version + 1..=end.version).collect();
    assert_eq!(versions, expected);
}
