//! Limits on watch streams, so that neither one client nor all of them
//! together can hold more than a replica can serve: past a limit a new
//! stream is refused with RESOURCE_EXHAUSTED, and the streams already open
//! go on.

use std::{
    collections::HashMap,
    net::{IpAddr, SocketAddr},
    sync::{Arc, Mutex},
};

use prometheus_client::metrics::gauge::Gauge;
use tonic::Status;

use super::status;
use crate::domain::GameId;

/// How many watch streams a replica serves at once, and how many one
/// connection may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamLimits {
    /// Watch streams on one HTTP/2 connection.
    pub per_connection: usize,
    /// Watch streams on this replica.
    pub total: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        Self {
            per_connection: 100,
            total: 10_000,
        }
    }
}

#[derive(Default)]
struct Open {
    total: usize,
    by_connection: HashMap<SocketAddr, usize>,
}

/// The watch streams open on this replica.
#[derive(Clone)]
pub struct StreamCounter {
    limits: StreamLimits,
    open: Arc<Mutex<Open>>,
    /// The metric of open streams.
    gauge: Gauge,
}

/// One open stream's place; dropping it (the stream ends, fails or is
/// cancelled) frees it.
pub struct StreamPermit {
    open: Arc<Mutex<Open>>,
    connection: Option<SocketAddr>,
    gauge: Gauge,
}

impl StreamCounter {
    /// A counter enforcing `limits`, reporting the open streams in `gauge`.
    pub fn new(limits: StreamLimits, gauge: Gauge) -> Self {
        Self {
            limits,
            open: Arc::default(),
            gauge,
        }
    }

    /// A place for a new stream from `connection` (the peer's address, one
    /// per connection), or RESOURCE_EXHAUSTED.
    pub fn admit(&self, connection: Option<SocketAddr>) -> Result<StreamPermit, Status> {
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if open.total >= self.limits.total {
            return Err(status::resource_exhausted(format!(
                "this server already serves its limit of {} watch streams; retry later or elsewhere",
                self.limits.total
            )));
        }
        if let Some(peer) = connection {
            let on_connection = open.by_connection.entry(peer).or_default();
            if *on_connection >= self.limits.per_connection {
                return Err(status::resource_exhausted(format!(
                    "this connection already holds its limit of {} watch streams; open another \
                     connection or close a stream",
                    self.limits.per_connection
                )));
            }
            *on_connection += 1;
        }
        open.total += 1;
        self.gauge.inc();
        Ok(StreamPermit {
            open: self.open.clone(),
            connection,
            gauge: self.gauge.clone(),
        })
    }
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        open.total = open.total.saturating_sub(1);
        self.gauge.dec();
        if let Some(peer) = self.connection
            && let Some(count) = open.by_connection.get_mut(&peer)
        {
            *count = count.saturating_sub(1);
            if *count == 0 {
                open.by_connection.remove(&peer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_counted_per_connection_and_in_all_and_freed_when_dropped() {
        let gauge = Gauge::default();
        let counter = StreamCounter::new(
            StreamLimits {
                per_connection: 2,
                total: 3,
            },
            gauge.clone(),
        );
        let a: SocketAddr = "127.0.0.1:1000".parse().expect("addr");
        let b: SocketAddr = "127.0.0.1:1001".parse().expect("addr");
        let first = counter.admit(Some(a)).expect("first");
        let _second = counter.admit(Some(a)).expect("second");
        let refused = counter
            .admit(Some(a))
            .err()
            .expect("a third on one connection");
        assert_eq!(refused.code(), tonic::Code::ResourceExhausted);
        let _third = counter.admit(Some(b)).expect("another connection");
        let refused = counter.admit(Some(b)).err().expect("past the total");
        assert!(refused.message().contains("limit of 3"), "{refused:?}");
        assert_eq!(gauge.get(), 3, "the metric counts the open streams");
        drop(first);
        assert_eq!(gauge.get(), 2);
        counter.admit(Some(b)).expect("a freed place");
    }
}

/// Unary requests a replica serves at once by default.
pub const DEFAULT_MAX_REQUESTS: usize = 1024;

/// The unary requests a replica serves at once: past the limit a request
/// is refused at once with RESOURCE_EXHAUSTED (OVERLOADED) and retry advice,
/// rather than queued behind work the replica cannot keep up with. Health
/// checks are not counted, so an overloaded replica still answers its
/// probes.
#[derive(Clone)]
pub struct RequestLimit {
    permits: Arc<tokio::sync::Semaphore>,
    max: usize,
}

impl RequestLimit {
    /// At most `max` requests at once.
    pub fn new(max: usize) -> Self {
        let max = max.max(1);
        Self {
            permits: Arc::new(tokio::sync::Semaphore::new(max)),
            max,
        }
    }

    /// A place for one request, held until the returned permit is dropped.
    pub fn admit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, Status> {
        self.permits
            .clone()
            .try_acquire_owned()
            .map_err(|_| status::overloaded(self.max))
    }
}

/// Writes a seat (one player of one game) may make per second, and a
/// client address, by default (0: no limit).
pub const DEFAULT_SEAT_WRITES_PER_SECOND: u32 = 10;
/// Writes one client address may make per second by default (0: none);
/// generous, since a platform's backend may relay many players.
pub const DEFAULT_PEER_WRITES_PER_SECOND: u32 = 1000;

/// Admissions between two prunings of the limiters' forgotten keys.
const PRUNE_EVERY: u64 = 4096;

/// Rate limits on the seats' writes (moves, resignations, offers, claims,
/// aborts): per seat and per client address, each a token bucket with a
/// burst of twice its rate. Past one, RESOURCE_EXHAUSTED (RATE_LIMITED)
/// with the wait in `RetryInfo`; nothing is applied.
pub struct WriteLimits {
    per_seat: Option<governor::DefaultKeyedRateLimiter<(GameId, [u8; 8])>>,
    per_peer: Option<governor::DefaultKeyedRateLimiter<IpAddr>>,
    admitted: std::sync::atomic::AtomicU64,
}

impl WriteLimits {
    /// Limits of `per_seat` and `per_peer` writes per second (0: none).
    pub fn new(per_seat: u32, per_peer: u32) -> Self {
        fn limiter<K: Clone + Eq + std::hash::Hash>(
            rate: u32,
        ) -> Option<governor::DefaultKeyedRateLimiter<K>> {
            let rate = std::num::NonZeroU32::new(rate)?;
            let burst = rate.saturating_mul(std::num::NonZeroU32::MIN.saturating_add(1));
            Some(governor::RateLimiter::keyed(
                governor::Quota::per_second(rate).allow_burst(burst),
            ))
        }
        Self {
            per_seat: limiter(per_seat),
            per_peer: limiter(per_peer),
            admitted: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Admits a write by the holder of `token` in game `game` from `peer`,
    /// or says how long to wait.
    pub fn admit(
        &self,
        game: &GameId,
        token: &str,
        peer: Option<SocketAddr>,
    ) -> Result<(), Status> {
        use sha2::{Digest, Sha256};
        use std::sync::atomic::Ordering;
        if self.admitted.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            if let Some(limiter) = &self.per_seat {
                limiter.retain_recent();
            }
            if let Some(limiter) = &self.per_peer {
                limiter.retain_recent();
            }
        }
        // The wait is read from the limiter's own clock: a clock built per
        // request would calibrate the TSC each time, which once cost a
        // seventh of the server's CPU on the move path.
        if let (Some(limiter), Some(peer)) = (&self.per_peer, peer)
            && let Err(until) = limiter.check_key(&peer.ip())
        {
            return Err(status::rate_limited(
                "this client address",
                until.wait_time_from(governor::clock::Clock::now(limiter.clock())),
            ));
        }
        if let Some(limiter) = &self.per_seat {
            let digest = Sha256::digest(token.as_bytes());
            let mut seat = [0; 8];
            seat.copy_from_slice(&digest[..8]);
            if let Err(until) = limiter.check_key(&(game.clone(), seat)) {
                return Err(status::rate_limited(
                    "this seat",
                    until.wait_time_from(governor::clock::Clock::now(limiter.clock())),
                ));
            }
        }
        Ok(())
    }
}
