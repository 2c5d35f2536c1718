//! The Lua scripts that make each write one atomic step. Each script is a
//! file of its own beside this one.

/// Compare-and-set of the version, state write, event append and deadline,
/// atomically. KEYS: state hash, log stream, the bucket's deadline index,
/// and (for a game of a tournament event) the event's feed in the bucket.
/// ARGV: expected version, new version, state, deadline in ms or "" for
/// none, game id, the announcements' channel, the tournament event's id or
/// "", then (event version, event bytes) pairs. Appends `g <game id> v
/// <version>` to the feed for each event, and publishes `<game id> <new
/// version> <deadline in ms or -> [<event id>]` once written. Returns {1, new},
/// {0, current} on a version conflict, or {-1, logged} when the log does not
/// reach the stored version (state and log disagree: nothing is written).
/// The log reaches the version its archive reached ('a') plus its length:
/// each version is one entry, and archiving deletes the whole log.
/// Everything is checked before the first write, because Redis does not undo
/// a script's earlier writes when a later command fails; the events go
/// first, so that a log whose stream refuses their IDs (its last ID ahead
/// of its last entry) fails the commit before anything is written.
pub(super) const COMMIT_SCRIPT: &str = include_str!("commit.lua");

/// A read of a game's log. KEYS: state hash, log stream. ARGV: the version
/// to read after, the most entries to return (0: all). Returns {archived
/// through, the archive when the read reaches into it or nil, entries}: the
/// entries come after the archive.
pub(super) const LOG_SCRIPT: &str = include_str!("log.lua");

/// Archiving a game's log. KEYS: state hash, log stream, the bucket's
/// deadline index. ARGV: the version the archive runs through, the archive,
/// game id. When the game is stored at that version, keeps the archive in
/// the state hash (`a`: the version it runs through, `x`: the archive), drops
/// the log's entries and the game's deadline entry, and returns 1; returns 0
/// otherwise. Commits after it start a new stream of entries.
pub(super) const ARCHIVE_SCRIPT: &str = include_str!("archive.lua");

/// The sweeper's repair of one deadline entry. KEYS: state hash, the
/// bucket's deadline index. ARGV: the version the deadline was computed
/// from (0: the game does not exist), deadline in ms or "", game id. Does
/// nothing when the game has moved on since.
pub(super) const REPAIR_SCRIPT: &str = include_str!("repair.lua");

/// Lists a game in its event unless the event's list is full or, when
/// asked, its round has a record (see the script's header for its keys and
/// arguments).
pub(super) const LIST_IN_EVENT_SCRIPT: &str = include_str!("list_in_event.lua");

/// Compare-and-set of one round's record of an event: writes the record,
/// its version and its summary together when the round is at the version
/// expected (see the script's header for its keys and arguments).
pub(super) const PUT_ROUND_SCRIPT: &str = include_str!("put_round.lua");

/// Opens a round: its first record, unless the event lists games in the
/// round or cannot take its games.
pub(super) const OPEN_ROUND_SCRIPT: &str = include_str!("open_round.lua");

/// Writes an event's team registration at the next version (see
/// `put_teams.lua`).
pub(super) const PUT_TEAMS_SCRIPT: &str = include_str!("put_teams.lua");

/// Adds a credential's record unless its id has one or the store holds
/// as many as it may (see the script's header for its keys and arguments).
pub(super) const ADD_CREDENTIAL_SCRIPT: &str = include_str!("add_credential.lua");

/// Replaces a credential's record if it has one.
pub(super) const REPLACE_CREDENTIAL_SCRIPT: &str = include_str!("replace_credential.lua");

/// A page of credentials' records in the order of their ids.
pub(super) const LIST_CREDENTIALS_SCRIPT: &str = include_str!("list_credentials.lua");

/// Appends a game's fair-play signal unless it repeats the latest or the
/// game holds as many as it may (see the script's header).
pub(super) const ADD_SIGNAL_SCRIPT: &str = include_str!("add_signal.lua");
