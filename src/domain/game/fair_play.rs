//! The fair-play record of a game, kept when its event asks for one: what
//! the platform reports with each move (the network lag it measured, the
//! move time the player's client measured), and the signals it relays from
//! the player's client (gone and back, the game's window out of focus and
//! in again). The server adds its own receipt time to each.
//!
//! The record is evidence for the people who review fair play, never a
//! ruling: nothing in it changes a game. A move's report is stored in the
//! move's record; the signals are stored beside the game, at most
//! [`MAX_SIGNALS_PER_GAME`] of them.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::domain::{FieldError, ReportedLag, Timestamp, game::serde_chess};

/// The most signals one seat's client may have recorded in a game; more
/// are refused (the opponent's share is its own).
pub const MAX_SIGNALS_PER_SEAT: usize = 500;

/// The most signals one game records: both seats' shares.
pub const MAX_SIGNALS_PER_GAME: usize = 2 * MAX_SIGNALS_PER_SEAT;

/// The longest move time a client may report: a day (no time control
/// gives a move more).
pub const MAX_CLIENT_MOVE_MS: u64 = 86_400_000;

/// How far a client's time may be from the server's: a day. A client's
/// clock may be wrong, and the record keeps both times, but a time further
/// off is no measurement at all.
pub const MAX_CLIENT_CLOCK_SKEW_MS: u64 = 86_400_000;

/// What the platform reports with a move: the network lag it measured
/// (which a game with lag compensation also credits back), and the move
/// time the player's client measured, when it sent one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveReport {
    /// The lag reported.
    #[serde(rename = "lag_ms")]
    pub lag: ReportedLag,
    /// The client's own measure of the move's thinking time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_ms: Option<u64>,
}

impl MoveReport {
    /// Nothing reported.
    pub const NONE: Self = Self {
        lag: ReportedLag::NONE,
        client_ms: None,
    };

    /// A report of `lag` and the client's move time as sent in `field`
    /// (`None`: not sent), refused when negative or above
    /// [`MAX_CLIENT_MOVE_MS`].
    pub fn new(
        lag: ReportedLag,
        field: &'static str,
        client_ms: Option<i64>,
    ) -> Result<Self, FieldError> {
        let client_ms = client_ms
            .map(|ms| {
                let ms = u64::try_from(ms)
                    .map_err(|_| FieldError::new(field, "must not be negative"))?;
                if ms > MAX_CLIENT_MOVE_MS {
                    return Err(FieldError::new(
                        field,
                        format!("must not exceed {MAX_CLIENT_MOVE_MS} ms"),
                    ));
                }
                Ok(ms)
            })
            .transpose()?;
        Ok(Self { lag, client_ms })
    }
}

impl From<ReportedLag> for MoveReport {
    fn from(lag: ReportedLag) -> Self {
        Self {
            lag,
            client_ms: None,
        }
    }
}

/// What a player's client signalled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    /// The client lost its connection.
    Disconnected,
    /// The client is connected again.
    Reconnected,
    /// The game's window or tab lost the focus.
    FocusLost,
    /// The game's window or tab has the focus again.
    FocusRegained,
}

impl SignalKind {
    /// Every kind, in the order the API numbers them.
    pub const ALL: [SignalKind; 4] = [
        SignalKind::Disconnected,
        SignalKind::Reconnected,
        SignalKind::FocusLost,
        SignalKind::FocusRegained,
    ];

    /// The kind's name in the stored form and the exports.
    pub fn name(self) -> &'static str {
        match self {
            SignalKind::Disconnected => "disconnected",
            SignalKind::Reconnected => "reconnected",
            SignalKind::FocusLost => "focus_lost",
            SignalKind::FocusRegained => "focus_regained",
        }
    }

    /// The kind of `name`, as [`SignalKind::name`] writes it.
    pub fn named(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// One signal in a game's record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientSignal {
    /// Whose client.
    #[serde(with = "serde_chess::color")]
    pub color: Color,
    /// What it signalled.
    pub kind: SignalKind,
    /// When, by the client's clock, if it said.
    pub client_at: Option<Timestamp>,
    /// When the server received it.
    pub received_at: Timestamp,
}

impl ClientSignal {
    /// A signal from `color`'s client received at `now`, with the
    /// client's time as sent in `field` (`None`: not sent), refused when
    /// it is more than [`MAX_CLIENT_CLOCK_SKEW_MS`] from `now`.
    pub fn received(
        color: Color,
        kind: SignalKind,
        field: &'static str,
        client_at: Option<Timestamp>,
        now: Timestamp,
    ) -> Result<Self, FieldError> {
        if let Some(at) = client_at
            && at.millis_since(now).max(now.millis_since(at)) > MAX_CLIENT_CLOCK_SKEW_MS
        {
            return Err(FieldError::new(
                field,
                format!(
                    "must be within {} hours of the server's time",
                    MAX_CLIENT_CLOCK_SKEW_MS / 3_600_000
                ),
            ));
        }
        Ok(Self {
            color,
            kind,
            client_at,
            received_at: now,
        })
    }

    /// Whether `other` says what this signal says (the same client, kind
    /// and client time, whenever received): a relay's retry, or a repeat
    /// that adds nothing (a client cannot lose the focus twice without
    /// regaining it), recorded once.
    pub fn repeats(&self, other: &ClientSignal) -> bool {
        self.color == other.color && self.kind == other.kind && self.client_at == other.client_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Timestamp = Timestamp::from_unix_millis(1_800_000_000_000);

    #[test]
    fn a_client_move_time_is_a_day_at_most_and_never_negative() {
        let lag = ReportedLag::NONE;
        assert_eq!(
            MoveReport::new(lag, "client_move_millis", Some(86_400_000)),
            Ok(MoveReport {
                lag,
                client_ms: Some(86_400_000)
            })
        );
        assert_eq!(
            MoveReport::new(lag, "client_move_millis", None),
            Ok(MoveReport::NONE)
        );
        for bad in [-1, 86_400_001, i64::MAX, i64::MIN] {
            let err = MoveReport::new(lag, "client_move_millis", Some(bad)).expect_err("refused");
            assert_eq!(err.field, "client_move_millis");
        }
    }

    #[test]
    fn a_client_time_a_day_off_is_refused() {
        let day = MAX_CLIENT_CLOCK_SKEW_MS;
        for ok in [
            None,
            Some(NOW),
            Some(NOW.plus_millis(day)),
            Some(Timestamp::from_unix_millis(NOW.unix_millis() - day)),
        ] {
            let signal =
                ClientSignal::received(Color::White, SignalKind::FocusLost, "client_time", ok, NOW)
                    .expect("accepted");
            assert_eq!(signal.client_at, ok);
            assert_eq!(signal.received_at, NOW);
        }
        for bad in [
            NOW.plus_millis(day + 1),
            Timestamp::from_unix_millis(NOW.unix_millis() - day - 1),
        ] {
            let err = ClientSignal::received(
                Color::Black,
                SignalKind::Disconnected,
                "client_time",
                Some(bad),
                NOW,
            )
            .expect_err("refused");
            assert_eq!(err.field, "client_time");
        }
    }

    #[test]
    fn a_repeat_says_the_same_whenever_it_arrives() {
        let signal = |color, kind, client_at: Option<u64>, received: u64| ClientSignal {
            color,
            kind,
            client_at: client_at.map(Timestamp::from_unix_millis),
            received_at: Timestamp::from_unix_millis(received),
        };
        let first = signal(Color::White, SignalKind::FocusLost, Some(10), 20);
        assert!(first.repeats(&signal(Color::White, SignalKind::FocusLost, Some(10), 99)));
        assert!(!first.repeats(&signal(Color::White, SignalKind::FocusLost, Some(11), 20)));
        assert!(!first.repeats(&signal(Color::White, SignalKind::FocusLost, None, 20)));
        assert!(!first.repeats(&signal(Color::Black, SignalKind::FocusLost, Some(10), 20)));
        assert!(!first.repeats(&signal(
            Color::White,
            SignalKind::FocusRegained,
            Some(10),
            20
        )));
        for kind in SignalKind::ALL {
            assert_eq!(SignalKind::named(kind.name()), Some(kind));
        }
        assert_eq!(SignalKind::named("blurred"), None);
    }
}
