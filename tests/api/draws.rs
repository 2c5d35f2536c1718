//! Draws and other endings over gRPC, on both stores: draw offers and their
//! answers, the regulations that restrict them, draw claims (correct and
//! incorrect, on the current position or with an intended move), the
//! endings the board decides by itself, resignation against a side that
//! cannot mate, and aborting a game.

use crate::common;

use arbiter::{
    domain::dead_position,
    proto::{self, Color, DrawClaimReason, GameStatus, Outcome, Termination, game_event::Kind},
};
use common::{
    Backend, NewGame, TestApp, abort, claim_draw, create, create_request, drain, expect_code, get,
    kinds, make_move, make_move_offering_draw, offer_draw, play_line, reason, resign,
    respond_to_draw, seat, watch, with_token,
};
use shakmaty::Position;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// The knight shuffle that brings the starting position back every four
/// half-moves.
const SHUFFLE: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];

/// K+R v K with the halfmove clock at `clock` and White to move.
fn rook_ending(clock: u32) -> String {
    format!("8/8/4k3/8/8/3K4/3R4/8 w - - {clock} 80")
}

/// Asserts `code` with `expected_reason`.
#[track_caller]
fn assert_refused<T: std::fmt::Debug>(
    result: Result<T, Status>,
    code: Code,
    expected_reason: &str,
) -> Status {
    let status = expect_code(result, code);
    assert_eq!(reason(&status), expected_reason, "{status:?}");
    status
}

#[track_caller]
fn assert_result(game: &proto::Game, outcome: Outcome, termination: Termination) {
    assert_eq!(game.status, GameStatus::Finished as i32, "{game:?}");
    let result = game.result.clone().expect("a finished game has a result");
    assert_eq!(result.outcome, outcome as i32, "{result:?}");
    assert_eq!(result.termination, termination as i32, "{result:?}");
    assert_eq!(game.draw_offer, Color::Unspecified as i32);
    assert!(game.legal_moves.is_empty());
}

#[track_caller]
fn assert_draw(game: &proto::Game, termination: Termination) {
    assert_result(game, Outcome::Draw, termination);
}

// ---------------------------------------------------------------------------
// Draw offers
// ---------------------------------------------------------------------------

async fn offers_wait_until_both_players_have_moved(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;

    // Before any move, neither seat may offer, on its own or with a move.
    for token in [&game.white, &game.black] {
        assert_refused(
            seat(&mut client, token, offer_draw(&game.id)).await,
            Code::FailedPrecondition,
            "DRAW_OFFER_NOT_ALLOWED",
        );
    }
    // White's first move with an offer would leave Black without a move.
    let status = assert_refused(
        seat(
            &mut client,
            &game.white,
            make_move_offering_draw(&game.id, 0, "e4"),
        )
        .await,
        Code::FailedPrecondition,
        "DRAW_OFFER_NOT_ALLOWED",
    );
    let failure = status
        .get_details_precondition_failure()
        .expect("a precondition failure detail");
    assert_eq!(failure.violations[0].r#type, "DRAW_OFFER_NOT_ALLOWED");
    let now = get(&mut client, &game.id).await;
    assert_eq!(
        now.ply, 0,
        "the move offered with a refused draw is not played"
    );
    assert_eq!(now.version, 1);

    play_line(&mut client, &game, &["e4"]).await;
    for token in [&game.white, &game.black] {
        assert_refused(
            seat(&mut client, token, offer_draw(&game.id)).await,
            Code::FailedPrecondition,
            "DRAW_OFFER_NOT_ALLOWED",
        );
    }
    // Black's first move completes the first move of both: the offer made
    // with it is allowed.
    let after = seat(
        &mut client,
        &game.black,
        make_move_offering_draw(&game.id, 1, "e5"),
    )
    .await
    .expect("offer with Black's first move");
    assert_eq!(after.ply, 2);
    assert_eq!(after.draw_offer, Color::Black as i32);
    assert_eq!(after.status, GameStatus::Active as i32);
}

async fn an_offer_is_pending_until_the_opponent_moves(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    play_line(&mut client, &game, &["e4", "e5"]).await;
    let offered = seat(
        &mut client,
        &game.white,
        make_move_offering_draw(&game.id, 2, "Nf3"),
    )
    .await
    .expect("move with an offer");
    assert_eq!(offered.draw_offer, Color::White as i32);
    assert_eq!(offered.ply, 3);
    assert_eq!(
        get(&mut client, &game.id).await.draw_offer,
        Color::White as i32
    );

    // Moving instead of answering declines the offer.
    let declined = play_line(&mut client, &game, &["Nc6"]).await;
    assert_eq!(declined.draw_offer, Color::Unspecified as i32);
    assert_eq!(declined.status, GameStatus::Active as i32);
    // There is nothing left to accept.
    assert_refused(
        seat(&mut client, &game.black, respond_to_draw(&game.id, true)).await,
        Code::FailedPrecondition,
        "NO_DRAW_OFFER",
    );

    // Black offers on its own, off the move; White's move declines it too.
    let offered = seat(&mut client, &game.black, offer_draw(&game.id))
        .await
        .expect("offer without a move");
    assert_eq!(offered.draw_offer, Color::Black as i32);
    assert_eq!(offered.ply, 4, "an offer is no move");
    let declined = play_line(&mut client, &game, &["Bc4"]).await;
    assert_eq!(declined.draw_offer, Color::Unspecified as i32);

    seat(&mut client, &game.white, resign(&game.id))
        .await
        .expect("resign to end the stream");
    let events = drain(&mut stream).await;
    assert_eq!(
        kinds(&events),
        [
            "move_made",
            "move_made",
            "move_made",
            "draw_offered",
            "draw_declined",
            "move_made",
            "draw_offered",
            "draw_declined",
            "move_made",
            "game_ended",
        ]
    );
    let by = |index: usize| match events[index].kind.as_ref() {
        Some(Kind::DrawOffered(offer)) => offer.by,
        Some(Kind::DrawDeclined(decline)) => decline.by,
        other => panic!("not an offer event: {other:?}"),
    };
    assert_eq!(by(3), Color::White as i32);
    assert_eq!(by(4), Color::Black as i32, "Black declined by moving");
    assert_eq!(by(6), Color::Black as i32);
    assert_eq!(by(7), Color::White as i32, "White declined by moving");
    let versions: Vec<u64> = events.iter().map(|e| e.version).collect();
    assert_eq!(versions, (2..12).collect::<Vec<u64>>());
}

async fn an_accepted_offer_draws_the_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    play_line(&mut client, &game, &["d4", "d5"]).await;
    seat(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("offer");
    // The offerer cannot answer its own offer.
    assert_refused(
        seat(&mut client, &game.white, respond_to_draw(&game.id, true)).await,
        Code::FailedPrecondition,
        "NO_DRAW_OFFER",
    );
    let drawn = seat(&mut client, &game.black, respond_to_draw(&game.id, true))
        .await
        .expect("accept");
    assert_draw(&drawn, Termination::Agreement);
    assert_eq!(drawn.ply, 2);
    assert_eq!(get(&mut client, &game.id).await.result, drawn.result);

    let events = drain(&mut stream).await;
    assert_eq!(
        kinds(&events),
        ["move_made", "move_made", "draw_offered", "game_ended"]
    );
    let Some(Kind::GameEnded(ended)) = &events[3].kind else {
        unreachable!()
    };
    assert_eq!(ended.result, drawn.result);

    // The game is over for every seat command.
    assert_refused(
        seat(&mut client, &game.white, offer_draw(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert_refused(
        seat(&mut client, &game.black, respond_to_draw(&game.id, true)).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert_refused(
        seat(
            &mut client,
            &game.white,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 2),
        )
        .await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert_refused(
        seat(&mut client, &game.white, abort(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
}

async fn a_declined_offer_lets_the_game_go_on(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    play_line(&mut client, &game, &["c4", "c5", "Nc3"]).await;
    // Black offers while it is Black's turn, then White declines outright.
    seat(&mut client, &game.black, offer_draw(&game.id))
        .await
        .expect("offer");
    let declined = seat(&mut client, &game.white, respond_to_draw(&game.id, false))
        .await
        .expect("decline");
    assert_eq!(declined.draw_offer, Color::Unspecified as i32);
    assert_eq!(declined.status, GameStatus::Active as i32);
    assert!(declined.result.is_none());
    assert_eq!(declined.ply, 3);
    // Declined once, the offer cannot be answered again.
    assert_refused(
        seat(&mut client, &game.white, respond_to_draw(&game.id, true)).await,
        Code::FailedPrecondition,
        "NO_DRAW_OFFER",
    );
    // Black may offer again later; play goes on meanwhile.
    let after = play_line(&mut client, &game, &["Nc6"]).await;
    assert_eq!(after.ply, 4);
    seat(&mut client, &game.black, offer_draw(&game.id))
        .await
        .expect("a new offer after a declined one");
    let drawn = seat(&mut client, &game.white, respond_to_draw(&game.id, true))
        .await
        .expect("accept");
    assert_draw(&drawn, Termination::Agreement);

    let events = drain(&mut stream).await;
    assert_eq!(
        kinds(&events),
        [
            "move_made",
            "move_made",
            "move_made",
            "draw_offered",
            "draw_declined",
            "move_made",
            "draw_offered",
            "game_ended",
        ]
    );
    let Some(Kind::DrawDeclined(decline)) = &events[4].kind else {
        unreachable!()
    };
    assert_eq!(decline.by, Color::White as i32);
}

async fn offers_do_not_stack_and_crossing_offers_agree(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    let game = app.new_game().await;
    play_line(&mut client, &game, &["e4", "c5"]).await;
    let offered = seat(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("offer");
    assert_refused(
        seat(&mut client, &game.white, offer_draw(&game.id)).await,
        Code::FailedPrecondition,
        "DRAW_ALREADY_OFFERED",
    );
    // A move offering again while the own offer is pending neither fails
    // nor adds a second offer.
    let moved = seat(
        &mut client,
        &game.white,
        make_move_offering_draw(&game.id, 2, "Nf3"),
    )
    .await
    .expect("move with a repeated offer");
    assert_eq!(moved.draw_offer, Color::White as i32);
    assert_eq!(
        moved.version,
        offered.version + 1,
        "only the move was recorded"
    );
    // Black offering in turn accepts White's pending offer.
    let drawn = seat(&mut client, &game.black, offer_draw(&game.id))
        .await
        .expect("crossing offer");
    assert_draw(&drawn, Termination::Agreement);

    // The same with the crossing offer made together with a move: the move
    // declines the pending offer, and the new offer stands.
    let game = app.new_game().await;
    play_line(&mut client, &game, &["e4", "c5"]).await;
    seat(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("offer");
    let after = play_line(&mut client, &game, &["Nf3"]).await;
    assert_eq!(after.draw_offer, Color::White as i32);
    let countered = seat(
        &mut client,
        &game.black,
        make_move_offering_draw(&game.id, 3, "d6"),
    )
    .await
    .expect("move with a counter-offer");
    assert_eq!(countered.status, GameStatus::Active as i32);
    assert_eq!(countered.draw_offer, Color::Black as i32);
    let drawn = seat(&mut client, &game.white, respond_to_draw(&game.id, true))
        .await
        .expect("accept");
    assert_draw(&drawn, Termination::Agreement);
}

async fn regulations_delay_or_forbid_agreed_draws(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    // No draw before both players have made three moves.
    let mut request = create_request("", "");
    request.rules = Some(proto::GameRules {
        draw_offers_from_move: 3,
        sofia_rules: false,
        ..Default::default()
    });
    let game = create(&mut client, request).await.expect("create");
    let rules = game.game.rules.expect("rules");
    assert_eq!(rules.draw_offers_from_move, 3);
    assert!(!rules.sofia_rules);
    play_line(&mut client, &game, &["e4", "e5", "Nf3", "Nc6"]).await;
    let status = assert_refused(
        seat(&mut client, &game.white, offer_draw(&game.id)).await,
        Code::FailedPrecondition,
        "DRAW_OFFER_NOT_ALLOWED",
    );
    assert!(status.message().contains('3'), "{}", status.message());
    assert_refused(
        seat(
            &mut client,
            &game.white,
            make_move_offering_draw(&game.id, 4, "Bc4"),
        )
        .await,
        Code::FailedPrecondition,
        "DRAW_OFFER_NOT_ALLOWED",
    );
    play_line(&mut client, &game, &["Bc4"]).await;
    // An incorrect claim before the permitted move is no offer either.
    let claim = seat(
        &mut client,
        &game.black,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 5),
    )
    .await
    .expect("claim");
    assert!(!claim.upheld);
    assert_eq!(
        claim.verdict,
        arbiter::proto::DrawClaimVerdict::Refused as i32
    );
    assert_eq!(
        claim.game.as_ref().expect("game").draw_offer,
        Color::Unspecified as i32
    );
    // Black's third move completes three moves each: the offer made with it
    // is allowed.
    let offered = seat(
        &mut client,
        &game.black,
        make_move_offering_draw(&game.id, 5, "Bc5"),
    )
    .await
    .expect("offer with the third move");
    assert_eq!(offered.draw_offer, Color::Black as i32);
    let drawn = seat(&mut client, &game.white, respond_to_draw(&game.id, true))
        .await
        .expect("accept");
    assert_draw(&drawn, Termination::Agreement);

    // Sofia rules: never an agreed draw, but claims still hold.
    let mut request = create_request("", "");
    request.rules = Some(proto::GameRules {
        draw_offers_from_move: 0,
        sofia_rules: true,
        ..Default::default()
    });
    let game = create(&mut client, request).await.expect("create");
    assert!(game.game.rules.expect("rules").sofia_rules);
    let shuffled = play_line(&mut client, &game, &SHUFFLE).await;
    let status = assert_refused(
        seat(&mut client, &game.white, offer_draw(&game.id)).await,
        Code::FailedPrecondition,
        "DRAW_OFFER_NOT_ALLOWED",
    );
    assert!(status.message().contains("Sofia"), "{}", status.message());
    assert_refused(
        seat(
            &mut client,
            &game.white,
            make_move_offering_draw(&game.id, 4, "Nf3"),
        )
        .await,
        Code::FailedPrecondition,
        "DRAW_OFFER_NOT_ALLOWED",
    );
    assert_eq!(get(&mut client, &game.id).await.version, shuffled.version);
    // An incorrect claim under Sofia rules stands as no offer.
    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "Nf3", 4),
    )
    .await
    .expect("claim");
    assert!(!claim.upheld);
    let after = claim.game.expect("game");
    assert_eq!(after.draw_offer, Color::Unspecified as i32);
    assert_eq!(after.ply, 5);
    assert_refused(
        seat(&mut client, &game.black, respond_to_draw(&game.id, true)).await,
        Code::FailedPrecondition,
        "NO_DRAW_OFFER",
    );
    // A correct claim is upheld whatever the regulations.
    play_line(&mut client, &game, &["Nf6", "Ng1"]).await;
    let claim = seat(
        &mut client,
        &game.black,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "Ng8", 7),
    )
    .await
    .expect("claim");
    assert!(claim.upheld, "{claim:?}");
    assert_eq!(
        claim.verdict,
        arbiter::proto::DrawClaimVerdict::Upheld as i32
    );
    assert_draw(
        claim.game.as_ref().expect("game"),
        Termination::ThreefoldRepetition,
    );
}

// ---------------------------------------------------------------------------
// Draw claims
// ---------------------------------------------------------------------------

async fn threefold_repetition_claimed_on_the_board(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    assert_eq!(game.game.repetition_count, 1);
    assert!(!game.game.can_claim_threefold);

    let twice = play_line(&mut client, &game, &SHUFFLE).await;
    assert_eq!(twice.repetition_count, 2);
    assert!(!twice.can_claim_threefold);
    assert_eq!(twice.halfmove_clock, 4);
    let once_more = play_line(&mut client, &game, &SHUFFLE[..3]).await;
    assert_eq!(
        once_more.repetition_count, 2,
        "after 4.Ng1 the position with Black to move stands for the second time"
    );
    assert!(!once_more.can_claim_threefold);
    let thrice = play_line(&mut client, &game, &SHUFFLE[3..]).await;
    assert_eq!(thrice.ply, 8);
    assert_eq!(thrice.repetition_count, 3);
    assert!(thrice.can_claim_threefold);
    assert!(!thrice.can_claim_fifty_moves);
    assert_eq!(thrice.halfmove_clock, 8);

    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 8),
    )
    .await
    .expect("claim");
    assert!(claim.upheld);
    assert!(claim.explanation.is_empty());
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::ThreefoldRepetition);
    assert_eq!(drawn.ply, 8, "no move was played with the claim");
    assert!(!drawn.can_claim_threefold, "nothing to claim once drawn");
    assert_eq!(get(&mut client, &game.id).await.result, drawn.result);
}

async fn threefold_repetition_claimed_with_the_intended_move(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    let before = play_line(&mut client, &game, &[&SHUFFLE[..], &SHUFFLE[..3]].concat()).await;
    assert_eq!(before.ply, 7);
    assert!(!before.can_claim_threefold);
    // Ng8 would bring the starting position back for the third time.
    let claim = seat(
        &mut client,
        &game.black,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "g8", 7),
    )
    .await;
    assert_refused(claim, Code::InvalidArgument, "ILLEGAL_MOVE");
    assert_eq!(get(&mut client, &game.id).await.version, before.version);

    let claim = seat(
        &mut client,
        &game.black,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "Ng8", 7),
    )
    .await
    .expect("claim");
    assert!(claim.upheld, "{claim:?}");
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::ThreefoldRepetition);
    assert_eq!(drawn.ply, 8);
    assert_eq!(drawn.moves.len(), 8);
    let last = drawn.moves.last().expect("the intended move");
    assert_eq!(last.san, "Ng8");
    assert_eq!(last.uci, "f6g8");
    assert_eq!(last.color, Color::Black as i32);
    assert_eq!(drawn.repetition_count, 3);
    assert!(
        drawn
            .fen
            .starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq")
    );

    let events = drain(&mut stream).await;
    assert_eq!(kinds(&events).len(), 9);
    assert_eq!(kinds(&events)[7..], ["move_made", "game_ended"]);
}

async fn fifty_moves_claimed_on_the_board(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game_from(&rook_ending(100)).await;
    assert_eq!(game.game.halfmove_clock, 100);
    assert!(game.game.can_claim_fifty_moves);
    assert!(!game.game.can_claim_threefold);
    assert_eq!(game.game.repetition_count, 1);

    // Only the player to move may claim.
    assert_refused(
        seat(
            &mut client,
            &game.black,
            claim_draw(&game.id, DrawClaimReason::FiftyMoves, "", 0),
        )
        .await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::FiftyMoves, "", 0),
    )
    .await
    .expect("claim");
    assert!(claim.upheld, "{claim:?}");
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::FiftyMoves);
    assert!(drawn.moves.is_empty());
}

async fn fifty_moves_claimed_with_the_intended_move(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game_from(&rook_ending(99)).await;
    assert_eq!(game.game.halfmove_clock, 99);
    assert!(!game.game.can_claim_fifty_moves);

    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::FiftyMoves, "d2d1", 0),
    )
    .await
    .expect("claim");
    assert!(claim.upheld, "{claim:?}");
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::FiftyMoves);
    assert_eq!(drawn.moves.len(), 1);
    assert_eq!(drawn.moves[0].san, "Rd1");
    assert_eq!(drawn.halfmove_clock, 100);

    // The clock at 99 and a move played without a claim: the opponent may
    // claim on the board.
    let game = app.new_game_from(&rook_ending(99)).await;
    let after = play_line(&mut client, &game, &["Rd1"]).await;
    assert_eq!(after.halfmove_clock, 100);
    assert!(after.can_claim_fifty_moves);
    assert_eq!(after.status, GameStatus::Active as i32);
    let claim = seat(
        &mut client,
        &game.black,
        claim_draw(&game.id, DrawClaimReason::FiftyMoves, "", 1),
    )
    .await
    .expect("claim");
    assert!(claim.upheld);
    assert_draw(claim.game.as_ref().expect("game"), Termination::FiftyMoves);

    // A claim whose intended move is a capture resets the count: refused.
    let game = app
        .new_game_from("8/8/4k3/8/8/3K4/3R4/3n4 w - - 99 80")
        .await;
    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::FiftyMoves, "Rxd1", 0),
    )
    .await
    .expect("claim");
    assert!(!claim.upheld);
    assert!(
        claim.explanation.contains("0 half-moves"),
        "{}",
        claim.explanation
    );
    let after = claim.game.expect("game");
    assert_eq!(after.halfmove_clock, 0);
    assert_eq!(after.moves[0].san, "Rxd1");
}

async fn an_incorrect_claim_stands_as_a_draw_offer(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    play_line(&mut client, &game, &["e4", "e5", "Nf3", "Nc6"]).await;
    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "Bc4", 4),
    )
    .await
    .expect("an incorrect claim is no error");
    assert!(!claim.upheld);
    assert!(
        claim.explanation.contains("1 time"),
        "{}",
        claim.explanation
    );
    let after = claim.game.expect("game");
    assert_eq!(after.status, GameStatus::Active as i32);
    assert!(after.result.is_none());
    // The intended move is played whatever the ruling.
    assert_eq!(after.ply, 5);
    assert_eq!(after.moves.last().expect("move").san, "Bc4");
    assert_eq!(after.side_to_move, Color::Black as i32);
    // The claim stands as White's offer, which Black may accept.
    assert_eq!(after.draw_offer, Color::White as i32);
    assert_eq!(
        get(&mut client, &game.id).await.draw_offer,
        Color::White as i32
    );
    let drawn = seat(&mut client, &game.black, respond_to_draw(&game.id, true))
        .await
        .expect("accept the claim as an offer");
    assert_draw(&drawn, Termination::Agreement);

    let events = drain(&mut stream).await;
    assert_eq!(
        kinds(&events)[4..],
        [
            "move_made",
            "draw_claim_refused",
            "draw_offered",
            "game_ended"
        ]
    );
    let Some(Kind::DrawClaimRefused(refused)) = &events[5].kind else {
        unreachable!()
    };
    assert_eq!(refused.by, Color::White as i32);
    assert_eq!(refused.reason, DrawClaimReason::ThreefoldRepetition as i32);
    assert_eq!(refused.explanation, claim.explanation);
    let Some(Kind::DrawOffered(offer)) = &events[6].kind else {
        unreachable!()
    };
    assert_eq!(offer.by, Color::White as i32);
}

async fn an_incorrect_claim_without_a_move_leaves_the_turn(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game_from(&rook_ending(60)).await;
    play_line(&mut client, &game, &["Rd1", "Ke5"]).await;

    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::FiftyMoves, "", 2),
    )
    .await
    .expect("claim");
    assert!(!claim.upheld);
    assert!(
        claim.explanation.contains("62 half-moves"),
        "{}",
        claim.explanation
    );
    let after = claim.game.expect("game");
    assert_eq!(after.ply, 2, "no move was played");
    assert_eq!(after.side_to_move, Color::White as i32);
    assert_eq!(after.draw_offer, Color::White as i32);
    // The claimant still has to move; its own move keeps its offer open.
    let moved = play_line(&mut client, &game, &["Rd2"]).await;
    assert_eq!(moved.draw_offer, Color::White as i32);
    // Black declines it explicitly.
    let declined = seat(&mut client, &game.black, respond_to_draw(&game.id, false))
        .await
        .expect("decline");
    assert_eq!(declined.draw_offer, Color::Unspecified as i32);
    assert_eq!(declined.status, GameStatus::Active as i32);

    // An incorrect claim while the opponent's offer is pending accepts it.
    seat(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("White offers again");
    let claim = seat(
        &mut client,
        &game.black,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 3),
    )
    .await
    .expect("claim");
    assert!(!claim.upheld);
    assert!(
        claim.explanation.contains("1 time"),
        "{}",
        claim.explanation
    );
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::Agreement);
    assert_eq!(drawn.ply, 3);
}

async fn claims_are_checked_before_they_are_judged(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let shuffled = play_line(&mut client, &game, &[&SHUFFLE[..], &SHUFFLE[..]].concat()).await;
    assert!(shuffled.can_claim_threefold);

    // Not the claimant's turn: refused even though the position repeats.
    assert_refused(
        seat(
            &mut client,
            &game.black,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 8),
        )
        .await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    // No reason given.
    let status = assert_refused(
        seat(
            &mut client,
            &game.white,
            claim_draw(&game.id, DrawClaimReason::Unspecified, "", 8),
        )
        .await,
        Code::InvalidArgument,
        "INVALID_FIELD",
    );
    let fields: Vec<String> = status
        .get_details_bad_request()
        .expect("bad request detail")
        .field_violations
        .into_iter()
        .map(|violation| violation.field)
        .collect();
    assert_eq!(fields, ["reason"]);
    // A stale ply.
    assert_refused(
        seat(
            &mut client,
            &game.white,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 7),
        )
        .await,
        Code::Aborted,
        "STALE_PLY",
    );
    // An unreadable intended move.
    assert_refused(
        seat(
            &mut client,
            &game.white,
            claim_draw(
                &game.id,
                DrawClaimReason::ThreefoldRepetition,
                "knight to f3",
                8,
            ),
        )
        .await,
        Code::InvalidArgument,
        "UNPARSABLE_MOVE",
    );
    let now = get(&mut client, &game.id).await;
    assert_eq!(now.version, shuffled.version, "refusals change nothing");
    assert_eq!(now.status, GameStatus::Active as i32);
}

// ---------------------------------------------------------------------------
// Endings the board decides
// ---------------------------------------------------------------------------

async fn fivefold_repetition_ends_the_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    let fourfold = play_line(&mut client, &game, &SHUFFLE.repeat(3)).await;
    assert_eq!(fourfold.repetition_count, 4);
    assert_eq!(fourfold.status, GameStatus::Active as i32);
    assert!(fourfold.can_claim_threefold);
    let fivefold = play_line(&mut client, &game, &SHUFFLE).await;
    assert_eq!(fivefold.ply, 16);
    assert_eq!(fivefold.repetition_count, 5);
    assert_draw(&fivefold, Termination::FivefoldRepetition);
    assert!(!fivefold.can_claim_threefold);
    let status = assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 16, "Nf3")).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert!(!status.message().is_empty());

    let events = drain(&mut stream).await;
    assert_eq!(events.len(), 17);
    assert_eq!(kinds(&events)[16], "game_ended");
}

async fn the_seventy_five_move_rule_ends_the_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game_from(&rook_ending(149)).await;
    assert_eq!(game.game.halfmove_clock, 149);
    assert!(game.game.can_claim_fifty_moves);
    let end = play_line(&mut client, &game, &["Rd1"]).await;
    assert_eq!(end.halfmove_clock, 150);
    assert_draw(&end, Termination::SeventyFiveMoves);
    assert!(!end.can_claim_fifty_moves);

    // A checkmate on that 150th half-move wins all the same.
    let game = app.new_game_from("k7/8/1K6/8/8/8/8/7R w - - 149 100").await;
    let end = play_line(&mut client, &game, &["Rh8"]).await;
    assert_eq!(end.moves[0].san, "Rh8#");
    assert_result(&end, Outcome::WhiteWins, Termination::Checkmate);

    // A claim whose intended move reaches the 75-move rule: the move ends
    // the game by itself and the claim is moot.
    let game = app.new_game_from(&rook_ending(149)).await;
    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::FiftyMoves, "Rd1", 0),
    )
    .await
    .expect("claim");
    assert!(!claim.upheld);
    assert_eq!(
        claim.verdict,
        arbiter::proto::DrawClaimVerdict::Moot as i32,
        "the ruling tells a moot claim from a refused one"
    );
    assert!(!claim.explanation.is_empty());
    assert_draw(
        claim.game.as_ref().expect("game"),
        Termination::SeventyFiveMoves,
    );
}

async fn dead_positions_and_insufficient_material(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    // Locking the last pair of pawns leaves a wall no king can cross and a
    // bishop that attacks none of the opponent's pawns.
    let before = "8/8/4k3/p1p1p1p1/P1P1P3/6P1/4K3/5B2 w - - 0 1";
    let dead_fen = "8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/5B2 b - - 0 1";
    let position = |fen: &str| dead_position::position(fen).expect("legal FEN");
    assert!(!dead_position::is_dead(&position(before)));
    assert!(dead_position::is_dead(&position(dead_fen)));
    assert!(!position(dead_fen).is_insufficient_material());

    let game = app.new_game_from(before).await;
    let end = play_line(&mut client, &game, &["g4"]).await;
    assert_eq!(end.fen, dead_fen);
    assert_draw(&end, Termination::DeadPosition);

    // The same wall with a dark-squared bishop is alive.
    let alive = "8/8/4k3/p1p1p1p1/P1P1P3/6P1/4K3/2B5 w - - 0 1";
    assert!(!dead_position::is_dead(&position(
        "8/8/4k3/p1p1p1p1/P1P1P1P1/8/4K3/2B5 b - - 0 1"
    )));
    let game = app.new_game_from(alive).await;
    let end = play_line(&mut client, &game, &["g4"]).await;
    assert_eq!(end.status, GameStatus::Active as i32);

    // Starting from a dead position is refused.
    let status = expect_code(
        create(&mut client, create_request("", dead_fen)).await,
        Code::InvalidArgument,
    );
    assert!(
        status.message().contains("dead position"),
        "{}",
        status.message()
    );

    // K+B v K is insufficient material, not merely dead.
    let game = app.new_game_from("8/8/4k3/1n6/8/3B4/8/4K3 w - - 0 1").await;
    let end = play_line(&mut client, &game, &["Bxb5"]).await;
    assert_draw(&end, Termination::InsufficientMaterial);
}

async fn resigning_against_a_lone_king_is_a_draw(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let fen = "8/8/4k3/8/8/3K4/8/7R w - - 0 1";

    // Black has only its king: White's resignation cannot make Black win.
    let game = app.new_game_from(fen).await;
    play_line(&mut client, &game, &["Rh2", "Ke5"]).await;
    let end = seat(&mut client, &game.white, resign(&game.id))
        .await
        .expect("resign");
    assert_result(&end, Outcome::Draw, Termination::Resignation);

    // Black resigning against the rook loses as usual.
    let game = app.new_game_from(fen).await;
    let end = seat(&mut client, &game.black, resign(&game.id))
        .await
        .expect("resign");
    assert_result(&end, Outcome::WhiteWins, Termination::Resignation);

    // In the opening a resignation is a loss.
    let game = app.new_game().await;
    play_line(&mut client, &game, &["e4", "e5"]).await;
    let end = seat(&mut client, &game.white, resign(&game.id))
        .await
        .expect("resign");
    assert_result(&end, Outcome::BlackWins, Termination::Resignation);
}

// ---------------------------------------------------------------------------
// Abort
// ---------------------------------------------------------------------------

#[track_caller]
fn assert_aborted(game: &proto::Game, by: Color) {
    assert_eq!(game.status, GameStatus::Aborted as i32, "{game:?}");
    assert!(game.result.is_none(), "an aborted game has no result");
    assert_eq!(game.aborted_by, by as i32);
    assert_eq!(game.draw_offer, Color::Unspecified as i32);
    assert!(game.legal_moves.is_empty());
}

async fn either_seat_may_abort_before_both_have_moved(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    // At ply 0, by either seat (Black need not wait for its turn).
    for (side, color) in [("white", Color::White), ("black", Color::Black)] {
        let game = app.new_game().await;
        assert_eq!(game.game.aborted_by, Color::Unspecified as i32);
        let token = if side == "white" {
            &game.white
        } else {
            &game.black
        };
        let aborted = seat(&mut client, token, abort(&game.id))
            .await
            .expect("abort");
        assert_aborted(&aborted, color);
        assert_eq!(aborted.ply, 0);
        assert_aborted(&get(&mut client, &game.id).await, color);
    }
    // At ply 1, by either seat.
    for (side, color) in [("white", Color::White), ("black", Color::Black)] {
        let game = app.new_game().await;
        play_line(&mut client, &game, &["e4"]).await;
        let token = if side == "white" {
            &game.white
        } else {
            &game.black
        };
        let aborted = seat(&mut client, token, abort(&game.id))
            .await
            .expect("abort");
        assert_aborted(&aborted, color);
        assert_eq!(aborted.ply, 1);
        assert_eq!(aborted.moves.len(), 1, "the move played stays recorded");
    }
}

async fn an_abort_ends_the_stream_and_the_game(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 0).await;

    play_line(&mut client, &game, &["d4"]).await;
    let aborted = seat(&mut client, &game.black, abort(&game.id))
        .await
        .expect("abort");
    assert_aborted(&aborted, Color::Black);

    let events = drain(&mut stream).await;
    assert_eq!(kinds(&events), ["snapshot", "move_made", "game_aborted"]);
    let last = events.last().expect("events");
    let Some(Kind::GameAborted(by)) = &last.kind else {
        unreachable!()
    };
    assert_eq!(by.by, Color::Black as i32);
    assert_eq!(last.version, aborted.version);

    // Nothing more can happen to the game.
    assert_refused(
        seat(&mut client, &game.black, make_move(&game.id, 1, "d5")).await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );
    assert_refused(
        seat(&mut client, &game.white, resign(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );
    assert_refused(
        seat(&mut client, &game.white, offer_draw(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );
    assert_refused(
        seat(&mut client, &game.white, respond_to_draw(&game.id, false)).await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );
    assert_refused(
        seat(
            &mut client,
            &game.black,
            claim_draw(&game.id, DrawClaimReason::FiftyMoves, "d5", 1),
        )
        .await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );
    assert_refused(
        seat(&mut client, &game.white, abort(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );
    assert_eq!(get(&mut client, &game.id).await.version, aborted.version);

    // A watch started after the abort gets the final state, then the end.
    let events = drain(&mut watch(&mut watcher, &game.id, 0).await).await;
    assert_eq!(kinds(&events), ["snapshot"]);
    let Some(Kind::Snapshot(snapshot)) = &events[0].kind else {
        unreachable!()
    };
    assert_aborted(snapshot, Color::Black);
    // So does one resuming from before the abort, and one fully caught up.
    let events = drain(&mut watch(&mut watcher, &game.id, 2).await).await;
    assert_eq!(kinds(&events), ["game_aborted"]);
    let events = drain(&mut watch(&mut watcher, &game.id, aborted.version).await).await;
    assert!(events.is_empty(), "{events:?}");
}

async fn aborting_is_refused_once_both_have_moved(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let before = play_line(&mut client, &game, &["e4", "e5"]).await;
    for token in [&game.white, &game.black] {
        let status = assert_refused(
            seat(&mut client, token, abort(&game.id)).await,
            Code::FailedPrecondition,
            "ABORT_TOO_LATE",
        );
        assert!(status.message().contains("abort"), "{}", status.message());
    }
    let now = get(&mut client, &game.id).await;
    assert_eq!(now.version, before.version);
    assert_eq!(now.status, GameStatus::Active as i32);
    assert_eq!(now.aborted_by, Color::Unspecified as i32);
}

// ---------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------

/// Sends each of the new seat commands for `game` with `token` (none when
/// `None`), returning the statuses.
async fn seat_commands(
    client: &mut proto::arbiter_service_client::ArbiterServiceClient<tonic::transport::Channel>,
    game: &NewGame,
    token: Option<&str>,
) -> Vec<(&'static str, Status)> {
    fn request<T>(message: T, token: Option<&str>) -> tonic::Request<T> {
        match token {
            Some(token) => with_token(token, message),
            None => tonic::Request::new(message),
        }
    }
    let id = game.id.clone();
    vec![
        (
            "OfferDraw",
            client
                .offer_draw(request(offer_draw(&id), token))
                .await
                .expect_err("refused"),
        ),
        (
            "RespondToDrawOffer",
            client
                .respond_to_draw_offer(request(respond_to_draw(&id, true), token))
                .await
                .expect_err("refused"),
        ),
        (
            "ClaimDraw",
            client
                .claim_draw(request(
                    claim_draw(&id, DrawClaimReason::FiftyMoves, "", 2),
                    token,
                ))
                .await
                .expect_err("refused"),
        ),
        (
            "AbortGame",
            client
                .abort_game(request(abort(&id), token))
                .await
                .expect_err("refused"),
        ),
    ]
}

async fn seat_commands_need_the_seat_token(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let other = app.new_game().await;
    let before = play_line(&mut client, &game, &["e4", "e5"]).await;
    seat(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("a pending offer to answer");
    let before = get(&mut client, &before.game_id).await;

    for (rpc, status) in seat_commands(&mut client, &game, None).await {
        assert_eq!(status.code(), Code::Unauthenticated, "{rpc}: {status:?}");
        assert_eq!(reason(&status), "MISSING_TOKEN", "{rpc}");
    }
    for token in [&other.white, &other.black, common::ADMIN_TOKEN] {
        for (rpc, status) in seat_commands(&mut client, &game, Some(token)).await {
            assert_eq!(status.code(), Code::PermissionDenied, "{rpc}: {status:?}");
            assert_eq!(reason(&status), "NOT_A_SEAT", "{rpc}");
        }
    }
    let now = get(&mut client, &game.id).await;
    assert_eq!(now.version, before.version, "refusals change nothing");
    assert_eq!(now.draw_offer, Color::White as i32);
    assert_eq!(
        other.game.version,
        get(&mut client, &other.id).await.version
    );
}

on_every_backend!(
    offers_wait_until_both_players_have_moved,
    an_offer_is_pending_until_the_opponent_moves,
    an_accepted_offer_draws_the_game,
    a_declined_offer_lets_the_game_go_on,
    offers_do_not_stack_and_crossing_offers_agree,
    regulations_delay_or_forbid_agreed_draws,
    threefold_repetition_claimed_on_the_board,
    threefold_repetition_claimed_with_the_intended_move,
    fifty_moves_claimed_on_the_board,
    fifty_moves_claimed_with_the_intended_move,
    an_incorrect_claim_stands_as_a_draw_offer,
    an_incorrect_claim_without_a_move_leaves_the_turn,
    claims_are_checked_before_they_are_judged,
    fivefold_repetition_ends_the_game,
    the_seventy_five_move_rule_ends_the_game,
    dead_positions_and_insufficient_material,
    resigning_against_a_lone_king_is_a_draw,
    either_seat_may_abort_before_both_have_moved,
    an_abort_ends_the_stream_and_the_game,
    aborting_is_refused_once_both_have_moved,
    seat_commands_need_the_seat_token,
);
