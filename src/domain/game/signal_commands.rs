//! A signal from a player's client for the game's fair-play record.

use shakmaty::Color;

use crate::domain::{ClientSignal, Game, Rejection, SignalKind, Timestamp};

impl Game {
    /// The signal `kind` from `seat`'s client (sent at `client_at` by its
    /// clock, if it said), received at `now`, as the game's fair-play
    /// record keeps it. Refused in a game that keeps no record, and once
    /// the game is over; the game itself is unchanged either way (a signal
    /// is evidence, never a ruling).
    pub fn accept_signal(
        &self,
        seat: Color,
        kind: SignalKind,
        client_at: Option<Timestamp>,
        now: Timestamp,
    ) -> Result<ClientSignal, Rejection> {
        if !self.setup().records_fair_play() {
            return Err(Rejection::FairPlayNotRecorded);
        }
        self.ensure_active()?;
        Ok(ClientSignal::received(
            seat,
            kind,
            "client_time",
            client_at,
            now,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use crate::domain::{
        Decision, Game, Rejection, SignalKind, Timestamp,
        test_support::{at, game_id, plain_setup, seats},
    };

    fn game(fair_play: bool) -> Game {
        let new = plain_setup().with_fair_play_record(fair_play);
        Game::create(game_id(), new, seats(), at(0)).0
    }

    #[test]
    fn a_signal_is_accepted_only_in_a_game_in_play_that_keeps_a_record() {
        let now = at(1_000);
        assert_eq!(
            game(false).accept_signal(Color::White, SignalKind::FocusLost, None, now),
            Err(Rejection::FairPlayNotRecorded)
        );
        let mut kept = game(true);
        let sent = Timestamp::from_unix_millis(now.unix_millis() - 40);
        let signal = kept
            .accept_signal(Color::Black, SignalKind::Disconnected, Some(sent), now)
            .expect("accepted");
        assert_eq!(
            (signal.color, signal.client_at, signal.received_at),
            (Color::Black, Some(sent), now)
        );
        assert!(matches!(
            kept.accept_signal(
                Color::Black,
                SignalKind::Disconnected,
                Some(now.plus_millis(86_400_001)),
                now
            ),
            Err(Rejection::InvalidField(err)) if err.field == "client_time"
        ));
        for (ply, text) in ["f3", "e5", "g4", "Qh4#"].into_iter().enumerate() {
            let seat = kept.side_to_move();
            let ply = crate::domain::Ply::new(u32::try_from(ply).expect("a ply"));
            match kept.play_move(seat, ply, text, false, now) {
                Ok(Decision::Changed { game, .. }) => kept = *game,
                other => panic!("{text}: {other:?}"),
            }
        }
        assert_eq!(
            kept.accept_signal(Color::White, SignalKind::FocusLost, None, now),
            Err(Rejection::GameOver)
        );
    }
}
