//! What the public sees of a game under a broadcast delay: the game as it
//! stood at the cut-off (now less the delay), rebuilt exactly from its
//! setup and its events up to the cut-off.
//!
//! Events are the truth of a game's history, and each carries the time it
//! was committed, so the state at any instant is the setup with every
//! event committed by then applied in order. The replay applies them with
//! the same methods the commands used (a move goes through the board and
//! the clock exactly as it did when played), so the clocks, the position,
//! its repetition history and the status all come out as they were.

use shakmaty::uci::UciMove;
use thiserror::Error;

use crate::domain::{EventKind, Game, GameEvent, ReportedLag, Timestamp};

/// Why a game's events do not rebuild it.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// An event does not follow the one before it.
    #[error("event version {found} follows version {expected_after}")]
    OutOfOrder {
        /// The version replayed last.
        expected_after: u64,
        /// The version found.
        found: u64,
    },
    /// A recorded move is not legal where the replay reached.
    #[error("the move {uci} of version {version} is not legal in the replayed position")]
    IllegalMove {
        /// The event.
        version: u64,
        /// The move as recorded.
        uci: String,
    },
}

/// A game being rebuilt from its events, one at a time.
#[derive(Clone, Debug)]
pub struct Replay {
    game: Game,
}

impl Replay {
    /// The game `live` as it was created (version 1), before any other
    /// event.
    pub fn start(live: &Game) -> Self {
        let (game, _) = Game::create(
            live.id().clone(),
            live.setup().clone(),
            live.seats(),
            live.created_at(),
        );
        Self { game }
    }

    /// Goes on replaying from `game`, rebuilt (or as it stands) at its
    /// version.
    pub fn resume(game: Game) -> Self {
        Self { game }
    }

    /// The game as replayed so far.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The game as replayed.
    pub fn into_game(self) -> Game {
        self.game
    }

    /// Applies the next event: the creation (version 1) is where the replay
    /// starts, and is passed over; any other must follow the version
    /// replayed last.
    pub fn apply(&mut self, event: &GameEvent) -> Result<(), ReplayError> {
        let game = &mut self.game;
        if event.version == 1 && matches!(event.kind, EventKind::GameCreated { .. }) {
            return Ok(());
        }
        if event.version != game.version() + 1 {
            return Err(ReplayError::OutOfOrder {
                expected_after: game.version(),
                found: event.version,
            });
        }
        // What the methods report as produced is already in the log.
        let mut produced = Vec::new();
        match &event.kind {
            EventKind::GameCreated { .. } => {
                return Err(ReplayError::OutOfOrder {
                    expected_after: game.version(),
                    found: event.version,
                });
            }
            EventKind::MoveMade { record, .. } => {
                let illegal = || ReplayError::IllegalMove {
                    version: event.version,
                    uci: record.uci.clone(),
                };
                let uci: UciMove = record.uci.parse().map_err(|_| illegal())?;
                let m = uci.to_move(game.position()).map_err(|_| illegal())?;
                let lag = record.time.map_or(ReportedLag::NONE, |time| {
                    ReportedLag::replaying(time.lag_credit_ms)
                });
                game.apply_move(m, lag, record.report, event.at, None, &mut produced);
            }
            EventKind::GameStarted { .. } => game.begin(event.at),
            EventKind::DrawOffered { by } => game.set_draw_offer(Some(*by)),
            EventKind::DrawDeclined { .. } => game.set_draw_offer(None),
            // A refused claim's penalty is an event of its own.
            EventKind::DrawClaimRefused { .. } => {}
            EventKind::GameEnded { result, review, .. } => {
                game.finish_for_review(*result, *review, &mut produced);
            }
            EventKind::ResultSet { result, .. } => game.impose_result(*result),
            EventKind::ClockAdjusted {
                color, delta_ms, ..
            } => {
                if let Some(clock) = game.clock_mut() {
                    clock.adjust(*color, *delta_ms);
                }
            }
            EventKind::ClockPaused { .. } => {
                if let Some(clock) = game.clock_mut() {
                    clock.pause(event.at);
                }
            }
            EventKind::ClockResumed { .. } => {
                if let Some(clock) = game.clock_mut() {
                    clock.resume(event.at);
                }
            }
            EventKind::PlayerCheckedIn { color } => game.set_checked_in(*color),
            EventKind::ConnectionReported {
                color, connected, ..
            } => game.set_departure(*color, (!*connected).then_some(event.at)),
            EventKind::GameAborted { by } => game.set_aborted(*by),
        }
        game.stamp_replayed(event);
        Ok(())
    }
}

impl Game {
    /// Whether the public, seeing the game as of `cutoff`, sees it as it
    /// stands: nothing was committed after the cut-off.
    pub fn unchanged_since(&self, cutoff: Timestamp) -> bool {
        self.updated_at() <= cutoff
    }
}

/// The game as it stood at `cutoff`: `live` itself when nothing was
/// committed after the cut-off, otherwise rebuilt from its setup and
/// `events`, its log in version order from version 1 (events after the
/// cut-off are not read: a caller reading the log in pages may stop at the
/// first of them).
pub fn public_view<'a>(
    live: &Game,
    events: impl IntoIterator<Item = &'a GameEvent>,
    cutoff: Timestamp,
) -> Result<Game, ReplayError> {
    if live.unchanged_since(cutoff) {
        return Ok(live.clone());
    }
    let mut replay = Replay::start(live);
    for event in events {
        if event.at > cutoff {
            break;
        }
        replay.apply(event)?;
    }
    Ok(replay.into_game())
}

#[cfg(test)]
#[path = "public_view_tests.rs"]
mod tests;
