//! Dead positions (FIDE 5.2.2) that the fast test cannot settle within a
//! move's analysis budget, over gRPC on every backend: the background
//! analysis proves them and ends the game by a commit of its own, which
//! watchers receive like any other ending.

use std::time::Duration;

use crate::common;

use arbiter::{
    arbiter::AnalysisConfig,
    domain::{Deadness, Ply, game::dead_position},
    proto::{self, GameStatus, Outcome, Termination},
};
use common::{Backend, TestApp, get, kinds, play_line, settings, watch};
use futures::StreamExt;

/// A wall of pawns no piece can cross: dead, but only the full helpmate
/// search shows it (a test vector of the Chess Unwinnability Analyzer).
const FULL_SEARCH_ONLY: &str = "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/4K3 w - - 0 1";

/// The same wall with a black rook on d1, checking the white king: while
/// the rook lives Black can still mate; Kxd1 leaves [`FULL_SEARCH_ONLY`]'s
/// wall with the king on d1.
const ROOK_BEHIND_THE_WALL: &str = "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/3rK3 w - - 0 1";

/// The events of `game_id` after its creation, until its stream ends
/// (after its final event).
async fn events_until_the_end(client: &mut common::Client, game_id: &str) -> Vec<proto::GameEvent> {
    let mut stream = watch(client, game_id, 1).await;
    let mut events = Vec::new();
    while let Some(message) = common::next_within(&mut stream, common::STREAM_PATIENCE).await {
        if let Some(proto::watch_game_response::Kind::Event(event)) =
            message.expect("a message").kind
        {
            events.push(event);
        }
    }
    // The stream ended on its own: nothing more is pending.
    assert!(stream.next().await.is_none());
    events
}

#[track_caller]
fn assert_dead_position_draw(game: &proto::Game) {
    assert_eq!(game.status, GameStatus::Finished as i32, "{game:?}");
    let result = game.result.clone().expect("a result");
    assert_eq!(result.outcome, Outcome::Draw as i32, "{result:?}");
    assert_eq!(
        result.termination,
        Termination::DeadPosition as i32,
        "{result:?}"
    );
}

async fn a_move_into_a_position_only_the_full_search_proves_dead_draws_the_game(backend: Backend) {
    let position = |fen: &str| dead_position::position(fen).expect("legal FEN");
    assert!(matches!(
        dead_position::analyse(&position(ROOK_BEHIND_THE_WALL), Ply::START),
        Deadness::Alive
    ));
    let after = "1k6/p1p1p1p1/P1P1P1P1/p1p1p1p1/8/8/P1P1P1P1/3K4 b - - 0 1";
    assert!(!dead_position::is_dead(&position(after)));

    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game_from(ROOK_BEHIND_THE_WALL).await;
    // The move is committed as the fast test left it: the game goes on...
    let moved = play_line(&mut client, &game, &["Kxd1"]).await;
    assert_eq!(moved.fen, after);
    // ...until the background analysis proves the position dead and ends
    // the game by a commit of its own.
    let events = events_until_the_end(&mut client, &game.id).await;
    assert_eq!(kinds(&events), ["move_made", "game_ended"], "{events:?}");
    let end = get(&mut client, &game.id).await;
    assert_dead_position_draw(&end);
    assert_eq!(end.fen, after);
    assert_eq!(end.ply, 1);
}

async fn a_game_created_in_a_position_only_the_full_search_proves_dead_ends_at_once(
    backend: Backend,
) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    // The fast test cannot refuse it at creation; the game is created and
    // drawn as soon as the analysis proves it dead.
    let game = app.new_game_from(FULL_SEARCH_ONLY).await;
    let events = events_until_the_end(&mut client, &game.id).await;
    assert_eq!(kinds(&events), ["game_ended"], "{events:?}");
    assert_dead_position_draw(&get(&mut client, &game.id).await);
}

async fn past_the_budget_the_background_ends_the_game(backend: Backend) {
    // A budget of zero: no move waits for the fast test.
    let mut settings = settings(backend.store());
    settings.analysis = AnalysisConfig {
        budget: Duration::ZERO,
        ..AnalysisConfig::default()
    };
    let app = TestApp::spawn_with(settings, None).await;
    let mut client = app.client().await;
    // g3-g4 locks the wall: a position the fast test proves dead.
    let game = app
        .new_game_from("8/8/4k3/p1p1p1p1/P1P1P3/6P1/4K3/5B2 w - - 0 1")
        .await;
    let moved = play_line(&mut client, &game, &["g4"]).await;
    let events = events_until_the_end(&mut client, &game.id).await;
    assert_eq!(kinds(&events), ["move_made", "game_ended"], "{events:?}");
    let end = get(&mut client, &game.id).await;
    assert_dead_position_draw(&end);
    assert_eq!(end.fen, moved.fen);
}

on_every_backend!(
    a_move_into_a_position_only_the_full_search_proves_dead_draws_the_game,
    a_game_created_in_a_position_only_the_full_search_proves_dead_ends_at_once,
    past_the_budget_the_background_ends_the_game,
);
