//! The roles a credential grants.

use serde::{Deserialize, Serialize};

/// What a credential's holder is to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The platform: everything, on every event (the admin token's role).
    Platform,
    /// An arbiter of one event: the interventions on its games, its rounds
    /// and games, its games live and as stored.
    Arbiter,
    /// A reader of one event's feed: its games live, without the broadcast
    /// delay; nothing else.
    FeedReader,
    /// A read-only auditor, of one event or of all: every game live and as
    /// stored, rounds, credentials (without secrets); never a change.
    Auditor,
}

impl Role {
    /// Every role, in the order the documentation lists them.
    pub const ALL: [Role; 4] = [
        Role::Platform,
        Role::Arbiter,
        Role::FeedReader,
        Role::Auditor,
    ];

    /// The role's name as the API and the records write it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Platform => "platform",
            Role::Arbiter => "arbiter",
            Role::FeedReader => "feed_reader",
            Role::Auditor => "auditor",
        }
    }

    /// Whether a credential of this role must name one event: an arbiter
    /// and a feed reader always do, the platform never, an auditor may.
    pub fn scope(self) -> ScopeRule {
        match self {
            Role::Platform => ScopeRule::Never,
            Role::Arbiter | Role::FeedReader => ScopeRule::Required,
            Role::Auditor => ScopeRule::Optional,
        }
    }
}

/// Whether a role's credential names an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeRule {
    /// It must name one.
    Required,
    /// It may (confined to it) or not (every event).
    Optional,
    /// It must not: the role covers everything.
    Never,
}
