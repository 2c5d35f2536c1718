//! The server streams: a game's events, every game of an event, an
//! event's PGN and its audit log, as protobuf messages until they end,
//! fail or the server shuts down.

use std::pin::Pin;

use bytes::{BufMut, Bytes, BytesMut};
use futures::{Stream, StreamExt};
use prost::Message;
use tokio_util::sync::CancellationToken;
use tonic::Status;

use super::{convert, limits::StreamPermit};
use crate::{
    arbiter::{
        Arbiter, ArbiterError, AuditFilter, EventUpdate, EventWatcher, ListCursor, Reader,
        WatchItem, Watcher,
    },
    domain::EventId,
    proto,
};

/// A stream of messages already encoded, each sent as it is.
pub trait Frames: Stream<Item = Result<Bytes, Status>> + Send + 'static {}

impl<S: Stream<Item = Result<Bytes, Status>> + Send + 'static> Frames for S {}

/// The stream of `WatchGame`, as the generated service takes it.
pub type GameStream = Pin<Box<dyn Stream<Item = Result<proto::WatchGameResponse, Status>> + Send>>;

/// The stream of `WatchEvent`, as the generated service takes it.
pub type EventStream =
    Pin<Box<dyn Stream<Item = Result<proto::WatchEventResponse, Status>> + Send>>;

/// The stream of `ExportPgn`.
pub type PgnStream = Pin<Box<dyn Stream<Item = Result<proto::ExportPgnResponse, Status>> + Send>>;

/// The stream of an audit log's export.
pub type AuditStream =
    Pin<Box<dyn Stream<Item = Result<proto::ExportAuditLogResponse, Status>> + Send>>;

/// Games of an event exported per read of its list.
const PGN_PAGE: usize = 20;

/// A game's snapshot, events and heartbeats, ending with the game or on an
/// error (which is sent first), each as its gRPC message's bytes. An event
/// handed to many watchers by the replica's follower is encoded once, by
/// the first of its streams to send it; the others send the same bytes.
/// So is a snapshot that watchers starting together share.
pub fn game(
    game_id: String,
    mut watcher: Watcher,
    shutdown: CancellationToken,
    permit: StreamPermit,
) -> impl Frames {
    // Everything the stream holds lives in place, in the one allocation its
    // body is, for as long as the stream: nothing is moved with each event.
    // The permit is freed when the stream ends, fails or is cancelled. A
    // watcher waiting on its game's events learns of the shutdown from the
    // hub; the server's token itself serves the rarer waits (no child token
    // a stream: one more allocation and a lock of the shared token with
    // each start).
    async_stream::stream! {
        let _permit = permit;
        loop {
            match watcher.next(&shutdown).await {
                Ok(Some(item)) => yield Ok(game_frame(&game_id, &item)),
                Ok(None) => break,
                Err(err) => {
                    yield Err(Status::from(err));
                    break;
                }
            }
        }
    }
}

/// `item` of game `game_id`'s stream as its message's bytes.
fn game_frame(game_id: &str, item: &WatchItem) -> Bytes {
    use proto::watch_game_response::Kind;
    match item {
        WatchItem::Snapshot(snapshot, token) => snapshot.encoded.get_or_encode(token, || {
            encode(proto::WatchGameResponse {
                kind: Some(Kind::Snapshot(convert::game_view(&snapshot.view))),
                resume_token: token.to_string(),
            })
        }),
        WatchItem::Event(shared) => shared.encoded.get_or_encode(|| {
            encode(proto::WatchGameResponse {
                kind: Some(Kind::Event(convert::game_event(game_id, &shared.event))),
                resume_token: shared.token.to_string(),
            })
        }),
        WatchItem::Heartbeat(beat) => encode(proto::WatchGameResponse {
            kind: Some(Kind::Heartbeat(convert::heartbeat(beat))),
            resume_token: String::new(),
        }),
    }
}

/// The bytes of a gRPC message's prefix: a compression flag (never set
/// here) and the message's length.
const PREFIX: usize = 5;

/// `message` as a gRPC message: its prefix, then its bytes.
fn encode(message: impl Message) -> Bytes {
    let len = message.encoded_len();
    let mut frame = BytesMut::with_capacity(PREFIX + len);
    put_prefix(&mut frame, len);
    // The buffer has the room the message says it needs.
    let _ = message.encode(&mut frame);
    frame.freeze()
}

/// Writes the prefix of an uncompressed message of `len` bytes.
fn put_prefix(frame: &mut BytesMut, len: usize) {
    frame.put_u8(0);
    // A message over 4 GiB is not one a stream makes (a snapshot is tens of
    // kilobytes at most).
    frame.put_u32(u32::try_from(len).unwrap_or(u32::MAX));
}

/// `frames` decoded into their messages: the stream as the generated
/// service, which encodes each message itself, takes it.
pub fn decoded<M>(frames: impl Frames) -> Pin<Box<dyn Stream<Item = Result<M, Status>> + Send>>
where
    M: Message + Default + 'static,
{
    Box::pin(frames.map(|frame| {
        frame.and_then(|bytes| {
            M::decode(bytes.get(PREFIX..).unwrap_or_default())
                .map_err(|err| Status::internal(format!("a frame does not decode: {err}")))
        })
    }))
}

/// Every event of every game of an event, and heartbeats, each with the
/// cursor to resume after it; it ends only on an error (which is sent
/// first). Each message goes as its bytes: a game's event handed to many
/// watchers by the replica's follower of the event is encoded once, by the
/// first of its streams to send it, and each stream wraps those bytes with
/// its own cursor.
pub fn event(
    mut watcher: EventWatcher,
    shutdown: CancellationToken,
    permit: StreamPermit,
) -> impl Frames {
    async_stream::stream! {
        let _permit = permit;
        // An event's watcher waits on the token with every wait (it has no
        // hub item to end it): a child of its own keeps those waits off the
        // lock the server's token has for every stream.
        let shutdown = shutdown.child_token();
        loop {
            match watcher.next(&shutdown).await {
                Ok(update) => yield Ok(event_update_frame(update)),
                Err(err) => {
                    yield Err(Status::from(err));
                    break;
                }
            }
        }
    }
}

/// An update of an event's stream as its message's bytes.
fn event_update_frame(update: EventUpdate) -> Bytes {
    use proto::watch_event_response::Kind;
    match (&update.event, &update.match_score) {
        (Some((game_id, event, encoded)), _) => {
            let event = encoded.get_or_encode(|| {
                convert::game_event(game_id.as_str(), event)
                    .encode_to_vec()
                    .into()
            });
            event_frame(&update.cursor, &event)
        }
        (None, Some(score)) => encode(proto::WatchEventResponse {
            kind: Some(Kind::MatchScore(convert::match_score(score))),
            cursor: update.cursor,
        }),
        (None, None) => encode(proto::WatchEventResponse {
            kind: Some(Kind::Heartbeat(proto::Heartbeat {
                server_time: Some(convert::timestamp(update.at)),
                version: 0,
                clock: None,
            })),
            cursor: update.cursor,
        }),
    }
}

/// The bytes of `WatchEventResponse { kind: event, cursor }` as a gRPC
/// message, the event's own message given: the same bytes as the whole
/// message's encoding, after its prefix.
fn event_frame(cursor: &str, event: &[u8]) -> Bytes {
    use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len};
    /// `WatchEventResponse.cursor`.
    const CURSOR: u32 = 3;
    /// `WatchEventResponse.event`.
    const EVENT: u32 = 1;
    let field = |tag, len: usize| key_len(tag) + encoded_len_varint(len as u64) + len;
    let len = field(EVENT, event.len())
        + if cursor.is_empty() {
            0
        } else {
            field(CURSOR, cursor.len())
        };
    let mut frame = BytesMut::with_capacity(PREFIX + len);
    put_prefix(&mut frame, len);
    // In the order of their tags, as prost writes them.
    encode_key(EVENT, WireType::LengthDelimited, &mut frame);
    encode_varint(event.len() as u64, &mut frame);
    frame.put_slice(event);
    if !cursor.is_empty() {
        encode_key(CURSOR, WireType::LengthDelimited, &mut frame);
        encode_varint(cursor.len() as u64, &mut frame);
        frame.put_slice(cursor.as_bytes());
    }
    frame.freeze()
}

/// One game's PGN as an `ExportPgn` message: the text ends with a blank
/// line, so that the texts of a stream's messages concatenated make one PGN
/// file.
fn pgn_message(game_id: String, mut pgn: String) -> proto::ExportPgnResponse {
    while !pgn.ends_with("\n\n") {
        pgn.push('\n');
    }
    proto::ExportPgnResponse { game_id, pgn }
}

/// One game's PGN as a stream of one message.
pub fn single_pgn(game_id: String, pgn: String) -> PgnStream {
    Box::pin(futures::stream::once(async move {
        Ok(pgn_message(game_id, pgn))
    }))
}

/// Every game of an event in PGN, read a page of the event's list at a
/// time, so that an event of any size streams in bounded steps.
/// Games are exported as `reader` sees them.
pub fn event_pgn(
    arbiter: Arbiter,
    event_id: EventId,
    reader: Reader,
    shutdown: CancellationToken,
) -> PgnStream {
    struct Position {
        after: Option<ListCursor>,
        buffered: std::collections::VecDeque<proto::ExportPgnResponse>,
        done: bool,
    }
    let start = Position {
        after: None,
        buffered: std::collections::VecDeque::new(),
        done: false,
    };
    Box::pin(futures::stream::unfold(Some(start), move |state| {
        let arbiter = arbiter.clone();
        let event_id = event_id.clone();
        let reader = reader.clone();
        let shutdown = shutdown.clone();
        async move {
            let mut position = state?;
            loop {
                if let Some(message) = position.buffered.pop_front() {
                    return Some((Ok(message), Some(position)));
                }
                if position.done {
                    return None;
                }
                if shutdown.is_cancelled() {
                    return Some((Err(Status::from(ArbiterError::ShuttingDown)), None));
                }
                match arbiter
                    .export_event_pgn(&event_id, position.after.take(), PGN_PAGE, &reader)
                    .await
                {
                    Ok((games, next)) => {
                        position.done = next.is_none();
                        position.after = next;
                        position.buffered.extend(
                            games
                                .into_iter()
                                .map(|(id, pgn)| pgn_message(id.to_string(), pgn)),
                        );
                    }
                    Err(err) => return Some((Err(Status::from(err)), None)),
                }
            }
        }
    }))
}

/// The whole audit log of `event_id` (`None`: the platform's), a page of
/// `AUDIT_PAGE` entries a message, read as the stream is read.
pub fn audit_log(
    arbiter: Arbiter,
    event_id: Option<EventId>,
    shutdown: CancellationToken,
) -> AuditStream {
    /// Entries a message.
    const AUDIT_PAGE: usize = 100;
    let filter = AuditFilter::default();
    Box::pin(futures::stream::unfold(
        Some(String::new()),
        move |cursor| {
            let arbiter = arbiter.clone();
            let event_id = event_id.clone();
            let filter = filter.clone();
            let shutdown = shutdown.clone();
            async move {
                let mut cursor = cursor?;
                loop {
                    if shutdown.is_cancelled() {
                        return Some((Err(Status::from(ArbiterError::ShuttingDown)), None));
                    }
                    let page = match arbiter
                        .audit_log(event_id.as_ref(), &filter, &cursor, AUDIT_PAGE)
                        .await
                    {
                        Ok(page) => page,
                        Err(err) => return Some((Err(Status::from(err)), None)),
                    };
                    let next = page.next;
                    if page.entries.is_empty() {
                        // A page may hold nothing while more follows.
                        match next {
                            Some(more) => {
                                cursor = more;
                                continue;
                            }
                            None => return None,
                        }
                    }
                    let mut json_lines = String::new();
                    for entry in &page.entries {
                        json_lines.push_str(&entry.json_line());
                        json_lines.push('\n');
                    }
                    let message = proto::ExportAuditLogResponse { json_lines };
                    return Some((Ok(message), next));
                }
            }
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's event as the feed carries it.
    fn game_event(version: i32) -> proto::GameEvent {
        proto::GameEvent {
            game_id: "g-1".to_owned(),
            version,
            ..Default::default()
        }
    }

    #[test]
    fn a_frame_is_its_messages_prefix_and_encoding() {
        let message = proto::WatchGameResponse {
            resume_token: "t".repeat(300),
            ..Default::default()
        };
        let frame = encode(message.clone());
        let bytes = message.encode_to_vec();
        assert_eq!(frame.len(), PREFIX + bytes.len());
        assert_eq!(frame[..PREFIX], [0, 0, 0, 1, 47]);
        assert_eq!(&frame[PREFIX..], bytes.as_slice());
    }

    #[test]
    fn an_event_frame_is_the_whole_messages_encoding() {
        for (cursor, event) in [
            ("AAEC".to_owned(), game_event(7)),
            (String::new(), game_event(1)),
            ("c".repeat(300), game_event(i32::MAX)),
        ] {
            let whole = proto::WatchEventResponse {
                cursor: cursor.clone(),
                kind: Some(proto::watch_event_response::Kind::Event(event.clone())),
            };
            let frame = event_frame(&cursor, &event.encode_to_vec());
            let message = whole.encode_to_vec();
            assert_eq!(frame[0], 0, "not compressed");
            assert_eq!(frame[1..PREFIX], (message.len() as u32).to_be_bytes());
            assert_eq!(&frame[PREFIX..], message.as_slice());
            assert_eq!(
                proto::WatchEventResponse::decode(&frame[PREFIX..]).expect("decodes"),
                whole
            );
        }
    }
}
