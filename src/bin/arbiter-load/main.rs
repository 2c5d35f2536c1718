//! Load generator: plays random legal games through `MakeMove` against a
//! running arbiter and reports what it sustained, to size a deployment.
//!
//! ```sh
//! cargo run --release --bin arbiter-load -- moves --addr http://127.0.0.1:50051 \
//!     --callers 32 --connections 4 --seconds 20
//! ```
//!
//! `store` measures the Redis store on its own (the same two round trips a
//! move makes, without gRPC or the rules), as the ceiling to compare with.
//!
//! `watch` opens many `WatchGame` streams on games being played at a given
//! move rate and reports how fast events reach the watchers (from the
//! event's time to its arrival; client and server on one machine share a
//! clock), and whether any was lost or delivered twice.
//!
//! `round` (in `round`) times the organiser's calls on rounds of many
//! boards: `CreateRound`, `StartRound`, `GetRound`, and the Redis commands
//! each costs.

mod round;

/// The server's allocator here too: the load generator shares the machine
/// with the server it measures, and the system's allocator cost it a tenth
/// of its CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter::{
    domain::{GameId, Timestamp},
    proto::{
        self, admin_service_client::AdminServiceClient,
        arbiter_service_client::ArbiterServiceClient,
    },
    store::{Commit, CommitOutcome, GameLog, RedisConfig, RedisStore, StoredEvent, StoredState},
};
use clap::{Parser, Subcommand};
use rand::{Rng, SeedableRng, rngs::StdRng};
use tonic::{Request, transport::Channel};

#[derive(Parser)]
#[command(name = "arbiter-load", about = "Load generator for the chess arbiter")]
struct Cli {
    #[command(subcommand)]
    mode: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Plays random legal games through the gRPC API.
    Moves {
        /// The arbiter's address.
        #[arg(long, default_value = "http://127.0.0.1:50051")]
        addr: String,
        /// The admin token, if the server has one (for CreateGame).
        #[arg(long, env = "ARBITER_ADMIN_TOKEN", hide_env_values = true)]
        admin_token: Option<String>,
        /// Concurrent callers, each playing one game at a time (both seats).
        #[arg(long, default_value_t = 32)]
        callers: usize,
        /// HTTP/2 connections the callers share.
        #[arg(long, default_value_t = 4)]
        connections: usize,
        /// How long to play.
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        /// A game is abandoned for a new one after this many plies (it may
        /// end earlier by the rules).
        #[arg(long, default_value_t = 400)]
        max_plies: i32,
        /// Play timed games (an hour each, so no flag falls).
        #[arg(long)]
        timed: bool,
        /// Asks for compact replies (`REPLY_VIEW_COMPACT`: no setup, no
        /// legal moves), keeping each game's board here to choose moves.
        #[arg(long)]
        compact: bool,
        /// Seed of the random moves.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Every game plays the same moves (the seed's line), so that the
        /// work a move costs repeats exactly from run to run; with a small
        /// `--max-plies`, no game reaches the endgames that the
        /// dead-position analysis searches.
        #[arg(long)]
        same_game: bool,
    },
    /// Watches games being played: N streams over M connections on K games
    /// played at a given total move rate.
    Watch {
        /// The arbiter's address.
        #[arg(long, default_value = "http://127.0.0.1:50051")]
        addr: String,
        /// The admin token, if the server has one (for CreateGame).
        #[arg(long, env = "ARBITER_ADMIN_TOKEN", hide_env_values = true)]
        admin_token: Option<String>,
        /// Games played.
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Watch streams, spread evenly over the games.
        #[arg(long, default_value_t = 10_000)]
        watchers: usize,
        /// `WatchEvent` streams on the event all the games belong to.
        #[arg(long, default_value_t = 0)]
        event_watchers: usize,
        /// HTTP/2 connections the watchers share.
        #[arg(long, default_value_t = 100)]
        connections: usize,
        /// Moves per second over all games.
        #[arg(long, default_value_t = 200)]
        moves_per_second: u32,
        /// How long to play once every watcher is in place.
        #[arg(long, default_value_t = 30)]
        seconds: u64,
        /// The server's Redis, to report how many clients it has.
        #[arg(long)]
        redis_url: Option<String>,
        /// Seed of the random moves.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Creates, starts and reads rounds of many boards, timing each call.
    Round {
        /// The arbiter's address.
        #[arg(long, default_value = "http://127.0.0.1:50051")]
        addr: String,
        /// The admin token, if the server has one.
        #[arg(long, env = "ARBITER_ADMIN_TOKEN", hide_env_values = true)]
        admin_token: Option<String>,
        /// Boards a round has.
        #[arg(long, default_value_t = 500)]
        boards: usize,
        /// Rounds created, each in an event of its own.
        #[arg(long, default_value_t = 10)]
        repetitions: usize,
        /// Whole reads (`GetRound`, every page) of each round.
        #[arg(long, default_value_t = 20)]
        reads: usize,
        /// The server's Redis, to count the commands each call costs.
        #[arg(long)]
        redis_url: Option<String>,
    },
    /// Loads and commits directly against the Redis store: the same two
    /// round trips as a move, without gRPC or the rules.
    Store {
        /// Redis URL.
        #[arg(long, default_value = "redis://127.0.0.1:6379/")]
        redis_url: String,
        /// Key prefix (keys are left behind: use a throwaway prefix).
        #[arg(long, default_value = "arbiter-load")]
        key_prefix: String,
        /// Concurrent callers, each on a game of its own.
        #[arg(long, default_value_t = 32)]
        callers: usize,
        /// How long to run.
        #[arg(long, default_value_t = 20)]
        seconds: u64,
        /// Bytes of the state written per commit.
        #[arg(long, default_value_t = 2000)]
        state_bytes: usize,
        /// Bytes of the event appended per commit.
        #[arg(long, default_value_t = 400)]
        event_bytes: usize,
    },
}

/// One measured call: its latency and the ply it was made at.
#[derive(Clone, Copy)]
struct Sample {
    micros: u32,
    ply: i32,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    match Cli::parse().mode {
        Mode::Moves {
            addr,
            admin_token,
            callers,
            connections,
            seconds,
            max_plies,
            timed,
            compact,
            seed,
            same_game,
        } => {
            let mut channels = Vec::new();
            for _ in 0..connections.max(1) {
                channels.push(Channel::from_shared(addr.clone())?.connect().await?);
            }
            let stop = Arc::new(AtomicBool::new(false));
            let started = Instant::now();
            let mut tasks = Vec::new();
            for caller in 0..callers.max(1) {
                let channel = channels[caller % channels.len()].clone();
                let game = GamePlayer {
                    public: ArbiterServiceClient::new(channel.clone()),
                    admin: AdminServiceClient::new(channel),
                    admin_token: admin_token.clone(),
                    max_plies,
                    timed,
                    compact,
                    line: same_game.then_some(seed),
                    rng: StdRng::seed_from_u64(seed.wrapping_add(caller as u64)),
                };
                tasks.push(tokio::spawn(game.play(stop.clone())));
            }
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            stop.store(true, Ordering::Relaxed);
            let mut samples = Vec::new();
            let mut errors = 0;
            for task in tasks {
                let (caller_samples, caller_errors) = task.await?;
                samples.extend(caller_samples);
                errors += caller_errors;
            }
            report(
                &format!("MakeMove, {callers} callers over {connections} connections"),
                &samples,
                started.elapsed(),
                errors,
            );
        }
        Mode::Watch {
            addr,
            admin_token,
            games,
            watchers,
            event_watchers,
            connections,
            moves_per_second,
            seconds,
            redis_url,
            seed,
        } => {
            watch_load(WatchLoad {
                addr,
                admin_token,
                games: games.max(1),
                watchers,
                event_watchers,
                connections: connections.max(1),
                moves_per_second: moves_per_second.max(1),
                seconds,
                redis_url,
                seed,
            })
            .await?;
        }
        Mode::Round {
            addr,
            admin_token,
            boards,
            repetitions,
            reads,
            redis_url,
        } => {
            round::round_load(round::RoundLoad {
                addr,
                admin_token,
                boards,
                repetitions,
                reads,
                redis_url,
            })
            .await?;
        }
        Mode::Store {
            redis_url,
            key_prefix,
            callers,
            seconds,
            state_bytes,
            event_bytes,
        } => {
            let store = Arc::new(RedisStore::new(&RedisConfig {
                url: redis_url,
                key_prefix,
                tls: Default::default(),
                wait: None,
            })?);
            let stop = Arc::new(AtomicBool::new(false));
            let started = Instant::now();
            let run = format!("{:x}", rand::rng().random::<u64>());
            let mut tasks = Vec::new();
            for caller in 0..callers.max(1) {
                let store = store.clone();
                let stop = stop.clone();
                let id = GameId::parse(&format!("load-{run}-{caller}"))?;
                tasks.push(tokio::spawn(async move {
                    store_loop(store, id, stop, state_bytes, event_bytes).await
                }));
            }
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            stop.store(true, Ordering::Relaxed);
            let mut samples = Vec::new();
            let mut errors = 0;
            for task in tasks {
                let (caller_samples, caller_errors) = task.await?;
                samples.extend(caller_samples);
                errors += caller_errors;
            }
            report(
                &format!("store load+commit, {callers} callers"),
                &samples,
                started.elapsed(),
                errors,
            );
        }
    }
    Ok(())
}

/// The settings of a watch load.
struct WatchLoad {
    addr: String,
    admin_token: Option<String>,
    games: usize,
    watchers: usize,
    event_watchers: usize,
    connections: usize,
    moves_per_second: u32,
    seconds: u64,
    redis_url: Option<String>,
    seed: u64,
}

/// What one watcher saw.
#[derive(Default)]
struct Watched {
    /// Milliseconds from each event's time to its arrival.
    delays: Vec<u32>,
    /// Versions skipped.
    lost: u64,
    /// Versions received again.
    duplicated: u64,
    /// The stream failed.
    failed: Option<String>,
}

/// A created game, its seats' tokens, and where it stands.
struct Played {
    game: proto::Game,
    tokens: [String; 2],
}

async fn watch_load(load: WatchLoad) -> Result<(), Box<dyn std::error::Error>> {
    let mut channels = Vec::new();
    for _ in 0..load.connections {
        channels.push(Channel::from_shared(load.addr.clone())?.connect().await?);
    }
    let mut admin = AdminServiceClient::new(channels[0].clone());
    let event_id = format!("load-{:x}", rand::rng().random::<u64>());
    let mut played = Vec::new();
    for board in 0..load.games {
        let created = admin
            .create_game(authorised(
                load.admin_token.as_deref(),
                proto::CreateGameRequest {
                    white: Some(proto::Player {
                        id: "watched-white".into(),
                        name: "Watched, White".into(),
                        ..Default::default()
                    }),
                    black: Some(proto::Player {
                        id: "watched-black".into(),
                        name: "Watched, Black".into(),
                        ..Default::default()
                    }),
                    pairing: Some(proto::Pairing {
                        event_id: event_id.clone(),
                        round: 1,
                        board: i32::try_from(board + 1).unwrap_or(i32::MAX),
                        ..Default::default()
                    }),
                    ..Default::default()
                },
            ))
            .await?
            .into_inner();
        played.push(Played {
            game: *created.game.ok_or("CreateGame returned no game")?,
            tokens: [created.white_token, created.black_token],
        });
    }

    // Every watcher starts after the creation and ends when told.
    let stop = tokio_util::sync::CancellationToken::new();
    let opened = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let opening = Instant::now();
    let mut tasks = Vec::new();
    for watcher in 0..load.watchers {
        let game_id = played[watcher % played.len()].game.game_id.clone();
        let client = ArbiterServiceClient::new(channels[watcher % channels.len()].clone());
        tasks.push(tokio::spawn(watch_one(
            client,
            game_id,
            stop.clone(),
            opened.clone(),
        )));
    }
    let mut event_tasks = Vec::new();
    let caught_up = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for watcher in 0..load.event_watchers {
        let client = ArbiterServiceClient::new(channels[watcher % channels.len()].clone());
        event_tasks.push(tokio::spawn(watch_event_one(
            client,
            event_id.clone(),
            load.games,
            stop.clone(),
            caught_up.clone(),
        )));
    }
    // Every game stream has its snapshot (or has failed) before play starts.
    while opened.load(Ordering::Relaxed) < load.watchers
        && opening.elapsed() < Duration::from_secs(120)
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    if load.watchers > 0 {
        println!(
            "  opened      {} of {} game streams had their snapshot in {:.2} s",
            opened.load(Ordering::Relaxed),
            load.watchers,
            opening.elapsed().as_secs_f64()
        );
    }
    // Let the event's watchers catch up on the games' creations.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let waiting = Instant::now();
    while caught_up.load(Ordering::Relaxed) < load.event_watchers
        && waiting.elapsed() < Duration::from_secs(120)
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if load.event_watchers > 0 {
        println!(
            "  catch-up    {} of {} event watchers caught up on {} creations in {:.1} s",
            caught_up.load(Ordering::Relaxed),
            load.event_watchers,
            load.games,
            2.0 + waiting.elapsed().as_secs_f64()
        );
    }
    let redis_before = redis_clients(load.redis_url.as_deref()).await;
    let commands_before = redis_commands(load.redis_url.as_deref()).await;

    let mut public = ArbiterServiceClient::new(channels[0].clone());
    let mut rng = StdRng::seed_from_u64(load.seed);
    let interval = Duration::from_secs_f64(1.0 / f64::from(load.moves_per_second));
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let started = Instant::now();
    let mut moves = 0u64;
    let mut move_errors = 0u64;
    let mut redis_during = None;
    let mut next = 0;
    while started.elapsed() < Duration::from_secs(load.seconds) {
        ticks.tick().await;
        if redis_during.is_none() && started.elapsed() > Duration::from_secs(load.seconds / 2) {
            redis_during = Some(redis_clients(load.redis_url.as_deref()).await);
        }
        let game = &mut played[next % load.games];
        next += 1;
        if game.game.status != proto::GameStatus::Active as i32 || game.game.legal_moves.is_empty()
        {
            continue;
        }
        let pick = rng.random_range(0..game.game.legal_moves.len());
        let seat = usize::from(game.game.side_to_move == proto::Color::Black as i32);
        let request = proto::MakeMoveRequest {
            game_id: game.game.game_id.clone(),
            r#move: game.game.legal_moves[pick].clone(),
            ply: game.game.ply,
            offer_draw: false,
            lag_millis: 0,
            client_move_millis: None,
            reply_view: proto::ReplyView::Unspecified.into(),
        };
        match public
            .make_move(authorised(Some(&game.tokens[seat]), request))
            .await
        {
            Ok(response) => {
                if let Some(after) = response.into_inner().game {
                    game.game = *after;
                }
                moves += 1;
            }
            Err(status) => {
                move_errors += 1;
                if move_errors <= 3 {
                    eprintln!("arbiter-load: {status}");
                }
            }
        }
    }
    let elapsed = started.elapsed();
    let commands_during = redis_commands(load.redis_url.as_deref()).await;
    // Let the last events arrive.
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.cancel();
    let mut delays = Vec::new();
    let (mut lost, mut duplicated, mut failed) = (0, 0, 0);
    for task in tasks {
        let watched = task.await?;
        delays.extend(watched.delays);
        lost += watched.lost;
        duplicated += watched.duplicated;
        if let Some(error) = watched.failed {
            failed += 1;
            if failed <= 3 {
                eprintln!("arbiter-load: a watch failed: {error}");
            }
        }
    }
    let mut event_delays = Vec::new();
    let (mut event_lost, mut event_duplicated, mut event_failed) = (0, 0, 0);
    for task in event_tasks {
        let watched = task.await?;
        event_delays.extend(watched.delays);
        event_lost += watched.lost;
        event_duplicated += watched.duplicated;
        if let Some(error) = watched.failed {
            event_failed += 1;
            if event_failed <= 3 {
                eprintln!("arbiter-load: an event watch failed: {error}");
            }
        }
    }
    delays.sort_unstable();
    event_delays.sort_unstable();
    println!(
        "WatchGame, {} streams over {} connections on {} games; WatchEvent, {} streams",
        load.watchers, load.connections, load.games, load.event_watchers
    );
    println!(
        "  moves       {moves} in {:.1} s ({:.0}/s), {move_errors} errors",
        elapsed.as_secs_f64(),
        moves as f64 / elapsed.as_secs_f64()
    );
    println!(
        "  delivered   {} events, {lost} lost, {duplicated} duplicated, {failed} streams failed",
        delays.len()
    );
    let at = |p: f64| percentile(&delays, p) * 1000.0;
    println!(
        "  delivery    p50 {:.0} ms, p99 {:.0} ms, max {} ms (event time to arrival)",
        at(50.0),
        at(99.0),
        delays.last().copied().unwrap_or(0)
    );
    if load.event_watchers > 0 {
        let at = |p: f64| percentile(&event_delays, p) * 1000.0;
        println!(
            "  event       {} events, {event_lost} lost, {event_duplicated} duplicated, {event_failed} streams failed; delivery p50 {:.0} ms, p99 {:.0} ms, max {} ms",
            event_delays.len(),
            at(50.0),
            at(99.0),
            event_delays.last().copied().unwrap_or(0)
        );
    }
    if let (Some(before), Some(during)) = (commands_before, commands_during) {
        println!(
            "  Redis       {:.0} commands/s during play",
            (during - before) as f64 / elapsed.as_secs_f64()
        );
    }
    if let (Some(before), Some(Some(during))) = (redis_before, redis_during) {
        println!(
            "  Redis       {before} clients before play, {during} during (this tool's own connection included)"
        );
    }
    Ok(())
}

/// How many clients the Redis at `url` has, if one is given and answers.
async fn redis_clients(url: Option<&str>) -> Option<usize> {
    let client = redis::Client::open(url?).ok()?;
    let mut conn = client.get_multiplexed_async_connection().await.ok()?;
    let list: String = redis::cmd("CLIENT")
        .arg("LIST")
        .query_async(&mut conn)
        .await
        .ok()?;
    Some(list.lines().count())
}

/// Milliseconds from an event's time to now (client and server share a
/// clock on one machine).
fn delay_since(at: &prost_types::Timestamp) -> u32 {
    let sent = at.seconds * 1000 + i64::from(at.nanos) / 1_000_000;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    u32::try_from((now - sent).max(0)).unwrap_or(u32::MAX)
}

/// How many commands the Redis at `url` has processed, if one is given.
async fn redis_commands(url: Option<&str>) -> Option<u64> {
    let client = redis::Client::open(url?).ok()?;
    let mut conn = client.get_multiplexed_async_connection().await.ok()?;
    let info: String = redis::cmd("INFO")
        .arg("stats")
        .query_async(&mut conn)
        .await
        .ok()?;
    info.lines()
        .find_map(|line| line.strip_prefix("total_commands_processed:"))
        .and_then(|count| count.trim().parse().ok())
}

/// Watches every game of an event until told to stop, checking each
/// game's versions; the games' creations are the catch-up, not measured.
async fn watch_event_one(
    mut client: ArbiterServiceClient<Channel>,
    event_id: String,
    games: usize,
    stop: tokio_util::sync::CancellationToken,
    caught_up: Arc<std::sync::atomic::AtomicUsize>,
) -> Watched {
    use proto::watch_event_response::Kind;
    let mut watched = Watched::default();
    let stream = client
        .watch_event(proto::WatchEventRequest {
            event_id,
            after_cursor: String::new(),
            round: 0,
        })
        .await;
    let mut stream = match stream {
        Ok(stream) => stream.into_inner(),
        Err(status) => {
            watched.failed = Some(status.to_string());
            return watched;
        }
    };
    let mut last: std::collections::HashMap<String, i32> =
        std::collections::HashMap::with_capacity(games);
    loop {
        let message = tokio::select! {
            () = stop.cancelled() => break,
            message = stream.message() => message,
        };
        let message = match message {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(status) => {
                watched.failed = Some(status.to_string());
                break;
            }
        };
        let Some(Kind::Event(event)) = message.kind else {
            continue;
        };
        let new_game = !last.contains_key(&event.game_id);
        let seen = last.entry(event.game_id.clone()).or_insert(0);
        if event.version <= *seen {
            watched.duplicated += 1;
            continue;
        }
        watched.lost += u64::try_from(event.version - *seen - 1).unwrap_or(0);
        *seen = event.version;
        if new_game && last.len() == games {
            caught_up.fetch_add(1, Ordering::Relaxed);
        }
        if event.version > 1
            && let Some(at) = &event.event_time
        {
            watched.delays.push(delay_since(at));
        }
    }
    watched
}

/// Watches one game until told to stop or the game ends.
async fn watch_one(
    mut client: ArbiterServiceClient<Channel>,
    game_id: String,
    stop: tokio_util::sync::CancellationToken,
    opened: Arc<std::sync::atomic::AtomicUsize>,
) -> Watched {
    use proto::watch_game_response::Kind;
    let mut watched = Watched::default();
    let stream = client
        .watch_game(proto::WatchGameRequest {
            game_id,
            ..Default::default()
        })
        .await;
    let mut stream = match stream {
        Ok(stream) => stream.into_inner(),
        Err(status) => {
            opened.fetch_add(1, Ordering::Relaxed);
            watched.failed = Some(status.to_string());
            return watched;
        }
    };
    let mut counted = false;
    let mut last = 0;
    loop {
        // Waits for the next message or the end of the run, without
        // cancelling a read in progress until then.
        let message = tokio::select! {
            () = stop.cancelled() => break,
            message = stream.message() => message,
        };
        let message = match message {
            Ok(Some(message)) => message,
            Ok(None) => break,
            Err(status) => {
                watched.failed = Some(status.to_string());
                break;
            }
        };
        if !counted {
            counted = true;
            opened.fetch_add(1, Ordering::Relaxed);
        }
        match message.kind {
            Some(Kind::Snapshot(game)) => last = game.version,
            Some(Kind::Event(event)) => {
                if event.version <= last {
                    watched.duplicated += 1;
                    continue;
                }
                watched.lost += u64::try_from(event.version - last - 1).unwrap_or(0);
                last = event.version;
                if let Some(at) = &event.event_time {
                    watched.delays.push(delay_since(at));
                }
            }
            _ => {}
        }
    }
    if !counted {
        opened.fetch_add(1, Ordering::Relaxed);
    }
    watched
}

/// One caller playing random games for both seats.
struct GamePlayer {
    public: ArbiterServiceClient<Channel>,
    admin: AdminServiceClient<Channel>,
    admin_token: Option<String>,
    max_plies: i32,
    timed: bool,
    compact: bool,
    /// The seed every game starts its moves from (`--same-game`).
    line: Option<u64>,
    rng: StdRng,
}

impl GamePlayer {
    async fn play(mut self, stop: Arc<AtomicBool>) -> (Vec<Sample>, usize) {
        let mut samples = Vec::new();
        let mut errors = 0;
        while !stop.load(Ordering::Relaxed) {
            match self.one_game(&stop, &mut samples).await {
                Ok(()) => {}
                Err(status) => {
                    errors += 1;
                    if errors <= 3 {
                        eprintln!("arbiter-load: {status}");
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        (samples, errors)
    }

    async fn one_game(
        &mut self,
        stop: &AtomicBool,
        samples: &mut Vec<Sample>,
    ) -> Result<(), tonic::Status> {
        let hour = proto::TimeControl {
            periods: vec![proto::TimeControlPeriod {
                time_millis: 3_600_000,
                ..Default::default()
            }],
            delay_mode: proto::DelayMode::Simple.into(),
        };
        let created = self
            .admin
            .create_game(authorised(
                self.admin_token.as_deref(),
                proto::CreateGameRequest {
                    white: Some(proto::Player {
                        id: "load-white".into(),
                        name: "Load, White".into(),
                        ..Default::default()
                    }),
                    black: Some(proto::Player {
                        id: "load-black".into(),
                        name: "Load, Black".into(),
                        ..Default::default()
                    }),
                    time_control: self.timed.then_some(hour),
                    ..Default::default()
                },
            ))
            .await?
            .into_inner();
        let mut game = created
            .game
            .ok_or_else(|| tonic::Status::internal("CreateGame returned no game"))?;
        let tokens = [created.white_token, created.black_token];
        // The board, kept here for compact replies (which carry no legal
        // moves).
        let mut board = shakmaty::Chess::default();
        if let Some(seed) = self.line {
            self.rng = StdRng::seed_from_u64(seed);
        }
        loop {
            if stop.load(Ordering::Relaxed)
                || game.status != proto::GameStatus::Active as i32
                || game.ply >= self.max_plies
            {
                break;
            }
            // A random legal move: from the board kept here for a compact
            // reply, else from the reply's own list.
            let chosen = if self.compact {
                use shakmaty::Position as _;
                let legal = board.legal_moves();
                let Some(played) = legal
                    .get(self.rng.random_range(0..legal.len().max(1)))
                    .cloned()
                else {
                    break;
                };
                let uci = played.to_uci(shakmaty::CastlingMode::Standard).to_string();
                board.play_unchecked(played);
                uci
            } else {
                if game.legal_moves.is_empty() {
                    break;
                }
                let pick = self.rng.random_range(0..game.legal_moves.len());
                game.legal_moves[pick].clone()
            };
            let token = &tokens[usize::from(game.side_to_move == proto::Color::Black as i32)];
            let request = proto::MakeMoveRequest {
                game_id: game.game_id.clone(),
                r#move: chosen,
                ply: game.ply,
                offer_draw: false,
                lag_millis: 0,
                client_move_millis: None,
                reply_view: if self.compact {
                    proto::ReplyView::Compact.into()
                } else {
                    proto::ReplyView::Unspecified.into()
                },
            };
            let started = Instant::now();
            let response = self
                .public
                .make_move(authorised(Some(token), request))
                .await?;
            samples.push(Sample {
                micros: u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX),
                ply: game.ply,
            });
            game = response
                .into_inner()
                .game
                .ok_or_else(|| tonic::Status::internal("MakeMove returned no game"))?;
        }
        Ok(())
    }
}

/// Loads and commits one game's state in a loop, as a move does.
async fn store_loop(
    store: Arc<RedisStore>,
    id: GameId,
    stop: Arc<AtomicBool>,
    state_bytes: usize,
    event_bytes: usize,
) -> (Vec<Sample>, usize) {
    let mut samples = Vec::new();
    let mut errors = 0;
    let mut version = 0;
    let state = vec![b's'; state_bytes];
    let event = vec![b'e'; event_bytes];
    while !stop.load(Ordering::Relaxed) {
        let started = Instant::now();
        let result = async {
            let (_, now) = store.load(&id).await?;
            let commit = Commit {
                expected: version,
                state: StoredState {
                    version: version + 1,
                    bytes: state.clone(),
                },
                events: vec![StoredEvent {
                    version: version + 1,
                    bytes: event.clone(),
                }],
                deadline: Some(Timestamp::from_unix_millis(now.unix_millis() + 3_600_000)),
                event: None,
                audited: Vec::new(),
            };
            store.commit(&id, commit).await
        }
        .await;
        match result {
            Ok(CommitOutcome::Committed) => {
                samples.push(Sample {
                    micros: u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX),
                    ply: i32::try_from(version).unwrap_or(i32::MAX),
                });
                version += 1;
            }
            Ok(CommitOutcome::Conflict { current }) => {
                errors += 1;
                version = current;
            }
            Err(err) => {
                errors += 1;
                if errors <= 3 {
                    eprintln!("arbiter-load: {err}");
                }
            }
        }
    }
    (samples, errors)
}

/// `message` with `token` as its bearer, if one is given.
fn authorised<T>(token: Option<&str>, message: T) -> Request<T> {
    let mut request = Request::new(message);
    if let Some(token) = token
        && let Ok(value) = format!("Bearer {token}").parse()
    {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    f64::from(sorted[rank.min(sorted.len() - 1)]) / 1000.0
}

fn sorted(samples: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut values: Vec<u32> = samples.collect();
    values.sort_unstable();
    values
}

fn report(what: &str, samples: &[Sample], elapsed: Duration, errors: usize) {
    let all = sorted(samples.iter().map(|s| s.micros));
    let early = sorted(samples.iter().filter(|s| s.ply < 40).map(|s| s.micros));
    let late = sorted(samples.iter().filter(|s| s.ply >= 200).map(|s| s.micros));
    let rate = all.len() as f64 / elapsed.as_secs_f64();
    println!("{what}");
    println!(
        "  calls       {} in {:.1} s, {errors} errors",
        all.len(),
        elapsed.as_secs_f64()
    );
    println!("  throughput  {rate:.0}/s");
    println!(
        "  latency     p50 {:.2} ms, p99 {:.2} ms",
        percentile(&all, 50.0),
        percentile(&all, 99.0)
    );
    println!(
        "  by ply      p50 early (ply < 40) {:.2} ms over {}, late (ply >= 200) {:.2} ms over {}; late/early {:.2}",
        percentile(&early, 50.0),
        early.len(),
        percentile(&late, 50.0),
        late.len(),
        percentile(&late, 50.0) / percentile(&early, 50.0)
    );
}
