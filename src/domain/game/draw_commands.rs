//! Offering, accepting and declining draws (FIDE 9.1) and claiming them
//! (9.2, 9.3, 9.5), with the penalties for a refused claim.

use crate::domain::{
    ClaimReason, ClaimRefusal, ClaimVerdict, Decision, DrawRequests, EventKind, Game, GameResult,
    GameStatus, LastClaim, Outcome, Ply, Rejection, ReportedLag, Termination, Timestamp,
    game::dead_position::DeadProof,
    game::draws::index,
    game::endings::{FIFTY_MOVES, THREEFOLD},
    parse_move,
};
use shakmaty::Color;

impl DrawRequests {
    /// Counts what `kind` adds.
    pub(in crate::domain) fn count(&mut self, kind: &EventKind) {
        match kind {
            EventKind::DrawOffered { by } => {
                let count = &mut self.offers[index(*by)];
                *count = count.saturating_add(1);
            }
            EventKind::DrawClaimRefused { by, .. } => {
                let count = &mut self.refused_claims[index(*by)];
                *count = count.saturating_add(1);
            }
            _ => {}
        }
    }
}

impl Game {
    /// Offers a draw for `seat`. Offering while the opponent's offer is
    /// pending accepts it.
    ///
    /// A repeat is not an error: while the seat's own offer is pending, or
    /// once the game is drawn by agreement, nothing changes.
    pub fn offer_draw(&self, seat: Color, now: Timestamp) -> Result<Decision, Rejection> {
        if self.draw_offer() == Some(seat) || self.ended_by(Termination::Agreement, None) {
            return Ok(Decision::Unchanged);
        }
        self.ensure_active()?;
        if let Some(reason) = self.rules().draw_offer_refusal(self.ply()) {
            return Err(Rejection::DrawOfferNotAllowed { reason });
        }
        if self.draw_offer().is_none() {
            self.draw_requests().ensure_may_offer(seat)?;
        }
        let mut next = self.clone();
        let mut kinds = Vec::new();
        match self.draw_offer() {
            Some(_) => next.finish(agreement(), Some(seat), &mut kinds),
            None => {
                next.set_draw_offer(Some(seat));
                kinds.push(EventKind::DrawOffered { by: seat });
            }
        }
        Ok(next.commit(kinds, now))
    }

    /// Accepts or declines the opponent's pending draw offer.
    ///
    /// A repeat is not an error: accepting a game already drawn by
    /// agreement, or declining when no offer from the opponent is pending,
    /// changes nothing.
    pub fn respond_to_draw_offer(
        &self,
        seat: Color,
        accept: bool,
        now: Timestamp,
    ) -> Result<Decision, Rejection> {
        if accept && self.ended_by(Termination::Agreement, None) {
            return Ok(Decision::Unchanged);
        }
        self.ensure_active()?;
        if self.draw_offer() != Some(!seat) {
            return if accept {
                Err(Rejection::NoDrawOffer)
            } else {
                Ok(Decision::Unchanged)
            };
        }
        let mut next = self.clone();
        let mut kinds = Vec::new();
        if accept {
            next.finish(agreement(), Some(seat), &mut kinds);
        } else {
            next.set_draw_offer(None);
            kinds.push(EventKind::DrawDeclined { by: seat });
        }
        Ok(next.commit(kinds, now))
    }

    /// Rules on a draw claim by `seat`, the player to move, at `ply`. With an
    /// `intended` move the claim is about the position that move produces
    /// (FIDE 9.2.1.1, 9.3.1). Written down with the claim, that move cannot
    /// be changed (9.2.1.1): it is recorded when the claim is upheld, and
    /// played when the game goes on after a refusal (9.5.3).
    ///
    /// A correct claim draws the game. An incorrect one is recorded and
    /// penalised (9.5.3), and it counts as the claimant's draw offer
    /// (9.1.2.3): an offer the opponent has pending is thereby accepted —
    /// the game is drawn by agreement and an intended move is not played,
    /// as the game does not go on; otherwise the intended move is played
    /// and the claim stands as an offer where the regulations allow offers.
    ///
    /// A claim never declines the opponent's pending offer, with or
    /// without an intended move: an offer stands until it is accepted,
    /// declined, or the game ends (9.1.2.1), and the claimant has touched
    /// no piece, only written the move down (9.2.1.1). When the intended
    /// move ends the game by itself (the claim is moot), the offer lapses
    /// with the game.
    ///
    /// Of the dead positions an intended move may lead to, only those with
    /// too little material are seen here: see [`Game::claim_draw_given`].
    pub fn claim_draw(
        &self,
        seat: Color,
        ply: Ply,
        reason: ClaimReason,
        intended: Option<&str>,
        now: Timestamp,
    ) -> Result<(Decision, ClaimVerdict), Rejection> {
        self.claim_draw_given(seat, ply, reason, intended, now, None)
    }

    /// Like [`Game::claim_draw`], given a proof (when the caller has one)
    /// that the position the intended move leads to is dead: the move
    /// then ends the game by itself and the claim is moot (see
    /// [`Game::play_move_given`]).
    pub fn claim_draw_given(
        &self,
        seat: Color,
        ply: Ply,
        reason: ClaimReason,
        intended: Option<&str>,
        now: Timestamp,
        dead: Option<&DeadProof>,
    ) -> Result<(Decision, ClaimVerdict), Rejection> {
        // A repeat of the latest claim, with nothing in between: the same
        // ruling, applied once.
        let claim = LastClaim {
            seat,
            ply,
            reason,
            intended: intended.map(|text| text.trim().to_owned()),
            version: self.version(),
            verdict: ClaimVerdict::Upheld,
        };
        if let Some(last) = self.last_claim()
            && last.repeats(&claim)
        {
            return Ok((Decision::Unchanged, last.verdict));
        }
        self.ensure_turn(seat, ply)?;
        self.ensure_clock_allows(now)?;
        // The game as the claim is judged on it: after the intended move,
        // if there is one. The move does not decline the opponent's
        // pending offer (it was only written down with the claim): it is
        // set aside here, and either lapses with the game's end or is
        // accepted by the claim below.
        let mut after = self.clone();
        let mut kinds = Vec::new();
        if let Some(text) = intended {
            let m = parse_move(self.position(), self.variant().castling_mode(), text)?;
            if self.draw_offer() == Some(!seat) {
                after.set_draw_offer(None);
            }
            // A move written with a claim reports no lag.
            after.apply_move(m, ReportedLag::NONE, None, now, dead, &mut kinds);
            if after.status() != GameStatus::Active {
                return Ok((
                    after.commit_claim(claim, ClaimVerdict::Moot, kinds, now),
                    ClaimVerdict::Moot,
                ));
            }
        }
        let refusal = after.claim_refusal(reason, intended.is_some());
        if refusal.is_some() {
            // A claim that holds is always upheld; one more refused claim
            // past the cap is not recorded (nor its penalty).
            self.draw_requests().ensure_may_claim(seat)?;
        }
        let (mut next, mut kinds) = match refusal {
            // Refused, the claim as an offer meets the opponent's: the game
            // is drawn by agreement as it stood at the claim, and an
            // intended move is never played.
            Some(_) if self.draw_offer() == Some(!seat) => (self.clone(), Vec::new()),
            _ => (after, kinds),
        };
        let verdict = match refusal {
            None => {
                next.finish(reason.upheld(), Some(seat), &mut kinds);
                ClaimVerdict::Upheld
            }
            Some(refusal) => {
                next.refuse_claim(seat, reason, &refusal, &mut kinds);
                ClaimVerdict::Refused(refusal)
            }
        };
        Ok((next.commit_claim(claim, verdict, kinds, now), verdict))
    }

    /// Commits a claim's ruling, remembering the claim so that its repeat
    /// is recognised.
    fn commit_claim(
        mut self,
        claim: LastClaim,
        verdict: ClaimVerdict,
        kinds: Vec<EventKind>,
        now: Timestamp,
    ) -> Decision {
        let recorded = claim.version + kinds.len() as u64;
        self.set_last_claim(LastClaim {
            version: recorded,
            verdict,
            ..claim
        });
        self.commit(kinds, now)
    }

    /// Why a claim of `reason` on the current position does not hold, if it
    /// does not.
    fn claim_refusal(
        &self,
        reason: ClaimReason,
        after_intended_move: bool,
    ) -> Option<ClaimRefusal> {
        match reason {
            ClaimReason::ThreefoldRepetition => {
                let count = self.repetition_count();
                (count < THREEFOLD).then_some(ClaimRefusal::TooFewRepetitions {
                    count,
                    after_intended_move,
                })
            }
            ClaimReason::FiftyMoves => {
                let halfmoves = self.halfmove_clock();
                (halfmoves < FIFTY_MOVES).then_some(ClaimRefusal::TooFewQuietMoves {
                    halfmoves,
                    after_intended_move,
                })
            }
        }
    }

    /// Records a refused claim by `seat`: the opponent gets the penalty time
    /// (9.5.3), and the claim counts as a draw offer (9.1.2.3): it accepts
    /// one the opponent has pending, and otherwise stands where offers are
    /// allowed.
    fn refuse_claim(
        &mut self,
        seat: Color,
        reason: ClaimReason,
        refusal: &ClaimRefusal,
        kinds: &mut Vec<EventKind>,
    ) {
        kinds.push(EventKind::DrawClaimRefused {
            by: seat,
            reason,
            explanation: refusal.to_string(),
        });
        if let Some(penalty) = self.claim_penalty_ms()
            && let Some(clock) = self.clock_mut()
        {
            clock.adjust(!seat, penalty);
            kinds.push(EventKind::ClockAdjusted {
                color: !seat,
                delta_ms: penalty,
                reason: "incorrect draw claim (FIDE 9.5.3)".to_owned(),
                by: None,
            });
        }
        match self.draw_offer() {
            // A pending offer was allowed when it was made: accepting it
            // needs no further permission, as with `respond_to_draw_offer`.
            Some(by) if by != seat => self.finish(agreement(), Some(seat), kinds),
            Some(_) => {}
            None if self.rules().draw_offer_refusal(self.ply()).is_some() => {}
            None => {
                self.set_draw_offer(Some(seat));
                kinds.push(EventKind::DrawOffered { by: seat });
            }
        }
    }
}

fn agreement() -> GameResult {
    GameResult {
        outcome: Outcome::Draw,
        termination: Termination::Agreement,
    }
}

#[cfg(test)]
#[path = "draw_commands_tests.rs"]
mod tests;
