//! The watch streams: a game's events, or every game of an event, as
//! protobuf messages until the watcher ends, fails or the server shuts down.

use std::pin::Pin;

use futures::Stream;
use tokio_util::sync::CancellationToken;
use tonic::Status;

use super::convert;
use crate::{
    arbiter::{EventWatcher, Watcher},
    proto,
};

/// The stream of `WatchGame`.
pub type GameStream = Pin<Box<dyn Stream<Item = Result<proto::WatchGameResponse, Status>> + Send>>;

/// The stream of `WatchEvent`.
pub type EventStream =
    Pin<Box<dyn Stream<Item = Result<proto::WatchEventResponse, Status>> + Send>>;

/// A game's snapshot and events, ending with the game or on an error
/// (which is sent first).
pub fn game(watcher: Watcher, shutdown: CancellationToken) -> GameStream {
    Box::pin(futures::stream::unfold(Some(watcher), move |state| {
        let shutdown = shutdown.clone();
        async move {
            let mut watcher = state?;
            match watcher.next(&shutdown).await {
                Ok(Some(item)) => Some((
                    Ok(proto::WatchGameResponse {
                        event: Some(convert::watch_item(&item)),
                    }),
                    Some(watcher),
                )),
                Ok(None) => None,
                Err(err) => Some((Err(Status::from(err)), None)),
            }
        }
    }))
}

/// Every event of every game of an event, each with the cursor to resume
/// after it; it ends only on an error (which is sent first).
pub fn event(watcher: EventWatcher, shutdown: CancellationToken) -> EventStream {
    Box::pin(futures::stream::unfold(Some(watcher), move |state| {
        let shutdown = shutdown.clone();
        async move {
            let mut watcher = state?;
            match watcher.next(&shutdown).await {
                Ok(update) => Some((
                    Ok(proto::WatchEventResponse {
                        game_id: update.game_id.to_string(),
                        event: Some(convert::game_event(&update.event)),
                        cursor: update.cursor,
                    }),
                    Some(watcher),
                )),
                Err(err) => Some((Err(Status::from(err)), None)),
            }
        }
    }))
}
