//! A bound on the large replies a replica holds at once, however slowly
//! their clients read them.
//!
//! A TRF report (up to 4 MB), a page of standings (up to about 3 MB) or a
//! page of an event's PGN (up to about 2 MB) stays in memory, with its
//! encoded copy, until the client has read it: the request's own limits
//! (`--max-requests`, the request timeout, the whole-event reads' places)
//! end when the handler returns, before the reply is sent. This layer
//! gives each such reply a place for as long as its body is being sent:
//! at most [`MAX_LARGE_REPLIES`] unary ones (each ended with
//! `DEADLINE_EXCEEDED` if not read within [`LARGE_REPLY_SEND_TIME`]) and
//! [`MAX_PGN_EXPORTS`] event exports at once. A call that finds no place
//! waits for one within its deadline.

use std::{
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use futures::future::{BoxFuture, Either, FutureExt};
use http_body::{Body, Frame, SizeHint};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower::{Layer, Service};

/// Large unary replies (TRF, standings) held at once.
pub const MAX_LARGE_REPLIES: usize = 16;

/// `ExportPgn` streams served at once.
pub const MAX_PGN_EXPORTS: usize = 16;

/// How long a client may take to read a large unary reply.
pub const LARGE_REPLY_SEND_TIME: Duration = Duration::from_secs(30);

/// The methods whose replies may be large, and which places they take.
fn class_of(path: &str) -> Option<Class> {
    match path {
        "/chessarbiter.v1.ArbiterService/ExportTrf"
        | "/chessarbiter.v1.ArbiterService/GetStandings"
        | "/chessarbiter.v1.ArbiterService/GetTeamStandings"
        | "/chessarbiter.v1.ArbiterService/GetTeams" => Some(Class::Unary),
        "/chessarbiter.v1.ArbiterService/ExportPgn"
        | "/chessarbiter.v1.AdminService/ExportAuditLog" => Some(Class::PgnExport),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Unary,
    PgnExport,
}

/// Gives each large reply a place for as long as it is being sent.
#[derive(Clone, Debug)]
pub struct LargeRepliesLayer {
    unary: Arc<Semaphore>,
    exports: Arc<Semaphore>,
}

impl Default for LargeRepliesLayer {
    fn default() -> Self {
        Self {
            unary: Arc::new(Semaphore::new(MAX_LARGE_REPLIES)),
            exports: Arc::new(Semaphore::new(MAX_PGN_EXPORTS)),
        }
    }
}

impl<S> Layer<S> for LargeRepliesLayer {
    type Service = LargeReplies<S>;

    fn layer(&self, inner: S) -> Self::Service {
        LargeReplies {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service [`LargeRepliesLayer`] wraps around another.
#[derive(Clone, Debug)]
pub struct LargeReplies<S> {
    inner: S,
    layer: LargeRepliesLayer,
}

impl<S, B> Service<http::Request<B>> for LargeReplies<S>
where
    S: Service<http::Request<B>, Response = http::Response<tonic::body::Body>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
    B: Send + 'static,
{
    // Every other reply's body goes on as it is: wrapping it would cost each
    // frame of every stream (a watcher's every event) one more poll through
    // a body of this layer's and one more boxed body around it.
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    /// Any other call's future is the wrapped service's own, not boxed.
    type Future = Either<S::Future, BoxFuture<'static, Result<Self::Response, Self::Error>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let Some(class) = class_of(request.uri().path()) else {
            return Either::Left(self.inner.call(request));
        };
        // The service that was made ready serves this call; a clone takes
        // its place for the next one.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let (places, send_time) = match class {
            Class::Unary => (self.layer.unary.clone(), Some(LARGE_REPLY_SEND_TIME)),
            Class::PgnExport => (self.layer.exports.clone(), None),
        };
        let held = async move {
            // The semaphore is never closed.
            let place = places.acquire_owned().await.ok();
            let response = inner.call(request).await?;
            Ok(response.map(|body| tonic::body::Body::new(HeldBody::held(body, place, send_time))))
        }
        .boxed();
        Either::Right(held)
    }
}

/// A reply's body, holding its place until it has been sent (or dropped);
/// one not sent in time ends with `DEADLINE_EXCEEDED`, its memory freed.
pub struct HeldBody<B> {
    inner: Option<B>,
    place: Option<OwnedSemaphorePermit>,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<B> HeldBody<B> {
    fn held(inner: B, place: Option<OwnedSemaphorePermit>, send_time: Option<Duration>) -> Self {
        Self {
            inner: Some(inner),
            place,
            deadline: send_time.map(|time| Box::pin(tokio::time::sleep(time))),
        }
    }

    fn finish(&mut self) {
        self.inner = None;
        self.place = None;
        self.deadline = None;
    }
}

/// The trailers of a reply its client did not read in time.
fn too_slow_trailers() -> http::HeaderMap {
    let mut trailers = http::HeaderMap::new();
    trailers.insert(
        "grpc-status",
        http::HeaderValue::from(tonic::Code::DeadlineExceeded as i32),
    );
    trailers.insert(
        "grpc-message",
        http::HeaderValue::from_static("the%20reply%20was%20not%20read%20in%20time"),
    );
    trailers
}

impl<B: Body + Unpin> Body for HeldBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        if let Some(deadline) = &mut this.deadline
            && deadline.as_mut().poll(cx).is_ready()
        {
            this.finish();
            return Poll::Ready(Some(Ok(Frame::trailers(too_slow_trailers()))));
        }
        let Some(inner) = &mut this.inner else {
            return Poll::Ready(None);
        };
        let frame = Pin::new(inner).poll_frame(cx);
        if let Poll::Ready(None) = frame {
            this.finish();
        }
        frame
    }

    fn is_end_stream(&self) -> bool {
        self.inner.as_ref().is_none_or(Body::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.inner
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), Body::size_hint)
    }
}

#[cfg(test)]
mod tests {
    use std::{convert::Infallible, future::poll_fn};

    use super::*;

    /// A body that yields one frame of data when `ready`, else never.
    struct Replying {
        ready: bool,
        sent: bool,
    }

    impl Body for Replying {
        type Data = bytes::Bytes;
        type Error = Infallible;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
            match (self.ready, self.sent) {
                (false, _) => Poll::Pending,
                (true, false) => {
                    self.sent = true;
                    Poll::Ready(Some(Ok(Frame::data(bytes::Bytes::from_static(b"reply")))))
                }
                (true, true) => Poll::Ready(None),
            }
        }
    }

    async fn next<B: Body + Unpin>(body: &mut HeldBody<B>) -> Option<Frame<B::Data>>
    where
        B::Error: std::fmt::Debug,
    {
        poll_fn(|cx| Pin::new(&mut *body).poll_frame(cx))
            .await
            .map(|frame| frame.expect("a frame"))
    }

    #[tokio::test(start_paused = true)]
    async fn a_reply_not_read_in_time_ends_and_frees_its_place() {
        let places = Arc::new(Semaphore::new(1));
        let place = places.clone().acquire_owned().await.ok();
        let waiting = Replying {
            ready: false,
            sent: false,
        };
        let mut body = HeldBody::held(waiting, place, Some(LARGE_REPLY_SEND_TIME));
        assert_eq!(places.available_permits(), 0);
        let started = tokio::time::Instant::now();
        let trailers = next(&mut body)
            .await
            .and_then(|frame| frame.into_trailers().ok())
            .expect("trailers");
        assert_eq!(started.elapsed(), LARGE_REPLY_SEND_TIME);
        assert_eq!(trailers["grpc-status"], "4");
        assert_eq!(places.available_permits(), 1, "the place is free again");
        assert!(next(&mut body).await.is_none());
        assert!(body.is_end_stream());
    }

    #[tokio::test(start_paused = true)]
    async fn a_reply_holds_its_place_until_sent_or_dropped() {
        let places = Arc::new(Semaphore::new(2));
        let ready = || Replying {
            ready: true,
            sent: false,
        };
        let mut sent = HeldBody::held(ready(), places.clone().acquire_owned().await.ok(), None);
        let dropped = HeldBody::held(ready(), places.clone().acquire_owned().await.ok(), None);
        assert_eq!(places.available_permits(), 0);
        let data = next(&mut sent)
            .await
            .and_then(|frame| frame.into_data().ok());
        assert_eq!(data.as_deref(), Some(&b"reply"[..]));
        assert_eq!(places.available_permits(), 0, "held while being sent");
        assert!(next(&mut sent).await.is_none());
        assert_eq!(places.available_permits(), 1, "freed once sent");
        drop(dropped);
        assert_eq!(places.available_permits(), 2, "freed when dropped");
    }
}
