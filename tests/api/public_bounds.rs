//! The bounds on what one request may cost: round and board numbers, the
//! games an event may list, the size of a TRF report and of a page of
//! standings, the times a request may carry and the metadata a call may
//! send. Each is refused with a status the client can read, naming the
//! cause, and changes nothing.

use std::collections::HashMap;

use arbiter::{
    arbiter::MAX_TRF_BYTES,
    proto,
    server::{HTTP2_MAX_HEADER_LIST_BYTES, MAX_METADATA_BYTES},
};
use tonic::{Code, Status};
use tonic_types::StatusExt;

use crate::common::{
    self, ADMIN_TOKEN, Backend, TestApp, admin, create, create_request, expect_code, make_move,
    reason, seat,
};

/// A game of `event` at `round` and `board` between players named after
/// their seats.
fn paired(event: &str, round: i32, board: i32) -> proto::CreateGameRequest {
    let mut request = create_request("", "");
    request.pairing = Some(common::pairing(event, round, board));
    for (seat, side) in [(&mut request.white, "w"), (&mut request.black, "b")] {
        *seat = Some(proto::Player {
            id: format!("r{round}b{board}{side}"),
            name: format!("Player {round}.{board}{side}"),
            ..Default::default()
        });
    }
    request
}

/// The `ErrorInfo` metadata of a status.
#[track_caller]
fn info_metadata(status: &Status) -> HashMap<String, String> {
    status
        .get_details_error_info()
        .unwrap_or_else(|| panic!("an ErrorInfo detail: {status:?}"))
        .metadata
}

/// A TRF export is refused, whole, when it could be larger than a reply
/// may be, and served up to that size: 150 games in round 1000 (the last
/// allowed) make a report of about 3 MB, 50 more could make it over 4 MB.
async fn a_trf_report_is_bounded(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "wide rounds";
    for board in 1..=150 {
        create(&mut admin_client, paired(event, 1_000, board))
            .await
            .expect("create");
    }
    let export = |client: &mut common::Client| {
        let mut client = client.clone();
        async move {
            client
                .export_trf(proto::ExportTrfRequest {
                    event_id: event.to_owned(),
                    ..Default::default()
                })
                .await
        }
    };
    let trf = export(&mut client).await.expect("served").into_inner().trf;
    assert!(trf.len() <= MAX_TRF_BYTES, "{} bytes", trf.len());
    assert!(trf.len() > 2_500_000, "1000 rounds of 300 players");
    assert_eq!(trf.lines().filter(|l| l.starts_with("001")).count(), 300);
    for board in 151..=200 {
        create(&mut admin_client, paired(event, 1_000, board))
            .await
            .expect("create");
    }
    for reader in [None, Some(ADMIN_TOKEN)] {
        let request = proto::ExportTrfRequest {
            event_id: event.to_owned(),
            ..Default::default()
        };
        let result = match reader {
            None => client.export_trf(request).await,
            Some(token) => client.export_trf(common::with_token(token, request)).await,
        };
        let status = expect_code(result, Code::ResourceExhausted);
        assert_eq!(reason(&status), "REPLY_TOO_LARGE");
        let metadata = info_metadata(&status);
        assert_eq!(metadata["limit"], MAX_TRF_BYTES.to_string());
        let size: usize = metadata["size"].parse().expect("a size");
        assert!(size > MAX_TRF_BYTES);
        assert!(status.message().contains("TRF"), "{}", status.message());
    }
}

/// An event lists at most as many games as the server allows: one more is
/// refused with FAILED_PRECONDITION (EVENT_FULL) and not created, a
/// repeated creation of a listed game is still answered, and other events
/// are not affected.
async fn an_event_lists_a_bounded_number_of_games(backend: Backend) {
    let mut settings = common::settings(backend.store());
    settings.max_event_games = 3;
    let app = TestApp::spawn_with(settings, None).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "small hall";
    let mut first = paired(event, 1, 1);
    first.request_id = "small-hall-1".to_owned();
    let created = create(&mut admin_client, first.clone())
        .await
        .expect("create");
    for board in 2..=3 {
        create(&mut admin_client, paired(event, 1, board))
            .await
            .expect("create");
    }
    let status = expect_code(
        create(&mut admin_client, paired(event, 2, 1)).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "EVENT_FULL");
    assert!(status.message().contains("3 games"), "{}", status.message());
    let listed = client
        .list_games(proto::ListGamesRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner();
    assert_eq!(listed.games.len(), 3, "the refused game was not created");
    let again = create(&mut admin_client, first).await.expect("a retry");
    assert_eq!(again.id, created.id);
    create(&mut admin_client, paired("another hall", 1, 1))
        .await
        .expect("another event has room");
}

/// Standings come in pages (at most 2000 lines), each page with a token
/// for the next; a token is refused with other regulations, and a
/// negative page size is refused.
async fn standings_come_in_bounded_pages(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let mut admin_client = app.admin_client().await;
    let event = "paged standings";
    for board in 1..=3 {
        create(&mut admin_client, paired(event, 1, board))
            .await
            .expect("create");
    }
    let request = |page_size: i32, page_token: &str| proto::GetStandingsRequest {
        event_id: event.to_owned(),
        page_size,
        page_token: page_token.to_owned(),
        ..Default::default()
    };
    let whole = client
        .get_standings(request(0, ""))
        .await
        .expect("standings")
        .into_inner();
    assert_eq!(whole.standings.len(), 6);
    assert!(whole.next_page_token.is_empty());
    let mut token = String::new();
    let mut paged = Vec::new();
    loop {
        let page = client
            .get_standings(request(4, &token))
            .await
            .expect("a page")
            .into_inner();
        assert!(page.standings.len() <= 4);
        assert_eq!(page.games_counted, 0);
        paged.extend(page.standings);
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(paged, whole.standings);
    let first = client
        .get_standings(request(4, ""))
        .await
        .expect("a page")
        .into_inner();
    let mut other_rules = request(4, &first.next_page_token);
    other_rules.total_rounds = 9;
    let status = expect_code(
        client.get_standings(other_rules).await,
        Code::InvalidArgument,
    );
    assert_eq!(reason(&status), "INVALID_FIELD");
    assert!(status.message().contains("page_token"), "{status:?}");
    let status = expect_code(
        client.get_standings(request(-1, "")).await,
        Code::InvalidArgument,
    );
    assert!(status.message().contains("page_size"), "{status:?}");
}

/// A scheduled start must be a time protobuf and RFC 3339 can hold: from
/// 1970 to the end of 9999, nanos a fraction of a second. Refused times
/// create nothing; the latest accepted one is written back in RFC 3339.
async fn request_times_are_within_the_protobuf_range(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut admin_client = app.admin_client().await;
    let mut client = app.client().await;
    let event = "far future";
    let at = |seconds: i64, nanos: i32| prost_types::Timestamp { seconds, nanos };
    for (time, says) in [
        (at(253_402_300_800, 0), "before the year 10000"),
        (at(1_000_000_000_000, 0), "before the year 10000"),
        (at(i64::MAX, 0), "before the year 10000"),
        (at(1_700_000_000, i32::MAX), "nanos"),
        (at(1_700_000_000, -1), "nanos"),
        (at(-1, 0), "after 1970"),
        (at(i64::MIN, 0), "after 1970"),
    ] {
        let mut request = paired(event, 1, 1);
        request.scheduled_start_time = Some(time);
        let status = expect_code(
            admin_client.create_game(admin(request)).await,
            Code::InvalidArgument,
        );
        assert_eq!(reason(&status), "INVALID_FIELD");
        assert!(
            status.message().contains("scheduled_start_time") && status.message().contains(says),
            "{time:?}: {status:?}"
        );
    }
    let listed = client
        .list_games(proto::ListGamesRequest {
            event_id: event.to_owned(),
            ..Default::default()
        })
        .await
        .expect("list")
        .into_inner();
    assert!(listed.games.is_empty(), "nothing was created");

    let latest = at(253_402_300_799, 999_999_999);
    let mut request = paired(event, 1, 1);
    request.scheduled_start_time = Some(latest);
    let game = create(&mut admin_client, request).await.expect("create");
    let read = common::get(&mut client, &game.id).await;
    assert_eq!(
        common::setup(&read).scheduled_start_time,
        Some(at(253_402_300_799, 999_000_000)),
        "kept to the millisecond"
    );
    let status = expect_code(
        seat(&mut client, &game.white, make_move(&game.id, 0, "e4")).await,
        Code::FailedPrecondition,
    );
    assert_eq!(reason(&status), "NOT_STARTED");
    assert_eq!(
        info_metadata(&status)["start_time"],
        "9999-12-31T23:59:59.999Z"
    );
}

/// One HTTP/2 connection that never reconnects (unlike a tonic channel),
/// so that a test can tell whether the server ended it.
struct RawConnection {
    sender: h2::client::SendRequest<bytes::Bytes>,
    addr: std::net::SocketAddr,
}

impl RawConnection {
    async fn open(addr: std::net::SocketAddr) -> Self {
        let tcp = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let (sender, connection) = h2::client::handshake(tcp).await.expect("handshake");
        tokio::spawn(async move {
            let _ = connection.await;
        });
        Self { sender, addr }
    }

    /// A unary GetGame over this connection with `padding` bytes of extra
    /// metadata: the gRPC status (from the trailers, or the headers of a
    /// trailers-only reply), or the HTTP status when the call was not
    /// answered in gRPC, or the error that ended the stream.
    async fn get_game(&mut self, game_id: &str, padding: usize) -> Result<String, String> {
        use prost::Message;
        let message = proto::GetGameRequest {
            game_id: game_id.to_owned(),
            ..Default::default()
        }
        .encode_to_vec();
        let mut body = vec![0u8];
        body.extend_from_slice(&u32::try_from(message.len()).expect("small").to_be_bytes());
        body.extend_from_slice(&message);
        let mut request = http::Request::post(format!(
            "http://{}/chessarbiter.v1.ArbiterService/GetGame",
            self.addr
        ))
        .header("content-type", "application/grpc")
        .header("te", "trailers");
        if padding > 0 {
            request = request.header("x-padding", "p".repeat(padding));
        }
        let request = request.body(()).expect("request");
        let sender = self
            .sender
            .clone()
            .ready()
            .await
            .map_err(|e| e.to_string())?;
        self.sender = sender;
        let (response, mut stream) = self
            .sender
            .send_request(request, false)
            .map_err(|e| e.to_string())?;
        stream
            .send_data(bytes::Bytes::from(body), true)
            .map_err(|e| e.to_string())?;
        let response = response.await.map_err(|e| e.to_string())?;
        if response.status() != http::StatusCode::OK {
            return Ok(format!("http {}", response.status().as_u16()));
        }
        if let Some(status) = response.headers().get("grpc-status") {
            return Ok(status.to_str().unwrap_or_default().to_owned());
        }
        let mut body = response.into_body();
        while let Some(data) = body.data().await {
            data.map_err(|e| e.to_string())?;
        }
        let trailers = body.trailers().await.map_err(|e| e.to_string())?;
        Ok(trailers
            .and_then(|t| t.get("grpc-status").cloned())
            .map(|v| v.to_str().unwrap_or_default().to_owned())
            .unwrap_or_default())
    }
}

/// A call whose metadata is over the limit is refused with
/// RESOURCE_EXHAUSTED (METADATA_TOO_LARGE) and its size; a call far over
/// it (which HTTP/2 itself refuses, with HTTP 431) fails alone: on one
/// connection that cannot reconnect, each is followed by a call that is
/// served.
async fn large_metadata_gets_a_readable_status(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let mut client = app.client().await;
    let game = app.new_game().await;
    let get = |token: String| {
        common::with_token(
            &token,
            proto::GetGameRequest {
                game_id: game.id.clone(),
                ..Default::default()
            },
        )
    };
    let status = expect_code(
        client.get_game(get("x".repeat(MAX_METADATA_BYTES))).await,
        Code::ResourceExhausted,
    );
    assert_eq!(reason(&status), "METADATA_TOO_LARGE");
    assert_eq!(
        info_metadata(&status)["limit"],
        MAX_METADATA_BYTES.to_string()
    );
    assert!(
        !status.message().contains("xxxx"),
        "the token is not echoed"
    );
    // Just under the limit, the call is served (an unknown token reads as
    // the public).
    let fits = MAX_METADATA_BYTES - 1_000;
    client
        .get_game(get("y".repeat(fits)))
        .await
        .expect("metadata within the limit");

    let mut raw = RawConnection::open(app.addr).await;
    let ok = Ok("0".to_owned());
    assert_eq!(raw.get_game(&game.id, 0).await, ok);
    let over = Ok((Code::ResourceExhausted as i32).to_string());
    assert_eq!(raw.get_game(&game.id, MAX_METADATA_BYTES).await, over);
    assert_eq!(
        raw.get_game(&game.id, 0).await,
        ok,
        "the connection serves on"
    );
    let past_http2 = HTTP2_MAX_HEADER_LIST_BYTES as usize + 1_000;
    assert_eq!(
        raw.get_game(&game.id, past_http2).await,
        Ok("http 431".to_owned())
    );
    assert_eq!(
        raw.get_game(&game.id, 0).await,
        ok,
        "the connection serves on"
    );
}

on_every_backend!(
    a_trf_report_is_bounded,
    an_event_lists_a_bounded_number_of_games,
    standings_come_in_bounded_pages,
    request_times_are_within_the_protobuf_range,
    large_metadata_gets_a_readable_status,
);
