//! A fair-play signal as its game's list stores it: one line of text,
//! `<color> <kind> <client ms or -> <server ms>` (`w focus_lost
//! 1800000000000 1800000000042`), short and readable with `redis-cli`.
//!
//! A signal that repeats the latest one ([`ClientSignal::repeats`]) is
//! recognised by the store from the start of its entry: everything but the
//! server's time, [`repeat_key`].

use shakmaty::Color;

use crate::domain::{ClientSignal, SignalKind, Timestamp, stored::record_error::RecordError};

/// The stored entry of `signal`.
pub fn encode(signal: &ClientSignal) -> String {
    format!("{}{}", repeat_key(signal), signal.received_at.unix_millis())
}

/// The start every entry of `seat`'s signals shares.
pub fn seat_key(seat: Color) -> &'static str {
    seat.fold_wb("w ", "b ")
}

/// The start of `signal`'s entry that every repeat of it shares.
pub fn repeat_key(signal: &ClientSignal) -> String {
    let client = signal
        .client_at
        .map_or_else(|| "-".to_owned(), |at| at.unix_millis().to_string());
    format!(
        "{} {} {client} ",
        signal.color.fold_wb("w", "b"),
        signal.kind.name()
    )
}

/// The signal an entry holds.
pub fn decode(entry: &[u8]) -> Result<ClientSignal, RecordError> {
    let unreadable = || RecordError::Signal {
        entry: String::from_utf8_lossy(entry).chars().take(64).collect(),
    };
    let text = std::str::from_utf8(entry).map_err(|_| unreadable())?;
    let mut fields = text.split(' ');
    let mut next = || fields.next().ok_or_else(unreadable);
    let color = match next()? {
        "w" => Color::White,
        "b" => Color::Black,
        _ => return Err(unreadable()),
    };
    let kind = SignalKind::named(next()?).ok_or_else(unreadable)?;
    let millis = |text: &str| {
        text.parse::<u64>()
            .map(Timestamp::from_unix_millis)
            .map_err(|_| unreadable())
    };
    let client_at = match next()? {
        "-" => None,
        text => Some(millis(text)?),
    };
    let received_at = millis(next()?)?;
    if fields.next().is_some() {
        return Err(unreadable());
    }
    Ok(ClientSignal {
        color,
        kind,
        client_at,
        received_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signal_reads_back_and_its_repeats_share_its_key() {
        for color in [Color::White, Color::Black] {
            for kind in SignalKind::ALL {
                for client_at in [None, Some(Timestamp::from_unix_millis(1_800_000_000_000))] {
                    let signal = ClientSignal {
                        color,
                        kind,
                        client_at,
                        received_at: Timestamp::from_unix_millis(1_800_000_000_042),
                    };
                    let entry = encode(&signal);
                    assert_eq!(decode(entry.as_bytes()), Ok(signal), "{entry}");
                    let later = ClientSignal {
                        received_at: Timestamp::from_unix_millis(1_800_000_009_000),
                        ..signal
                    };
                    assert!(encode(&later).starts_with(&repeat_key(&signal)));
                }
            }
        }
        assert_eq!(
            encode(&ClientSignal {
                color: Color::White,
                kind: SignalKind::FocusLost,
                client_at: None,
                received_at: Timestamp::from_unix_millis(7),
            }),
            "w focus_lost - 7"
        );
    }

    #[test]
    fn a_key_is_not_the_start_of_another_signals_entry() {
        // The client time ends with a space, so 1 is not read as 10's start.
        let signal = |client: u64| ClientSignal {
            color: Color::Black,
            kind: SignalKind::Disconnected,
            client_at: Some(Timestamp::from_unix_millis(client)),
            received_at: Timestamp::from_unix_millis(99),
        };
        assert!(!encode(&signal(10)).starts_with(&repeat_key(&signal(1))));
    }

    #[test]
    fn a_damaged_entry_is_refused() {
        for bad in [
            "",
            "w",
            "x focus_lost - 7",
            "w blurred - 7",
            "w focus_lost ? 7",
            "w focus_lost - ",
            "w focus_lost - 7 8",
            "w focus_lost -1 7",
        ] {
            assert!(
                matches!(decode(bad.as_bytes()), Err(RecordError::Signal { .. })),
                "{bad:?}"
            );
        }
        assert!(decode(&[0xff, 0x20]).is_err());
    }
}
