//! Draws and other endings over gRPC, on both stores: draw offers and their
//! answers, the regulations that restrict them, draw claims (correct and
//! incorrect, on the current position or with an intended move), the
//! endings the board decides by itself, resignation against a side that
//! cannot mate, aborting a game, and the retries of every seat action.

use crate::common;

use arbiter::{
    domain::game::dead_position,
    proto::{
        self, Color, DrawClaimReason, DrawClaimVerdict, GameStatus, Outcome, Termination,
        game_event::Kind,
    },
};
use common::{
    Backend, NewGame, TestApp, WatchKind, abort, accept_draw, claim_draw, create, create_request,
    decline_draw, drain, drain_messages, expect_code, get, get_full, kinds, make_move,
    make_move_offering_draw, offer_draw, play_line, reason, resign, seat, seat_with_events, setup,
    ucis, watch, with_token,
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
    assert_eq!(game.draw_offered_by, None);
    assert!(game.legal_moves.is_empty());
}

#[track_caller]
fn assert_draw(game: &proto::Game, termination: Termination) {
    assert_result(game, Outcome::Draw, termination);
}

/// Asserts that a refusal's `ErrorInfo` names the game's ply and side to
/// move (and no start time, the games here having no scheduled start).
#[track_caller]
fn assert_game_metadata(status: &Status, ply: i32, side_to_move: &str) {
    let info = status.get_details_error_info().expect("an error info");
    assert_eq!(info.domain, "chessarbiter.v1");
    assert_eq!(
        info.metadata.get("ply").map(String::as_str),
        Some(ply.to_string().as_str()),
        "{info:?}"
    );
    assert_eq!(
        info.metadata.get("side_to_move").map(String::as_str),
        Some(side_to_move),
        "{info:?}"
    );
    assert!(!info.metadata.contains_key("start_time"), "{info:?}");
}

/// The game a claim's ruling leaves.
fn claimed(claim: &proto::ClaimDrawResponse) -> &proto::Game {
    claim.game.as_ref().expect("game in the claim's response")
}

/// Asserts a claim's verdict.
#[track_caller]
fn assert_verdict(claim: &proto::ClaimDrawResponse, verdict: DrawClaimVerdict) {
    assert_eq!(claim.verdict, verdict as i32, "{claim:?}");
}

/// The kinds of the messages of a watch stream: "snapshot", "heartbeat"
/// or the event's kind.
fn message_kinds(messages: &[WatchKind]) -> Vec<&'static str> {
    messages
        .iter()
        .map(|message| match message {
            WatchKind::Snapshot(_) => "snapshot",
            WatchKind::Heartbeat(_) => "heartbeat",
            WatchKind::Event(event) => kinds(std::slice::from_ref(event))[0],
        })
        .collect()
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
    let (after, events) = seat_with_events(
        &mut client,
        &game.black,
        make_move_offering_draw(&game.id, 1, "e5"),
    )
    .await
    .expect("offer with Black's first move");
    assert_eq!(kinds(&events), ["move_made", "draw_offered"]);
    assert_eq!(after.ply, 2);
    assert_eq!(after.draw_offered_by, Some(Color::Black as i32));
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
    assert_eq!(offered.draw_offered_by, Some(Color::White as i32));
    assert_eq!(offered.ply, 3);
    assert_eq!(
        get(&mut client, &game.id).await.draw_offered_by,
        Some(Color::White as i32)
    );

    // Moving instead of answering declines the offer.
    let declined = play_line(&mut client, &game, &["Nc6"]).await;
    assert_eq!(declined.draw_offered_by, None);
    assert_eq!(declined.status, GameStatus::Active as i32);
    // There is nothing left to accept.
    assert_refused(
        seat(&mut client, &game.black, accept_draw(&game.id)).await,
        Code::FailedPrecondition,
        "NO_DRAW_OFFER",
    );

    // Black offers on its own, off the move; White's move declines it too.
    let offered = seat(&mut client, &game.black, offer_draw(&game.id))
        .await
        .expect("offer without a move");
    assert_eq!(offered.draw_offered_by, Some(Color::Black as i32));
    assert_eq!(offered.ply, 4, "an offer is no move");
    let declined = play_line(&mut client, &game, &["Bc4"]).await;
    assert_eq!(declined.draw_offered_by, None);

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
    let versions: Vec<i32> = events.iter().map(|e| e.version).collect();
    assert_eq!(versions, (2..12).collect::<Vec<i32>>());
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
        seat(&mut client, &game.white, accept_draw(&game.id)).await,
        Code::FailedPrecondition,
        "NO_DRAW_OFFER",
    );
    let drawn = seat(&mut client, &game.black, accept_draw(&game.id))
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

    // The offer and its acceptance may be repeated: they were applied
    // already, so nothing changes.
    let (again, events) = seat_with_events(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("the offer repeated");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(again.version, drawn.version);
    assert_eq!(again.result, drawn.result);
    let (again, events) = seat_with_events(&mut client, &game.black, accept_draw(&game.id))
        .await
        .expect("the acceptance repeated");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(again.version, drawn.version);
    // The game is over for every other seat command.
    for token in [&game.white, &game.black] {
        assert_refused(
            seat(&mut client, token, decline_draw(&game.id)).await,
            Code::FailedPrecondition,
            "GAME_OVER",
        );
        assert_refused(
            seat(&mut client, token, resign(&game.id)).await,
            Code::FailedPrecondition,
            "GAME_OVER",
        );
        assert_refused(
            seat(&mut client, token, abort(&game.id)).await,
            Code::FailedPrecondition,
            "GAME_OVER",
        );
    }
    assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 2, "e4")).await,
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
    assert_eq!(get(&mut client, &game.id).await.version, drawn.version);
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
    let declined = seat(&mut client, &game.white, decline_draw(&game.id))
        .await
        .expect("decline");
    assert_eq!(declined.draw_offered_by, None);
    assert_eq!(declined.status, GameStatus::Active as i32);
    assert!(declined.result.is_none());
    assert_eq!(declined.ply, 3);
    // Declined once, the offer cannot be answered again.
    assert_refused(
        seat(&mut client, &game.white, accept_draw(&game.id)).await,
        Code::FailedPrecondition,
        "NO_DRAW_OFFER",
    );
    // Black may offer again later; play goes on meanwhile.
    let after = play_line(&mut client, &game, &["Nc6"]).await;
    assert_eq!(after.ply, 4);
    seat(&mut client, &game.black, offer_draw(&game.id))
        .await
        .expect("a new offer after a declined one");
    let drawn = seat(&mut client, &game.white, accept_draw(&game.id))
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
    // Offering again while the own offer is pending is a repeat: it
    // succeeds and adds nothing.
    let (again, events) = seat_with_events(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("the offer repeated");
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(again.version, offered.version);
    assert_eq!(again.draw_offered_by, Some(Color::White as i32));
    // A move offering again while the own offer is pending neither fails
    // nor adds a second offer.
    let (moved, events) = seat_with_events(
        &mut client,
        &game.white,
        make_move_offering_draw(&game.id, 2, "Nf3"),
    )
    .await
    .expect("move with a repeated offer");
    assert_eq!(moved.draw_offered_by, Some(Color::White as i32));
    assert_eq!(kinds(&events), ["move_made"], "only the move was recorded");
    assert_eq!(moved.version, offered.version + 1);
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
    assert_eq!(after.draw_offered_by, Some(Color::White as i32));
    let countered = seat(
        &mut client,
        &game.black,
        make_move_offering_draw(&game.id, 3, "d6"),
    )
    .await
    .expect("move with a counter-offer");
    assert_eq!(countered.status, GameStatus::Active as i32);
    assert_eq!(countered.draw_offered_by, Some(Color::Black as i32));
    let drawn = seat(&mut client, &game.white, accept_draw(&game.id))
        .await
        .expect("accept");
    assert_draw(&drawn, Termination::Agreement);
}

async fn regulations_delay_or_forbid_agreed_draws(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin = app.admin_client().await;

    // No draw before both players have made three moves.
    let mut request = create_request("", "");
    request.rules = Some(proto::GameRules {
        draw_offers_from_move: 3,
        sofia_rules: false,
        ..Default::default()
    });
    let game = create(&mut admin, request).await.expect("create");
    let rules = setup(&game.game).rules.expect("rules");
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
    assert_verdict(&claim, DrawClaimVerdict::Refused);
    assert_eq!(claimed(&claim).draw_offered_by, None);
    assert_eq!(kinds(&claim.events), ["draw_claim_refused"]);
    // Black's third move completes three moves each: the offer made with it
    // is allowed.
    let offered = seat(
        &mut client,
        &game.black,
        make_move_offering_draw(&game.id, 5, "Bc5"),
    )
    .await
    .expect("offer with the third move");
    assert_eq!(offered.draw_offered_by, Some(Color::Black as i32));
    let drawn = seat(&mut client, &game.white, accept_draw(&game.id))
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
    let game = create(&mut admin, request).await.expect("create");
    assert!(setup(&game.game).rules.as_ref().expect("rules").sofia_rules);
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
    assert_verdict(&claim, DrawClaimVerdict::Refused);
    assert_eq!(kinds(&claim.events), ["move_made", "draw_claim_refused"]);
    let after = claim.game.expect("game");
    assert_eq!(after.draw_offered_by, None);
    assert_eq!(after.ply, 5);
    assert_refused(
        seat(&mut client, &game.black, accept_draw(&game.id)).await,
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
    assert_verdict(&claim, DrawClaimVerdict::Upheld);
    assert_eq!(kinds(&claim.events), ["move_made", "game_ended"]);
    assert_draw(claimed(&claim), Termination::ThreefoldRepetition);
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
    assert_verdict(&claim, DrawClaimVerdict::Upheld);
    assert!(claim.explanation.is_empty());
    assert_eq!(kinds(&claim.events), ["game_ended"]);
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::ThreefoldRepetition);
    assert_eq!(drawn.ply, 8, "no move was played with the claim");
    assert_eq!(
        drawn.last_move.as_ref().map(|m| m.san.as_str()),
        Some("Ng8")
    );
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
    assert_verdict(&claim, DrawClaimVerdict::Upheld);
    assert_eq!(kinds(&claim.events), ["move_made", "game_ended"]);
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::ThreefoldRepetition);
    assert_eq!(drawn.ply, 8);
    assert_eq!(get_full(&mut client, &game.id).await.moves.len(), 8);
    let last = drawn.last_move.as_ref().expect("the intended move");
    assert_eq!(last.ply, 7);
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
    assert_verdict(&claim, DrawClaimVerdict::Upheld);
    assert_eq!(kinds(&claim.events), ["game_ended"]);
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::FiftyMoves);
    assert!(drawn.last_move.is_none());
    assert!(get_full(&mut client, &game.id).await.moves.is_empty());
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
    assert_verdict(&claim, DrawClaimVerdict::Upheld);
    assert_eq!(kinds(&claim.events), ["move_made", "game_ended"]);
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::FiftyMoves);
    assert_eq!(ucis(&get_full(&mut client, &game.id).await), ["d2d1"]);
    assert_eq!(drawn.last_move.as_ref().expect("the move").san, "Rd1");
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
    assert_verdict(&claim, DrawClaimVerdict::Upheld);
    assert_draw(claimed(&claim), Termination::FiftyMoves);

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
    assert_verdict(&claim, DrawClaimVerdict::Refused);
    assert!(
        claim.explanation.contains("0 half-moves"),
        "{}",
        claim.explanation
    );
    // White's first move: too early for the claim to stand as an offer.
    assert_eq!(kinds(&claim.events), ["move_made", "draw_claim_refused"]);
    let after = claim.game.expect("game");
    assert_eq!(after.draw_offered_by, None);
    assert_eq!(after.halfmove_clock, 0);
    assert_eq!(after.last_move.as_ref().expect("the move").san, "Rxd1");
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
    assert_verdict(&claim, DrawClaimVerdict::Refused);
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
    assert_eq!(after.last_move.as_ref().expect("move").san, "Bc4");
    assert_eq!(
        kinds(&claim.events),
        ["move_made", "draw_claim_refused", "draw_offered"]
    );
    assert_eq!(after.side_to_move, Color::Black as i32);
    // The claim stands as White's offer, which Black may accept.
    assert_eq!(after.draw_offered_by, Some(Color::White as i32));
    assert_eq!(
        get(&mut client, &game.id).await.draw_offered_by,
        Some(Color::White as i32)
    );
    let drawn = seat(&mut client, &game.black, accept_draw(&game.id))
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
    assert_verdict(&claim, DrawClaimVerdict::Refused);
    assert!(
        claim.explanation.contains("62 half-moves"),
        "{}",
        claim.explanation
    );
    assert_eq!(kinds(&claim.events), ["draw_claim_refused", "draw_offered"]);
    let after = claim.game.expect("game");
    assert_eq!(after.ply, 2, "no move was played");
    assert_eq!(after.side_to_move, Color::White as i32);
    assert_eq!(after.draw_offered_by, Some(Color::White as i32));
    // The claimant still has to move; its own move keeps its offer open.
    let moved = play_line(&mut client, &game, &["Rd2"]).await;
    assert_eq!(moved.draw_offered_by, Some(Color::White as i32));
    // Black declines it explicitly.
    let declined = seat(&mut client, &game.black, decline_draw(&game.id))
        .await
        .expect("decline");
    assert_eq!(declined.draw_offered_by, None);
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
    assert_verdict(&claim, DrawClaimVerdict::Refused);
    assert!(
        claim.explanation.contains("1 time"),
        "{}",
        claim.explanation
    );
    assert_eq!(kinds(&claim.events), ["draw_claim_refused", "game_ended"]);
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::Agreement);
    assert_eq!(drawn.ply, 3);
}

/// FIDE 9.1.2.3 read one way whether or not the claim carries an intended
/// move: the claim is an offer, and it never declines the opponent's.
async fn a_claim_with_an_intended_move_treats_a_pending_offer_like_one_without(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    // Black offers with its first move; White claims wrongly, with Nc3.
    play_line(&mut client, &game, &["Nf3"]).await;
    let offered = seat(
        &mut client,
        &game.black,
        make_move_offering_draw(&game.id, 1, "Nf6"),
    )
    .await
    .expect("Black moves and offers");
    assert_eq!(offered.draw_offered_by, Some(Color::Black as i32));
    let claim = seat(
        &mut client,
        &game.white,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "Nc3", 2),
    )
    .await
    .expect("claim");
    assert_verdict(&claim, DrawClaimVerdict::Refused);
    assert!(
        claim.explanation.contains("after the intended move"),
        "{}",
        claim.explanation
    );
    // The claim, an offer, meets Black's: drawn by agreement, and the game
    // does not go on, so the intended move is not played.
    assert_eq!(kinds(&claim.events), ["draw_claim_refused", "game_ended"]);
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::Agreement);
    assert_eq!(drawn.ply, 2);
    assert_eq!(drawn.last_move.as_ref().expect("Black's move").san, "Nf6");
    assert_eq!(drawn.draw_offered_by, None);
    assert_eq!(get(&mut client, &game.id).await.result, drawn.result);
    let events = drain(&mut stream).await;
    assert_eq!(
        kinds(&events),
        [
            "move_made",
            "move_made",
            "draw_offered",
            "draw_claim_refused",
            "game_ended"
        ]
    );

    // An upheld claim with an intended move while the opponent's offer is
    // pending: the move is recorded and the game drawn by the claim; the
    // offer lapses with the game, never declined.
    let game = app.new_game().await;
    play_line(&mut client, &game, &[&SHUFFLE[..], &SHUFFLE[..2]].concat()).await;
    let offered = seat(
        &mut client,
        &game.white,
        make_move_offering_draw(&game.id, 6, "Ng1"),
    )
    .await
    .expect("White moves and offers");
    assert_eq!(offered.draw_offered_by, Some(Color::White as i32));
    let claim = seat(
        &mut client,
        &game.black,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "Ng8", 7),
    )
    .await
    .expect("claim");
    assert_verdict(&claim, DrawClaimVerdict::Upheld);
    assert_eq!(kinds(&claim.events), ["move_made", "game_ended"]);
    let drawn = claim.game.expect("game");
    assert_draw(&drawn, Termination::ThreefoldRepetition);
    assert_eq!(drawn.ply, 8);
    assert_eq!(drawn.draw_offered_by, None);
}

async fn claims_are_checked_before_they_are_judged(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let shuffled = play_line(&mut client, &game, &[&SHUFFLE[..], &SHUFFLE[..]].concat()).await;
    assert!(shuffled.can_claim_threefold);

    // Not the claimant's turn: refused even though the position repeats.
    let status = assert_refused(
        seat(
            &mut client,
            &game.black,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 8),
        )
        .await,
        Code::FailedPrecondition,
        "NOT_YOUR_TURN",
    );
    assert_game_metadata(&status, 8, "white");
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
    let status = assert_refused(
        seat(
            &mut client,
            &game.white,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 7),
        )
        .await,
        Code::Aborted,
        "STALE_PLY",
    );
    assert_game_metadata(&status, 8, "white");
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
    assert_eq!(end.last_move.as_ref().expect("the move").san, "Rh8#");
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
    assert_eq!(
        claim.verdict,
        DrawClaimVerdict::Moot as i32,
        "the ruling tells a moot claim from a refused one"
    );
    assert!(!claim.explanation.is_empty());
    assert_eq!(kinds(&claim.events), ["move_made", "game_ended"]);
    assert_draw(claimed(&claim), Termination::SeventyFiveMoves);
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
        create(&mut app.admin_client().await, create_request("", dead_fen)).await,
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

async fn a_resignation_is_a_loss_even_against_a_lone_king(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let fen = "8/8/4k3/8/8/3K4/8/7R w - - 0 1";

    // Black has only its king: White's resignation still gives Black the
    // win (FIDE 5.1.2 has no exception).
    let game = app.new_game_from(fen).await;
    play_line(&mut client, &game, &["Rh2", "Ke5"]).await;
    let end = seat(&mut client, &game.white, resign(&game.id))
        .await
        .expect("resign");
    assert_result(&end, Outcome::BlackWins, Termination::Resignation);

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
    assert_eq!(game.aborted_by, Some(by as i32));
    assert_eq!(game.draw_offered_by, None);
    assert!(game.legal_moves.is_empty());
}

async fn either_seat_may_abort_before_both_have_moved(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    // At ply 0, by either seat (Black need not wait for its turn).
    for (side, color) in [("white", Color::White), ("black", Color::Black)] {
        let game = app.new_game().await;
        assert_eq!(game.game.aborted_by, None);
        let token = if side == "white" {
            &game.white
        } else {
            &game.black
        };
        let (aborted, events) = seat_with_events(&mut client, token, abort(&game.id))
            .await
            .expect("abort");
        assert_eq!(kinds(&events), ["game_aborted"]);
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
        assert_eq!(
            aborted.last_move.as_ref().map(|m| m.uci.as_str()),
            Some("e2e4")
        );
        assert_eq!(
            ucis(&get_full(&mut client, &game.id).await),
            ["e2e4"],
            "the move played stays recorded"
        );
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

    let messages = drain_messages(&mut stream).await;
    assert_eq!(
        message_kinds(&messages),
        ["snapshot", "move_made", "game_aborted"]
    );
    let WatchKind::Event(last) = messages.last().expect("messages") else {
        unreachable!()
    };
    let Some(Kind::GameAborted(by)) = &last.kind else {
        unreachable!()
    };
    assert_eq!(by.by, Color::Black as i32);
    assert_eq!(last.version, aborted.version);
    assert_eq!(last.game_id, game.id);

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
        seat(&mut client, &game.white, accept_draw(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );
    assert_refused(
        seat(&mut client, &game.white, decline_draw(&game.id)).await,
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
    // Only the seat that aborted may repeat its abort.
    assert_refused(
        seat(&mut client, &game.white, abort(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );
    let (again, events) = seat_with_events(&mut client, &game.black, abort(&game.id))
        .await
        .expect("the abort repeated");
    assert!(events.is_empty(), "{events:?}");
    assert_aborted(&again, Color::Black);
    assert_eq!(again.version, aborted.version);
    assert_eq!(get(&mut client, &game.id).await.version, aborted.version);

    // A watch started after the abort gets the final state, then the end.
    let messages = drain_messages(&mut watch(&mut watcher, &game.id, 0).await).await;
    assert_eq!(message_kinds(&messages), ["snapshot"]);
    let WatchKind::Snapshot(snapshot) = &messages[0] else {
        unreachable!()
    };
    assert_aborted(snapshot, Color::Black);
    assert_eq!(snapshot.version, aborted.version);
    // So does one resuming from before the abort, and one fully caught up.
    let events = drain(&mut watch(&mut watcher, &game.id, 2).await).await;
    assert_eq!(kinds(&events), ["game_aborted"]);
    let messages = drain_messages(&mut watch(&mut watcher, &game.id, aborted.version).await).await;
    assert!(messages.is_empty(), "{messages:?}");
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
    assert_eq!(now.aborted_by, None);
}

// ---------------------------------------------------------------------------
// Retries
// ---------------------------------------------------------------------------

/// Asserts that a repeated seat action succeeded without changing `before`
/// or producing an event.
#[track_caller]
fn assert_repeat(
    repeated: Result<(proto::Game, Vec<proto::GameEvent>), Status>,
    before: &proto::Game,
) -> proto::Game {
    let (game, events) = repeated.expect("a repeat succeeds");
    assert!(events.is_empty(), "a repeat produces no event: {events:?}");
    assert_eq!(game.version, before.version, "{game:?}");
    assert_eq!(game.status, before.status);
    assert_eq!(game.ply, before.ply);
    assert_eq!(game.fen, before.fen);
    assert_eq!(game.result, before.result);
    assert_eq!(game.draw_offered_by, before.draw_offered_by);
    assert_eq!(game.aborted_by, before.aborted_by);
    game
}

async fn repeated_draw_offers_and_answers_apply_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;
    play_line(&mut client, &game, &["e4", "e5"]).await;

    // Declining with no offer pending changes nothing.
    let quiet = get(&mut client, &game.id).await;
    for token in [&game.white, &game.black] {
        assert_repeat(
            seat_with_events(&mut client, token, decline_draw(&game.id)).await,
            &quiet,
        );
    }

    // OfferDraw repeated while the offer is pending.
    let (offered, events) = seat_with_events(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("offer");
    assert_eq!(kinds(&events), ["draw_offered"]);
    assert_eq!(events[0].version, offered.version);
    assert_eq!(events[0].game_id, game.id);
    assert_eq!(offered.draw_offered_by, Some(Color::White as i32));
    for _ in 0..2 {
        assert_repeat(
            seat_with_events(&mut client, &game.white, offer_draw(&game.id)).await,
            &offered,
        );
    }
    // The offerer's own offer is no offer from the opponent: declining it
    // changes nothing, and it stays pending.
    assert_repeat(
        seat_with_events(&mut client, &game.white, decline_draw(&game.id)).await,
        &offered,
    );
    assert_eq!(get(&mut client, &game.id).await.version, offered.version);

    // DeclineDraw repeated after the decline: no offer is pending any more.
    let (declined, events) = seat_with_events(&mut client, &game.black, decline_draw(&game.id))
        .await
        .expect("decline");
    assert_eq!(kinds(&events), ["draw_declined"]);
    assert_eq!(declined.draw_offered_by, None);
    assert_repeat(
        seat_with_events(&mut client, &game.black, decline_draw(&game.id)).await,
        &declined,
    );
    // ... but AcceptDraw has nothing to accept.
    assert_refused(
        seat(&mut client, &game.black, accept_draw(&game.id)).await,
        Code::FailedPrecondition,
        "NO_DRAW_OFFER",
    );

    // AcceptDraw repeated after the draw.
    seat(&mut client, &game.white, offer_draw(&game.id))
        .await
        .expect("a new offer");
    let (drawn, events) = seat_with_events(&mut client, &game.black, accept_draw(&game.id))
        .await
        .expect("accept");
    assert_eq!(kinds(&events), ["game_ended"]);
    assert_draw(&drawn, Termination::Agreement);
    for _ in 0..2 {
        let again = assert_repeat(
            seat_with_events(&mut client, &game.black, accept_draw(&game.id)).await,
            &drawn,
        );
        assert_draw(&again, Termination::Agreement);
    }
    // Declining once the game is drawn is no repeat of anything.
    assert_refused(
        seat(&mut client, &game.black, decline_draw(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );

    // Watchers saw every action once.
    let events = drain(&mut stream).await;
    assert_eq!(
        kinds(&events),
        [
            "move_made",
            "move_made",
            "draw_offered",
            "draw_declined",
            "draw_offered",
            "game_ended",
        ]
    );
    assert_eq!(events.last().expect("events").version, drawn.version);
    assert_eq!(get(&mut client, &game.id).await.version, drawn.version);
}

async fn a_repeated_resignation_applies_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;
    play_line(&mut client, &game, &["e4", "e5"]).await;

    let (resigned, events) = seat_with_events(&mut client, &game.black, resign(&game.id))
        .await
        .expect("resign");
    assert_eq!(kinds(&events), ["game_ended"]);
    assert_result(&resigned, Outcome::WhiteWins, Termination::Resignation);
    for _ in 0..2 {
        let again = assert_repeat(
            seat_with_events(&mut client, &game.black, resign(&game.id)).await,
            &resigned,
        );
        assert_result(&again, Outcome::WhiteWins, Termination::Resignation);
    }
    // The opponent's resignation comes too late: it is no repeat.
    let status = assert_refused(
        seat(&mut client, &game.white, resign(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert_game_metadata(&status, 2, "white");

    let events = drain(&mut stream).await;
    assert_eq!(kinds(&events), ["move_made", "move_made", "game_ended"]);
    let now = get(&mut client, &game.id).await;
    assert_eq!(now.version, resigned.version);
    assert_eq!(now.result, resigned.result);
}

async fn a_repeated_abort_applies_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;
    play_line(&mut client, &game, &["e4"]).await;

    let (aborted, events) = seat_with_events(&mut client, &game.white, abort(&game.id))
        .await
        .expect("abort");
    assert_eq!(kinds(&events), ["game_aborted"]);
    assert_aborted(&aborted, Color::White);
    for _ in 0..2 {
        let again = assert_repeat(
            seat_with_events(&mut client, &game.white, abort(&game.id)).await,
            &aborted,
        );
        assert_aborted(&again, Color::White);
    }
    // The other seat did not abort: its abort is refused.
    assert_refused(
        seat(&mut client, &game.black, abort(&game.id)).await,
        Code::FailedPrecondition,
        "GAME_ABORTED",
    );

    let events = drain(&mut stream).await;
    assert_eq!(kinds(&events), ["move_made", "game_aborted"]);
    assert_eq!(get(&mut client, &game.id).await.version, aborted.version);
}

async fn a_repeated_upheld_claim_applies_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;

    // On the board.
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;
    play_line(&mut client, &game, &[&SHUFFLE[..], &SHUFFLE[..]].concat()).await;
    let claim = claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 8);
    let upheld = seat(&mut client, &game.white, claim.clone())
        .await
        .expect("claim");
    assert_verdict(&upheld, DrawClaimVerdict::Upheld);
    assert_eq!(kinds(&upheld.events), ["game_ended"]);
    let drawn = claimed(&upheld).clone();
    for _ in 0..2 {
        let again = seat(&mut client, &game.white, claim.clone())
            .await
            .expect("the claim repeated");
        assert_verdict(&again, DrawClaimVerdict::Upheld);
        assert!(again.explanation.is_empty(), "{again:?}");
        assert!(again.events.is_empty(), "{again:?}");
        assert_eq!(claimed(&again).version, drawn.version);
        assert_eq!(claimed(&again).result, drawn.result);
    }
    // Another claim, or the other seat's, is no repeat.
    assert_refused(
        seat(
            &mut client,
            &game.white,
            claim_draw(&game.id, DrawClaimReason::FiftyMoves, "", 8),
        )
        .await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    assert_refused(
        seat(
            &mut client,
            &game.black,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 8),
        )
        .await,
        Code::FailedPrecondition,
        "GAME_OVER",
    );
    let events = drain(&mut stream).await;
    assert_eq!(events.len(), 9, "{:?}", kinds(&events));
    assert_eq!(kinds(&events)[8], "game_ended");

    // With the intended move: the repeat neither plays it again nor fails
    // as stale.
    let game = app.new_game().await;
    play_line(&mut client, &game, &[&SHUFFLE[..], &SHUFFLE[..3]].concat()).await;
    let claim = claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "Ng8", 7);
    let upheld = seat(&mut client, &game.black, claim.clone())
        .await
        .expect("claim");
    assert_verdict(&upheld, DrawClaimVerdict::Upheld);
    assert_eq!(kinds(&upheld.events), ["move_made", "game_ended"]);
    let again = seat(&mut client, &game.black, claim)
        .await
        .expect("the claim repeated");
    assert_verdict(&again, DrawClaimVerdict::Upheld);
    assert!(again.events.is_empty(), "{again:?}");
    assert_eq!(claimed(&again).version, claimed(&upheld).version);
    assert_eq!(claimed(&again).ply, 8);
    assert_eq!(get_full(&mut client, &game.id).await.moves.len(), 8);
}

async fn a_repeated_move_applies_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let mut watcher = app.client().await;
    let mut stream = watch(&mut watcher, &game.id, 1).await;

    let (first, events) = seat_with_events(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("e4");
    assert_eq!(kinds(&events), ["move_made"]);
    let Some(Kind::MoveMade(made)) = &events[0].kind else {
        unreachable!()
    };
    assert_eq!(made.fen, first.fen, "the event carries the position after");
    assert_eq!(made.ply, 1);
    // Repeated before the opponent answers, in either notation.
    for written in ["e4", "e2e4"] {
        assert_repeat(
            seat_with_events(&mut client, &game.white, make_move(&game.id, 0, written)).await,
            &first,
        );
    }
    // Repeated after the opponent answered: the seat's latest move, at its
    // ply, is recognised.
    let answered = play_line(&mut client, &game, &["e5"]).await;
    assert_eq!(answered.ply, 2);
    let after = assert_repeat(
        seat_with_events(&mut client, &game.white, make_move(&game.id, 0, "e4")).await,
        &answered,
    );
    assert_eq!(after.side_to_move, Color::White as i32);
    assert_repeat(
        seat_with_events(&mut client, &game.black, make_move(&game.id, 1, "e5")).await,
        &answered,
    );
    // Another move at a past ply, or the other seat's move, is stale.
    for (token, ply, mv) in [
        (&game.white, 0, "d4"),
        (&game.black, 0, "e4"),
        (&game.white, 1, "e5"),
    ] {
        let status = assert_refused(
            seat(&mut client, token, make_move(&game.id, ply, mv)).await,
            Code::Aborted,
            "STALE_PLY",
        );
        assert_game_metadata(&status, 2, "white");
    }

    // Once two more moves are played, a move older than the two latest
    // plies is no longer looked up: STALE_PLY, even if it is the same.
    let later = play_line(&mut client, &game, &["Nf3", "Nc6"]).await;
    assert_eq!(later.ply, 4);
    for (token, ply, mv) in [(&game.white, 0, "e4"), (&game.black, 1, "e5")] {
        let status = assert_refused(
            seat(&mut client, token, make_move(&game.id, ply, mv)).await,
            Code::Aborted,
            "STALE_PLY",
        );
        assert_game_metadata(&status, 4, "white");
    }
    // The two latest still are.
    assert_repeat(
        seat_with_events(&mut client, &game.white, make_move(&game.id, 2, "Nf3")).await,
        &later,
    );
    assert_repeat(
        seat_with_events(&mut client, &game.black, make_move(&game.id, 3, "Nc6")).await,
        &later,
    );

    let events = drain_until_resigned(&mut client, &game, &mut stream).await;
    assert_eq!(
        kinds(&events),
        [
            "move_made",
            "move_made",
            "move_made",
            "move_made",
            "game_ended"
        ]
    );

    // The move that ended the game may be repeated too, and so may the
    // mover's opponent's latest move.
    let game = app.new_game().await;
    let mated = play_line(&mut client, &game, &["f3", "e5", "g4", "Qh4#"]).await;
    assert_result(&mated, Outcome::BlackWins, Termination::Checkmate);
    for written in ["Qh4#", "Qh4", "d8h4"] {
        assert_repeat(
            seat_with_events(&mut client, &game.black, make_move(&game.id, 3, written)).await,
            &mated,
        );
    }
    assert_repeat(
        seat_with_events(&mut client, &game.white, make_move(&game.id, 2, "g4")).await,
        &mated,
    );
    assert_refused(
        seat(&mut client, &game.white, make_move(&game.id, 0, "f3")).await,
        Code::Aborted,
        "STALE_PLY",
    );
}

/// Ends `game` by White's resignation and returns every event its watch
/// stream delivered.
async fn drain_until_resigned(
    client: &mut common::Client,
    game: &NewGame,
    stream: &mut tonic::Streaming<proto::WatchGameResponse>,
) -> Vec<proto::GameEvent> {
    seat(client, &game.white, resign(&game.id))
        .await
        .expect("resign to end the stream");
    drain(stream).await
}

/// A refused claim without an intended move leaves the ply as it was, so a
/// client that lost the response and sends the claim again at the same
/// ply must not have it judged a second time: no second refusal, and in a
/// timed game no second penalty on the claimant's clock (FIDE 9.5.3 adds
/// time to the opponent's).
async fn a_repeated_refused_claim_applies_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut request = create_request("", &rook_ending(60));
    request.time_control = Some(proto::TimeControl {
        periods: vec![common::period(15 * 60_000, 0, 0, 0)],
        ..Default::default()
    });
    let game = create(&mut app.admin_client().await, request)
        .await
        .expect("create");
    play_line(&mut client, &game, &["Rd1", "Ke5"]).await;

    let claim = claim_draw(&game.id, DrawClaimReason::FiftyMoves, "", 2);
    let refused = seat(&mut client, &game.white, claim.clone())
        .await
        .expect("claim");
    assert_verdict(&refused, DrawClaimVerdict::Refused);
    assert_eq!(
        kinds(&refused.events),
        ["draw_claim_refused", "clock_adjusted", "draw_offered"]
    );
    let after = claimed(&refused).clone();
    let black_time = after.clock.as_ref().expect("clock").black_millis;

    let again = seat(&mut client, &game.white, claim).await;
    if let Ok(again) = &again {
        assert!(again.events.is_empty(), "judged twice: {again:?}");
    }
    let now = get(&mut client, &game.id).await;
    assert_eq!(now.version, after.version, "judged twice: {again:?}");
    assert_eq!(
        now.clock.as_ref().expect("clock").black_millis,
        black_time,
        "the opponent was credited twice"
    );
}

// ---------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------

/// Sends each seat action for `game` with `token` (none when `None`),
/// returning the statuses.
async fn seat_commands(
    client: &mut common::Client,
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
            "AcceptDraw",
            client
                .accept_draw(request(accept_draw(&id), token))
                .await
                .expect_err("refused"),
        ),
        (
            "DeclineDraw",
            client
                .decline_draw(request(decline_draw(&id), token))
                .await
                .expect_err("refused"),
        ),
        (
            "MakeMove",
            client
                .make_move(request(make_move(&id, 2, "Nf3"), token))
                .await
                .expect_err("refused"),
        ),
        (
            "ResignGame",
            client
                .resign_game(request(resign(&id), token))
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
    assert_eq!(now.draw_offered_by, Some(Color::White as i32));
    assert_eq!(
        other.game.version,
        get(&mut client, &other.id).await.version
    );
}

/// A player's draw offers and refused claims are capped per game; past
/// the cap a request is refused and changes nothing, and a claim that
/// holds is still upheld.
async fn draw_offers_and_refused_claims_are_capped(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    play_line(&mut client, &game, &["e4", "e5"]).await;
    for _ in 0..20 {
        seat(&mut client, &game.white, offer_draw(&game.id))
            .await
            .expect("an offer");
        seat(&mut client, &game.black, decline_draw(&game.id))
            .await
            .expect("declined");
    }
    let before = get(&mut client, &game.id).await;
    let refused = expect_code(
        seat(&mut client, &game.white, offer_draw(&game.id)).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&refused), "DRAW_REQUEST_LIMIT");
    let refused = expect_code(
        seat(
            &mut client,
            &game.white,
            make_move_offering_draw(&game.id, before.ply, "Nf3"),
        )
        .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&refused), "DRAW_REQUEST_LIMIT");
    assert_eq!(get(&mut client, &game.id).await.version, before.version);

    // Black's refused claims (each also an offer White declines).
    play_line(&mut client, &game, &["Nf3"]).await;
    for _ in 0..10 {
        let ruled = seat(
            &mut client,
            &game.black,
            claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 3),
        )
        .await
        .expect("a claim");
        assert_eq!(ruled.verdict, DrawClaimVerdict::Refused as i32);
        seat(&mut client, &game.white, decline_draw(&game.id))
            .await
            .expect("declined");
    }
    let refused = expect_code(
        seat(
            &mut client,
            &game.black,
            claim_draw(&game.id, DrawClaimReason::FiftyMoves, "", 3),
        )
        .await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&refused), "DRAW_REQUEST_LIMIT");
    // Knights out and back twice: a threefold claim that holds is upheld.
    play_line(
        &mut client,
        &game,
        &["Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3"],
    )
    .await;
    let ruled = seat(
        &mut client,
        &game.black,
        claim_draw(&game.id, DrawClaimReason::ThreefoldRepetition, "", 11),
    )
    .await
    .expect("a claim that holds");
    assert_eq!(ruled.verdict, DrawClaimVerdict::Upheld as i32);
}

on_every_backend!(
    draw_offers_and_refused_claims_are_capped,
    a_repeated_refused_claim_applies_once,
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
    a_claim_with_an_intended_move_treats_a_pending_offer_like_one_without,
    claims_are_checked_before_they_are_judged,
    fivefold_repetition_ends_the_game,
    the_seventy_five_move_rule_ends_the_game,
    dead_positions_and_insufficient_material,
    a_resignation_is_a_loss_even_against_a_lone_king,
    either_seat_may_abort_before_both_have_moved,
    an_abort_ends_the_stream_and_the_game,
    aborting_is_refused_once_both_have_moved,
    seat_commands_need_the_seat_token,
    repeated_draw_offers_and_answers_apply_once,
    a_repeated_resignation_applies_once,
    a_repeated_abort_applies_once,
    a_repeated_upheld_claim_applies_once,
    a_repeated_move_applies_once,
);
