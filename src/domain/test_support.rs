//! Helpers shared by the domain's unit tests: fixed times, seats, players,
//! and unwrapping decisions.

use rand::{Rng, SeedableRng, rngs::StdRng};
use shakmaty::{Position, uci::UciMove};

use crate::domain::{
    Decision, DelayMode, Game, GameEvent, GameId, GameRules, LagCompensation, MoveReport, NewGame,
    Pairing, Period, Player, Rejection, ReportedLag, Schedule, SeatHashes, StartPosition,
    TimeControl, Timestamp, Timing, TokenHash, Variant,
};

/// An arbitrary creation time; tests add offsets to it.
pub const T0: u64 = 1_700_000_000_000;

/// `offset_ms` after [`T0`].
pub fn at(offset_ms: u64) -> Timestamp {
    Timestamp::from_unix_millis(T0 + offset_ms)
}

/// A player.
pub fn player(id: &str, name: &str) -> Player {
    Player {
        id: id.to_owned(),
        name: name.to_owned(),
        ..Default::default()
    }
}

/// The id every test game has.
pub fn game_id() -> GameId {
    GameId::parse("game-1").expect("valid id")
}

/// The seats of every test game: "white-seat-token" and "black-seat-token".
pub fn seats() -> SeatHashes {
    SeatHashes {
        white: TokenHash::of("white-seat-token"),
        black: TokenHash::of("black-seat-token"),
    }
}

/// The setup of a standard, untimed game between "w" (White) and "b"
/// (Black), outside any event.
pub fn plain_setup() -> NewGame {
    NewGame::new(
        player("w", "White"),
        player("b", "Black"),
        Variant::Standard,
        &StartPosition::Standard,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("a setup")
}

/// The game and events of a decision that must be a change.
#[track_caller]
pub fn changed(decision: Result<Decision, Rejection>) -> (Game, Vec<GameEvent>) {
    match decision {
        Ok(Decision::Changed { game, events }) => (*game, events),
        other => panic!("expected a change, got {other:?}"),
    }
}

/// Knights out and back: after these four half-moves the position is the
/// one they started from.
pub const SHUFFLE: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];

/// A command on a game, as [`random_game`] interleaves them with moves.
type Command = Box<dyn Fn(&Game) -> Result<Decision, Rejection>>;

/// A game of random legal moves, `timed` with 3 minutes plus 2 seconds, in
/// Chess960 position `chess960` when given; the moves come up to
/// `spacing_ms` apart, so clocks run and may fall; with `extras`, offers,
/// clock adjustments and pauses now and then, (timed) lag compensation
/// with a random lag reported with each move, and a fair-play record.
/// Returns every event it produced.
pub fn random_game(
    seed: u64,
    chess960: Option<u32>,
    timed: bool,
    spacing_ms: u64,
    extras: bool,
) -> Vec<GameEvent> {
    let mut rng = StdRng::seed_from_u64(seed);
    let (variant, start) = match chess960 {
        Some(number) => (Variant::Chess960, StartPosition::Chess960(number)),
        None => (Variant::Standard, StartPosition::Standard),
    };
    let timing = timed.then(|| {
        let control = TimeControl::new(
            "time_control",
            vec![Period {
                time_ms: 180_000,
                moves: 0,
                increment_ms: 2_000,
                delay_ms: 0,
            }],
            DelayMode::Bronstein,
        )
        .expect("control");
        Timing {
            white: control.clone(),
            black: control,
            clock_starts_after_first_moves: false,
        }
    });
    let request = NewGame::new(
        player("w", "White"),
        player("b", "Black"),
        variant,
        &start,
        Pairing::default(),
        GameRules::default(),
    )
    .expect("request")
    .with_clock(timing, Schedule::default())
    .with_lag_compensation((extras && timed).then_some(LagCompensation::ONLINE))
    .expect("a timed game may compensate lag")
    .with_fair_play_record(extras);
    // The lags come from their own generator, so that the moves and times
    // are those of the same seed without compensation.
    let mut lags = StdRng::seed_from_u64(seed ^ 0x1a6);
    let (mut game, created) = Game::create(game_id(), request, seats(), at(0));
    let mut events = vec![created];
    let mut now = 0;
    while !game.is_over() && game.ply().count() < 300 {
        let moves = game.position().legal_moves();
        let m = moves[rng.random_range(0..moves.len())];
        let uci = UciMove::from_move(m, variant.castling_mode()).to_string();
        now += rng.random_range(1..=spacing_ms);
        let lag = ReportedLag::parse("lag_millis", lags.random_range(0..1_500)).expect("lag");
        // A client's move time now and then, for the fair-play record.
        let client_ms = lags
            .random_bool(0.5)
            .then(|| lags.random_range(0..=i64::try_from(spacing_ms).unwrap_or(i64::MAX)));
        let report = MoveReport::new(lag, "client_move_millis", client_ms).expect("a report");
        match game.play_move_with_lag(
            game.side_to_move(),
            game.ply(),
            &uci,
            false,
            report,
            at(now),
        ) {
            Ok(Decision::Changed {
                game: next,
                events: produced,
            }) => {
                game = *next;
                events.extend(produced);
            }
            // A flag fell before the move: the game is over.
            Ok(Decision::Unchanged) | Err(_) => break,
        }
        // Now and then something other than a move: an offer, a declined
        // offer, an arbiter's clock adjustment, a pause and a resumption.
        let side = game.side_to_move();
        let others: Vec<Command> = match if extras { rng.random_range(0..40) } else { 40 } {
            0 => vec![Box::new(move |g: &Game| g.offer_draw(side, at(now)))],
            1 => vec![Box::new(move |g: &Game| {
                g.respond_to_draw_offer(side, false, at(now))
            })],
            2 if timed => {
                let delta = rng.random_range(-5_000..60_000);
                vec![Box::new(move |g: &Game| {
                    g.adjust_clock(side, delta, "lag", "arbiter", at(now))
                })]
            }
            3 if timed => vec![
                Box::new(move |g: &Game| g.pause_clock("medical", "arbiter", at(now))),
                Box::new(move |g: &Game| g.resume_clock("back", "arbiter", at(now + 10))),
            ],
            _ => Vec::new(),
        };
        for other in others {
            if let Ok(Decision::Changed {
                game: next,
                events: produced,
            }) = other(&game)
            {
                game = *next;
                events.extend(produced);
            }
        }
        now += 10;
    }
    events
}
