//! Browsers and older tools: gRPC-Web on the same port (unary and server
//! streaming, over HTTP/1.1 as a browser's fetch sends it), CORS for the
//! configured web origins only, reflection in v1alpha beside v1, and the
//! web port: the pages (`clients/web/built`, embedded) and gRPC-Web on one
//! origin. (The pages themselves are tested in a browser by
//! `scripts/check-web`.)

use std::time::Duration;

use arbiter::proto;
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic_reflection::pb::v1alpha::{
    ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
    server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
};

use crate::common::{
    Backend, STREAM_PATIENCE, TestApp, create, create_request, free_port, make_move, next_within,
    seat, settings,
};

/// One HTTP/1.1 exchange on a fresh connection: the status line and
/// headers, and the body (chunked bodies joined).
async fn http1(app: &TestApp, request: &[u8]) -> (String, Vec<u8>) {
    http1_at(app.addr, request).await
}

/// [`http1`] to any port.
async fn http1_at(addr: std::net::SocketAddr, request: &[u8]) -> (String, Vec<u8>) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("send");
    let mut reply = Vec::new();
    tokio::time::timeout(STREAM_PATIENCE, stream.read_to_end(&mut reply))
        .await
        .expect("the server answers and closes")
        .expect("read");
    let split = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&reply[..split]).to_string();
    let mut body = reply[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    (head, body)
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size = usize::from_str_radix(
            std::str::from_utf8(&body[..line_end])
                .expect("ascii")
                .trim(),
            16,
        )
        .expect("hex size");
        body = &body[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

/// A gRPC-Web call of `method` with `message`, as a browser sends it.
fn grpc_web_request(method: &str, message: &impl Message, origin: Option<&str>) -> Vec<u8> {
    let payload = message.encode_to_vec();
    let mut body = vec![0];
    body.extend_from_slice(&u32::try_from(payload.len()).expect("size").to_be_bytes());
    body.extend_from_slice(&payload);
    let mut request = format!(
        "POST /chessarbiter.v1.ArbiterService/{method} HTTP/1.1\r\nHost: localhost\r\n\
         Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nAccept: application/grpc-web+proto\r\n\
         Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(origin) = origin {
        request.push_str(&format!("Origin: {origin}\r\n"));
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend(body);
    bytes
}

/// The frames of a gRPC-Web response body: messages, then the trailers.
fn frames(mut body: &[u8]) -> (Vec<Vec<u8>>, String) {
    let mut messages = Vec::new();
    let mut trailers = String::new();
    while body.len() >= 5 {
        let flag = body[0];
        let len = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as usize;
        let frame = body[5..5 + len].to_vec();
        body = &body[5 + len..];
        if flag & 0x80 != 0 {
            trailers = String::from_utf8_lossy(&frame).to_string();
        } else {
            messages.push(frame);
        }
    }
    (messages, trailers)
}

async fn grpc_web_serves_reads_and_watches(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = create(&mut app.admin_client().await, create_request("", ""))
        .await
        .expect("created");
    seat(&mut client, &game.white, make_move(&game.id, 0, "e4"))
        .await
        .expect("e4");

    let (head, body) = http1(
        &app,
        &grpc_web_request(
            "GetGame",
            &proto::GetGameRequest {
                game_id: game.id.clone(),
                view: proto::GameView::Full.into(),
            },
            None,
        ),
    )
    .await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("application/grpc-web"), "{head}");
    let (messages, trailers) = frames(&body);
    assert!(trailers.contains("grpc-status:0"), "{trailers:?}");
    let read = proto::GetGameResponse::decode(messages[0].as_slice()).expect("a response");
    let read = read.game.expect("game");
    assert_eq!((read.ply, read.moves.len()), (1, 1));

    // An error comes as a status, with its details, as a browser reads it.
    let (head, body) = http1(
        &app,
        &grpc_web_request(
            "GetGame",
            &proto::GetGameRequest {
                game_id: "no-such-game".to_owned(),
                ..Default::default()
            },
            None,
        ),
    )
    .await;
    let all = format!("{head}\n{}", frames(&body).1).to_ascii_lowercase();
    assert!(
        all.contains("grpc-status: 5") || all.contains("grpc-status:5"),
        "{all}"
    );
    assert!(all.contains("grpc-status-details-bin"), "{all}");

    // Server streaming: a finished game's watch sends its events and ends.
    seat(
        &mut client,
        &game.black,
        proto::ResignGameRequest {
            game_id: game.id.clone(),
        },
    )
    .await
    .expect("resign");
    let (_, body) = http1(
        &app,
        &grpc_web_request(
            "WatchGame",
            &proto::WatchGameRequest {
                game_id: game.id.clone(),
                after_version: 1,
                ..Default::default()
            },
            None,
        ),
    )
    .await;
    let (messages, trailers) = frames(&body);
    assert!(trailers.contains("grpc-status:0"), "{trailers:?}");
    let versions: Vec<i32> = messages
        .iter()
        .map(|message| {
            let update = proto::WatchGameResponse::decode(message.as_slice()).expect("update");
            match update.kind {
                Some(proto::watch_game_response::Kind::Event(event)) => event.version,
                other => panic!("an event, not {other:?}"),
            }
        })
        .collect();
    assert_eq!(versions, vec![2, 3]);
}

on_every_backend!(
    grpc_web_serves_reads_and_watches,
    the_web_port_serves_the_pages_and_the_api_on_one_origin
);

/// CORS answers the configured origins only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_admits_the_configured_origins_only() {
    let mut with_origins = settings(Backend::Memory.store());
    with_origins.cors_allowed_origins = vec!["https://play.example.org".to_owned()];
    let app = TestApp::spawn_with(with_origins, None).await;
    let preflight = |origin: &str| {
        format!(
            "OPTIONS /chessarbiter.v1.ArbiterService/GetGame HTTP/1.1\r\nHost: localhost\r\n\
             Origin: {origin}\r\nAccess-Control-Request-Method: POST\r\n\
             Access-Control-Request-Headers: content-type,x-grpc-web,authorization\r\n\
             Connection: close\r\n\r\n"
        )
        .into_bytes()
    };
    let (head, _) = http1(&app, &preflight("https://play.example.org")).await;
    let lower = head.to_ascii_lowercase();
    assert!(
        lower.contains("access-control-allow-origin: https://play.example.org"),
        "{head}"
    );
    assert!(lower.contains("authorization"), "{head}");
    let (head, _) = http1(&app, &preflight("https://evil.example.com")).await;
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("access-control-allow-origin"),
        "{head}"
    );
    // A call from the allowed origin can read the status headers.
    let (head, _) = http1(
        &app,
        &grpc_web_request(
            "GetGame",
            &proto::GetGameRequest {
                game_id: "no-such-game".to_owned(),
                ..Default::default()
            },
            Some("https://play.example.org"),
        ),
    )
    .await;
    let lower = head.to_ascii_lowercase();
    assert!(lower.contains("access-control-expose-headers"), "{head}");
    assert!(lower.contains("grpc-status"), "{head}");

    // A native gRPC call (HTTP/2) needs no CORS: its reply carries none of
    // it. One that says where it comes from is answered as a page's is.
    let mut client = app.client().await;
    let no_game = || proto::GetGameRequest {
        game_id: "no-such-game".to_owned(),
        ..Default::default()
    };
    let native = client.get_game(no_game()).await.expect_err("no such game");
    assert_eq!(native.code(), tonic::Code::NotFound);
    assert!(
        !native
            .metadata()
            .clone()
            .into_headers()
            .keys()
            .any(|name| name.as_str().starts_with("access-control")),
        "{:?}",
        native.metadata()
    );
    let mut from_page = tonic::Request::new(no_game());
    from_page
        .metadata_mut()
        .insert("origin", "https://play.example.org".parse().unwrap());
    let from_page_reply = client.get_game(from_page).await.expect_err("no such game");
    assert_eq!(from_page_reply.code(), tonic::Code::NotFound);
    assert_eq!(
        from_page_reply
            .metadata()
            .get("access-control-allow-origin")
            .and_then(|value| value.to_str().ok()),
        Some("https://play.example.org"),
        "{:?}",
        from_page_reply.metadata()
    );

    // Without configured origins, no browser page elsewhere may call.
    let app = TestApp::spawn(Backend::Memory).await;
    let (head, _) = http1(&app, &preflight("https://play.example.org")).await;
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("access-control-allow-origin"),
        "{head}"
    );
}

/// Reflection v1alpha, for the tools that speak only it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_v1alpha_lists_the_services() {
    let app = TestApp::spawn(Backend::Memory).await;
    let mut client = ServerReflectionClient::new(app.channel().await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = client
        .server_reflection_info(futures::stream::iter([request]))
        .await
        .expect("reflection v1alpha")
        .into_inner();
    let response = next_within(&mut responses, Duration::from_secs(30))
        .await
        .expect("one response")
        .expect("reflection response");
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("unexpected reflection response: {response:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    for service in [
        "chessarbiter.v1.ArbiterService",
        "chessarbiter.v1.AdminService",
        "grpc.health.v1.Health",
    ] {
        assert!(names.contains(&service.to_owned()), "{service}: {names:?}");
    }
}

/// A server on `backend` with the pages on a port of their own.
async fn spawn_with_pages(backend: Backend) -> (TestApp, std::net::SocketAddr) {
    let web = free_port();
    let mut settings = settings(backend.store());
    settings.web_listen = Some(arbiter::server::WebListen {
        address: web,
        any_port_if_taken: false,
    });
    (TestApp::spawn_with(settings, None).await, web)
}

/// `method path` with `headers` on the web port, once it listens.
async fn web_request(
    web: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
) -> (String, Vec<u8>) {
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: localhost\r\n{headers}Connection: close\r\n\r\n"
    );
    let deadline = tokio::time::Instant::now() + STREAM_PATIENCE;
    while tokio::net::TcpStream::connect(web).await.is_err() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the web port does not listen"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    http1_at(web, request.as_bytes()).await
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

async fn the_web_port_serves_the_pages_and_the_api_on_one_origin(backend: Backend) {
    let (app, web) = spawn_with_pages(backend).await;

    // `/` is the spectator page, with the headers that keep it to its own
    // files and always fresh.
    let (head, body) = web_request(web, "GET", "/", "").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(
        header(&head, "content-type"),
        Some("text/html; charset=utf-8")
    );
    assert_eq!(header(&head, "cache-control"), Some("no-cache"));
    assert_eq!(header(&head, "x-content-type-options"), Some("nosniff"));
    let policy = header(&head, "content-security-policy").expect("a content security policy");
    assert!(policy.starts_with("default-src 'self'"), "{policy}");
    let page = String::from_utf8(body).expect("UTF-8");
    assert!(
        page.contains("<script type=\"module\" src=\"spectator.js\">"),
        "{page}"
    );
    let (_, same) = web_request(web, "GET", "/index.html?game=g-1", "").await;
    assert_eq!(
        same,
        page.as_bytes(),
        "/index.html with a query is the same page"
    );

    // The arbiter's console.
    let (head, body) = web_request(web, "GET", "/console", "").await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(
        header(&head, "content-type"),
        Some("text/html; charset=utf-8")
    );
    let console = String::from_utf8(body).expect("UTF-8");
    assert!(
        console.contains("<script type=\"module\" src=\"console.js\">"),
        "{console}"
    );

    // What they load, with their types; a validator answered with 304.
    for (path, kind) in [
        ("/spectator.js", "text/javascript; charset=utf-8"),
        ("/console.js", "text/javascript; charset=utf-8"),
        ("/pages.css", "text/css; charset=utf-8"),
    ] {
        let (head, body) = web_request(web, "GET", path, "").await;
        assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
        assert_eq!(header(&head, "content-type"), Some(kind), "{path}");
        assert!(body.len() > 1000, "{path} is {} bytes", body.len());
        let tag = header(&head, "etag").expect("an ETag").to_owned();
        let (head, body) =
            web_request(web, "GET", path, &format!("If-None-Match: {tag}\r\n")).await;
        assert!(head.starts_with("HTTP/1.1 304"), "{path}: {head}");
        assert!(body.is_empty());
        let (head, body) = web_request(web, "HEAD", path, "").await;
        assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
        assert!(body.is_empty(), "HEAD has no body");
    }
    let (head, _) = web_request(web, "GET", "/../Cargo.toml", "").await;
    assert!(
        head.starts_with("HTTP/1.1 404") || head.starts_with("HTTP/1.1 400"),
        "{head}"
    );
    let (head, _) = web_request(web, "GET", "/admin", "").await;
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");

    // gRPC-Web on the same port, from the page's own origin: no CORS set-up.
    let game = create(&mut app.admin_client().await, create_request("", ""))
        .await
        .expect("created");
    let origin = format!("http://{web}");
    let (head, body) = http1_at(
        web,
        &grpc_web_request(
            "GetGame",
            &proto::GetGameRequest {
                game_id: game.id.clone(),
                view: proto::GameView::Basic.into(),
            },
            Some(&origin),
        ),
    )
    .await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let (messages, trailers) = frames(&body);
    assert!(trailers.contains("grpc-status:0"), "{trailers:?}");
    let read = proto::GetGameResponse::decode(messages[0].as_slice()).expect("a response");
    assert_eq!(read.game.expect("game").game_id, game.id);

    // The gRPC port serves no pages.
    let (head, _) = http1(
        &app,
        b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(!head.contains("text/html"), "{head}");
}
