//! The layers only a browser's call needs (CORS, gRPC-Web), kept off the
//! calls of native gRPC clients.
//!
//! A gRPC client (any language's, over HTTP/2) sends no `Origin` and no
//! gRPC-Web content type: the CORS layer would add nothing to its reply
//! that such a client reads (`Vary` and `Access-Control-Expose-Headers`,
//! built anew for each call, and `Access-Control-Allow-Origin: *` when any
//! origin is allowed), and gRPC-Web would pass it through unchanged. Both
//! still wrap every call's future and reply, on the path of every move. A
//! call is native when it is a `POST` over HTTP/2, carries no `Origin`, and
//! its content type is `application/grpc` or `application/grpc+<format>`;
//! it goes straight to the services. Every other request (gRPC-Web over
//! either HTTP version, a CORS preflight, anything a browser sends) goes
//! through the browser layers as before.

use std::task::{Context, Poll};

use futures::future::Either;
use http::{HeaderMap, Method, Request, Response, Version, header};
use tonic::body::Body;
use tower::{Layer, Service};

/// Applies `L` (the browser layers) to the requests that are not native
/// gRPC calls.
#[derive(Clone, Debug)]
pub struct ForBrowsersLayer<L> {
    browser: L,
}

impl<L> ForBrowsersLayer<L> {
    /// `browser` for every request but native gRPC calls.
    pub fn new(browser: L) -> Self {
        Self { browser }
    }
}

impl<S: Clone, L: Layer<S>> Layer<S> for ForBrowsersLayer<L> {
    type Service = ForBrowsers<S, L::Service>;

    fn layer(&self, inner: S) -> Self::Service {
        ForBrowsers {
            native: inner.clone(),
            browser: self.browser.layer(inner),
        }
    }
}

/// The service [`ForBrowsersLayer`] makes: the services as they are for
/// native calls, behind the browser layers for the rest.
#[derive(Clone, Debug)]
pub struct ForBrowsers<S, W> {
    native: S,
    browser: W,
}

/// Whether a request is a native gRPC call (see the module documentation).
fn is_native(method: &Method, version: Version, headers: &HeaderMap) -> bool {
    if method != Method::POST || version != Version::HTTP_2 || headers.contains_key(header::ORIGIN)
    {
        return false;
    }
    let Some(content_type) = headers.get(header::CONTENT_TYPE) else {
        return false;
    };
    let content_type = content_type.as_bytes();
    match content_type.strip_prefix(b"application/grpc") {
        Some(rest) => rest.is_empty() || rest.starts_with(b"+"),
        None => false,
    }
}

impl<S, W, R> Service<Request<Body>> for ForBrowsers<S, W>
where
    S: Service<Request<Body>, Response = Response<R>>,
    W: Service<Request<Body>, Response = Response<R>, Error = S::Error>,
{
    type Response = Response<R>;
    type Error = S::Error;
    type Future = Either<S::Future, W::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Either may take the next call: both must be ready for it.
        std::task::ready!(self.native.poll_ready(cx))?;
        self.browser.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        if is_native(request.method(), request.version(), request.headers()) {
            Either::Left(self.native.call(request))
        } else {
            Either::Right(self.browser.call(request))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    header::HeaderName::from_static(name),
                    header::HeaderValue::from_static(value),
                )
            })
            .collect()
    }

    #[test]
    fn only_native_grpc_over_http2_without_an_origin_skips_the_browser_layers() {
        let grpc = headers(&[("content-type", "application/grpc")]);
        assert!(is_native(&Method::POST, Version::HTTP_2, &grpc));
        assert!(is_native(
            &Method::POST,
            Version::HTTP_2,
            &headers(&[("content-type", "application/grpc+proto")])
        ));
        // gRPC calls are POSTs: an OPTIONS is CORS's to answer (a
        // preflight), whatever it carries.
        assert!(!is_native(&Method::OPTIONS, Version::HTTP_2, &grpc));
        assert!(!is_native(&Method::GET, Version::HTTP_2, &grpc));
        // The same call over HTTP/1.1 is gRPC-Web's to answer (or refuse).
        assert!(!is_native(&Method::POST, Version::HTTP_11, &grpc));
        // gRPC-Web, in any of its content types.
        for web in [
            "application/grpc-web",
            "application/grpc-web+proto",
            "application/grpc-web-text",
            "application/grpc-web-text+proto",
        ] {
            assert!(!is_native(
                &Method::POST,
                Version::HTTP_2,
                &headers(&[("content-type", web)])
            ));
        }
        // A call from a web page says where it comes from: CORS applies.
        assert!(!is_native(
            &Method::POST,
            Version::HTTP_2,
            &headers(&[
                ("content-type", "application/grpc"),
                ("origin", "https://example.org")
            ])
        ));
        // A preflight, a page, anything else.
        assert!(!is_native(
            &Method::POST,
            Version::HTTP_2,
            &HeaderMap::new()
        ));
        assert!(!is_native(
            &Method::POST,
            Version::HTTP_2,
            &headers(&[("content-type", "application/grpcx")])
        ));
        assert!(!is_native(
            &Method::POST,
            Version::HTTP_2,
            &headers(&[("content-type", "text/html")])
        ));
    }
}
