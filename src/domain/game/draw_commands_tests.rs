//! Unit tests of draws by agreement (FIDE Art. 9.1), draw claims (9.2, 9.3,
//! 9.5) and position identity for repetition (9.2.2, 9.2.3). Every "now" is
//! an explicit timestamp; nothing reads a clock.

use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, fen::Fen};

use super::*;
use crate::domain::test_support::*;
use crate::domain::{
    DrawOfferRefusal, GameEvent, GameId, GameRules, MAX_DRAW_OFFERS, MAX_REFUSED_CLAIMS, NewGame,
    Pairing, Player, Repetition, StartPosition, game::dead_position, game::repetition::identity,
};

fn game_with(start: StartPosition, rules: GameRules) -> Game {
    let new = NewGame::new(
        Player::parse("white", "w-1", "White").unwrap(),
        Player::parse("black", "b-1", "Black").unwrap(),
        crate::domain::Variant::Standard,
        &start,
        Pairing::default(),
        rules,
    )
    .unwrap_or_else(|err| panic!("{start:?} refused: {err}"));
    Game::create(GameId::parse("draws").unwrap(), new, seats(), at(0)).0
}

fn standard() -> Game {
    game_with(StartPosition::Standard, GameRules::default())
}

fn from_fen(fen: &str) -> Game {
    game_with(StartPosition::Fen(fen.to_owned()), GameRules::default())
}

fn sofia() -> GameRules {
    GameRules {
        sofia_rules: true,
        ..GameRules::default()
    }
}

fn kinds(events: &[GameEvent]) -> Vec<EventKind> {
    events.iter().map(|e| e.kind.clone()).collect()
}

/// Plays one move for the side to move, without an offer.
#[track_caller]
fn mv(game: &Game, text: &str) -> Game {
    let seat = game.side_to_move();
    changed(game.play_move(
        seat,
        game.ply(),
        text,
        false,
        at(u64::from(game.ply().count()) + 1),
    ))
    .0
}

#[track_caller]
fn line(game: &Game, moves: &[&str]) -> Game {
    moves.iter().fold(game.clone(), |g, m| mv(&g, m))
}

/// Plays one move for the side to move with a draw offer attached.
#[track_caller]
fn mv_offering(game: &Game, text: &str) -> (Game, Vec<GameEvent>) {
    let seat = game.side_to_move();
    changed(game.play_move(seat, game.ply(), text, true, at(500)))
}

#[track_caller]
fn claim(
    game: &Game,
    reason: ClaimReason,
    intended: Option<&str>,
) -> (Game, Vec<GameEvent>, ClaimVerdict) {
    match game.claim_draw(game.side_to_move(), game.ply(), reason, intended, at(900)) {
        Ok((Decision::Changed { game, events }, verdict)) => (*game, events, verdict),
        other => panic!("expected a ruling, got {other:?}"),
    }
}

fn is_move(kind: &EventKind) -> bool {
    matches!(kind, EventKind::MoveMade { .. })
}

fn draw_by(termination: Termination) -> Option<GameResult> {
    Some(GameResult {
        outcome: Outcome::Draw,
        termination,
    })
}

fn agreement_kind() -> EventKind {
    EventKind::ended_classic(GameResult {
        outcome: Outcome::Draw,
        termination: Termination::Agreement,
    })
}

/// The standard game after 1. e4 e5: both players have moved.
fn both_moved() -> Game {
    line(&standard(), &["e4", "e5"])
}

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

// ---------------------------------------------------------------------------
// Art. 9.1: draw offers and agreement
// ---------------------------------------------------------------------------

#[test]
fn art_9_1_1_no_offer_before_both_players_have_moved() {
    let game = standard();
    for seat in [Color::White, Color::Black] {
        assert!(matches!(
            game.offer_draw(seat, at(1)),
            Err(Rejection::DrawOfferNotAllowed { .. })
        ));
    }
    let after_white = mv(&game, "e4");
    for seat in [Color::White, Color::Black] {
        assert!(matches!(
            after_white.offer_draw(seat, at(2)),
            Err(Rejection::DrawOfferNotAllowed { .. })
        ));
    }
    // Once both have moved, either side may offer.
    let (offered, events) = changed(both_moved().offer_draw(Color::Black, at(3)));
    assert_eq!(
        kinds(&events),
        [EventKind::DrawOffered { by: Color::Black }]
    );
    assert_eq!(offered.draw_offer(), Some(Color::Black));
}

#[test]
fn art_9_1_1_offer_with_whites_first_move_refuses_the_whole_move() {
    let game = standard();
    let before = game.clone();
    let refused = game.play_move(Color::White, Ply::START, "e4", true, at(1));
    assert!(
        matches!(
            refused,
            Err(Rejection::DrawOfferNotAllowed {
                reason: DrawOfferRefusal::TooEarly { moves: 1 }
            })
        ),
        "{refused:?}"
    );
    assert_eq!(game, before);
    assert_eq!(game.ply(), Ply::START);
    assert_eq!(game.draw_offer(), None);
    assert_eq!(game.version(), 1);

    // Black's first move completes "both have moved": the offer is allowed
    // and comes after the move.
    let after_e4 = mv(&game, "e4");
    let (offered, events) = mv_offering(&after_e4, "e5");
    let kinds = kinds(&events);
    assert_eq!(kinds.len(), 2);
    assert!(is_move(&kinds[0]));
    assert_eq!(kinds[1], EventKind::DrawOffered { by: Color::Black });
    assert_eq!(offered.draw_offer(), Some(Color::Black));
}

#[test]
fn art_9_1_2_an_offer_stands_until_the_opponent_moves_which_declines_it() {
    // 9.1.2.1: White offers together with its move.
    let (offered, events) = mv_offering(&both_moved(), "Nf3");
    assert_eq!(
        kinds(&events)[1],
        EventKind::DrawOffered { by: Color::White }
    );
    assert_eq!(offered.draw_offer(), Some(Color::White));
    // The offer is still there to accept.
    let (accepted, _) = changed(offered.respond_to_draw_offer(Color::Black, true, at(9)));
    assert_eq!(accepted.result(), draw_by(Termination::Agreement));

    // 9.1.2.3 read with 9.1.2.1: the opponent's move declines it, and the
    // decline comes first, attributed to the mover.
    let (declined, events) =
        changed(offered.play_move(Color::Black, offered.ply(), "Nc6", false, at(10)));
    let kinds = kinds(&events);
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert_eq!(kinds[0], EventKind::DrawDeclined { by: Color::Black });
    assert!(is_move(&kinds[1]));
    assert_eq!(declined.draw_offer(), None);
    assert_eq!(declined.status(), GameStatus::Active);
    assert_eq!(
        declined.respond_to_draw_offer(Color::White, true, at(11)),
        Err(Rejection::NoDrawOffer)
    );
}

#[test]
fn art_9_1_2_2_an_offer_made_before_moving_survives_the_offerers_own_move() {
    let (offered, _) = changed(both_moved().offer_draw(Color::White, at(5)));
    let moved = changed(offered.play_move(Color::White, offered.ply(), "Nf3", false, at(6)));
    assert_eq!(kinds(&moved.1).len(), 1, "only the move: {:?}", moved.1);
    assert!(is_move(&moved.1[0].kind));
    assert_eq!(moved.0.draw_offer(), Some(Color::White));
    let (drawn, events) = changed(moved.0.respond_to_draw_offer(Color::Black, true, at(7)));
    assert_eq!(kinds(&events), [agreement_kind()]);
    assert_eq!(drawn.result(), draw_by(Termination::Agreement));
}

#[test]
fn art_9_1_one_side_cannot_stack_offers_and_a_repeat_changes_nothing() {
    let (offered, _) = changed(both_moved().offer_draw(Color::White, at(5)));
    assert_eq!(
        offered.offer_draw(Color::White, at(6)),
        Ok(Decision::Unchanged)
    );
    // Offering again together with a move adds nothing either.
    let (moved, events) = mv_offering(&offered, "Nf3");
    assert_eq!(kinds(&events).len(), 1, "{events:?}");
    assert_eq!(moved.draw_offer(), Some(Color::White));
    assert_eq!(
        moved.offer_draw(Color::White, at(7)),
        Ok(Decision::Unchanged)
    );
}

#[test]
fn art_9_1_offering_while_the_opponent_offer_is_pending_accepts_it() {
    let (offered, _) = changed(both_moved().offer_draw(Color::White, at(5)));
    let (drawn, events) = changed(offered.offer_draw(Color::Black, at(6)));
    assert_eq!(kinds(&events), [agreement_kind()]);
    assert_eq!(drawn.status(), GameStatus::Finished);
    assert_eq!(drawn.result(), draw_by(Termination::Agreement));
    assert_eq!(drawn.draw_offer(), None);
    assert!(events[0].is_final());
}

#[test]
fn art_9_1_accepting_needs_a_pending_offer_from_the_opponent_and_declining_none_is_harmless() {
    let game = both_moved();
    for seat in [Color::White, Color::Black] {
        assert_eq!(
            game.respond_to_draw_offer(seat, true, at(5)),
            Err(Rejection::NoDrawOffer)
        );
        assert_eq!(
            game.respond_to_draw_offer(seat, false, at(5)),
            Ok(Decision::Unchanged)
        );
    }
    // One's own offer cannot be answered by oneself.
    let (offered, _) = changed(game.offer_draw(Color::Black, at(5)));
    for (accept, answer) in [
        (true, Err(Rejection::NoDrawOffer)),
        (false, Ok(Decision::Unchanged)),
    ] {
        assert_eq!(
            offered.respond_to_draw_offer(Color::Black, accept, at(6)),
            answer
        );
    }
}

#[test]
fn art_9_1_accepting_draws_and_declining_clears_the_offer() {
    let (offered, _) = changed(both_moved().offer_draw(Color::Black, at(5)));

    let (accepted, events) = changed(offered.respond_to_draw_offer(Color::White, true, at(6)));
    assert_eq!(kinds(&events), [agreement_kind()]);
    assert_eq!(accepted.result(), draw_by(Termination::Agreement));
    assert_eq!(accepted.version(), offered.version() + 1);

    let (declined, events) = changed(offered.respond_to_draw_offer(Color::White, false, at(6)));
    assert_eq!(
        kinds(&events),
        [EventKind::DrawDeclined { by: Color::White }]
    );
    assert_eq!(declined.draw_offer(), None);
    assert_eq!(declined.status(), GameStatus::Active);
    // Declined means gone: a later acceptance finds nothing.
    assert_eq!(
        declined.respond_to_draw_offer(Color::White, true, at(7)),
        Err(Rejection::NoDrawOffer)
    );
    // And the decliner may make a fresh offer of their own.
    assert!(declined.offer_draw(Color::White, at(8)).is_ok());
}

#[test]
fn art_9_1_the_end_of_the_game_clears_a_pending_offer() {
    // Black offers before moving, then mates with its own move (Fool's
    // mate): the offer lapses with the game.
    let game = line(&standard(), &["f3", "e5", "g4"]);
    let (offered, _) = changed(game.offer_draw(Color::Black, at(5)));
    assert_eq!(offered.draw_offer(), Some(Color::Black));
    let (mated, events) =
        changed(offered.play_move(Color::Black, offered.ply(), "Qh4#", false, at(6)));
    assert_eq!(
        mated.result(),
        Some(GameResult {
            outcome: Outcome::BlackWins,
            termination: Termination::Checkmate
        })
    );
    assert_eq!(mated.draw_offer(), None);
    assert!(events.last().unwrap().is_final());
    assert_eq!(
        mated.respond_to_draw_offer(Color::White, true, at(7)),
        Err(Rejection::GameOver)
    );

    // A resignation with an offer pending likewise.
    let (offered, _) = changed(both_moved().offer_draw(Color::Black, at(5)));
    let (resigned, _) = changed(offered.resign(Color::White, at(6)));
    assert_eq!(resigned.draw_offer(), None);
    assert_eq!(
        resigned.result().map(|r| r.outcome),
        Some(Outcome::BlackWins)
    );
    assert_eq!(
        resigned.offer_draw(Color::White, at(7)),
        Err(Rejection::GameOver)
    );
}

#[test]
fn art_9_1_an_offer_with_a_move_that_ends_the_game_is_not_made() {
    let game = line(&standard(), &["f3", "e5", "g4"]);
    let (mated, events) = mv_offering(&game, "Qh4#");
    assert_eq!(
        kind_names(&events),
        ["MoveMade", "GameEnded"],
        "no offer after the end"
    );
    assert_eq!(mated.draw_offer(), None);
    assert_eq!(mated.status(), GameStatus::Finished);
}

/// Ten blocks of: a pawn move each (so nothing repeats three times), then
/// knights out and back. Sixty half-moves, no capture, no check.
fn sixty_plies() -> Vec<&'static str> {
    let white = ["a3", "a4", "b3", "b4", "g3", "g4", "h3", "h4", "d3", "e3"];
    let black = ["a6", "a5", "b6", "b5", "g6", "g5", "h6", "h5", "d6", "e6"];
    white
        .iter()
        .zip(black)
        .flat_map(|(w, b)| [*w, b, "Nc3", "Nc6", "Nb1", "Nb8"])
        .collect()
}

#[test]
fn art_9_1_1_regulations_can_forbid_offers_before_move_thirty() {
    let rules = GameRules {
        draw_offers_from_move: 30,
        ..GameRules::default()
    };
    let moves = sixty_plies();
    let game = game_with(StartPosition::Standard, rules);
    // Both sides have made 29 moves: refused for each, also with a move
    // that only White's 30th would be.
    let at_58 = line(&game, &moves[..58]);
    assert_eq!(at_58.ply(), Ply::new(58));
    for seat in [Color::White, Color::Black] {
        assert!(matches!(
            at_58.offer_draw(seat, at(1)),
            Err(Rejection::DrawOfferNotAllowed {
                reason: DrawOfferRefusal::TooEarly { moves: 30 }
            })
        ));
    }
    assert!(matches!(
        at_58.play_move(Color::White, at_58.ply(), moves[58], true, at(1)),
        Err(Rejection::DrawOfferNotAllowed { .. })
    ));
    // White has made 30, Black 29: still refused.
    let at_59 = mv(&at_58, moves[58]);
    for seat in [Color::White, Color::Black] {
        assert!(matches!(
            at_59.offer_draw(seat, at(2)),
            Err(Rejection::DrawOfferNotAllowed { .. })
        ));
    }
    // Black's 30th move completes it, so Black may offer with it.
    let (offered, _) = mv_offering(&at_59, moves[59]);
    assert_eq!(offered.ply(), Ply::new(60));
    assert_eq!(offered.draw_offer(), Some(Color::Black));
    let at_60 = mv(&at_59, moves[59]);
    assert!(at_60.offer_draw(Color::White, at(3)).is_ok());
    assert!(at_60.offer_draw(Color::Black, at(3)).is_ok());
}

#[test]
fn art_9_1_1_sofia_rules_refuse_every_offer() {
    let game = game_with(StartPosition::Standard, sofia());
    let game = line(&game, &["e4", "e5", "Nf3", "Nc6"]);
    for seat in [Color::White, Color::Black] {
        assert!(matches!(
            game.offer_draw(seat, at(1)),
            Err(Rejection::DrawOfferNotAllowed {
                reason: DrawOfferRefusal::SofiaRules
            })
        ));
    }
    assert!(matches!(
        game.play_move(Color::White, game.ply(), "Bc4", true, at(1)),
        Err(Rejection::DrawOfferNotAllowed { .. })
    ));
    let later = line(&game, &sixty_plies()[..2]);
    assert!(matches!(
        later.offer_draw(later.side_to_move(), at(2)),
        Err(Rejection::DrawOfferNotAllowed { .. })
    ));
}

#[test]
fn art_9_1_2_3_under_sofia_rules_a_refused_claim_is_not_an_offer() {
    let game = line(&game_with(StartPosition::Standard, sofia()), &["e4", "e5"]);
    let (after, events, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, None);
    assert!(matches!(verdict, ClaimVerdict::Refused { .. }));
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(matches!(
        events[0].kind,
        EventKind::DrawClaimRefused {
            by: Color::White,
            ..
        }
    ));
    assert_eq!(after.draw_offer(), None);
    assert_eq!(after.status(), GameStatus::Active);

    // With an intended move: the move, the refusal, and nothing more.
    let (after, events, _) = claim(&game, ClaimReason::FiftyMoves, Some("Nf3"));
    let kinds = kinds(&events);
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    assert!(is_move(&kinds[0]));
    assert!(matches!(kinds[1], EventKind::DrawClaimRefused { .. }));
    assert_eq!(after.draw_offer(), None);
    // But correct claims still draw under Sofia rules.
    let shuffled = line(&game, &[SHUFFLE, SHUFFLE].concat());
    let (drawn, _, verdict) = claim(&shuffled, ClaimReason::ThreefoldRepetition, None);
    assert_eq!(verdict, ClaimVerdict::Upheld);
    assert_eq!(verdict.explanation(), None);
    assert_eq!(drawn.result(), draw_by(Termination::ThreefoldRepetition));
}

// ---------------------------------------------------------------------------
// Art. 9.2: threefold repetition claims
// ---------------------------------------------------------------------------

#[test]
fn art_9_2_1_2_threefold_claim_on_the_current_position_is_upheld() {
    let once = line(&standard(), &SHUFFLE);
    assert_eq!(once.repetition_count(), 2);
    assert!(!once.can_claim_threefold());
    let twice = line(&once, &SHUFFLE);
    assert_eq!(
        twice.fen(),
        crate::domain::game::state::STANDARD_FEN.replace(" 0 1", " 8 5")
    );
    assert_eq!(twice.repetition_count(), 3);
    assert!(twice.can_claim_threefold());
    assert_eq!(
        twice.status(),
        GameStatus::Active,
        "threefold is not automatic"
    );

    let (drawn, events, verdict) = claim(&twice, ClaimReason::ThreefoldRepetition, None);
    assert_eq!(verdict, ClaimVerdict::Upheld);
    assert_eq!(
        kinds(&events),
        [EventKind::ended_classic(
            draw_by(Termination::ThreefoldRepetition).unwrap()
        )]
    );
    assert_eq!(drawn.result(), draw_by(Termination::ThreefoldRepetition));
    assert_eq!(drawn.ply(), twice.ply());
    assert!(!drawn.can_claim_threefold());
}

#[test]
fn art_9_2_only_the_player_to_move_may_claim() {
    let twice = line(&standard(), &[SHUFFLE, SHUFFLE].concat());
    assert_eq!(twice.side_to_move(), Color::White);
    for reason in [ClaimReason::ThreefoldRepetition, ClaimReason::FiftyMoves] {
        assert_eq!(
            twice.claim_draw(Color::Black, twice.ply(), reason, None, at(1)),
            Err(Rejection::NotYourTurn {
                seat: Color::Black,
                to_move: Color::White
            })
        );
    }
    // A claim for another ply is stale.
    assert!(matches!(
        twice.claim_draw(
            Color::White,
            Ply::new(7),
            ClaimReason::ThreefoldRepetition,
            None,
            at(1)
        ),
        Err(Rejection::StalePly { .. })
    ));
}

#[test]
fn art_9_2_1_1_threefold_claim_with_the_intended_move_plays_it_and_draws() {
    let before = line(&standard(), &[&SHUFFLE[..], &SHUFFLE[..3]].concat());
    assert_eq!(before.side_to_move(), Color::Black);
    assert_eq!(before.repetition_count(), 2, "Ng1 position: 2nd time");
    assert!(!before.can_claim_threefold());
    // Without the move the claim would fail.
    let (_, _, verdict) = claim(&before, ClaimReason::ThreefoldRepetition, None);
    assert!(matches!(verdict, ClaimVerdict::Refused { .. }));

    let (drawn, events, verdict) = claim(&before, ClaimReason::ThreefoldRepetition, Some("Ng8"));
    assert_eq!(verdict, ClaimVerdict::Upheld);
    let kinds = kinds(&events);
    assert_eq!(kinds.len(), 2, "{kinds:?}");
    match &kinds[0] {
        EventKind::MoveMade { record, .. } => {
            assert_eq!(record.san, "Ng8");
            assert_eq!(record.color, Color::Black);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        kinds[1],
        EventKind::ended_classic(draw_by(Termination::ThreefoldRepetition).unwrap())
    );
    assert_eq!(drawn.ply(), Ply::new(8));
    assert_eq!(drawn.repetition_count(), 3);
    assert_eq!(drawn.result(), draw_by(Termination::ThreefoldRepetition));
}

#[test]
fn art_9_5_3_an_incorrect_claim_is_refused_the_move_stands_and_it_is_an_offer() {
    // The start has appeared twice; the intended Nf3 makes its position
    // appear a second time only.
    let game = line(&standard(), &SHUFFLE);
    let (after, events, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, Some("Nf3"));
    let refusal = ClaimRefusal::TooFewRepetitions {
        count: 2,
        after_intended_move: true,
    };
    assert_eq!(verdict, ClaimVerdict::Refused(refusal));
    assert_eq!(
        verdict.explanation().as_deref(),
        Some("the position after the intended move has appeared 2 times, not 3")
    );
    let kinds = kinds(&events);
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    assert!(is_move(&kinds[0]));
    assert_eq!(
        kinds[1],
        EventKind::DrawClaimRefused {
            by: Color::White,
            reason: ClaimReason::ThreefoldRepetition,
            explanation: refusal.to_string(),
        }
    );
    // 9.1.2.3: the claim counts as an offer by the claimant.
    assert_eq!(kinds[2], EventKind::DrawOffered { by: Color::White });
    assert_eq!(after.ply(), Ply::new(5));
    assert_eq!(after.side_to_move(), Color::Black);
    assert_eq!(after.status(), GameStatus::Active);
    assert_eq!(after.draw_offer(), Some(Color::White));
    let (drawn, _) = changed(after.respond_to_draw_offer(Color::Black, true, at(2)));
    assert_eq!(drawn.result(), draw_by(Termination::Agreement));

    // Without a move, the explanation speaks of the current position.
    let (after, events, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, None);
    assert_eq!(
        verdict,
        ClaimVerdict::Refused(ClaimRefusal::TooFewRepetitions {
            count: 2,
            after_intended_move: false,
        })
    );
    assert_eq!(
        verdict.explanation().as_deref(),
        Some("the position has appeared 2 times, not 3")
    );
    assert_eq!(after.ply(), game.ply());
    assert_eq!(kind_names(&events), ["DrawClaimRefused", "DrawOffered"]);
}

fn kind_names(events: &[GameEvent]) -> Vec<&'static str> {
    events
        .iter()
        .map(|e| match e.kind {
            EventKind::GameCreated { .. } => "GameCreated",
            EventKind::MoveMade { .. } => "MoveMade",
            EventKind::DrawOffered { .. } => "DrawOffered",
            EventKind::DrawDeclined { .. } => "DrawDeclined",
            EventKind::DrawClaimRefused { .. } => "DrawClaimRefused",
            EventKind::GameEnded { .. } => "GameEnded",
            EventKind::GameAborted { .. } => "GameAborted",
            EventKind::ClockAdjusted { .. } => "ClockAdjusted",
            EventKind::ClockPaused { .. } => "ClockPaused",
            EventKind::ClockResumed { .. } => "ClockResumed",
            EventKind::ResultSet { .. } => "ResultSet",
            EventKind::PlayerCheckedIn { .. } => "PlayerCheckedIn",
            EventKind::GameStarted { .. } => "GameStarted",
            EventKind::ConnectionReported { .. } => "ConnectionReported",
        })
        .collect()
}

#[test]
fn art_9_1_2_3_a_refused_claim_accepts_the_opponents_pending_offer() {
    // Black offers with its first move; White then claims wrongly.
    let (offered, _) = mv_offering(&mv(&standard(), "Nf3"), "Nf6");
    assert_eq!(offered.draw_offer(), Some(Color::Black));
    let (drawn, events, verdict) = claim(&offered, ClaimReason::ThreefoldRepetition, None);
    assert!(matches!(verdict, ClaimVerdict::Refused { .. }));
    assert_eq!(kind_names(&events), ["DrawClaimRefused", "GameEnded"]);
    assert_eq!(events[1].kind, agreement_kind());
    assert_eq!(drawn.result(), draw_by(Termination::Agreement));
    assert_eq!(drawn.draw_offer(), None);
}

#[test]
fn art_9_1_2_3_a_refused_claim_with_an_intended_move_accepts_the_pending_offer_too() {
    // The same claim with an intended move: the move was only written down
    // (9.2.1.1), so the offer still stood when the claim, itself an offer,
    // was made. Drawn by agreement, and the move is never played.
    let (offered, _) = mv_offering(&mv(&standard(), "Nf3"), "Nf6");
    let (drawn, events, verdict) = claim(&offered, ClaimReason::ThreefoldRepetition, Some("Nc3"));
    assert_eq!(
        verdict,
        ClaimVerdict::Refused(ClaimRefusal::TooFewRepetitions {
            count: 1,
            after_intended_move: true,
        })
    );
    assert_eq!(kind_names(&events), ["DrawClaimRefused", "GameEnded"]);
    assert_eq!(events[1].kind, agreement_kind());
    assert_eq!(drawn.result(), draw_by(Termination::Agreement));
    assert_eq!(
        drawn.ply(),
        offered.ply(),
        "the intended move is not played"
    );
    assert_eq!(drawn.position(), offered.position());
    // Whatever the claim, the same ruling: a fifty-move claim as well.
    let (drawn, events, _) = claim(&offered, ClaimReason::FiftyMoves, Some("Nc3"));
    assert_eq!(kind_names(&events), ["DrawClaimRefused", "GameEnded"]);
    assert_eq!(drawn.result(), draw_by(Termination::Agreement));
}

#[test]
fn art_9_1_2_3_a_claim_never_declines_the_opponents_pending_offer() {
    // An upheld claim with an intended move: the move is recorded and the
    // game drawn by the claim; the offer lapses with the game, undeclined.
    let before = line(&standard(), &[&SHUFFLE[..], &SHUFFLE[..2]].concat());
    let (offered, _) = mv_offering(&before, "Ng1");
    assert_eq!(offered.draw_offer(), Some(Color::White));
    let (drawn, events, verdict) = claim(&offered, ClaimReason::ThreefoldRepetition, Some("Ng8"));
    assert_eq!(verdict, ClaimVerdict::Upheld);
    assert_eq!(kind_names(&events), ["MoveMade", "GameEnded"]);
    assert_eq!(drawn.result(), draw_by(Termination::ThreefoldRepetition));
    assert_eq!(drawn.draw_offer(), None);

    // An intended move that ends the game by itself (Fool's mate): the
    // claim is moot, and the offer lapses with the game as well.
    let (offered, _) = mv_offering(&line(&standard(), &["f3", "e5"]), "g4");
    assert_eq!(offered.draw_offer(), Some(Color::White));
    let (mated, events, verdict) = claim(&offered, ClaimReason::ThreefoldRepetition, Some("Qh4#"));
    assert_eq!(verdict, ClaimVerdict::Moot);
    assert_eq!(kind_names(&events), ["MoveMade", "GameEnded"]);
    assert_eq!(
        mated.result(),
        Some(GameResult {
            outcome: Outcome::BlackWins,
            termination: Termination::Checkmate,
        })
    );
}

// ---------------------------------------------------------------------------
// Art. 9.3: fifty-move claims
// ---------------------------------------------------------------------------

/// King and rook against king: not dead, so the clock is what matters.
const KRK_100: &str = "8/8/4k3/8/8/3K4/3R4/8 w - - 100 80";
const KRK_99: &str = "8/8/4k3/8/8/3K4/3R4/8 w - - 99 80";

#[test]
fn art_9_3_2_fifty_moves_on_the_current_position_is_upheld() {
    assert!(!dead_position::is_dead(&position(KRK_100)));
    let game = from_fen(KRK_100);
    assert_eq!(game.halfmove_clock(), 100);
    assert!(game.can_claim_fifty_moves());
    assert_eq!(
        game.status(),
        GameStatus::Active,
        "fifty moves is not automatic"
    );
    assert_eq!(
        game.claim_draw(
            Color::Black,
            game.ply(),
            ClaimReason::FiftyMoves,
            None,
            at(1)
        ),
        Err(Rejection::NotYourTurn {
            seat: Color::Black,
            to_move: Color::White
        })
    );
    let (drawn, events, verdict) = claim(&game, ClaimReason::FiftyMoves, None);
    assert_eq!(verdict, ClaimVerdict::Upheld);
    assert_eq!(
        kinds(&events),
        [EventKind::ended_classic(
            draw_by(Termination::FiftyMoves).unwrap()
        )]
    );
    assert_eq!(drawn.result(), draw_by(Termination::FiftyMoves));
    // The threefold rule is a different claim and does not hold here.
    let (_, _, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, None);
    assert!(matches!(verdict, ClaimVerdict::Refused { .. }));
}

#[test]
fn art_9_3_1_fifty_moves_with_an_intended_quiet_move_is_upheld() {
    let game = from_fen(KRK_99);
    assert!(!game.can_claim_fifty_moves());
    let (drawn, events, verdict) = claim(&game, ClaimReason::FiftyMoves, Some("Rd1"));
    assert_eq!(verdict, ClaimVerdict::Upheld);
    assert_eq!(kind_names(&events), ["MoveMade", "GameEnded"]);
    assert_eq!(drawn.halfmove_clock(), 100);
    assert_eq!(drawn.ply(), Ply::new(1));
    assert_eq!(drawn.result(), draw_by(Termination::FiftyMoves));
}

#[test]
fn art_9_3_a_fifty_move_claim_at_ninety_nine_half_moves_is_refused() {
    let game = from_fen(KRK_99);
    let (after, events, verdict) = claim(&game, ClaimReason::FiftyMoves, None);
    let refusal = ClaimRefusal::TooFewQuietMoves {
        halfmoves: 99,
        after_intended_move: false,
    };
    assert_eq!(verdict, ClaimVerdict::Refused(refusal));
    assert_eq!(
        events[0].kind,
        EventKind::DrawClaimRefused {
            by: Color::White,
            reason: ClaimReason::FiftyMoves,
            explanation: "only 99 half-moves without a pawn move or capture, not 100".to_owned(),
        }
    );
    // At ply 0 no offer is allowed, so the claim does not become one.
    assert_eq!(events.len(), 1);
    assert_eq!(after.draw_offer(), None);
    assert_eq!(after.status(), GameStatus::Active);
    assert_eq!(after.ply(), Ply::START);
}

#[test]
fn art_9_3_1_an_intended_pawn_move_or_capture_resets_the_count() {
    let game = from_fen("8/8/4k3/8/8/3K4/3R3P/8 w - - 99 80");
    let (after, events, verdict) = claim(&game, ClaimReason::FiftyMoves, Some("h3"));
    assert_eq!(
        verdict,
        ClaimVerdict::Refused(ClaimRefusal::TooFewQuietMoves {
            halfmoves: 0,
            after_intended_move: true,
        })
    );
    assert_eq!(
        verdict.explanation().as_deref(),
        Some("only 0 half-moves without a pawn move or capture after the intended move, not 100")
    );
    assert_eq!(kind_names(&events), ["MoveMade", "DrawClaimRefused"]);
    assert_eq!(after.halfmove_clock(), 0);
    assert_eq!(after.ply(), Ply::new(1));
    assert_eq!(after.status(), GameStatus::Active);

    let game = from_fen("8/8/4k3/8/8/3K4/3R2n1/8 w - - 99 80");
    let (after, _, verdict) = claim(&game, ClaimReason::FiftyMoves, Some("Rxg2"));
    assert!(matches!(verdict, ClaimVerdict::Refused { .. }));
    assert_eq!(after.halfmove_clock(), 0);
}

#[test]
fn art_9_5_an_intended_move_that_mates_makes_the_claim_moot() {
    // Back-rank mate with the hundredth half-move.
    let fen = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80";
    for reason in [ClaimReason::FiftyMoves, ClaimReason::ThreefoldRepetition] {
        let game = from_fen(fen);
        let (mated, events, verdict) = claim(&game, reason, Some("Ra8"));
        assert_eq!(verdict, ClaimVerdict::Moot);
        assert_eq!(
            verdict.explanation().as_deref(),
            Some("the intended move ended the game by itself; there was nothing to claim")
        );
        assert_eq!(kind_names(&events), ["MoveMade", "GameEnded"]);
        assert_eq!(
            mated.result(),
            Some(GameResult {
                outcome: Outcome::WhiteWins,
                termination: Termination::Checkmate
            })
        );
        assert_eq!(mated.halfmove_clock(), 100);
    }
}

#[test]
fn art_9_5_claims_with_an_illegal_intended_move_change_nothing() {
    let game = from_fen(KRK_99);
    assert!(matches!(
        game.claim_draw(
            Color::White,
            game.ply(),
            ClaimReason::FiftyMoves,
            Some("Rd7d8"),
            at(1)
        ),
        Err(Rejection::IllegalMove { .. }) | Err(Rejection::UnparsableMove { .. })
    ));
}

// ---------------------------------------------------------------------------
// Art. 9.2.2/9.2.3: what makes two positions the same
// ---------------------------------------------------------------------------

/// Plays `moves` from a FEN with shakmaty, recording a `Repetition`.
fn repetition_after(fen: &str, moves: &[&str]) -> (Chess, Repetition, Vec<String>) {
    let mut pos = position(fen);
    let mut rep = Repetition::starting_at(&pos);
    let mut ids = vec![identity(&pos)];
    for text in moves {
        let m = parse_move(&pos, CastlingMode::Standard, text).unwrap();
        pos.play_unchecked(m);
        rep.record(&pos);
        ids.push(identity(&pos));
    }
    (pos, rep, ids)
}

/// Black's d-pawn steps past White's e5 pawn, which is pinned to its king by
/// the rook on e8: exd6 e.p. is pseudo-legal but illegal.
const PINNED_EP: &str = "1n2r2k/3p4/8/4P3/8/8/8/4K1N1 b - - 0 1";
const KNIGHTS_OUT_AND_BACK: [&str; 4] = ["Nf3", "Nc6", "Ng1", "Nb8"];

#[test]
fn art_9_2_3_an_en_passant_capture_that_is_illegal_does_not_distinguish_positions() {
    let after_d5 = {
        let (pos, _, _) = repetition_after(PINNED_EP, &["d5"]);
        pos
    };
    // The square is there pseudo-legally, but the capture is not legal.
    assert!(
        Fen::from_position(&after_d5, EnPassantMode::PseudoLegal)
            .to_string()
            .contains(" d6 ")
    );
    assert!(!after_d5.legal_moves().iter().any(|m| m.is_en_passant()));

    let moves = [&["d5"][..], &KNIGHTS_OUT_AND_BACK, &KNIGHTS_OUT_AND_BACK].concat();
    let (pos, rep, ids) = repetition_after(PINNED_EP, &moves);
    // Identity 1 (after d5) equals identity 5 and 9: same position.
    assert_eq!(ids[1], ids[5]);
    assert_eq!(ids[1], ids[9]);
    assert!(!ids[1].contains("d6"), "{}", ids[1]);
    assert_eq!(rep.current_count(), 3);
    assert_eq!(rep.count(&after_d5), 3);

    // Through a game: the third occurrence can be claimed.
    let game = line(
        &from_fen(PINNED_EP),
        &[&["d5"][..], &KNIGHTS_OUT_AND_BACK].concat(),
    );
    assert_eq!(game.repetition_count(), 2);
    let game = line(&game, &KNIGHTS_OUT_AND_BACK);
    assert_eq!(
        game.fen(),
        Fen::from_position(&pos, EnPassantMode::Legal).to_string()
    );
    assert_eq!(game.repetition_count(), 3);
    assert!(game.can_claim_threefold());
}

#[test]
fn art_9_2_3_an_en_passant_capture_exposing_the_king_on_the_rank_is_no_right() {
    // White king a5 and pawn b5 on the fifth rank with Black's rook h5:
    // bxc6 e.p. would clear both pawns from the rank.
    let fen = "7k/2p5/8/KP5r/8/8/8/6N1 b - - 0 1";
    let out_and_back = ["Nf3", "Kg8", "Ng1", "Kh8"];
    let moves = [&["c5"][..], &out_and_back, &out_and_back].concat();
    let (_, rep, ids) = repetition_after(fen, &moves);
    assert_eq!(ids[1], ids[5]);
    assert_eq!(rep.current_count(), 3);
}

#[test]
fn art_9_2_3_a_double_step_no_pawn_can_capture_gives_no_en_passant_right() {
    // 1. e4 (no black pawn beside e4), then knights out and back twice.
    let game = line(
        &standard(),
        &["e4", "Nf6", "Nf3", "Ng8", "Ng1", "Nf6", "Nf3", "Ng8", "Ng1"],
    );
    assert_eq!(game.side_to_move(), Color::Black);
    assert_eq!(game.repetition_count(), 3);
    assert!(game.can_claim_threefold());
    let (drawn, _, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, None);
    assert_eq!(verdict, ClaimVerdict::Upheld);
    assert_eq!(drawn.result(), draw_by(Termination::ThreefoldRepetition));
}

/// The same as [`PINNED_EP`] without the pinning rook: exd6 e.p. is legal.
const LEGAL_EP: &str = "1n5k/3p4/8/4P3/8/8/8/4K1N1 b - - 0 1";

#[test]
fn art_9_2_3_a_legal_en_passant_capture_makes_the_first_occurrence_different() {
    let moves = [&["d5"][..], &KNIGHTS_OUT_AND_BACK, &KNIGHTS_OUT_AND_BACK].concat();
    let (pos, rep, ids) = repetition_after(LEGAL_EP, &moves);
    assert!(ids[1].contains(" d6"), "{}", ids[1]);
    assert_ne!(ids[1], ids[5], "the right to capture e.p. was lost");
    assert_eq!(ids[5], ids[9]);
    assert_eq!(rep.current_count(), 2);
    assert_eq!(rep.count(&pos), 2);

    let game = line(&from_fen(LEGAL_EP), &moves);
    assert_eq!(game.repetition_count(), 2);
    assert!(!game.can_claim_threefold());
    let (_, _, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, None);
    assert!(matches!(verdict, ClaimVerdict::Refused { .. }));
    // One more round makes the later placement appear a third time.
    let game = line(&game, &KNIGHTS_OUT_AND_BACK);
    assert_eq!(game.repetition_count(), 3);
    assert!(game.can_claim_threefold());
}

#[test]
fn art_9_2_3_castling_rights_lost_by_a_king_walk_make_a_new_position() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let walk = ["Kf1", "Kf8", "Ke1", "Ke8"];
    let (_, rep, ids) = repetition_after(fen, &[walk, walk, walk].concat());
    assert_ne!(ids[0], ids[4], "castling rights differ");
    assert_eq!(ids[4], ids[8]);
    assert_eq!(ids[8], ids[12]);
    assert_eq!(rep.current_count(), 3);
    assert_eq!(rep.count(&position(fen)), 1);

    let game = from_fen(fen);
    let once = line(&game, &walk);
    assert_eq!(once.repetition_count(), 1);
    let twice = line(&once, &walk);
    assert_eq!(twice.repetition_count(), 2);
    assert!(!twice.can_claim_threefold());
    let (_, _, verdict) = claim(&twice, ClaimReason::ThreefoldRepetition, None);
    assert!(matches!(verdict, ClaimVerdict::Refused { .. }));
    let thrice = line(&twice, &walk);
    assert!(thrice.can_claim_threefold());
}

#[test]
fn art_9_2_3_1_castling_rights_count_not_whether_castling_is_possible_now() {
    // At the start castling is impossible (pieces in the way) but the rights
    // are there; a rook out and back loses them for good.
    let rook_walk = ["Nf3", "Nf6", "Rg1", "Rg8", "Rh1", "Rh8", "Ng1", "Ng8"];
    let game = line(&standard(), &rook_walk);
    assert_eq!(game.repetition_count(), 1);
    assert!(!game.fen().contains("KQkq"));
    // The knights alone keep the rights: this is the same as the start.
    let game = line(&standard(), &SHUFFLE);
    assert_eq!(game.repetition_count(), 2);
}

#[test]
fn repetition_counts_the_position_after_a_move_before_it_is_played() {
    let start = Chess::default();
    let mut rep = Repetition::starting_at(&start);
    assert_eq!(rep.current_count(), 1);
    let mut pos = start.clone();
    for text in SHUFFLE {
        let m = parse_move(&pos, CastlingMode::Standard, text).unwrap();
        pos.play_unchecked(m);
        rep.record(&pos);
    }
    assert_eq!(rep.current_count(), 2);
    assert_eq!(rep.count(&start), 2);
    let mut nf3 = start.clone();
    nf3.play_unchecked(parse_move(&start, CastlingMode::Standard, "Nf3").unwrap());
    assert_eq!(rep.count(&nf3), 1);
    assert_eq!(rep.count_after(&nf3), 2);
    // A pawn move starts afresh: nothing before it can recur.
    let mut e4 = start.clone();
    e4.play_unchecked(parse_move(&start, CastlingMode::Standard, "e4").unwrap());
    assert_eq!(rep.count_after(&e4), 1);
    rep.record(&e4);
    assert_eq!(rep.current_count(), 1);
    assert_eq!(rep.count(&start), 0);
}

#[test]
fn repeats_of_settled_draw_actions_change_nothing() {
    // An accepted offer: the acceptance and the offer repeated are done.
    let (offered, _) = changed(both_moved().offer_draw(Color::White, at(5)));
    let (drawn, _) = changed(offered.respond_to_draw_offer(Color::Black, true, at(6)));
    assert_eq!(
        drawn.respond_to_draw_offer(Color::Black, true, at(7)),
        Ok(Decision::Unchanged)
    );
    assert_eq!(
        drawn.offer_draw(Color::White, at(7)),
        Ok(Decision::Unchanged)
    );
    // Declining is not accepting: the game is over.
    assert_eq!(
        drawn.respond_to_draw_offer(Color::Black, false, at(7)),
        Err(Rejection::GameOver)
    );

    // An upheld claim repeated by the claimant is upheld again, unchanged;
    // the opponent's claim on a finished game is refused.
    let repeated = line(&standard(), &SHUFFLE);
    let repeated = line(&repeated, &SHUFFLE);
    let (claimed, _, verdict) = claim(&repeated, ClaimReason::ThreefoldRepetition, None);
    assert_eq!(verdict, ClaimVerdict::Upheld);
    let claimant = repeated.side_to_move();
    assert_eq!(
        claimed.claim_draw(
            claimant,
            repeated.ply(),
            ClaimReason::ThreefoldRepetition,
            None,
            at(901)
        ),
        Ok((Decision::Unchanged, ClaimVerdict::Upheld))
    );
    assert_eq!(
        claimed.claim_draw(
            !claimant,
            claimed.ply(),
            ClaimReason::ThreefoldRepetition,
            None,
            at(901)
        ),
        Err(Rejection::GameOver)
    );
}

#[test]
fn a_refused_claim_repeated_gets_the_same_ruling_once() {
    // Without an intended move: the ply does not move, but the repeat is
    // known by the game's version and is not penalised again.
    let game = both_moved();
    let seat = game.side_to_move();
    let (refused, events, verdict) = claim(&game, ClaimReason::FiftyMoves, None);
    assert!(matches!(verdict, ClaimVerdict::Refused(_)));
    assert!(!events.is_empty());
    assert_eq!(
        refused.claim_draw(seat, game.ply(), ClaimReason::FiftyMoves, None, at(901)),
        Ok((Decision::Unchanged, verdict))
    );
    // Another claim (a different reason) is judged anew.
    assert!(matches!(
        refused.claim_draw(
            seat,
            game.ply(),
            ClaimReason::ThreefoldRepetition,
            None,
            at(901)
        ),
        Ok((Decision::Changed { .. }, ClaimVerdict::Refused(_)))
    ));

    // With an intended move: the repeat names the ply before the move.
    let (after, _, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, Some("Nf3"));
    assert!(matches!(verdict, ClaimVerdict::Refused(_)));
    assert_eq!(
        after.claim_draw(
            seat,
            game.ply(),
            ClaimReason::ThreefoldRepetition,
            Some("Nf3"),
            at(901)
        ),
        Ok((Decision::Unchanged, verdict))
    );
    // Once the opponent has moved, the same request is stale.
    let replied = mv(&after, "Nf6");
    assert!(matches!(
        replied.claim_draw(
            seat,
            game.ply(),
            ClaimReason::ThreefoldRepetition,
            Some("Nf3"),
            at(902)
        ),
        Err(Rejection::StalePly { .. })
    ));
}

#[test]
fn draw_offers_are_capped_per_player() {
    let mut game = both_moved();
    for _ in 0..MAX_DRAW_OFFERS {
        let (offered, _) = changed(game.offer_draw(Color::White, at(10)));
        game = changed(offered.respond_to_draw_offer(Color::Black, false, at(11))).0;
    }
    assert!(matches!(
        game.offer_draw(Color::White, at(12)),
        Err(Rejection::DrawRequestLimit {
            limit: MAX_DRAW_OFFERS,
            ..
        })
    ));
    // Offering with a move is refused too, move and all.
    assert!(matches!(
        game.play_move(Color::White, game.ply(), "Nf3", true, at(12)),
        Err(Rejection::DrawRequestLimit { .. })
    ));
    // The count survives storage.
    let stored = crate::domain::stored::encoding::encode_game(&game).expect("encode");
    let game = crate::domain::stored::encoding::decode_game(&stored).expect("decode");
    assert!(game.offer_draw(Color::White, at(12)).is_err());
    // The opponent may still offer, and accepting is no new offer.
    let (offered, _) = changed(game.offer_draw(Color::Black, at(13)));
    let (drawn, _) = changed(offered.offer_draw(Color::White, at(14)));
    assert_eq!(drawn.status(), GameStatus::Finished);
}

#[test]
fn refused_claims_are_capped_but_a_claim_that_holds_is_upheld() {
    let mut game = both_moved();
    let claimant = game.side_to_move();
    for _ in 0..MAX_REFUSED_CLAIMS {
        let (next, _, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, None);
        assert!(matches!(verdict, ClaimVerdict::Refused(_)), "{verdict:?}");
        // The claim stands as an offer; the opponent declines it.
        game = changed(next.respond_to_draw_offer(!claimant, false, at(950))).0;
    }
    let before = game.version();
    assert!(matches!(
        game.claim_draw(
            claimant,
            game.ply(),
            ClaimReason::FiftyMoves,
            None,
            at(1_000)
        ),
        Err(Rejection::DrawRequestLimit {
            limit: MAX_REFUSED_CLAIMS,
            ..
        })
    ));
    assert_eq!(game.version(), before);
    // Knights out and back twice: the position stands for the third time.
    let game = line(
        &game,
        &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"],
    );
    let (_, _, verdict) = claim(&game, ClaimReason::ThreefoldRepetition, None);
    assert_eq!(verdict, ClaimVerdict::Upheld);
}
