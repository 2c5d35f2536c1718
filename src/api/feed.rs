//! The broadcast feed: every game in PGN over plain HTTP, for the relays
//! that poll a URL (lichess's broadcasts, chess.com's and club sites'
//! relays), with each game's broadcast delay applied here, as for any
//! public read:
//!
//! - `GET /games/{game}.pgn`: one game;
//! - `GET /events/{event}/games.pgn`: every game of an event, in round and
//!   board order, sent round after round from the rounds' own answers
//!   (never built in one piece);
//! - `GET /events/{event}/rounds/{round}/games.pgn`: the games of one
//!   round, in board order (what a lichess broadcast round polls);
//! - `GET /events/{event}/rounds/{round}/round.json` (or `index.json`) and
//!   `…/game-{n}.pgn`: the same round as a DGT LiveChess-style index (a
//!   pairing a game, in board order) and each game on its own, `n` from 1
//!   in board order.
//!
//! Event ids are percent-encoded in the path. Each game carries `GameId`
//! (stable for its life), `Round "round.board"`, `[%clk]` after every timed
//! move and, while it is played, `WhiteClock`/`BlackClock` (see
//! [`crate::domain::tournament::pgn::export_for_broadcast`]). Answers are
//! `200` with `application/x-chess-pgn`, `404` for an unknown game or an
//! event (or round) without games, `400` for a malformed id or round, `503`
//! while the store is unreachable.
//!
//! Cheap to poll by many: a replica builds each answer at most once a
//! second ([`FRESH_FOR`]; one build shared by every poll that asks while it
//! runs), with its gzip form and a strong `ETag`, so that a poll that sends
//! the `ETag` back (`If-None-Match`) gets a `304` without a body and a
//! thousand pollers of a round cost the store what one does.

use std::{
    collections::HashMap,
    io::Write as _,
    sync::{Arc, Mutex, PoisonError},
    time::{Duration, Instant, SystemTime},
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::{Path, State},
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use httpdate::HttpDate;
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;
use tonic::Code;

use super::{auth, request, rounds};
use crate::{
    api::auth::AdminToken,
    arbiter::{Arbiter, ArbiterError, BroadcastGame, Reader},
    domain::{EventId, GameId, Player},
};

/// The media type of PGN.
const PGN: &str = "application/x-chess-pgn; charset=utf-8";

/// How long an answer built once is served to every poll.
pub const FRESH_FOR: Duration = Duration::from_secs(1);

/// The most answers a replica keeps; past it, those no longer fresh go.
const MAX_KEPT: usize = 4_096;

/// What an answer is built for, and to whom: the public, or (`live`) the
/// holder of the admin token, who reads every game live. A round is built
/// on its own (round 0: the games without a round); the whole event is
/// served round after round from the rounds' answers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Subject {
    Game(GameId, bool),
    Round(EventId, u32, bool),
}

/// What a body is known by: its strong tags (of the text and of its gzip
/// form) and when the text was first built as it is (kept across rebuilds
/// that find it unchanged), to the second, and as its `Last-Modified`.
struct Tags {
    etag: HeaderValue,
    gzip_etag: HeaderValue,
    modified: HttpDate,
    last_modified: HeaderValue,
}

impl Tags {
    /// The tags of a text whose digest is `digest`, modified at
    /// `modified`.
    fn of(digest: &[u8], modified: HttpDate) -> Self {
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        let tag = |suffix: &str| {
            HeaderValue::from_str(&format!("\"{hex}{suffix}\""))
                .unwrap_or_else(|_| HeaderValue::from_static("\"\""))
        };
        Self {
            etag: tag(""),
            gzip_etag: tag("-gz"),
            last_modified: HeaderValue::from_str(&modified.to_string())
                .unwrap_or_else(|_| HeaderValue::from_static("")),
            modified,
        }
    }
}

/// A body built once: the text, its gzip form and their tags.
struct Built {
    text: Bytes,
    gzip: Bytes,
    tags: Tags,
}

/// What a subject serves: its PGN and, for a round, its DGT-style index,
/// each game on its own, in board order, and the next round with games.
struct Answers {
    pgn: Built,
    index: Option<Built>,
    games: Vec<Built>,
    next_round: Option<u32>,
}

impl Answers {
    /// Each body that `before` (the subject's previous answers) had with
    /// the same text keeps the time it was first built.
    fn dated_after(mut self, before: Option<&Answers>) -> Self {
        let Some(before) = before else {
            return self;
        };
        let keep = |now: &mut Built, then: &Built| {
            if now.tags.etag == then.tags.etag {
                now.tags.modified = then.tags.modified;
                now.tags.last_modified = then.tags.last_modified.clone();
            }
        };
        keep(&mut self.pgn, &before.pgn);
        if let (Some(now), Some(then)) = (self.index.as_mut(), before.index.as_ref()) {
            keep(now, then);
        }
        for (now, then) in self.games.iter_mut().zip(&before.games) {
            keep(now, then);
        }
        self
    }
}

/// One subject's answers, built by the first poll that asks for them.
struct Slot {
    made: Instant,
    built: OnceCell<Answers>,
}

/// The feed's state: the arbiter, the admin token that reads it live, and
/// the answers built lately.
#[derive(Clone)]
struct Feed {
    arbiter: Arbiter,
    admin: AdminToken,
    kept: Arc<Mutex<HashMap<Subject, Arc<Slot>>>>,
}

impl Feed {
    /// Whether the poll reads `event` (`None`: a game read on its own)
    /// live: with the admin token, or a credential that reads the event
    /// live (one confined to an event reads its event's URLs live, and a
    /// game's own URL as the public does). A credential that is not
    /// accepted is answered 401, so that its holder learns why.
    async fn live(&self, headers: &HeaderMap, event: Option<&EventId>) -> Result<bool, Response> {
        let authorization = headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        let reader = auth::feed_reader(&self.admin, &self.arbiter, authorization)
            .await
            .map_err(failed)?;
        Ok(reader.sees_event_live(event))
    }
}

impl Feed {
    /// The answer for `subject`: the one built within [`FRESH_FOR`], or one
    /// built now (once, for every poll that asks meanwhile). A failed
    /// build is not kept.
    async fn answer(&self, subject: Subject) -> Result<Arc<Slot>, ArbiterError> {
        let (slot, before) = {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            match kept.get(&subject) {
                Some(slot) if slot.made.elapsed() < FRESH_FOR => (slot.clone(), None),
                previous => {
                    let before = previous.cloned();
                    if kept.len() >= MAX_KEPT {
                        kept.retain(|_, slot| slot.made.elapsed() < FRESH_FOR);
                    }
                    let slot = Arc::new(Slot {
                        made: Instant::now(),
                        built: OnceCell::new(),
                    });
                    kept.insert(subject.clone(), slot.clone());
                    (slot, before)
                }
            }
        };
        let built = slot
            .built
            .get_or_try_init(|| async {
                let reader = |live: bool| {
                    if live {
                        Reader::ADMIN
                    } else {
                        Reader::Token(None)
                    }
                };
                let answers = match &subject {
                    Subject::Game(id, live) => Answers {
                        pgn: built(self.arbiter.broadcast_game(id, &reader(*live)).await?),
                        index: None,
                        games: Vec::new(),
                        next_round: None,
                    },
                    Subject::Round(event_id, round, live) => {
                        let (games, next_round) = self
                            .arbiter
                            .broadcast_round(event_id, *round, &reader(*live))
                            .await?;
                        answers(&games, next_round)
                    }
                };
                let before = before.as_ref().and_then(|slot| slot.built.get());
                Ok::<_, ArbiterError>(answers.dated_after(before))
            })
            .await;
        if let Err(err) = built {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            if kept
                .get(&subject)
                .is_some_and(|kept| Arc::ptr_eq(kept, &slot))
            {
                kept.remove(&subject);
            }
            return Err(err);
        }
        Ok(slot)
    }
}

/// The answers of a round's `games`: the multi-game PGN, the index
/// lichess reads as a DGT LiveChess `round.json` (a pairing a game, in
/// board order, with the players' names, the result and whether the game
/// is live) and each game's PGN (its `game-{n}.pgn`, n from 1 in board
/// order); `next_round` is the next round with games.
fn answers(games: &[BroadcastGame], next_round: Option<u32>) -> Answers {
    let pgn = games
        .iter()
        .map(|game| game.pgn.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let pairings: Vec<serde_json::Value> = games
        .iter()
        .map(|game| {
            serde_json::json!({
                "white": dgt_player(&game.white),
                "black": dgt_player(&game.black),
                "result": game.result,
                "live": game.live,
                "board": game.board,
            })
        })
        .collect();
    let index = if games.is_empty() {
        String::new()
    } else {
        serde_json::json!({ "pairings": pairings }).to_string()
    };
    Answers {
        pgn: built(pgn),
        index: Some(built(index)),
        games: games.iter().map(|game| built(game.pgn.clone())).collect(),
        next_round,
    }
}

/// A player as a DGT LiveChess `round.json` names them: a name written
/// "Last, First" (as FIDE lists players) as `lname` and `fname`, any other
/// whole as `lname`; and the title and FIDE id when known.
fn dgt_player(player: &Player) -> serde_json::Value {
    let name = player.display_name();
    let mut named = match name.split_once(',') {
        Some((last, first)) if !last.trim().is_empty() && !first.trim().is_empty() => {
            serde_json::json!({ "fname": first.trim(), "lname": last.trim() })
        }
        _ => serde_json::json!({ "lname": name }),
    };
    if let Some(title) = &player.details.title {
        named["title"] = title.clone().into();
    }
    if let Some(id) = player.details.fide_id {
        named["fideid"] = id.into();
    }
    named
}

/// `text` with its gzip form and strong tags (a digest of the text; the
/// gzip form's tag differs, as its bytes do).
fn built(text: String) -> Built {
    let tags = Tags::of(
        &Sha256::digest(text.as_bytes()),
        HttpDate::from(SystemTime::now()),
    );
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    // Writing to memory cannot fail.
    let gzip = encoder
        .write_all(text.as_bytes())
        .and_then(|()| encoder.finish())
        .unwrap_or_default();
    Built {
        tags,
        text: Bytes::from(text),
        gzip: Bytes::from(gzip),
    }
}

/// The feed's routes over `arbiter`; a poll with `Authorization: Bearer`
/// and `admin`'s token reads every game live (the organiser's own relay).
pub fn router(arbiter: Arbiter, admin: AdminToken) -> Router {
    Router::new()
        .route("/games/{file}", get(game))
        .route("/events/{event}/games.pgn", get(event))
        .route("/events/{event}/rounds/{round}/{file}", get(round))
        .with_state(Feed {
            arbiter,
            admin,
            kept: Arc::default(),
        })
}

async fn game(State(feed): State<Feed>, Path(file): Path<String>, headers: HeaderMap) -> Response {
    let Some(raw) = file.strip_suffix(".pgn") else {
        return refused(
            StatusCode::NOT_FOUND,
            "games are served as /games/{game}.pgn",
        );
    };
    let id = match request::game_id(raw) {
        Ok(id) => id,
        Err(status) => return refused(StatusCode::BAD_REQUEST, status.message()),
    };
    let live = match feed.live(&headers, None).await {
        Ok(live) => live,
        Err(response) => return response,
    };
    let read = feed.answer(Subject::Game(id, live)).await;
    answer(read, live, &headers, PGN, "", |answers| Some(&answers.pgn))
}

/// Every game of the event, round after round (the games without a round
/// first), each round from its own answer: the text is never built in one
/// piece, but sent as the rounds' texts one after another (compressed as
/// it goes for a poller that takes gzip), tagged by the rounds' tags.
async fn event(
    State(feed): State<Feed>,
    Path(event): Path<String>,
    headers: HeaderMap,
) -> Response {
    let event_id = match request::event_id(&event) {
        Ok(id) => id,
        Err(status) => return refused(StatusCode::BAD_REQUEST, status.message()),
    };
    let live = match feed.live(&headers, Some(&event_id)).await {
        Ok(live) => live,
        Err(response) => return response,
    };
    let mut rounds = Vec::new();
    let mut round = 0;
    loop {
        let slot = match feed
            .answer(Subject::Round(event_id.clone(), round, live))
            .await
        {
            Ok(slot) => slot,
            Err(err) => return failed(err),
        };
        let next = slot.built.get().and_then(|answers| answers.next_round);
        rounds.push(slot);
        // Rounds come in increasing order; the list is read to its end.
        match next {
            Some(next) if next > round => round = next,
            _ => break,
        }
    }
    let parts: Vec<&Built> = rounds
        .iter()
        .filter_map(|slot| slot.built.get())
        .map(|answers| &answers.pgn)
        .filter(|built| !built.text.is_empty())
        .collect();
    if parts.is_empty() {
        return refused(StatusCode::NOT_FOUND, "the event has no games");
    }
    let mut digest = Sha256::new();
    for part in &parts {
        digest.update(part.tags.etag.as_bytes());
    }
    let modified = parts
        .iter()
        .map(|part| SystemTime::from(part.tags.modified))
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let tags = Tags::of(&digest.finalize(), HttpDate::from(modified));
    // Rounds are separated by a blank line, as games are within one.
    let mut texts = Vec::with_capacity(parts.len() * 2);
    for (n, part) in parts.iter().enumerate() {
        if n > 0 {
            texts.push(Bytes::from_static(b"\n"));
        }
        texts.push(part.text.clone());
    }
    respond(&tags, live, &headers, PGN, move |gzip| {
        if gzip {
            Body::from_stream(gzipped(texts))
        } else {
            Body::from_stream(futures::stream::iter(
                texts.into_iter().map(Ok::<_, std::io::Error>),
            ))
        }
    })
}

/// `texts` one after another in one gzip stream, compressed as the body
/// is sent.
fn gzipped(texts: Vec<Bytes>) -> impl futures::Stream<Item = std::io::Result<Bytes>> + Send {
    use futures::TryStreamExt as _;
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    futures::stream::unfold(
        (texts.into_iter(), Some(encoder)),
        |(mut texts, encoder)| async move {
            let mut encoder = encoder?;
            match texts.next() {
                Some(text) => {
                    let written = encoder.write_all(&text);
                    let out = std::mem::take(encoder.get_mut());
                    Some((written.map(|()| Bytes::from(out)), (texts, Some(encoder))))
                }
                None => Some((encoder.finish().map(Bytes::from), (texts, None))),
            }
        },
    )
    .try_filter(|chunk| futures::future::ready(!chunk.is_empty()))
}

/// What a round's URL names: its games in one PGN, its index, or one game
/// by its place in board order (from 1).
enum RoundFile {
    Games,
    Index,
    Game(usize),
}

impl RoundFile {
    fn parse(file: &str) -> Option<Self> {
        match file {
            "games.pgn" => Some(Self::Games),
            "round.json" | "index.json" => Some(Self::Index),
            _ => file
                .strip_prefix("game-")?
                .strip_suffix(".pgn")?
                .parse()
                .ok()
                .filter(|&n: &usize| n >= 1)
                .map(Self::Game),
        }
    }
}

async fn round(
    State(feed): State<Feed>,
    Path((event, round, file)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    let Some(file) = RoundFile::parse(&file) else {
        return refused(
            StatusCode::NOT_FOUND,
            "a round serves games.pgn, round.json (or index.json) and game-{n}.pgn",
        );
    };
    let event_id = match request::event_id(&event) {
        Ok(id) => id,
        Err(status) => return refused(StatusCode::BAD_REQUEST, status.message()),
    };
    let number = match round.parse::<i32>().map(rounds::round_number) {
        Ok(Ok(number)) => number,
        Ok(Err(status)) => return refused(StatusCode::BAD_REQUEST, status.message()),
        Err(_) => return refused(StatusCode::BAD_REQUEST, "the round is not a number"),
    };
    let live = match feed.live(&headers, Some(&event_id)).await {
        Ok(live) => live,
        Err(response) => return response,
    };
    let read = feed.answer(Subject::Round(event_id, number, live)).await;
    let empty = "the event has no games in this round";
    match file {
        RoundFile::Games => answer(read, live, &headers, PGN, empty, |answers| {
            Some(&answers.pgn)
        }),
        RoundFile::Index => answer(read, live, &headers, JSON, empty, |answers| {
            answers.index.as_ref()
        }),
        RoundFile::Game(n) => answer(
            read,
            live,
            &headers,
            PGN,
            "the round has no such game",
            |answers| answers.games.get(n - 1),
        ),
    }
}

/// The media type of the round's index.
const JSON: &str = "application/json";

/// Whether an `If-None-Match` in `headers` names `etag` (or is `*`).
fn matches(headers: &HeaderMap, etag: &HeaderValue) -> bool {
    let Ok(wanted) = etag.to_str() else {
        return false;
    };
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|tag| tag.trim().trim_start_matches("W/"))
        .any(|tag| tag == "*" || tag == wanted)
}

/// The body `pick` chooses of the answers, as `content_type` (gzip when
/// the poller takes it; `304` when it has it already), `404` with `empty`
/// when there is none or it is empty, or the error as a status and a line
/// of text.
fn answer(
    read: Result<Arc<Slot>, ArbiterError>,
    live: bool,
    headers: &HeaderMap,
    content_type: &'static str,
    empty: &str,
    pick: impl Fn(&Answers) -> Option<&Built>,
) -> Response {
    let slot = match read {
        Ok(slot) => slot,
        Err(err) => return failed(err),
    };
    let Some(built) = slot
        .built
        .get()
        .and_then(pick)
        .filter(|b| !b.text.is_empty())
    else {
        return refused(StatusCode::NOT_FOUND, empty);
    };
    let (text, gzip) = (built.text.clone(), built.gzip.clone());
    respond(&built.tags, live, headers, content_type, move |gzipped| {
        Body::from(if gzipped { gzip } else { text })
    })
}

/// A body known by `tags`, as `content_type`: `304` without a body when
/// the poller has it already, else the body `body` gives (gzip when asked
/// with `true`, for a poller that takes it), with the caching headers of
/// the public or the `live` feed.
fn respond(
    tags: &Tags,
    live: bool,
    headers: &HeaderMap,
    content_type: &'static str,
    body: impl FnOnce(bool) -> Body,
) -> Response {
    let gzip = headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|value| value.to_ascii_lowercase().contains("gzip"));
    let etag = if gzip { &tags.gzip_etag } else { &tags.etag };
    // A tag, when the poller sends one, decides; a date only without
    // (RFC 9110, 13.1.3).
    let unchanged = if headers.contains_key(header::IF_NONE_MATCH) {
        matches(headers, &tags.etag) || matches(headers, &tags.gzip_etag)
    } else {
        headers
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<HttpDate>().ok())
            .is_some_and(|since| tags.modified <= since)
    };
    let mut response = if unchanged {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut response = body(gzip).into_response();
        let out = response.headers_mut();
        out.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        if gzip {
            out.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        response
    };
    let out = response.headers_mut();
    out.insert(header::ETAG, etag.clone());
    out.insert(header::LAST_MODIFIED, tags.last_modified.clone());
    // The public feed may be kept by a shared cache for as long as a
    // replica keeps an answer (it shows nothing the delay hides); the live
    // feed never (it is the organiser's, read with a credential).
    let cache = if live {
        "private, no-store"
    } else {
        "public, max-age=1"
    };
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    out.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    response
}

/// An error as a status and a line of text.
fn failed(err: ArbiterError) -> Response {
    let status = tonic::Status::from(err);
    let code = match status.code() {
        Code::NotFound => StatusCode::NOT_FOUND,
        Code::InvalidArgument | Code::OutOfRange => StatusCode::BAD_REQUEST,
        Code::Unavailable | Code::Aborted => StatusCode::SERVICE_UNAVAILABLE,
        Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
        Code::Unauthenticated => StatusCode::UNAUTHORIZED,
        Code::PermissionDenied => StatusCode::FORBIDDEN,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    refused(code, status.message())
}

fn refused(code: StatusCode, message: &str) -> Response {
    (
        code,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("{message}\n"),
    )
        .into_response()
}
