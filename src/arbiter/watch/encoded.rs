//! An event's wire form, made once per replica; a snapshot's, once for the
//! watchers that start from the same read of a game.
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

/// A message's wire form made with a key, made once for the senders that
/// have the same key: a snapshot that watchers starting together share is
/// sent with each one's resume token. Those tokens are the same (the
/// token of the snapshot's version), but each sender's is checked: one
/// with another key encodes for itself.
#[derive(Debug)]
pub struct EncodedWith<K>(OnceLock<(K, Bytes)>);

impl<K> Default for EncodedWith<K> {
    fn default() -> Self {
        Self(OnceLock::new())
    }
}

impl<K: Clone + PartialEq> EncodedWith<K> {
    /// The bytes made for `key`, made with `encode` if none are yet. Two
    /// first senders at once may each encode; one's bytes are kept.
    pub fn get_or_encode(&self, key: &K, encode: impl FnOnce() -> Bytes) -> Bytes {
        match self.0.get() {
            Some((kept, bytes)) if kept == key => bytes.clone(),
            Some(_) => encode(),
            None => {
                let bytes = encode();
                // Lost to another first sender: its bytes are as good.
                let _ = self.0.set((key.clone(), bytes.clone()));
                bytes
            }
        }
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

    #[test]
    fn a_keyed_form_is_shared_by_the_senders_of_its_key_only() {
        let encoded = EncodedWith::<u64>::default();
        let first = encoded.get_or_encode(&7, || Bytes::from_static(b"seven"));
        let again = encoded.get_or_encode(&7, || unreachable!("encoded again"));
        assert_eq!(first.as_ptr(), again.as_ptr());
        let other = encoded.get_or_encode(&8, || Bytes::from_static(b"eight"));
        assert_eq!(other, Bytes::from_static(b"eight"));
        // The first key's bytes are still the ones kept.
        let kept = encoded.get_or_encode(&7, || unreachable!("encoded again"));
        assert_eq!(kept.as_ptr(), first.as_ptr());
    }
}
