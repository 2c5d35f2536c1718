//! The `round` mode: the organiser's calls on rounds of many boards, each
//! timed as a whole, with the Redis commands each cost when the server's
//! Redis is given.
//!
//! Each repetition creates a round of `boards` boards in an event of its
//! own (`CreateRound`), starts it (`StartRound`), then reads it back
//! (`GetRound`, every page) `reads` times, warm.

use std::time::{Duration, Instant};

use arbiter::proto::{self, admin_service_client::AdminServiceClient};
use tonic::transport::Channel;

use super::authorised;

/// What a round load does.
pub struct RoundLoad {
    /// The arbiter's address.
    pub addr: String,
    /// The admin token, if the server has one.
    pub admin_token: Option<String>,
    /// Boards a round has.
    pub boards: usize,
    /// Rounds created, each in an event of its own.
    pub repetitions: usize,
    /// Whole reads of each round after its start.
    pub reads: usize,
    /// The server's Redis, to count the commands each call costs.
    pub redis_url: Option<String>,
}

/// One timed call: how long, and how many Redis commands it cost.
#[derive(Default)]
struct Timings {
    micros: Vec<u32>,
    commands: Vec<u64>,
}

impl Timings {
    fn add(&mut self, took: Duration, commands: Option<u64>) {
        self.micros
            .push(u32::try_from(took.as_micros()).unwrap_or(u32::MAX));
        if let Some(commands) = commands {
            self.commands.push(commands);
        }
    }

    fn print(&self, what: &str, boards: usize) {
        let sorted = super::sorted(self.micros.iter().copied());
        println!(
            "  {what:<11} {} calls, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
            sorted.len(),
            super::percentile(&sorted, 50.0),
            super::percentile(&sorted, 99.0),
            super::percentile(&sorted, 100.0),
        );
        if !self.commands.is_empty() {
            let mean = self.commands.iter().sum::<u64>() as f64 / self.commands.len() as f64;
            println!(
                "  {:<11} {mean:.0} Redis commands a call, {:.2} a board",
                "",
                mean / boards as f64
            );
        }
    }
}

fn board(n: usize) -> proto::RoundBoard {
    proto::RoundBoard {
        board: i32::try_from(n).unwrap_or(i32::MAX),
        white: Some(proto::Player {
            id: format!("white-{n}"),
            name: format!("White, {n}"),
            ..Default::default()
        }),
        black: Some(proto::Player {
            id: format!("black-{n}"),
            name: format!("Black, {n}"),
            ..Default::default()
        }),
        overrides: None,
    }
}

/// Runs the load and prints what it measured.
pub async fn round_load(load: RoundLoad) -> Result<(), Box<dyn std::error::Error>> {
    let channel = Channel::from_shared(load.addr.clone())?.connect().await?;
    let mut admin = AdminServiceClient::new(channel)
        .max_decoding_message_size(16 * 1024 * 1024)
        .max_encoding_message_size(16 * 1024 * 1024);
    let token = load.admin_token.as_deref();
    let redis = load.redis_url.as_deref();
    let run = format!("{:x}", rand::random::<u32>());
    let settings = proto::RoundSettings {
        time_control: Some(proto::TimeControl {
            periods: vec![proto::TimeControlPeriod {
                time_millis: 5_400_000,
                increment_millis: 30_000,
                ..Default::default()
            }],
            delay_mode: proto::DelayMode::Simple.into(),
        }),
        ..Default::default()
    };
    let (mut create, mut start, mut read) =
        (Timings::default(), Timings::default(), Timings::default());
    for repetition in 0..load.repetitions.max(1) {
        let event = format!("round-load-{run}-{repetition}");
        let before = super::redis_commands(redis).await;
        let began = Instant::now();
        admin
            .create_round(authorised(
                token,
                proto::CreateRoundRequest {
                    request_id: format!("{event}-1"),
                    event_id: event.clone(),
                    round: 1,
                    settings: Some(settings.clone()),
                    boards: (1..=load.boards).map(board).collect(),
                    ..Default::default()
                },
            ))
            .await?;
        let took = began.elapsed();
        create.add(took, spent(before, super::redis_commands(redis).await));

        let before = super::redis_commands(redis).await;
        let began = Instant::now();
        admin
            .start_round(authorised(
                token,
                proto::StartRoundRequest {
                    event_id: event.clone(),
                    round: 1,
                },
            ))
            .await?;
        let took = began.elapsed();
        start.add(took, spent(before, super::redis_commands(redis).await));

        for _ in 0..load.reads {
            let before = super::redis_commands(redis).await;
            let began = Instant::now();
            let mut token_text = String::new();
            loop {
                let page = admin
                    .get_round(authorised(
                        token,
                        proto::GetRoundRequest {
                            event_id: event.clone(),
                            round: 1,
                            page_size: 1000,
                            page_token: token_text.clone(),
                        },
                    ))
                    .await?
                    .into_inner();
                if page.next_page_token.is_empty() {
                    break;
                }
                token_text = page.next_page_token;
            }
            let took = began.elapsed();
            read.add(took, spent(before, super::redis_commands(redis).await));
        }
    }
    println!(
        "rounds of {} boards, {} repetitions, {} whole reads each",
        load.boards, load.repetitions, load.reads
    );
    create.print("CreateRound", load.boards);
    start.print("StartRound", load.boards);
    read.print("GetRound", load.boards);
    Ok(())
}

/// The commands between two readings, less the one `INFO` of the second.
fn spent(before: Option<u64>, after: Option<u64>) -> Option<u64> {
    Some(after?.saturating_sub(before?).saturating_sub(1))
}
