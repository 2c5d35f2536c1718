//! A game's fair-play record: the signals a player's client sends, and the
//! record's export for the people who review fair play.

use super::{Arbiter, ArbiterError, codec};
use crate::{
    domain::{
        ClientSignal, GameId, MAX_SIGNALS_PER_GAME, MAX_SIGNALS_PER_SEAT, Rejection, SignalKind,
        Timestamp, TokenHash,
        access::{Action, Principal},
        stored::signal_record,
        tournament::fair_play_export::{self, FairPlayRecord},
    },
    store::{Corruption, SignalAdded, StoreError},
};

/// What a signal did to its game's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalRecorded {
    /// Recorded now; `false`: it repeats the latest signal, already
    /// recorded.
    pub recorded: bool,
    /// The signals the game's record holds (after this one), when known.
    pub held: Option<usize>,
    /// The signal as received.
    pub signal: ClientSignal,
}

/// A game's fair-play record in its two forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FairPlayExport {
    /// The record, whose `to_json` is the JSON document.
    pub record: FairPlayRecord,
    /// The game's PGN with the record in its comments.
    pub pgn: String,
}

impl Arbiter {
    /// Records signal `kind` from the client of the seat holding `token`
    /// (sent at `client_at` by its clock, if it said) in the game's
    /// fair-play record. The game itself is unchanged.
    pub async fn report_signal(
        &self,
        id: &GameId,
        token: &str,
        kind: SignalKind,
        client_at: Option<Timestamp>,
    ) -> Result<SignalRecorded, ArbiterError> {
        let (game, now) = self.load_current(id).await?;
        let seat = game
            .seat_of(&TokenHash::of(token))
            .ok_or(ArbiterError::NotASeat)?;
        let signal = game
            .accept_signal(seat, kind, client_at, now)
            .map_err(|rejection| ArbiterError::refused(rejection, &game))?;
        let entry = signal_record::encode(&signal);
        let key = signal_record::repeat_key(&signal);
        // Each seat's signals apart: a repeat is of the seat's own latest,
        // and each seat has its own share of the record.
        let group = signal_record::seat_key(seat);
        let added = self
            .store
            .add_signal(
                id,
                entry.as_bytes(),
                key.as_bytes(),
                (group.as_bytes(), MAX_SIGNALS_PER_SEAT),
            )
            .await?;
        match added {
            SignalAdded::Added(held) => Ok(SignalRecorded {
                recorded: true,
                held: Some(held),
                signal,
            }),
            SignalAdded::Repeat => Ok(SignalRecorded {
                recorded: false,
                held: None,
                signal,
            }),
            SignalAdded::Full => Err(ArbiterError::refused(
                Rejection::FairPlayRecordFull {
                    limit: MAX_SIGNALS_PER_SEAT,
                },
                &game,
            )),
        }
    }

    /// Game `id`'s fair-play record, for `by` (who must be allowed to
    /// inspect the game's event). Refused for a game that keeps none.
    pub async fn fair_play_record(
        &self,
        id: &GameId,
        by: &Principal,
    ) -> Result<FairPlayExport, ArbiterError> {
        // Who may read it is known from the game as stored, before a time
        // ending due is committed by the read of the game as it stands.
        let (stored, _) = self.load(id).await?;
        by.authorize(Action::Inspect, stored.pairing().event_id.as_ref())?;
        let (game, now) = self.load_current(id).await?;
        if !game.setup().records_fair_play() {
            return Err(ArbiterError::refused(Rejection::FairPlayNotRecorded, &game));
        }
        let read = self.store.events_after(id, 0).await?;
        let events = codec::decode_log(id, 0, usize::MAX, &read)?;
        let signals = self
            .store
            .signals(id, MAX_SIGNALS_PER_GAME)
            .await?
            .iter()
            .map(|entry| signal_record::decode(entry))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| {
                StoreError::Corrupt(Corruption::Signal {
                    game: id.clone(),
                    source,
                })
            })?;
        let record = fair_play_export::record(&game, &events, &signals, now);
        let pgn = fair_play_export::pgn_of(&game, &events, &signals, &record);
        Ok(FairPlayExport { record, pgn })
    }
}
