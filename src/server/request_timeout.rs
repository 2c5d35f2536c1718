//! The request timeout: how long a call may take to be answered, by the
//! server's bound or the caller's shorter deadline (`grpc-timeout`).
//!
//! A watch stream (`WatchGame`, `WatchEvent`) is not bounded by the
//! server's timeout: its start waits for the game's read (joined by every
//! watcher starting on that game) however long a busy replica takes, and
//! the stream then lasts as long as its watcher wants. A caller's own
//! deadline still bounds it. Every other call, streams of exports among
//! them, gets its answer (or its first message) within the bound or is
//! cancelled with `CANCELLED` and a message naming the bound.

use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
    time::Duration,
};

use tokio::time::Sleep;
use tower::{Layer, Service};

/// The bound a call was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    /// The server's request timeout.
    Server(Duration),
    /// The caller's deadline, shorter than the server's bound.
    Caller(Duration),
}

impl Bound {
    /// The bound of a call to `path` with `headers`, where the server's
    /// timeout is `server`.
    fn of(path: &str, headers: &http::HeaderMap, server: Duration) -> Option<Self> {
        let caller = headers
            .get("grpc-timeout")
            .and_then(|value| grpc_timeout(value.as_bytes()));
        let server = (!crate::api::is_watch(path)).then_some(server);
        match (caller, server) {
            (Some(caller), Some(server)) if caller < server => Some(Bound::Caller(caller)),
            (_, Some(server)) => Some(Bound::Server(server)),
            (Some(caller), None) => Some(Bound::Caller(caller)),
            (None, None) => None,
        }
    }

    fn duration(self) -> Duration {
        match self {
            Bound::Server(duration) | Bound::Caller(duration) => duration,
        }
    }

    /// What the caller is told when the bound passes.
    fn expired(self) -> tonic::Status {
        let message = match self {
            Bound::Server(duration) => format!(
                "Timeout expired: the call took longer than the server's request timeout ({} ms)",
                duration.as_millis()
            ),
            Bound::Caller(duration) => format!(
                "Timeout expired: the call took longer than the caller's deadline ({} ms)",
                duration.as_millis()
            ),
        };
        tonic::Status::cancelled(message)
    }
}

/// A `grpc-timeout` value (at most 8 digits and a unit, as the gRPC over
/// HTTP/2 protocol writes it); `None` for anything else, which is ignored
/// as tonic ignores it.
fn grpc_timeout(value: &[u8]) -> Option<Duration> {
    let (&unit, digits) = value.split_last()?;
    if digits.is_empty() || digits.len() > 8 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let amount = digits
        .iter()
        .fold(0u64, |sum, digit| sum * 10 + u64::from(digit - b'0'));
    Some(match unit {
        b'H' => Duration::from_secs(amount * 3600),
        b'M' => Duration::from_secs(amount * 60),
        b'S' => Duration::from_secs(amount),
        b'm' => Duration::from_millis(amount),
        b'u' => Duration::from_micros(amount),
        b'n' => Duration::from_nanos(amount),
        _ => return None,
    })
}

/// Bounds each call as the module says, `server` being the server's
/// request timeout.
#[derive(Clone, Copy, Debug)]
pub struct RequestTimeoutLayer {
    server: Duration,
}

impl RequestTimeoutLayer {
    pub fn new(server: Duration) -> Self {
        Self { server }
    }
}

impl<S> Layer<S> for RequestTimeoutLayer {
    type Service = RequestTimeout<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RequestTimeout {
            inner,
            server: self.server,
        }
    }
}

/// The service [`RequestTimeoutLayer`] wraps around another.
#[derive(Clone, Debug)]
pub struct RequestTimeout<S> {
    inner: S,
    server: Duration,
}

impl<S, B, R> Service<http::Request<B>> for RequestTimeout<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
    R: Default,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Bounded<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let bound = Bound::of(request.uri().path(), request.headers(), self.server);
        Bounded {
            inner: self.inner.call(request),
            sleep: bound.map(|bound| tokio::time::sleep(bound.duration())),
            bound,
        }
    }
}

pin_project_lite::pin_project! {
    /// A call's answer, or its cancellation once its bound has passed.
    pub struct Bounded<F> {
        #[pin]
        inner: F,
        #[pin]
        sleep: Option<Sleep>,
        bound: Option<Bound>,
    }
}

impl<F, R, E> Future for Bounded<F>
where
    F: Future<Output = Result<http::Response<R>, E>>,
    R: Default,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(answer) = this.inner.poll(cx) {
            return Poll::Ready(answer);
        }
        match (this.sleep.as_pin_mut(), *this.bound) {
            (Some(sleep), Some(bound)) => match sleep.poll(cx) {
                Poll::Ready(()) => Poll::Ready(Ok(bound.expired().into_http())),
                Poll::Pending => Poll::Pending,
            },
            _ => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GET_GAME: &str = "/chessarbiter.v1.ArbiterService/GetGame";
    const WATCH_GAME: &str = "/chessarbiter.v1.ArbiterService/WatchGame";
    const WATCH_EVENT: &str = "/chessarbiter.v1.ArbiterService/WatchEvent";
    const EXPORT_PGN: &str = "/chessarbiter.v1.ArbiterService/ExportPgn";

    fn headers(timeout: Option<&str>) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        if let Some(timeout) = timeout {
            headers.insert("grpc-timeout", timeout.parse().unwrap());
        }
        headers
    }

    #[test]
    fn grpc_timeouts_are_read_in_every_unit() {
        assert_eq!(grpc_timeout(b"2H"), Some(Duration::from_secs(7200)));
        assert_eq!(grpc_timeout(b"3M"), Some(Duration::from_secs(180)));
        assert_eq!(grpc_timeout(b"4S"), Some(Duration::from_secs(4)));
        assert_eq!(grpc_timeout(b"250m"), Some(Duration::from_millis(250)));
        assert_eq!(
            grpc_timeout(b"99999999u"),
            Some(Duration::from_micros(99_999_999))
        );
        assert_eq!(grpc_timeout(b"7n"), Some(Duration::from_nanos(7)));
    }

    #[test]
    fn malformed_grpc_timeouts_are_ignored() {
        for value in [
            &b""[..],
            b"S",
            b"100",
            b"100x",
            b"123456789S",
            b"-1S",
            b"1.5S",
            b" 1S",
        ] {
            assert_eq!(
                grpc_timeout(value),
                None,
                "{:?}",
                String::from_utf8_lossy(value)
            );
        }
    }

    #[test]
    fn the_shorter_bound_applies() {
        let server = Duration::from_secs(10);
        assert_eq!(
            Bound::of(GET_GAME, &headers(None), server),
            Some(Bound::Server(server))
        );
        assert_eq!(
            Bound::of(GET_GAME, &headers(Some("2S")), server),
            Some(Bound::Caller(Duration::from_secs(2)))
        );
        assert_eq!(
            Bound::of(GET_GAME, &headers(Some("1M")), server),
            Some(Bound::Server(server))
        );
        assert_eq!(
            Bound::of(EXPORT_PGN, &headers(None), server),
            Some(Bound::Server(server))
        );
    }

    #[test]
    fn watch_streams_are_bounded_by_the_caller_alone() {
        let server = Duration::from_secs(10);
        for path in [WATCH_GAME, WATCH_EVENT] {
            assert_eq!(Bound::of(path, &headers(None), server), None);
            assert_eq!(
                Bound::of(path, &headers(Some("1M")), server),
                Some(Bound::Caller(Duration::from_secs(60)))
            );
        }
    }

    #[test]
    fn the_cancellation_names_its_bound() {
        let server = Bound::Server(Duration::from_millis(300)).expired();
        assert_eq!(server.code(), tonic::Code::Cancelled);
        assert!(
            server
                .message()
                .contains("server's request timeout (300 ms)"),
            "{server:?}"
        );
        let caller = Bound::Caller(Duration::from_millis(20)).expired();
        assert!(
            caller.message().contains("caller's deadline (20 ms)"),
            "{caller:?}"
        );
    }
}
