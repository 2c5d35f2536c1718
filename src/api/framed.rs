//! `ArbiterService` as served: the messages of `WatchGame` and `WatchEvent`
//! go out as the bytes [`stream::game`] and [`stream::event`] made (an
//! event encoded once for all its streams on this replica, its gRPC
//! message prefix included), every other method through the generated
//! service.
//!
//! The generated service encodes each message of each stream itself, and
//! tonic's response body copies each into a buffer of the stream's own:
//! ten thousand watchers of a top board, ten thousand encodings and copies
//! of each move. These routes decode the request as the generated service
//! does (the same codec, the same request size bound, no compression),
//! and send each frame as the bytes every stream shares, then the stream's
//! status as its trailers.

use std::{
    convert::Infallible,
    pin::Pin,
    task::{Context, Poll, ready},
};

use bytes::Bytes;
use futures::{Stream, TryStreamExt};
use http_body::Frame;
use http_body_util::BodyExt;
use tonic::{
    Request, Response, Status,
    body::Body,
    codec::{Codec, Streaming},
    codegen::BoxFuture,
    metadata::MetadataMap,
    server::NamedService,
};

use super::{ArbiterApi, MAX_REQUEST_BYTES, codec::ProtoCodec, stream};
use crate::proto::arbiter_service_server::ArbiterServiceServer;

/// The path of `WatchGame`.
const WATCH_GAME: &str = "/chessarbiter.v1.ArbiterService/WatchGame";

/// The path of `WatchEvent`.
const WATCH_EVENT: &str = "/chessarbiter.v1.ArbiterService/WatchEvent";

/// Whether `path` names a watch stream (`WatchGame`, `WatchEvent`): a call
/// that lasts as long as its watcher wants, and whose start waits on the
/// game's read however busy the replica is.
pub fn is_watch(path: &str) -> bool {
    path == WATCH_GAME || path == WATCH_EVENT
}

/// `ArbiterService`, its watch streams sent as encoded frames.
#[derive(Clone)]
pub struct PublicService {
    api: ArbiterApi,
    generated: ArbiterServiceServer<ArbiterApi>,
}

impl PublicService {
    /// `api`'s public service; `generated` serves every other method.
    pub(super) fn new(api: ArbiterApi, generated: ArbiterServiceServer<ArbiterApi>) -> Self {
        Self { api, generated }
    }
}

impl NamedService for PublicService {
    const NAME: &'static str = <ArbiterServiceServer<ArbiterApi> as NamedService>::NAME;
}

impl tower::Service<http::Request<Body>> for PublicService {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        match request.uri().path() {
            WATCH_GAME => serve(self.api.clone(), request, |api, request| {
                Box::pin(async move { Ok(api.watch_game_frames(request).await?.map(body)) })
            }),
            WATCH_EVENT => serve(self.api.clone(), request, |api, request| {
                Box::pin(async move { Ok(api.watch_event_frames(request).await?.map(body)) })
            }),
            _ => self.generated.call(request),
        }
    }
}

/// A watch method's handler: its stream's response, the body made with
/// [`body`].
type Handler<R> = fn(ArbiterApi, Request<R>) -> BoxFuture<Response<Body>, Status>;

/// The response body that sends `frames`: the stream inline in the one
/// allocation the body is (a watcher's every event touches each of its
/// stream's allocations once more), boxed as tonic's body takes a box
/// as it is (any other body it wraps in one more adapter, polled with
/// every frame).
fn body(frames: impl stream::Frames) -> Body {
    Body::new(
        FramesBody {
            frames: Some(frames),
        }
        .boxed_unsync(),
    )
}

/// Serves `request` with `handler`: the request decoded and bounded as the
/// generated service does, the response its frames as they are.
fn serve<R>(
    api: ArbiterApi,
    request: http::Request<Body>,
    handler: Handler<R>,
) -> BoxFuture<http::Response<Body>, Infallible>
where
    R: prost::Message + Default + Send + 'static,
{
    Box::pin(async move {
        let response = match decode_request::<R>(request).await {
            Ok(request) => handler(api, request).await,
            Err(status) => Err(status),
        };
        Ok(match response {
            Ok(response) => {
                let (metadata, body, _) = response.into_parts();
                let mut http = http::Response::new(body);
                *http.headers_mut() = metadata.into_headers();
                http.headers_mut().insert(
                    http::header::CONTENT_TYPE,
                    http::HeaderValue::from_static("application/grpc"),
                );
                http
            }
            Err(status) => status.into_http(),
        })
    })
}

/// The one message of a server-streaming call's request, with its
/// metadata and extensions: uncompressed, at most [`MAX_REQUEST_BYTES`],
/// decoded by the generated services' codec.
async fn decode_request<R>(request: http::Request<Body>) -> Result<Request<R>, Status>
where
    R: prost::Message + Default + Send + 'static,
{
    if let Some(encoding) = request.headers().get("grpc-encoding")
        && encoding.as_bytes() != b"identity"
    {
        let mut status = Status::unimplemented(format!(
            "Content is compressed with `{}` which isn't supported",
            String::from_utf8_lossy(encoding.as_bytes())
        ));
        status
            .metadata_mut()
            .insert("grpc-accept-encoding", "identity".parse().expect("ASCII"));
        return Err(status);
    }
    let (parts, body) = request.into_parts();
    let mut messages = Streaming::new_request(
        ProtoCodec::<R, R>::default().decoder(),
        body,
        None,
        Some(MAX_REQUEST_BYTES),
    );
    let message = messages
        .try_next()
        .await?
        .ok_or_else(|| Status::internal("Missing request message."))?;
    let mut headers = parts.headers;
    if let Some(trailers) = messages.trailers().await? {
        headers.extend(trailers.into_headers());
    }
    Ok(Request::from_parts(
        MetadataMap::from_headers(headers),
        parts.extensions,
        message,
    ))
}

pin_project_lite::pin_project! {
    /// A watch stream's response body: each frame as it was made (shared by
    /// every stream that sends it), then the stream's status as trailers (OK
    /// when the stream ended, or its error). The stream is dropped as it
    /// ends (and its stream's place freed), before its status is sent.
    struct FramesBody<S> {
        #[pin]
        frames: Option<S>,
    }
}

impl<S> http_body::Body for FramesBody<S>
where
    S: Stream<Item = Result<Bytes, Status>>,
{
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let mut frames = self.project().frames;
        let Some(stream) = frames.as_mut().as_pin_mut() else {
            return Poll::Ready(None);
        };
        let status = match ready!(stream.poll_next(cx)) {
            Some(Ok(frame)) => return Poll::Ready(Some(Ok(Frame::data(frame)))),
            Some(Err(status)) => status,
            None => Status::ok(""),
        };
        frames.set(None);
        Poll::Ready(Some(Ok(Frame::trailers(trailers(&status)))))
    }

    fn is_end_stream(&self) -> bool {
        self.frames.is_none()
    }
}

/// The trailers that end a stream with `status`.
fn trailers(status: &Status) -> http::HeaderMap {
    let mut trailers = http::HeaderMap::new();
    if status.add_header(&mut trailers).is_err() {
        // A metadata value that cannot be a header: the code alone.
        trailers.clear();
        let _ = Status::new(status.code(), "").add_header(&mut trailers);
    }
    trailers
}
