//! Commit announcements (pub/sub) and each tournament event's feed of its
//! games' events (a stream per bucket).

use std::{
    collections::HashMap,
    sync::atomic::{AtomicUsize, Ordering},
    time::Duration,
};

use async_trait::async_trait;
use redis::RedisError;

use super::{
    REQUEST_DEADLINE, RawEntries, RedisStore, count, decode_entries,
    keys::{BUCKETS, Keys, feed_position, stream_id},
};
use crate::{
    domain::{EventId, GameId, Timestamp},
    store::{
        Change, ChangeFeed, ChangeFeeds, Corruption, EventLog, FeedEntry, FeedPosition, StoreError,
        StoredEvent,
    },
};

#[async_trait]
impl ChangeFeeds for RedisStore {
    async fn changes(&self) -> Result<Box<dyn ChangeFeed>, StoreError> {
        static ATTEMPTS: AtomicUsize = AtomicUsize::new(0);
        let client = self
            .endpoint
            .subscriber(ATTEMPTS.fetch_add(1, Ordering::Relaxed))
            .await?;
        let mut pubsub = self.endpoint.bounded(client.get_async_pubsub()).await?;
        self.endpoint
            .bounded(pubsub.subscribe(self.keys.changes_channel()))
            .await?;
        let (sink, stream) = pubsub.split();
        Ok(Box::new(RedisFeed {
            sink,
            stream,
            next_ping: tokio::time::Instant::now() + FEED_PING,
        }))
    }

    fn feed_partitions(&self) -> u32 {
        BUCKETS
    }

    fn feed_partition(&self, id: &GameId) -> u32 {
        Keys::bucket(id)
    }

    async fn event_feed(
        &self,
        event_id: &EventId,
        log: EventLog,
        cursors: &[(u32, FeedPosition)],
        limit: usize,
    ) -> Result<Vec<Vec<FeedEntry>>, StoreError> {
        if cursors.is_empty() || limit == 0 {
            return Ok(vec![Vec::new(); cursors.len()]);
        }
        // The feed entries after each cursor, one pipeline per slot ...
        let commands = cursors
            .iter()
            .map(|(partition, after)| {
                let tag = format!("{{g{partition}}}");
                let start = if *after == FeedPosition::default() {
                    "-".to_owned()
                } else {
                    format!("({}", stream_id(*after))
                };
                let mut command = redis::cmd("XRANGE");
                command
                    .arg(self.keys.feed_key(event_id, log, &tag))
                    .arg(start)
                    .arg("+")
                    .arg("COUNT")
                    .arg(count(limit));
                (tag, command)
            })
            .collect();
        let mut pages: Vec<Vec<(FeedPosition, GameId, u64)>> = Vec::new();
        for reply in self.batch(commands).await? {
            let entries: Vec<(String, HashMap<String, String>)> = redis::from_redis_value(reply)
                .map_err(|err| {
                    StoreError::Corrupt(Corruption::Reply {
                        what: "event feed",
                        detail: err.to_string(),
                    })
                })?;
            let page = entries
                .into_iter()
                .map(|(id, fields)| {
                    let game = fields
                        .get("g")
                        .and_then(|game| GameId::parse(game).ok())
                        .ok_or_else(|| {
                            StoreError::Corrupt(Corruption::FeedEntryField {
                                id: id.clone(),
                                field: "game",
                            })
                        })?;
                    let version = fields
                        .get("v")
                        .and_then(|version| version.parse().ok())
                        .ok_or_else(|| {
                            StoreError::Corrupt(Corruption::FeedEntryField {
                                id: id.clone(),
                                field: "version",
                            })
                        })?;
                    Ok((feed_position(&id)?, game, version))
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            pages.push(page);
        }
        // ... then the events they name, one range of each game's log.
        let mut spans: HashMap<&GameId, (u64, u64)> = HashMap::new();
        for (_, game, version) in pages.iter().flatten() {
            let (low, high) = spans.entry(game).or_insert((*version, *version));
            *low = (*low).min(*version);
            *high = (*high).max(*version);
        }
        let ranges: Vec<(GameId, u64, u64)> = spans
            .into_iter()
            .map(|(game, (low, high))| (game.clone(), low, high))
            .collect();
        let commands = ranges
            .iter()
            .map(|(game, low, high)| {
                let mut command = redis::cmd("XRANGE");
                command
                    .arg(self.keys.log_key(game))
                    .arg(format!("0-{low}"))
                    .arg(format!("0-{high}"));
                (Keys::bucket_tag(game), command)
            })
            .collect();
        let mut logged: HashMap<(GameId, u64), StoredEvent> = HashMap::new();
        for ((game, ..), reply) in ranges.iter().zip(self.batch(commands).await?) {
            let entries: RawEntries = redis::from_redis_value(reply).map_err(|err| {
                StoreError::Corrupt(Corruption::Reply {
                    what: "event log",
                    detail: err.to_string(),
                })
            })?;
            for event in decode_entries(entries)? {
                logged.insert((game.clone(), event.version), event);
            }
        }
        Ok(pages
            .into_iter()
            .map(|page| {
                page.into_iter()
                    .map(|(position, game, version)| FeedEntry {
                        // Not among the entries: archived (the reader reads
                        // the game's log for it, and finds it there or
                        // reports the log corrupt).
                        event: logged.remove(&(game.clone(), version)),
                        version,
                        position,
                        game,
                    })
                    .collect()
            })
            .collect())
    }
}

/// How often an idle announcement subscription is checked with a `PING`:
/// a connection that died without closing would otherwise go unnoticed.
const FEED_PING: Duration = Duration::from_secs(5);

/// Commit announcements from a Redis pub/sub subscription.
struct RedisFeed {
    sink: redis::aio::PubSubSink,
    stream: redis::aio::PubSubStream,
    next_ping: tokio::time::Instant,
}

#[async_trait]
impl ChangeFeed for RedisFeed {
    async fn next(&mut self) -> Result<Change, StoreError> {
        use futures::StreamExt;
        loop {
            tokio::select! {
                message = self.stream.next() => {
                    let Some(message) = message else {
                        return Err(StoreError::Unavailable(
                            "the Redis announcement subscription closed".to_owned(),
                        ));
                    };
                    let payload: String = message.get_payload().unwrap_or_default();
                    let mut parts = payload.splitn(4, ' ');
                    let change = (|| {
                        Some(Change {
                            game: GameId::parse(parts.next()?).ok()?,
                            version: parts.next()?.parse().ok()?,
                            deadline: match parts.next()? {
                                "-" => None,
                                millis => Some(Timestamp::from_unix_millis(millis.parse().ok()?)),
                            },
                            event: match parts.next() {
                                None => None,
                                Some(event) => Some(EventId::parse(event).ok()?),
                            },
                        })
                    })();
                    // Anything else on the channel is not ours: skipped.
                    if let Some(change) = change {
                        return Ok(change);
                    }
                }
                () = tokio::time::sleep_until(self.next_ping) => {
                    let pong: Result<Result<redis::Value, RedisError>, _> =
                        tokio::time::timeout(REQUEST_DEADLINE, self.sink.ping()).await;
                    if !matches!(pong, Ok(Ok(_))) {
                        return Err(StoreError::Unavailable(
                            "the Redis announcement subscription stopped answering".to_owned(),
                        ));
                    }
                    self.next_ping = tokio::time::Instant::now() + FEED_PING;
                }
            }
        }
    }
}
