//! The integration tests, in one binary so the server is linked once.
//! Each module covers one area of the API; `common` is their harness (the
//! server on a loopback port, the stores, request helpers).

#[macro_use]
mod common;

mod audit;
mod authorization;
mod broadcast_delay;
mod check_in;
mod chess960;
mod clocks;
mod concurrency;
mod credentials;
mod dead_positions;
mod departures;
mod draws;
mod errors;
mod event_exports;
mod fair_play;
mod feed;
mod fuzz;
mod game_play;
mod lag;
mod match_tie_breaks;
mod memory_bound;
mod metrics;
mod operations;
mod pairing_engine;
mod pgn;
mod public_bounds;
mod redis_cluster;
mod redis_replicas;
mod redis_tls;
mod request_limits;
mod restart;
mod rounds;
mod scoring;
mod server_tls;
mod standings;
mod storage;
mod store_contract;
mod store_faults;
mod team_standings;
mod teams;
mod tie_break_reference;
mod tie_breaks;
mod traces;
mod trf;
mod watch;
mod watch_event;
mod watch_hub;
mod web;
