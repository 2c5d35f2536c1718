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
//! - [`arbiter`]: the application service. Loads a game and "now", lets
//!   the domain decide, commits (retrying on a version conflict), and
//!   follows a game's event log for watchers.
//! - [`api`]: the gRPC surface. Maps protobuf to the arbiter and back, checks
//!   tokens, turns rejections into status codes with details.
//! - [`server`]: configuration, health, reflection, graceful shutdown.
//! - [`proto`]: the generated protobuf types and service stubs.

pub mod api;
pub mod arbiter;
pub mod domain;
pub mod proto;
pub mod server;
pub mod store;
