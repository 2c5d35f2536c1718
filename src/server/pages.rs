//! The pages the server serves on its web port (`--web-listen`): the
//! spectator page (`/`), the arbiter's console (`/console`) and what they
//! load, built from `clients/web` into
//! `clients/web/built/` (committed; `scripts/check-web` checks that it
//! matches its sources) and embedded in the binary.
//!
//! [`PagesLayer`] sits outermost on the web port: a `GET` or `HEAD` is a
//! page (or a 404), anything else goes on to gRPC-Web, so the pages call
//! the API from their own origin and need no CORS set-up. On the gRPC
//! port the layer is switched off and passes everything through.

use std::{
    sync::OnceLock,
    task::{Context, Poll},
};

use bytes::Bytes;
use futures::future::{Either, Ready};
use http::{HeaderValue, Method, StatusCode, header};
use http_body_util::Full;
use tower::{Layer, Service};

/// One embedded file.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

/// Every file the web port serves; `/` is `index.html`, `/console` is
/// `console.html`.
const ASSETS: &[Asset] = &[
    Asset {
        path: "/index.html",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../../clients/web/built/index.html"),
    },
    Asset {
        path: "/console.html",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../../clients/web/built/console.html"),
    },
    Asset {
        path: "/spectator.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../clients/web/built/spectator.js"),
    },
    Asset {
        path: "/console.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../clients/web/built/console.js"),
    },
    Asset {
        path: "/pages.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../../clients/web/built/pages.css"),
    },
];

/// What the pages may load and call: their own files (pieces and board are
/// data URIs in the style sheet), and gRPC-Web on their own origin or on a
/// server named with `?server=`.
const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
     connect-src 'self' http: https:; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

/// The console's: it holds a credential, and calls its own origin only.
const CONSOLE_SECURITY_POLICY: &str = "default-src 'self'; img-src 'self' data:; \
     connect-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

fn asset(path: &str) -> Option<&'static Asset> {
    let path = match path {
        "/" => "/index.html",
        "/console" => "/console.html",
        other => other,
    };
    ASSETS.iter().find(|asset| asset.path == path)
}

/// A strong validator per file, computed once: the FNV-1a hash of its bytes.
fn etag(asset: &'static Asset) -> &'static HeaderValue {
    static TAGS: OnceLock<Vec<HeaderValue>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|asset| {
                let hash = asset.body.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                    (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
                });
                HeaderValue::from_str(&format!("\"{hash:016x}\""))
                    .unwrap_or(HeaderValue::from_static("\"0\""))
            })
            .collect()
    });
    let index = ASSETS
        .iter()
        .position(|known| std::ptr::eq(known, asset))
        .unwrap_or(0);
    &tags[index]
}

/// The answer to a `GET` or `HEAD` of `request`.
fn respond<B>(request: &http::Request<B>) -> http::Response<Full<Bytes>> {
    let head = request.method() == Method::HEAD;
    let Some(asset) = asset(request.uri().path()) else {
        let mut response = http::Response::new(Full::new(if head {
            Bytes::new()
        } else {
            Bytes::from_static(b"not found: the pages are / (the spectator page)\n")
        }));
        *response.status_mut() = StatusCode::NOT_FOUND;
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        return response;
    };
    let tag = etag(asset);
    let fresh = request
        .headers()
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        // Weak comparison (RFC 9110 13.1.2): a proxy that compresses may
        // have weakened the tag; `*` matches any.
        .any(|candidate| {
            candidate == "*"
                || candidate.trim_start_matches("W/") == tag.to_str().unwrap_or_default()
        });
    let (status, body) = if fresh {
        (StatusCode::NOT_MODIFIED, Bytes::new())
    } else if head {
        (StatusCode::OK, Bytes::new())
    } else {
        (StatusCode::OK, Bytes::from_static(asset.body))
    };
    let mut response = http::Response::new(Full::new(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    if head && !fresh {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(asset.body.len()));
    }
    headers.insert(header::ETAG, tag.clone());
    // Always revalidated (a 304 when unchanged), so that a new server's
    // pages are never mixed with an old one's.
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(if asset.path == "/console.html" {
            CONSOLE_SECURITY_POLICY
        } else {
            CONTENT_SECURITY_POLICY
        }),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// Serves the pages for `GET` and `HEAD` when on; passes everything else
/// (and everything, when off) to the service it wraps.
#[derive(Clone, Copy, Debug)]
pub struct PagesLayer {
    on: bool,
}

impl PagesLayer {
    /// The pages served (the web port).
    pub fn on() -> Self {
        Self { on: true }
    }

    /// Everything passed through (the gRPC port).
    pub fn off() -> Self {
        Self { on: false }
    }
}

impl<S> Layer<S> for PagesLayer {
    type Service = Pages<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Pages { inner, on: self.on }
    }
}

/// The service [`PagesLayer`] wraps around another.
#[derive(Clone, Debug)]
pub struct Pages<S> {
    inner: S,
    on: bool,
}

impl<S, B> Service<http::Request<B>> for Pages<S>
where
    S: Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
{
    type Response = S::Response;
    type Error = S::Error;
    /// A page is ready at once; anything else is the wrapped service's own
    /// future, not boxed: on the gRPC port every call passes through here.
    type Future = Either<Ready<Result<Self::Response, Self::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        if self.on && matches!(*request.method(), Method::GET | Method::HEAD) {
            let response = respond(&request).map(tonic::body::Body::new);
            return Either::Left(futures::future::ready(Ok(response)));
        }
        Either::Right(self.inner.call(request))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str) -> http::Request<()> {
        http::Request::get(path).body(()).expect("request")
    }

    #[test]
    fn the_console_may_call_its_own_origin_only() {
        let console = respond(&get("/console"));
        assert_eq!(
            console.headers()[header::CONTENT_SECURITY_POLICY],
            CONSOLE_SECURITY_POLICY
        );
        assert!(CONSOLE_SECURITY_POLICY.contains("connect-src 'self';"));
        let spectator = respond(&get("/"));
        assert_eq!(
            spectator.headers()[header::CONTENT_SECURITY_POLICY],
            CONTENT_SECURITY_POLICY
        );
    }

    #[test]
    fn the_root_is_the_spectator_page_and_each_file_has_its_type() {
        let page = respond(&get("/"));
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(
            page.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        assert_eq!(
            respond(&get("/index.html")).headers()[header::ETAG],
            page.headers()[header::ETAG]
        );
        assert_eq!(
            respond(&get("/console")).headers()[header::ETAG],
            respond(&get("/console.html")).headers()[header::ETAG]
        );
        for (path, kind) in [
            ("/console", "text/html"),
            ("/spectator.js", "text/javascript"),
            ("/console.js", "text/javascript"),
            ("/pages.css", "text/css"),
        ] {
            let response = respond(&get(path));
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            let content_type = response.headers()[header::CONTENT_TYPE]
                .to_str()
                .expect("ascii");
            assert!(content_type.starts_with(kind), "{path}: {content_type}");
        }
        assert_eq!(
            respond(&get("/spectator.js.map")).status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            respond(&get("/../Cargo.toml")).status(),
            StatusCode::NOT_FOUND
        );
    }

    #[test]
    fn an_unchanged_file_is_not_sent_again() {
        let tag = respond(&get("/spectator.js")).headers()[header::ETAG].clone();
        let again = http::Request::get("/spectator.js")
            .header(header::IF_NONE_MATCH, tag.clone())
            .body(())
            .expect("request");
        assert_eq!(respond(&again).status(), StatusCode::NOT_MODIFIED);
        let other = http::Request::get("/spectator.js")
            .header(header::IF_NONE_MATCH, "\"0000\"")
            .body(())
            .expect("request");
        assert_eq!(respond(&other).status(), StatusCode::OK);
        for weakened in [
            "W/".to_owned() + tag.to_str().expect("ascii"),
            "*".to_owned(),
        ] {
            let again = http::Request::get("/spectator.js")
                .header(header::IF_NONE_MATCH, weakened.as_str())
                .body(())
                .expect("request");
            assert_eq!(
                respond(&again).status(),
                StatusCode::NOT_MODIFIED,
                "{weakened}"
            );
        }
    }

    #[test]
    fn every_page_refers_only_to_files_that_are_served() {
        for page in ["/index.html", "/console.html"] {
            let html = std::str::from_utf8(asset(page).expect("a page").body).expect("utf-8");
            for reference in html
                .split(['"', '\''])
                .filter(|part| part.ends_with(".js") || part.ends_with(".css"))
            {
                let path = format!("/{}", reference.trim_start_matches("./"));
                assert!(
                    asset(&path).is_some(),
                    "{page} refers to {reference}, which is not served"
                );
            }
        }
    }
}
