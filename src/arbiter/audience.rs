//! Who reads a game, for the broadcast delay: the game's seats and the
//! platform's admin see it live; everyone else, the public, sees it as it
//! stood the game's delay earlier (see [`crate::domain::public_view()`]).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, PoisonError},
};

use super::{Arbiter, ArbiterError, GameView, codec};
use crate::{
    domain::{BroadcastDelay, EventId, Game, GameId, Replay, Timestamp, TokenHash},
    store::{Corruption, StoreError},
};

/// Events read per page when a public view is rebuilt.
const REPLAY_PAGE: usize = 128;

/// Games whose latest public view a replica keeps to go on from.
const PUBLIC_REPLAYS: usize = 4096;

/// The public view of each delayed game this replica rebuilt last, with its
/// cut-off: the next public read of the game replays only the events since,
/// so that a busy delayed game costs each read the events of the last few
/// moments, not its whole log. Bounded: when full, it starts afresh.
#[derive(Clone, Default)]
pub(super) struct PublicReplays(Arc<Mutex<HashMap<GameId, (Timestamp, Game)>>>);

impl PublicReplays {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, (Timestamp, Game)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Where to go on from for `live` at `cutoff`: a view rebuilt earlier
    /// of this game, at a cut-off no later and a version no later than
    /// `live`'s (the game as it stood then is a prefix of its history).
    fn start(&self, live: &Game, cutoff: Timestamp) -> Replay {
        match self.lock().get(live.id()) {
            Some((at, game))
                if *at <= cutoff
                    && game.version() <= live.version()
                    && game.created_at() == live.created_at() =>
            {
                Replay::resume(game.clone())
            }
            _ => Replay::start(live),
        }
    }

    fn keep(&self, cutoff: Timestamp, game: &Game) {
        let mut kept = self.lock();
        if kept.len() >= PUBLIC_REPLAYS && !kept.contains_key(game.id()) {
            kept.clear();
        }
        match kept.get(game.id()) {
            // A read that took an earlier cut-off keeps the later view.
            Some((at, _)) if *at > cutoff => {}
            _ => {
                kept.insert(game.id().clone(), (cutoff, game.clone()));
            }
        }
    }
}

/// Games whose placement a replica remembers; it forgets them all beyond
/// this (and reads them again when it needs to).
const KNOWN_PLACEMENTS: usize = 65_536;

/// What a game's creation fixed that its event's watchers need: its
/// broadcast delay and its round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    /// The broadcast delay.
    pub delay: BroadcastDelay,
    /// The round (0 when none).
    pub round: u32,
}

/// Each game's placement as this replica has read it, shared by all its
/// event watchers: a game's placement never changes, so a game is read for
/// it once per replica, not once per watcher.
#[derive(Clone, Default)]
pub(super) struct KnownPlacements(Arc<Mutex<HashMap<GameId, Placement>>>);

impl KnownPlacements {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<GameId, Placement>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Arbiter {
    /// The placements of `games`: those this replica knows at once, the
    /// others with one read of their states.
    pub(super) async fn placements_of(
        &self,
        games: &[GameId],
    ) -> Result<Vec<(GameId, Placement)>, ArbiterError> {
        let mut placements = Vec::with_capacity(games.len());
        let mut unknown = Vec::new();
        {
            let known = self.known_placements.lock();
            for id in games {
                match known.get(id) {
                    Some(placement) => placements.push((id.clone(), *placement)),
                    None => unknown.push(id.clone()),
                }
            }
        }
        if unknown.is_empty() {
            return Ok(placements);
        }
        let (states, _) = self.store.load_many(&unknown).await?;
        let mut read = Vec::with_capacity(unknown.len());
        for (id, state) in unknown.into_iter().zip(states) {
            let placement = match state {
                Some(state) => {
                    let game = codec::decode_state(&state)?;
                    Placement {
                        delay: game.setup().broadcast_delay(),
                        round: game.pairing().round,
                    }
                }
                // A game the feed names exists; were it gone, it has
                // nothing left to hide.
                None => Placement::default(),
            };
            read.push((id, placement));
        }
        let mut known = self.known_placements.lock();
        if known.len() + read.len() > KNOWN_PLACEMENTS {
            known.clear();
        }
        known.extend(read.iter().cloned());
        drop(known);
        placements.extend(read);
        Ok(placements)
    }
}

/// Who is reading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reader {
    /// A credential that reads games live: every game (`None`: the admin
    /// token, the platform, an auditor of every event), or the games of
    /// one event (an arbiter, a feed reader or an auditor of it).
    Live(Option<EventId>),
    /// Anyone else, with the hash of the bearer token presented, if any: a
    /// seat's token reads that game (and only that game) live.
    Token(Option<TokenHash>),
}

impl Reader {
    /// A reader without any token.
    pub const PUBLIC: Reader = Reader::Token(None);

    /// The admin token: every game live.
    pub const ADMIN: Reader = Reader::Live(None);

    /// Whether this reader sees `game` as it stands: a game without a
    /// delay, the admin, or one of the game's seats.
    pub fn sees_live(&self, game: &Game) -> bool {
        match self {
            Reader::Live(None) => true,
            Reader::Live(Some(event)) => {
                game.setup().broadcast_delay().is_live()
                    || game.pairing().event_id.as_ref() == Some(event)
            }
            Reader::Token(hash) => {
                game.setup().broadcast_delay().is_live()
                    || hash
                        .as_ref()
                        .is_some_and(|hash| game.seat_of(hash).is_some())
            }
        }
    }

    /// Whether this reader sees every game of `event` live in a read of
    /// the whole event: only a credential that reads that event live (a
    /// seat reads its own game live, never the event).
    pub fn sees_event_live(&self, event: Option<&EventId>) -> bool {
        match self {
            Reader::Live(None) => true,
            Reader::Live(Some(own)) => event == Some(own),
            Reader::Token(_) => false,
        }
    }
}

impl Arbiter {
    /// `live`, read at `now`, as the public sees it: the game as it stood
    /// at `now` less its delay, and that instant. Rebuilding it reads the
    /// game's log up to the cut-off in pages of [`REPLAY_PAGE`] events; a
    /// game unchanged since the cut-off is itself, read from nowhere.
    pub(super) async fn public_game(
        &self,
        live: Game,
        now: Timestamp,
    ) -> Result<(Game, Timestamp), ArbiterError> {
        let cutoff = live.setup().broadcast_delay().cutoff(now);
        if live.unchanged_since(cutoff) {
            return Ok((live, cutoff));
        }
        let id = live.id().clone();
        let mut replay = self.public_replays.start(&live, cutoff);
        let mut after = replay.game().version();
        let view = loop {
            let read = self.store.events_page(&id, after, REPLAY_PAGE).await?;
            let events = codec::decode_log(&id, after, REPLAY_PAGE, &read)?;
            let full = events.len() >= REPLAY_PAGE;
            let mut reached = false;
            for event in &events {
                if event.at > cutoff || event.version > live.version() {
                    reached = true;
                    break;
                }
                replay.apply(event).map_err(|err| {
                    StoreError::Corrupt(Corruption::DoesNotReplay {
                        game: id.clone(),
                        source: err,
                    })
                })?;
                after = event.version;
            }
            if reached || !full || after >= live.version() {
                break replay.into_game();
            }
        };
        self.public_replays.keep(cutoff, &view);
        Ok((view, cutoff))
    }

    /// `game`, read at `now`, as `reader` sees it, and the instant it is
    /// shown as of.
    pub(super) async fn shown_to(
        &self,
        reader: &Reader,
        game: Game,
        now: Timestamp,
    ) -> Result<(Game, Timestamp), ArbiterError> {
        if reader.sees_live(&game) {
            Ok((game, now))
        } else {
            self.public_game(game, now).await
        }
    }

    /// A game of an event, read at `now`, as `reader` sees it in a read of
    /// the whole event (live for the admin only).
    pub(super) async fn shown_in_event(
        &self,
        reader: &Reader,
        game: Game,
        now: Timestamp,
    ) -> Result<(Game, Timestamp), ArbiterError> {
        if reader.sees_event_live(game.pairing().event_id.as_ref()) {
            Ok((game, now))
        } else {
            self.public_game(game, now).await
        }
    }

    /// The view of `game` as `reader` sees it at `now`, with its moves when
    /// `full`.
    pub(super) async fn view_for(
        &self,
        reader: &Reader,
        game: Game,
        now: Timestamp,
        full: bool,
    ) -> Result<GameView, ArbiterError> {
        let (game, as_of) = self.shown_to(reader, game, now).await?;
        self.view(game, as_of, full).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        BroadcastDelay, GameId, GameRules, NewGame, Pairing, Player, SeatHashes, StartPosition,
        Variant,
    };

    fn game(delay_ms: i64) -> Game {
        let player = |id: &str| Player {
            id: id.to_owned(),
            name: id.to_owned(),
            ..Default::default()
        };
        let new = NewGame::new(
            player("w"),
            player("b"),
            Variant::Standard,
            &StartPosition::Standard,
            Pairing::default(),
            GameRules::default(),
        )
        .expect("new game")
        .with_broadcast_delay(BroadcastDelay::parse("d", delay_ms).expect("delay"));
        let seats = SeatHashes {
            white: TokenHash::of("white-seat-token"),
            black: TokenHash::of("black-seat-token"),
        };
        let id = GameId::parse("g").expect("id");
        Game::create(id, new, seats, Timestamp::from_unix_millis(1_000)).0
    }

    #[test]
    fn only_the_admin_and_the_games_own_seats_read_it_live() {
        let delayed = game(60_000);
        assert!(Reader::ADMIN.sees_live(&delayed));
        assert!(!Reader::PUBLIC.sees_live(&delayed));
        assert!(Reader::Token(Some(TokenHash::of("white-seat-token"))).sees_live(&delayed));
        assert!(Reader::Token(Some(TokenHash::of("black-seat-token"))).sees_live(&delayed));
        assert!(!Reader::Token(Some(TokenHash::of("another-games-seat"))).sees_live(&delayed));
        assert!(Reader::PUBLIC.sees_live(&game(0)));
        let event = EventId::parse("open").expect("event");
        assert!(Reader::ADMIN.sees_event_live(Some(&event)));
        assert!(!Reader::PUBLIC.sees_event_live(Some(&event)));
    }

    #[test]
    fn a_credential_of_one_event_reads_that_event_live_only() {
        let open = EventId::parse("open").expect("event");
        let blitz = EventId::parse("blitz").expect("event");
        let of_open = Reader::Live(Some(open.clone()));
        assert!(of_open.sees_event_live(Some(&open)));
        assert!(!of_open.sees_event_live(Some(&blitz)));
        assert!(!of_open.sees_event_live(None));
        // A delayed game outside its event is shown as the public sees it.
        assert!(!of_open.sees_live(&game(60_000)));
        assert!(of_open.sees_live(&game(0)));
    }
}
