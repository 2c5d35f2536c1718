//! The Laws of Chess for one game: its state, the commands that change it,
//! and every rule that decides them.
//!
//! # Where each Article lives
//!
//! | rule | FIDE Laws (USCF) | file |
//! |---|---|---|
//! | legal moves, castling, en passant, promotion; UCI and SAN | 3, 4, C | `chess_move` (on shakmaty) |
//! | Chess960 start positions and castling | Guidelines II | `variant`, `setup` |
//! | checkmate, resignation (and against a side that cannot mate) | 5.1 | `endings`, `state`, `dead_position` |
//! | stalemate, insufficient material, dead positions | 5.2 | `endings`, `dead_position` (chasolver) |
//! | clocks, periods, increment and delay, pace | 6.1–6.5, A.1, B.1 | `clock`, `time_control` |
//! | scheduled start and default time, presence (check-in) | 6.6, 6.7 | `timing`, `clock_commands`, `presence` |
//! | lag compensation for online play | (platform rule, after lichess) | `lag`, `clock` |
//! | flag-fall and its adjudication | 6.9 (USCF 14E) | `clock_commands`, `adjudication` |
//! | draw offers, Sofia rules | 9.1 | `draw_commands`, `draws`, `rules` |
//! | draw claims: threefold, fifty moves, penalties | 9.2, 9.3, 9.5 | `draw_commands`, `draws`, `repetition` |
//! | position identity | 9.2.3 | `repetition` |
//! | fivefold repetition, 75 moves | 9.6 | `endings` |
//! | aborting before both have moved | (platform rule) | `state` |
//! | a claim of the game when the opponent left, on the platform's report | (platform rule, after lichess) | `departures`, `departure_commands` |
//! | arbiter's clock controls and rulings, forfeits | 12 | `clock_commands`, `timing` (`Ruling`) |
//! | an arbiter's command run once per request | (platform rule) | `admin_commands`, `admin_request` |
//! | broadcast delay: the public's view as of a cut-off | (platform rule) | `broadcast_delay`, `public_view` |
//! | the fair-play record: reports with moves, client signals | (platform rule, after lichess) | `fair_play`, `signal_commands` |
//!
//! # Layout
//!
//! Types come first and commands after them, so no file imports one that
//! imports it back:
//! - the vocabulary: `ply`, `outcome`, `variant`, `time_control`, `rules`,
//!   `arbiter_reason`, `seat_hashes`, `broadcast_delay`, `lag`, `clock`,
//!   `chess_move`, `repetition`, `board`, `draws` (offer and claim records),
//!   `timing` (schedule and rulings), `presence`, `departures`, `admin_request`,
//!   `fair_play` (what the fair-play record keeps), `event`
//!   (what the log records), `serde_chess` (serde for the chess library's
//!   types);
//! - `setup`: what is fixed when a game is created; `state`: the game itself
//!   and the move, resignation and abort commands;
//! - the other commands, each an `impl Game` of its own: `draw_commands`,
//!   `clock_commands`, `admin_commands`, `departure_commands`,
//!   `signal_commands`;
//! - the analysis the commands lean on: `endings`, `dead_position`,
//!   `adjudication`; and `public_view`, the game as the public sees it under
//!   a broadcast delay;
//! - `audit`: which events are administrative acts, and what the audit log
//!   records of each.

pub(super) mod adjudication;
pub(super) mod admin_commands;
pub(super) mod admin_request;
pub(super) mod arbiter_reason;
pub(super) mod audit;
pub(super) mod board;
pub(super) mod broadcast_delay;
pub(super) mod chess_move;
pub(super) mod clock;
pub(super) mod clock_commands;
pub mod dead_position;
pub(super) mod departure_commands;
pub(super) mod departures;
pub(super) mod draw_commands;
pub(super) mod draws;
pub(super) mod endings;
pub(super) mod event;
pub(super) mod fair_play;
pub(super) mod lag;
pub(super) mod outcome;
pub(super) mod ply;
pub(super) mod presence;
pub(super) mod public_view;
pub(super) mod repetition;
pub(super) mod rules;
pub(super) mod seat_hashes;
pub(super) mod serde_chess;
pub(super) mod setup;
pub(super) mod signal_commands;
pub(super) mod state;
pub(super) mod time_control;
pub(super) mod timing;
pub(super) mod variant;
