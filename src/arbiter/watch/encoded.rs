//! An event's wire form, made once per replica.
//!
//! A game's follower hands the same event to every watcher of the game on
//! this replica, and an event's follower the same entry to every watcher of
//! the event; whoever sends it first turns it into bytes, and every other
//! stream sends (or wraps) those bytes as they are. The watch machinery
//! holds the slot without knowing the encoding: the api layer fills it
//! (a game's follower's with the whole `WatchGame` message, an event's
//! follower's with the game's event, which each stream wraps with its own
//! cursor).

use std::sync::OnceLock;

use bytes::Bytes;

/// The bytes an item is sent as, made by the first stream to send it.
#[derive(Debug, Default)]
pub struct Encoded(OnceLock<Bytes>);

impl Encoded {
    /// The item's bytes: `encode`'s, the first time, and the same bytes
    /// (shared, not copied) every time after.
    pub fn get_or_encode(&self, encode: impl FnOnce() -> Bytes) -> Bytes {
        self.0.get_or_init(encode).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_encodes_once_and_shares_the_bytes() {
        let encoded = Encoded::default();
        let first = encoded.get_or_encode(|| Bytes::from_static(b"wire"));
        let second = encoded.get_or_encode(|| unreachable!("encoded again"));
        assert_eq!(first, second);
        assert_eq!(first.as_ptr(), second.as_ptr());
    }
}
