//! `ArbiterService` as served: the messages of `WatchGame` and `WatchEvent`
//! go out as the bytes [`stream::game`] and [`stream::event`] made (an
//! event encoded once for all its streams on this replica), every other
//! method through the generated service.
//!
//! The generated service encodes each message of each stream itself: ten
//! thousand watchers of a top board, ten thousand encodings of each move.
//! These routes decode the request and admit the stream exactly as the
//! generated one does (the same codec for requests, the same request size
//! bound, no compression), and send frames already encoded.

use std::{
    convert::Infallible,
    task::{Context, Poll},
};

use tonic::{
    Request, Response, Status,
    body::Body,
    codegen::BoxFuture,
    server::{Grpc, NamedService, ServerStreamingService},
};

use super::{ArbiterApi, MAX_REQUEST_BYTES, codec::FrameCodec, stream};
use crate::proto::{self, arbiter_service_server::ArbiterServiceServer};

/// The path of `WatchGame`.
const WATCH_GAME: &str = "/chessarbiter.v1.ArbiterService/WatchGame";

/// The path of `WatchEvent`.
const WATCH_EVENT: &str = "/chessarbiter.v1.ArbiterService/WatchEvent";

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
            WATCH_GAME => serve(WatchGameFrames(self.api.clone()), request),
            WATCH_EVENT => serve(WatchEventFrames(self.api.clone()), request),
            _ => self.generated.call(request),
        }
    }
}

/// Serves `request` with `method`, its request decoded and bounded as the
/// generated service does.
fn serve<M, R>(
    method: M,
    request: http::Request<Body>,
) -> BoxFuture<http::Response<Body>, Infallible>
where
    M: ServerStreamingService<R, Response = bytes::Bytes> + Send + 'static,
    M::ResponseStream: Send + 'static,
    M::Future: Send,
    R: prost::Message + Default + Send + 'static,
{
    Box::pin(async move {
        let mut grpc = Grpc::new(FrameCodec::<R>::default())
            .apply_max_message_size_config(Some(MAX_REQUEST_BYTES), None);
        Ok(grpc.server_streaming(method, request).await)
    })
}

/// `WatchGame`, its stream as frames.
struct WatchGameFrames(ArbiterApi);

impl ServerStreamingService<proto::WatchGameRequest> for WatchGameFrames {
    type Response = bytes::Bytes;
    type ResponseStream = stream::GameFrames;
    type Future = BoxFuture<Response<Self::ResponseStream>, Status>;

    fn call(&mut self, request: Request<proto::WatchGameRequest>) -> Self::Future {
        let api = self.0.clone();
        Box::pin(async move { api.watch_game_frames(request).await })
    }
}

/// `WatchEvent`, its stream as frames.
struct WatchEventFrames(ArbiterApi);

impl ServerStreamingService<proto::WatchEventRequest> for WatchEventFrames {
    type Response = bytes::Bytes;
    type ResponseStream = stream::EventFrames;
    type Future = BoxFuture<Response<Self::ResponseStream>, Status>;

    fn call(&mut self, request: Request<proto::WatchEventRequest>) -> Self::Future {
        let api = self.0.clone();
        Box::pin(async move { api.watch_event_frames(request).await })
    }
}
