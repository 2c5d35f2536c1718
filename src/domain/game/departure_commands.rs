//! The platform's reports of a player's connection, and the opponent's
//! claim of the game once the player has been gone long enough (see
//! `departures`).

use shakmaty::Color;

use crate::domain::{
    Decision, EventKind, Game, Ply, Rejection, Termination, Timestamp, VictoryClaimRefusal, on_flag,
};

impl Game {
    /// The platform `by` reports `color` connected again, or gone since
    /// `now`. A report that says what is already known changes nothing
    /// (a player reported gone stays gone since the first report); a game
    /// that is over refuses it. A move by the player also ends a reported
    /// absence.
    pub fn report_connection(
        &self,
        color: Color,
        connected: bool,
        by: &str,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        self.ensure_active()?;
        if self.departures().left_at(color).is_none() == connected {
            return Ok(Decision::Unchanged);
        }
        let mut next = self.clone();
        next.set_departure(color, (!connected).then_some(now));
        let kind = EventKind::ConnectionReported {
            color,
            connected,
            by: by.to_owned(),
        };
        Ok(next.commit(vec![kind], now))
    }

    /// `seat` claims the game because the opponent has been reported gone
    /// for at least the rules' `claim_after_opponent_left_ms`, once both
    /// players have made a move. The claimant wins, as if the opponent's
    /// flag had fallen: the game is drawn when the claimant cannot
    /// checkmate by any series of legal moves (FIDE 6.9 by analogy; USCF
    /// 14E's material under that profile), and an undecided search awaits
    /// an arbiter's review. Refused while the clock is paused or before
    /// the start. A repeat by the seat that claimed changes nothing.
    pub fn claim_victory(&self, seat: Color, now: Timestamp) -> Result<Decision, Rejection> {
        if self.ended_by(Termination::OpponentLeft, Some(seat)) {
            return Ok(Decision::Unchanged);
        }
        self.ensure_active()?;
        self.ensure_clock_allows(now)?;
        let refused = |reason| Err(Rejection::VictoryClaimRefused { reason });
        let after = self.rules().claim_after_opponent_left_ms;
        if after == 0 {
            return refused(VictoryClaimRefusal::NotAllowed);
        }
        if self.ply() < Ply::new(2) {
            return refused(VictoryClaimRefusal::BeforeBothMoved);
        }
        let Some(left_at) = self.departures().left_at(!seat) else {
            return refused(VictoryClaimRefusal::OpponentConnected);
        };
        let claimable_at = left_at.plus_millis(u64::from(after));
        if now < claimable_at {
            return refused(VictoryClaimRefusal::TooSoon { claimable_at });
        }
        let ruling = on_flag(self.position(), !seat, self.rules().profile);
        let mut result = ruling.result;
        result.termination = Termination::OpponentLeft;
        let mut next = self.clone();
        let mut kinds = Vec::new();
        next.end(result, Some(seat), ruling.note, &mut kinds);
        Ok(next.commit(kinds, now))
    }
}

#[cfg(test)]
#[path = "departure_commands_tests.rs"]
mod tests;
