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
    store::{Commit, CommitOutcome, GameStore, RedisConfig, RedisStore, StoredEvent, StoredState},
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
        /// Seed of the random moves.
        #[arg(long, default_value_t = 1)]
        seed: u64,
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
            seed,
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

/// One caller playing random games for both seats.
struct GamePlayer {
    public: ArbiterServiceClient<Channel>,
    admin: AdminServiceClient<Channel>,
    admin_token: Option<String>,
    max_plies: i32,
    timed: bool,
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

    fn authorised<T>(token: Option<&str>, message: T) -> Request<T> {
        let mut request = Request::new(message);
        if let Some(token) = token
            && let Ok(value) = format!("Bearer {token}").parse()
        {
            request.metadata_mut().insert("authorization", value);
        }
        request
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
            .create_game(Self::authorised(
                self.admin_token.as_deref(),
                proto::CreateGameRequest {
                    white: Some(proto::Player {
                        id: "load-white".into(),
                        name: "Load, White".into(),
                    }),
                    black: Some(proto::Player {
                        id: "load-black".into(),
                        name: "Load, Black".into(),
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
        while !stop.load(Ordering::Relaxed)
            && game.status == proto::GameStatus::Active as i32
            && game.ply < self.max_plies
            && !game.legal_moves.is_empty()
        {
            let pick = self.rng.random_range(0..game.legal_moves.len());
            let token = &tokens[usize::from(game.side_to_move == proto::Color::Black as i32)];
            let request = proto::MakeMoveRequest {
                game_id: game.game_id.clone(),
                r#move: game.legal_moves[pick].clone(),
                ply: game.ply,
                offer_draw: false,
            };
            let started = Instant::now();
            let response = self
                .public
                .make_move(Self::authorised(Some(token), request))
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
