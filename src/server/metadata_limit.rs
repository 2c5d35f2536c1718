//! A bound on the metadata (HTTP/2 headers) a call may carry, answered
//! with a status the client can read.
//!
//! HTTP/2 itself is told to read header lists of up to
//! [`HTTP2_MAX_HEADER_LIST_BYTES`]; beyond that hyper answers HTTP 431,
//! which gRPC clients report as `UNKNOWN`, and a header block sent in more
//! frames than h2 reads for that size (about 100 KB encoded) makes h2 end
//! the whole connection. Within it, this layer refuses a call whose
//! metadata is over [`MAX_METADATA_BYTES`] with `RESOURCE_EXHAUSTED` and
//! the reason `METADATA_TOO_LARGE`, before any service reads it.

use std::task::{Context, Poll};

use futures::future::{Either, Ready};
use tower::{Layer, Service};

use crate::api::status;

/// The most metadata a call may carry, counted as HTTP/2 counts a header
/// list: each name and value, plus 32 bytes an entry. A bearer token, a
/// trace context and the gRPC headers take well under 1 KB.
pub const MAX_METADATA_BYTES: usize = 16 * 1024;

/// The header list size the HTTP/2 connection reads (its
/// `SETTINGS_MAX_HEADER_LIST_SIZE`): room for [`MAX_METADATA_BYTES`] to be
/// answered with a readable status rather than HTTP 431.
pub const HTTP2_MAX_HEADER_LIST_BYTES: u32 = 64 * 1024;

/// The size HTTP/2 counts for a request's headers.
fn header_list_size(headers: &http::HeaderMap) -> usize {
    headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 32)
        .sum()
}

/// Refuses calls whose metadata is over [`MAX_METADATA_BYTES`].
#[derive(Clone, Copy, Debug, Default)]
pub struct MetadataLimitLayer;

impl<S> Layer<S> for MetadataLimitLayer {
    type Service = MetadataLimit<S>;

    fn layer(&self, inner: S) -> Self::Service {
        MetadataLimit { inner }
    }
}

/// The service [`MetadataLimitLayer`] wraps around another.
#[derive(Clone, Debug)]
pub struct MetadataLimit<S> {
    inner: S,
}

impl<S, B, R> Service<http::Request<B>> for MetadataLimit<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>>,
    R: Default,
{
    type Response = S::Response;
    type Error = S::Error;
    /// A refusal is ready at once; any other call's future is the wrapped
    /// service's own, not boxed.
    type Future = Either<Ready<Result<Self::Response, Self::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let size = header_list_size(request.headers());
        if size > MAX_METADATA_BYTES {
            let refusal = status::metadata_too_large(size, MAX_METADATA_BYTES);
            return Either::Left(futures::future::ready(Ok(refusal.into_http())));
        }
        Either::Right(self.inner.call(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_counted_as_http2_counts_them() {
        let mut headers = http::HeaderMap::new();
        headers.insert("authorization", "Bearer abc".parse().unwrap());
        headers.insert("te", "trailers".parse().unwrap());
        assert_eq!(header_list_size(&headers), (13 + 10 + 32) + (2 + 8 + 32));
    }
}
