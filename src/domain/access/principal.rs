//! A caller once its credential has been checked.

use crate::domain::{EventId, access::Role};

/// Who a call comes from: a name for the records, a role, and the event
/// the role is confined to (`None`: every event).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Principal {
    /// The name every record of its actions carries.
    pub name: String,
    /// What it may do.
    pub role: Role,
    /// The one event it may do it on; `None` for every event.
    pub event: Option<EventId>,
}

impl Principal {
    /// The holder of the platform's admin token.
    pub fn admin() -> Self {
        Self {
            name: "admin".to_owned(),
            role: Role::Platform,
            event: None,
        }
    }

    /// Anyone, on a server without an admin token run open for
    /// development: the platform's rights, under a name that says so.
    pub fn open_mode() -> Self {
        Self {
            name: "anyone (open mode)".to_owned(),
            role: Role::Platform,
            event: None,
        }
    }

    /// Whether the principal's role reaches games of `event` (`None`: a
    /// game outside any event, which only an unconfined role reaches).
    pub fn covers(&self, event: Option<&EventId>) -> bool {
        match &self.event {
            None => true,
            Some(own) => event == Some(own),
        }
    }
}
