//! Races: concurrent moves on one game, on one server and across replicas.

use crate::common;

use common::{Backend, TestApp, expect_code, get, get_full, make_move, reason, seat};
use tonic::Code;

/// Two clients of the White seat send different moves for the same ply at
/// once: exactly one is applied, the other is told its ply is stale.
async fn racing_the_same_ply_has_exactly_one_winner(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    for _ in 0..10 {
        let game = app.new_game().await;
        let (mut a, mut b) = (app.client().await, app.client().await);
        let (first, second) = tokio::join!(
            seat(&mut a, &game.white, make_move(&game.id, 0, "e4")),
            seat(&mut b, &game.white, make_move(&game.id, 0, "d4")),
        );
        let (winner, loser) = match (first, second) {
            (Ok(game), Err(status)) | (Err(status), Ok(game)) => (game, status),
            other => panic!("exactly one move must win: {other:?}"),
        };
        assert_eq!(loser.code(), Code::Aborted, "{loser:?}");
        assert_eq!(reason(&loser), "STALE_PLY");
        let stored = get_full(&mut a, &game.id).await;
        assert_eq!(stored.ply, 1);
        assert_eq!(stored.moves.len(), 1);
        let won = winner.last_move.as_ref().expect("the winner's move");
        assert_eq!(stored.moves[0].uci, won.uci);
        assert_eq!(stored.version, 2);
    }
}

/// The same move sent twice at once (a client retry racing its original)
/// is applied once, and both senders see success.
async fn a_duplicate_racing_its_original_is_applied_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    for _ in 0..10 {
        let game = app.new_game().await;
        let (mut a, mut b) = (app.client().await, app.client().await);
        let (first, second) = tokio::join!(
            seat(&mut a, &game.white, make_move(&game.id, 0, "e2e4")),
            seat(&mut b, &game.white, make_move(&game.id, 0, "e2e4")),
        );
        let (first, second) = (first.expect("first"), second.expect("second"));
        assert_eq!(first.version, 2);
        assert_eq!(second.version, 2);
        let stored = get_full(&mut a, &game.id).await;
        assert_eq!(stored.moves.len(), 1);
        assert_eq!(stored.moves[0].uci, "e2e4");
    }
}

on_every_backend!(
    racing_the_same_ply_has_exactly_one_winner,
    a_duplicate_racing_its_original_is_applied_once,
);

/// Two replicas share one Redis: a race between them still has exactly one
/// winner, and each sees the other's moves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_on_one_redis_agree() {
    let first = TestApp::spawn(Backend::Redis).await;
    // Same Redis, same key prefix.
    let second = TestApp::spawn_with(first.settings.clone(), None).await;
    for _ in 0..10 {
        let game = first.new_game().await;
        let (mut a, mut b) = (first.client().await, second.client().await);
        let (x, y) = tokio::join!(
            seat(&mut a, &game.white, make_move(&game.id, 0, "c4")),
            seat(&mut b, &game.white, make_move(&game.id, 0, "Nf3")),
        );
        assert!(
            x.is_ok() != y.is_ok(),
            "exactly one replica wins: {x:?} {y:?}"
        );
        let loser = if x.is_ok() { y } else { x };
        expect_code(loser, Code::Aborted);
        let on_first = get_full(&mut a, &game.id).await;
        let on_second = get_full(&mut b, &game.id).await;
        assert_eq!(on_first, on_second);
        assert_eq!(on_first.moves.len(), 1);
        // Black answers through the other replica.
        seat(&mut b, &game.black, make_move(&game.id, 1, "e5"))
            .await
            .expect("black on replica two");
        assert_eq!(get(&mut a, &game.id).await.ply, 2);
    }
}
