//! The public view at a cut-off is the game exactly as it stood then: each
//! test plays a game, keeps every state it committed, and compares the view
//! rebuilt at each cut-off with the state that was live at that instant.

use rand::{Rng, SeedableRng, rngs::StdRng};
use shakmaty::{Color, Position, uci::UciMove};

use super::*;
use crate::domain::{
    ClaimReason, Decision, DelayMode, GameRules, GameStatus, NewGame, Outcome, Pairing, Period,
    Ply, Rejection, Ruling, Schedule, StartPosition, TimeControl, Timing, Variant,
    test_support::{at, changed, game_id, player, seats},
};

/// What a client can read of a game at `as_of`.
fn observed(game: &Game, as_of: Timestamp) -> String {
    format!(
        "v{} {} ply {} status {:?} result {:?} review {:?} offer {:?} aborted {:?} \
         clock {:?} present {:?} last {:?} rep {} half {} ended {:?} updated {:?} \
         check {} legal {} requests {:?}",
        game.version(),
        game.fen(),
        game.ply(),
        game.status_at(as_of),
        game.result(),
        game.review(),
        game.draw_offer(),
        game.aborted_by(),
        game.clock_view(as_of),
        game.present(),
        game.last_move(),
        game.repetition_count(),
        game.halfmove_clock(),
        game.ended_at(),
        game.updated_at(),
        game.in_check(),
        game.legal_moves_uci().len(),
        game.draw_requests(),
    )
}

fn new_game(timed: bool, schedule: Schedule) -> NewGame {
    let timing = timed.then(|| {
        let control = TimeControl::new(
            "time_control",
            vec![Period {
                time_ms: 60_000,
                moves: 0,
                increment_ms: 1_000,
                delay_ms: 2_000,
            }],
            DelayMode::Simple,
        )
        .expect("control");
        Timing {
            white: control.clone(),
            black: control,
            clock_starts_after_first_moves: false,
        }
    });
    NewGame::new(
        player("w", "White"),
        player("b", "Black"),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("request")
    .with_clock(timing, schedule)
}

/// A game's every committed state, with the log that produced them.
struct History {
    states: Vec<Game>,
    events: Vec<GameEvent>,
}

impl History {
    fn new(new: NewGame, created: u64) -> Self {
        let (game, event) = Game::create(game_id(), new, seats(), at(created));
        Self {
            states: vec![game],
            events: vec![event],
        }
    }

    fn live(&self) -> &Game {
        self.states.last().expect("created")
    }

    /// Applies a command's decision when it changed the game.
    fn apply(&mut self, decision: Result<Decision, Rejection>) -> bool {
        match decision {
            Ok(Decision::Changed { game, events }) => {
                self.events.extend(events);
                self.states.push(*game);
                true
            }
            _ => false,
        }
    }

    /// Checks the public view at every instant around every commit (and
    /// between them) against the state that was live then.
    #[track_caller]
    fn check_every_cutoff(&self) {
        let live = self.live();
        let mut cutoffs: Vec<u64> = Vec::new();
        for state in &self.states {
            let t = state.updated_at().unix_millis();
            cutoffs.extend([t.saturating_sub(1), t, t + 1, t + 700]);
        }
        for cutoff in cutoffs.into_iter().map(Timestamp::from_unix_millis) {
            let Some(then) = self.states.iter().rev().find(|s| s.updated_at() <= cutoff) else {
                continue;
            };
            let view = public_view(live, &self.events, cutoff).expect("replays");
            assert_eq!(
                observed(&view, cutoff),
                observed(then, cutoff),
                "at {cutoff:?}"
            );
        }
    }
}

#[test]
fn a_view_after_the_last_commit_is_the_game_itself() {
    let mut history = History::new(new_game(true, Schedule::default()), 0);
    history.apply(
        history
            .live()
            .play_move(Color::White, Ply::START, "e4", false, at(1_000)),
    );
    let live = history.live();
    let view = public_view(live, std::iter::empty(), at(1_000)).expect("nothing to read");
    assert_eq!(&view, live);
    assert!(live.unchanged_since(at(5_000)));
    assert!(!live.unchanged_since(at(999)));
}

#[test]
fn a_game_that_ended_after_the_cutoff_is_shown_in_progress_without_its_result() {
    let mut history = History::new(new_game(true, Schedule::default()), 0);
    for (i, text) in ["f3", "e5", "g4", "Qh4"].iter().enumerate() {
        let game = history.live();
        let now = at(1_000 * (i as u64 + 1));
        assert!(history.apply(game.play_move(game.side_to_move(), game.ply(), text, false, now)));
    }
    let live = history.live();
    assert_eq!(live.status(), GameStatus::Finished);
    let before = public_view(live, &history.events, at(3_500)).expect("replays");
    assert_eq!(before.status(), GameStatus::Active);
    assert_eq!(before.result(), None);
    assert_eq!(before.ply().count(), 3);
    assert_eq!(
        before.clock_view(at(3_500)).expect("timed").running,
        Some(Color::Black)
    );
    let after = public_view(live, &history.events, at(4_000)).expect("replays");
    assert_eq!(after.result(), live.result());
    history.check_every_cutoff();
}

#[test]
fn offers_claims_pauses_adjustments_check_ins_and_rulings_replay_exactly() {
    let start = at(2_000);
    let schedule = Schedule {
        scheduled_start: Some(start),
        default_time_ms: Some(600_000),
        awaits_start: false,
    };
    let mut history = History::new(new_game(true, schedule), 0);
    let mut now = 1_000;
    let mut step =
        |history: &mut History,
         command: &dyn Fn(&Game, Timestamp) -> Result<Decision, Rejection>| {
            now += 1_300;
            let applied = history.apply(command(history.live(), at(now)));
            assert!(applied, "a command at {now} changed nothing");
        };
    step(&mut history, &|g, t| g.check_in(Color::Black, t));
    step(&mut history, &|g, t| {
        g.play_move(Color::White, g.ply(), "Nf3", false, t)
    });
    step(&mut history, &|g, t| {
        g.play_move(Color::Black, g.ply(), "Nf6", false, t)
    });
    step(&mut history, &|g, t| g.pause_clock("medical", "arbiter", t));
    step(&mut history, &|g, t| {
        g.adjust_clock(Color::White, 30_000, "lag", "arbiter", t)
    });
    step(&mut history, &|g, t| g.resume_clock("back", "arbiter", t));
    for text in ["Ng1", "Ng8", "Nf3", "Nf6"] {
        step(&mut history, &|g, t| {
            g.play_move(g.side_to_move(), g.ply(), text, false, t)
        });
    }
    step(&mut history, &|g, t| g.offer_draw(!g.side_to_move(), t));
    step(&mut history, &|g, t| {
        g.respond_to_draw_offer(g.side_to_move(), false, t)
    });
    for text in ["Ng1", "Ng8", "Nf3", "Nf6"] {
        step(&mut history, &|g, t| {
            g.play_move(g.side_to_move(), g.ply(), text, false, t)
        });
    }
    // Fifty moves is not there yet: refused, with a penalty on the clock.
    step(&mut history, &|g, t| {
        g.claim_draw(g.side_to_move(), g.ply(), ClaimReason::FiftyMoves, None, t)
            .map(|(decision, _)| decision)
    });
    step(&mut history, &|g, t| {
        g.claim_draw(
            g.side_to_move(),
            g.ply(),
            ClaimReason::ThreefoldRepetition,
            Some("Ng1"),
            t,
        )
        .map(|(decision, _)| decision)
    });
    assert_eq!(history.live().status(), GameStatus::Finished);
    step(&mut history, &|g, t| {
        g.set_result(
            Ruling::Played {
                outcome: Outcome::WhiteWins,
                termination: None,
            },
            "appeal upheld",
            "arbiter",
            t,
        )
    });
    history.check_every_cutoff();
}

#[test]
fn a_flag_and_an_abort_replay_with_their_times() {
    let mut history = History::new(new_game(true, Schedule::default()), 0);
    let game = history.live();
    history.apply(game.play_move(Color::White, Ply::START, "e4", false, at(1_000)));
    // Black's 60 s (and 2 s of delay) run out; the flag is noticed late.
    let (decision, _) = history
        .live()
        .check_time(at(90_000))
        .expect("the flag fell");
    assert!(history.apply(Ok(decision)));
    history.check_every_cutoff();
    let view = public_view(history.live(), &history.events, at(62_500)).expect("replays");
    assert_eq!(view.status(), GameStatus::Active, "not committed yet then");

    let mut aborted = History::new(new_game(false, Schedule::default()), 0);
    let game = aborted.live();
    aborted.apply(game.play_move(Color::White, Ply::START, "d4", false, at(500)));
    let game = aborted.live();
    aborted.apply(game.abort(Color::Black, at(900)));
    aborted.check_every_cutoff();
}

#[test]
fn random_games_replay_to_every_state_they_passed_through() {
    for seed in 0..12 {
        let mut rng = StdRng::seed_from_u64(seed);
        let timed = seed % 3 != 0;
        let mut history = History::new(new_game(timed, Schedule::default()), 0);
        let mut now = 0;
        while !history.live().is_over() && history.live().ply().count() < 120 {
            now += rng.random_range(1..=3_000);
            let game = history.live().clone();
            let side = game.side_to_move();
            let decision = match rng.random_range(0..30) {
                0 => game.offer_draw(side, at(now)),
                1 => game.respond_to_draw_offer(side, rng.random_bool(0.2), at(now)),
                2 if timed => game.adjust_clock(
                    !side,
                    rng.random_range(-3_000..20_000),
                    "x",
                    "arbiter",
                    at(now),
                ),
                3 if timed => game.pause_clock("p", "arbiter", at(now)),
                4 if timed => game.resume_clock("r", "arbiter", at(now)),
                5 => game.check_in(!side, at(now)),
                _ => {
                    let moves = game.position().legal_moves();
                    let m = moves[rng.random_range(0..moves.len())];
                    let uci = UciMove::from_move(m, game.variant().castling_mode()).to_string();
                    match game.check_time(at(now)) {
                        Some((decision, _)) => Ok(decision),
                        None => {
                            game.play_move(side, game.ply(), &uci, rng.random_bool(0.05), at(now))
                        }
                    }
                }
            };
            history.apply(decision);
        }
        history.check_every_cutoff();
    }
}

#[test]
fn a_log_that_does_not_follow_on_is_refused() {
    let mut history = History::new(new_game(false, Schedule::default()), 0);
    for (i, text) in ["e4", "e5", "Nf3"].iter().enumerate() {
        let game = history.live();
        let now = at(1_000 * (i as u64 + 1));
        assert!(history.apply(game.play_move(game.side_to_move(), game.ply(), text, false, now)));
    }
    let live = history.live();
    let skipped = [history.events[0].clone(), history.events[2].clone()];
    assert_eq!(
        public_view(live, &skipped, at(2_500)),
        Err(ReplayError::OutOfOrder {
            expected_after: 1,
            found: 3
        })
    );
    let mut wrong = history.events.clone();
    if let EventKind::MoveMade { record, .. } = &mut wrong[2].kind {
        record.uci = "e2e4".to_owned();
    }
    assert!(matches!(
        public_view(live, &wrong, at(2_500)),
        Err(ReplayError::IllegalMove { version: 3, .. })
    ));
    let (_, _) = changed(live.resign(Color::White, at(3_000)));
}
