//! Running an arbiter's command once per request id.

use crate::domain::{AdminRequest, Decision, Game, Rejection};

impl Game {
    /// Runs an arbiter's command once per request: a repeat of a request
    /// the game remembers changes nothing, a request id reused for another
    /// command is refused, and a new request is remembered with the change
    /// it makes.
    pub fn run_admin_request(
        &self,
        request: Option<&AdminRequest>,
        decide: impl FnOnce(&Game) -> Result<Decision, Rejection>,
    ) -> Result<Decision, Rejection> {
        let Some(request) = request else {
            return decide(self);
        };
        if let Some(known) = self.admin_requests().iter().find(|r| r.id == request.id) {
            return if known.digest == request.digest {
                Ok(Decision::Unchanged)
            } else {
                Err(Rejection::RequestIdReused {
                    request_id: request.id.clone(),
                })
            };
        }
        match decide(self)? {
            Decision::Changed { mut game, events } => {
                game.remember_admin_request(request.clone());
                let events = events
                    .into_iter()
                    .map(|event| event.requested_by(Some(&request.id)))
                    .collect();
                Ok(Decision::Changed { game, events })
            }
            Decision::Unchanged => Ok(Decision::Unchanged),
        }
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;
    use crate::domain::{
        AdminRequest, GameRules, NewGame, Pairing, RequestId, Schedule, StartPosition, TimeControl,
        Timing, Variant, game::admin_request::REMEMBERED_REQUESTS, test_support::*,
    };

    fn timed_game() -> Game {
        let control = TimeControl::new(
            "time_control",
            vec![crate::domain::Period {
                time_ms: 60_000,
                moves: 0,
                increment_ms: 0,
                delay_ms: 0,
            }],
            crate::domain::DelayMode::Simple,
        )
        .expect("control");
        let new = NewGame::new(
            player("alice", "Alice"),
            player("bob", "Bob"),
            Variant::Standard,
            &StartPosition::Standard,
            Pairing::default(),
            GameRules::default(),
        )
        .expect("new game")
        .with_clock(
            Some(Timing {
                white: control.clone(),
                black: control,
                clock_starts_after_first_moves: false,
            }),
            Schedule::default(),
        );
        Game::create(game_id(), new, seats(), at(0)).0
    }

    fn key(text: &str) -> RequestId {
        RequestId::parse(text).expect("key").expect("some key")
    }

    #[test]
    fn an_arbiter_request_is_applied_once_and_its_key_cannot_be_reused() {
        let game = timed_game();
        let add = AdminRequest::new(&key("adj-1"), &["adjust_clock", "white", "60000", "x"]);
        let adjust = |g: &Game| g.adjust_clock(Color::White, 60_000, "x", "arbiter", at(10));
        let (once, events) = changed(game.run_admin_request(Some(&add), adjust));
        assert_eq!(events.len(), 1);
        // The same request again: nothing changes, the time is added once.
        assert_eq!(
            once.run_admin_request(Some(&add), adjust),
            Ok(Decision::Unchanged)
        );
        // The same key for another command is refused.
        let other = AdminRequest::new(&key("adj-1"), &["adjust_clock", "white", "1000", "x"]);
        assert_eq!(
            once.run_admin_request(Some(&other), adjust),
            Err(Rejection::RequestIdReused {
                request_id: "adj-1".to_owned()
            })
        );
        // Without a key every call applies.
        let (twice, _) = changed(once.run_admin_request(None, adjust));
        assert_eq!(
            twice
                .clock()
                .expect("timed")
                .remaining(Color::White, at(10)),
            once.clock().expect("timed").remaining(Color::White, at(10)) + 60_000
        );
    }

    #[test]
    fn a_game_remembers_only_its_latest_arbiter_requests() {
        let mut game = timed_game();
        for i in 0..=REMEMBERED_REQUESTS {
            let request = AdminRequest::new(&key(&format!("r{i}")), &["pause", &i.to_string()]);
            let decide = |g: &Game| g.adjust_clock(Color::Black, 1, "tick", "arbiter", at(10));
            game = changed(game.run_admin_request(Some(&request), decide)).0;
        }
        assert_eq!(game.admin_requests().len(), REMEMBERED_REQUESTS);
        assert!(game.admin_requests().iter().all(|r| r.id != "r0"));
    }
}
