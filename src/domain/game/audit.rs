//! Which of a game's events are administrative acts, and what the audit
//! log records of each: its kind, who did it and why. (The audit log also
//! holds the changes of the event's credentials, which are no game's
//! events: see `domain::access::credential_change`.)

use crate::domain::{EventKind, GameEvent};

/// The kinds of administrative act a game records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AuditKind {
    /// The game was created (on its own or with a round).
    GameCreated,
    /// An arbiter started it with its round.
    GameStarted,
    /// A clock was adjusted: by an arbiter, or by the rules as the penalty
    /// of an incorrect claim.
    ClockAdjusted,
    /// An arbiter paused the clocks.
    ClockPaused,
    /// An arbiter resumed the clocks.
    ClockResumed,
    /// An arbiter decided or corrected the result (a forfeit included).
    ResultSet,
    /// The platform reported a player's connection.
    ConnectionReported,
    /// A credential confined to the event (or, in the platform's log, one
    /// for every event) was created.
    CredentialCreated,
    /// Such a credential was revoked.
    CredentialRevoked,
}

impl AuditKind {
    /// Every kind, in a fixed order.
    pub const ALL: [AuditKind; 9] = [
        AuditKind::GameCreated,
        AuditKind::GameStarted,
        AuditKind::ClockAdjusted,
        AuditKind::ClockPaused,
        AuditKind::ClockResumed,
        AuditKind::ResultSet,
        AuditKind::ConnectionReported,
        AuditKind::CredentialCreated,
        AuditKind::CredentialRevoked,
    ];

    /// The kind's name in exports (`clock_paused`).
    pub fn name(self) -> &'static str {
        match self {
            AuditKind::GameCreated => "game_created",
            AuditKind::GameStarted => "game_started",
            AuditKind::ClockAdjusted => "clock_adjusted",
            AuditKind::ClockPaused => "clock_paused",
            AuditKind::ClockResumed => "clock_resumed",
            AuditKind::ResultSet => "result_set",
            AuditKind::ConnectionReported => "connection_reported",
            AuditKind::CredentialCreated => "credential_created",
            AuditKind::CredentialRevoked => "credential_revoked",
        }
    }

    /// Whether the kind is a credential's change rather than a game's act.
    pub fn is_credential_change(self) -> bool {
        matches!(
            self,
            AuditKind::CredentialCreated | AuditKind::CredentialRevoked
        )
    }
}

/// What the audit log shows of one administrative act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuditFacts<'a> {
    /// What kind of act.
    pub kind: AuditKind,
    /// Who did it (a principal's name); `None` when the rules did, or in
    /// games recorded before names were.
    pub by: Option<&'a str>,
    /// The reason given, if the act takes one.
    pub reason: Option<&'a str>,
}

impl GameEvent {
    /// What the audit log records of this event, if it is an
    /// administrative act (moves, offers, claims and the endings the rules
    /// decide are the players' and the rules', not acts).
    pub fn audit(&self) -> Option<AuditFacts<'_>> {
        let (kind, by, reason) = match &self.kind {
            EventKind::GameCreated { by, .. } => (AuditKind::GameCreated, by.as_deref(), None),
            EventKind::GameStarted { by } => (AuditKind::GameStarted, Some(by.as_str()), None),
            EventKind::ClockAdjusted { reason, by, .. } => (
                AuditKind::ClockAdjusted,
                by.as_deref(),
                Some(reason.as_str()),
            ),
            EventKind::ClockPaused { reason, by } => {
                (AuditKind::ClockPaused, by.as_deref(), Some(reason.as_str()))
            }
            EventKind::ClockResumed { reason, by } => (
                AuditKind::ClockResumed,
                by.as_deref(),
                Some(reason.as_str()),
            ),
            EventKind::ResultSet { reason, by, .. } => {
                (AuditKind::ResultSet, by.as_deref(), Some(reason.as_str()))
            }
            EventKind::ConnectionReported { by, .. } => {
                (AuditKind::ConnectionReported, Some(by.as_str()), None)
            }
            EventKind::MoveMade { .. }
            | EventKind::DrawOffered { .. }
            | EventKind::DrawDeclined { .. }
            | EventKind::DrawClaimRefused { .. }
            | EventKind::GameEnded { .. }
            | EventKind::PlayerCheckedIn { .. }
            | EventKind::GameAborted { .. } => return None,
        };
        Some(AuditFacts { kind, by, reason })
    }

    /// This event as the creation of a game by `by` (a principal's name);
    /// any other event as it is.
    pub fn created_by(mut self, name: &str) -> Self {
        if let EventKind::GameCreated { by, .. } = &mut self.kind {
            *by = Some(name.to_owned());
        }
        self
    }

    /// This event as produced by the administrative request of id
    /// `request`, when one was given.
    pub fn requested_by(mut self, request: Option<&str>) -> Self {
        self.request = request.map(str::to_owned);
        self
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::Color;

    use super::*;
    use crate::domain::{GameResult, Outcome, Termination, Timestamp};

    fn event(kind: EventKind) -> GameEvent {
        GameEvent {
            version: 2,
            at: Timestamp::from_unix_millis(1_000),
            kind,
            clock: None,
            request: None,
        }
    }

    #[test]
    fn interventions_are_acts_and_play_is_not() {
        let adjusted = event(EventKind::ClockAdjusted {
            color: Color::White,
            delta_ms: 60_000,
            reason: "clock fault".to_owned(),
            by: Some("Anna".to_owned()),
        });
        assert_eq!(
            adjusted.audit(),
            Some(AuditFacts {
                kind: AuditKind::ClockAdjusted,
                by: Some("Anna"),
                reason: Some("clock fault"),
            })
        );
        let penalty = event(EventKind::ClockAdjusted {
            color: Color::Black,
            delta_ms: 120_000,
            reason: "incorrect claim".to_owned(),
            by: None,
        });
        assert_eq!(penalty.audit().map(|facts| facts.by), Some(None));
        let started = event(EventKind::GameStarted {
            by: "Bert".to_owned(),
        });
        assert_eq!(
            started.audit().map(|facts| (facts.kind, facts.by)),
            Some((AuditKind::GameStarted, Some("Bert")))
        );
        for play in [
            EventKind::DrawOffered { by: Color::White },
            EventKind::PlayerCheckedIn {
                color: Color::Black,
            },
            EventKind::ended_classic(GameResult {
                outcome: Outcome::BlackWins,
                termination: Termination::Resignation,
            }),
        ] {
            assert_eq!(event(play).audit(), None);
        }
    }

    #[test]
    fn a_request_id_is_carried_when_given() {
        let paused = event(EventKind::ClockPaused {
            reason: "arbiter call".to_owned(),
            by: Some("Anna".to_owned()),
        });
        assert_eq!(paused.clone().requested_by(None).request, None);
        assert_eq!(
            paused.requested_by(Some("pause-1")).request.as_deref(),
            Some("pause-1")
        );
    }
}
