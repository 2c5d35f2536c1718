//! A chess game arbiter: a gRPC service that holds games in Redis, decides
//! which moves are legal and how each game ends, and streams every event.
//!
//! # Layout
//!
//! - [`domain`]: the rules, pure. A command applied to a game at a given
//!   "now" yields a typed rejection or the new game plus its events.
//! - [`store`]: persistence behind one [`store::GameStore`] trait, with
//!   Redis ([`store::RedisStore`]) and in-memory ([`store::MemoryStore`])
//!   implementations. One commit is one atomic compare-and-set of a game's
//!   version that writes its state and appends its events together.
//! - [`arbiter`]: the application service. Commands load a game and "now",
//!   let the domain decide, and commit (retrying on a version conflict);
//!   queries read games, event lists, standings and exports; watchers follow
//!   a game's (or an event's) log.
//! - [`api`]: the gRPC surface, two services (`ArbiterService` for players and
//!   viewers, `AdminService` for the platform and its arbiters). Maps protobuf
//!   to the arbiter and back, checks tokens, turns rejections into status
//!   codes with details.
//! - [`server`]: configuration, health, reflection, TLS, the metrics port,
//!   graceful shutdown, the flag sweeper.
//! - [`metrics`]: the Prometheus metrics every layer records into.
//! - [`proto`]: the generated protobuf types and service stubs.

pub mod api;
pub mod arbiter;
pub mod domain;
pub mod metrics;
pub mod proto;
pub mod server;
pub mod store;
