//! A game's place in a tournament and what the tournament makes of its
//! games: points, standings with tie-breaks, byes, and the event's reports.
//!
//! | rule | regulation | file |
//! |---|---|---|
//! | where a game belongs: event, round, board | (platform rule) | `pairing` |
//! | points per result, Armageddon | Laws 10, event regulations | `scoring` |
//! | standings and tie-breaks | FIDE Tie-Break Regulations 2023 (C.07) | `standings`, `tie_break` |
//! | registered teams, rosters, a round's matches and line-ups | event regulations (Olympiad rules) | `teams` |
//! | team matches, match points, team standings and tie-breaks | C.07 (team tie-breaks) | `team_matches`, `team_standings` |
//! | a drawn match's tie-break (Armageddon) game | event regulations | `match_tie_break` |
//! | byes, forfeits and absences in standings | C.07 Art. 16 | `bye`, `standings` |
//! | rating performance (ARO, TPR, APRO) | C.07 Art. 10; B.02 Table 8.1(a) | `performance`, `standings` |
//! | a round: its games all or nothing, its byes, its start | FIDE Laws 6.6, 6.7; event regulations | `round` |
//! | a pairing engine's pairings (bbpPairings, JaVaFo `-p`) | FIDE C.04 (Swiss systems) | `engine_pairings` |
//! | PGN of a game or an event | PGN standard | `pgn` |
//! | a game's fair-play record, in JSON and PGN | (platform rule, after lichess) | `fair_play_export` |
//! | the Tournament Report File | FIDE TRF-16 | `trf` |

pub(super) mod bye;
pub(super) mod engine_pairings;
pub mod fair_play_export;
pub(super) mod match_tie_break;
pub(super) mod pairing;
pub(super) mod performance;
pub mod pgn;
pub(super) mod round;
pub(super) mod scoring;
pub(super) mod standings;
pub(super) mod team_matches;
pub(super) mod team_standings;
pub(super) mod teams;
pub(super) mod tie_break;
pub mod trf;
