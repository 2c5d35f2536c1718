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
use crate::proto::arbiter_service_server::ArbiterServiceServer;

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
            WATCH_GAME => serve(self.api.clone(), request, |api, request| {
                Box::pin(async move { api.watch_game_frames(request).await })
            }),
            WATCH_EVENT => serve(self.api.clone(), request, |api, request| {
                Box::pin(async move { api.watch_event_frames(request).await })
            }),
            _ => self.generated.call(request),
        }
    }
}

/// Serves `request` with `handler`, its request decoded and bounded as the
/// generated service does.
fn serve<R>(
    api: ArbiterApi,
    request: http::Request<Body>,
    handler: Handler<R>,
) -> BoxFuture<http::Response<Body>, Infallible>
where
    R: prost::Message + Default + Send + 'static,
{
    Box::pin(async move {
        let mut grpc = Grpc::new(FrameCodec::<R>::default())
            .apply_max_message_size_config(Some(MAX_REQUEST_BYTES), None);
        Ok(grpc.server_streaming(Frames(api, handler), request).await)
    })
}

/// A watch method of `ArbiterService`, its stream as frames: the
/// arbiter's api and the method's handler.
struct Frames<R>(ArbiterApi, Handler<R>);

/// A watch method's handler.
type Handler<R> = fn(ArbiterApi, Request<R>) -> BoxFuture<Response<stream::Frames>, Status>;

impl<R> ServerStreamingService<R> for Frames<R> {
    type Response = bytes::Bytes;
    type ResponseStream = stream::Frames;
    type Future = BoxFuture<Response<Self::ResponseStream>, Status>;

    fn call(&mut self, request: Request<R>) -> Self::Future {
        (self.1)(self.0.clone(), request)
    }
}
