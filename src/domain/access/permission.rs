//! The authorization matrix: which role may take which action, on which
//! event. Every call that needs more than a seat is checked here, and only
//! here.

use std::fmt;

use thiserror::Error;

use crate::domain::{
    EventId,
    access::{Principal, Role},
};

/// What a call does, as far as authorization is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Create games and rounds, import pairings, start rounds.
    Organise,
    /// An arbiter's intervention in a game: a clock adjusted, paused or
    /// resumed, a result set, a connection reported.
    Intervene,
    /// Read a game as the store holds it (`InspectGame`).
    Inspect,
    /// Read a round's boards as they stand (`GetRound`).
    ReadRounds,
    /// Read games live, without their broadcast delay.
    ReadLive,
    /// Create or revoke credentials.
    ManageCredentials,
    /// List credentials (never their secrets).
    ReadCredentials,
}

impl Action {
    /// Every action, for the tests of the matrix.
    pub const ALL: [Action; 7] = [
        Action::Organise,
        Action::Intervene,
        Action::Inspect,
        Action::ReadRounds,
        Action::ReadLive,
        Action::ManageCredentials,
        Action::ReadCredentials,
    ];

    /// What the action is, for a refusal's message.
    fn describe(self) -> &'static str {
        match self {
            Action::Organise => "create games or rounds",
            Action::Intervene => "intervene in games",
            Action::Inspect => "inspect games as stored",
            Action::ReadRounds => "read rounds",
            Action::ReadLive => "read games live",
            Action::ManageCredentials => "create or revoke credentials",
            Action::ReadCredentials => "list credentials",
        }
    }

    /// Whether an action on one event can be allowed to a role confined
    /// to it: managing and reading credentials concern every event.
    fn is_per_event(self) -> bool {
        !matches!(self, Action::ManageCredentials | Action::ReadCredentials)
    }
}

/// Whether `role` may take `action` at all (on an event it covers).
fn permits(role: Role, action: Action) -> bool {
    match role {
        Role::Platform => true,
        Role::Arbiter => matches!(
            action,
            Action::Organise
                | Action::Intervene
                | Action::Inspect
                | Action::ReadRounds
                | Action::ReadLive
        ),
        Role::FeedReader => action == Action::ReadLive,
        Role::Auditor => matches!(
            action,
            Action::Inspect | Action::ReadRounds | Action::ReadLive | Action::ReadCredentials
        ),
    }
}

/// Why a principal may not take an action.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Denial {
    /// The principal's role never allows the action.
    #[error("{name} holds a credential of role {role}, which may not {action}")]
    RoleNotPermitted {
        /// The principal's name.
        name: String,
        /// Its role's name.
        role: &'static str,
        /// What it tried.
        action: &'static str,
    },
    /// The role allows it, on another event than the one the call touches.
    #[error("{name}'s credential is confined to event '{scope}', and this call {target}")]
    OutOfScope {
        /// The principal's name.
        name: String,
        /// The event the credential is confined to.
        scope: EventId,
        /// What the call touches.
        target: Target,
    },
}

/// What a call out of a credential's scope touches, for its refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// An event (or a game of it).
    Event(EventId),
    /// A game outside any event.
    NoEvent,
    /// Every event at once (a credential list).
    EveryEvent,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Event(event) => write!(f, "concerns event '{event}'"),
            Target::NoEvent => f.write_str("concerns a game outside any event"),
            Target::EveryEvent => f.write_str("concerns every event"),
        }
    }
}

impl Principal {
    /// Allows `action` on `event` (a game's event, or the event a call
    /// names; `None`: a game outside any event), or says why not.
    pub fn authorize(&self, action: Action, event: Option<&EventId>) -> Result<(), Denial> {
        if !permits(self.role, action) {
            return Err(Denial::RoleNotPermitted {
                name: self.name.clone(),
                role: self.role.name(),
                action: action.describe(),
            });
        }
        let Some(scope) = &self.event else {
            return Ok(());
        };
        let target = if !action.is_per_event() {
            Target::EveryEvent
        } else {
            match event {
                Some(event) if event == scope => return Ok(()),
                Some(event) => Target::Event(event.clone()),
                None => Target::NoEvent,
            }
        };
        Err(Denial::OutOfScope {
            name: self.name.clone(),
            scope: scope.clone(),
            target,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(id: &str) -> EventId {
        EventId::parse(id).unwrap()
    }

    fn principal(role: Role, scope: Option<&str>) -> Principal {
        Principal {
            name: "Jane Doe".to_owned(),
            role,
            event: scope.map(event),
        }
    }

    /// The matrix as the documentation states it: for each role, the
    /// actions it may take on its own event.
    #[test]
    fn each_role_takes_exactly_its_actions() {
        use Action::*;
        let allowed: [(Role, &[Action]); 4] = [
            (
                Role::Platform,
                &[
                    Organise,
                    Intervene,
                    Inspect,
                    ReadRounds,
                    ReadLive,
                    ManageCredentials,
                    ReadCredentials,
                ],
            ),
            (
                Role::Arbiter,
                &[Organise, Intervene, Inspect, ReadRounds, ReadLive],
            ),
            (Role::FeedReader, &[ReadLive]),
            (
                Role::Auditor,
                &[Inspect, ReadRounds, ReadLive, ReadCredentials],
            ),
        ];
        for (role, actions) in allowed {
            let unconfined = principal(role, None);
            for action in Action::ALL {
                let result = unconfined.authorize(action, Some(&event("open-2026")));
                assert_eq!(
                    result.is_ok(),
                    actions.contains(&action),
                    "{role:?} {action:?}"
                );
                if let Err(denial) = result {
                    assert!(matches!(denial, Denial::RoleNotPermitted { .. }));
                    assert!(denial.to_string().contains(role.name()), "{denial}");
                }
            }
        }
    }

    #[test]
    fn a_confined_role_reaches_its_own_event_only() {
        let arbiter = principal(Role::Arbiter, Some("open-2026"));
        assert_eq!(
            arbiter.authorize(Action::Intervene, Some(&event("open-2026"))),
            Ok(())
        );
        let other = arbiter
            .authorize(Action::Intervene, Some(&event("blitz-2026")))
            .unwrap_err();
        assert_eq!(
            other.to_string(),
            "Jane Doe's credential is confined to event 'open-2026', and this call concerns \
             event 'blitz-2026'"
        );
        assert!(matches!(
            arbiter.authorize(Action::Organise, None),
            Err(Denial::OutOfScope {
                target: Target::NoEvent,
                ..
            })
        ));
        // A role confined to an event never reaches every event at once.
        let auditor = principal(Role::Auditor, Some("open-2026"));
        assert!(matches!(
            auditor.authorize(Action::ReadCredentials, Some(&event("open-2026"))),
            Err(Denial::OutOfScope {
                target: Target::EveryEvent,
                ..
            })
        ));
        assert_eq!(
            principal(Role::Auditor, None).authorize(Action::ReadCredentials, None),
            Ok(())
        );
        // The role is checked before the scope.
        assert!(matches!(
            principal(Role::FeedReader, Some("open-2026"))
                .authorize(Action::Intervene, Some(&event("blitz-2026"))),
            Err(Denial::RoleNotPermitted { .. })
        ));
    }

    #[test]
    fn the_platform_reaches_games_outside_events() {
        assert_eq!(
            Principal::admin().authorize(Action::Intervene, None),
            Ok(())
        );
        assert!(Principal::admin().covers(None));
        assert!(!principal(Role::Arbiter, Some("open-2026")).covers(None));
    }
}
