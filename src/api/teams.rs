//! Teams on the wire: reading `RegisterTeams` into the domain's teams,
//! and the registration's message.

use tonic::Status;

use super::{convert, create, request};
use crate::{
    domain::{EventId, RoundViolation, Team, TeamRegistration},
    proto,
};

/// The refusal of a registration's fields, every one named.
fn refused(violations: Vec<RoundViolation>) -> Status {
    crate::arbiter::ArbiterError::TeamsRefused(violations).into()
}

/// A `RegisterTeams` request read: the event, the boards, the teams and
/// the version expected; a malformed player refused with its field.
pub fn register_request(
    req: &proto::RegisterTeamsRequest,
) -> Result<(EventId, u32, Vec<Team>, Option<u64>), Status> {
    let event_id = request::event_id(&req.event_id)?;
    let boards = request::non_negative("boards", req.boards)?;
    let expected = request::non_negative("expected_version", req.expected_version)?;
    if req.teams.len() > TeamRegistration::MAX_TEAMS {
        return Err(refused(vec![RoundViolation::new(
            "teams",
            format!("must hold 1 to {} teams", TeamRegistration::MAX_TEAMS),
        )]));
    }
    let mut violations = Vec::new();
    let mut teams = Vec::with_capacity(req.teams.len());
    for (index, team) in req.teams.iter().enumerate() {
        if team.players.len() > TeamRegistration::MAX_ROSTER {
            violations.push(RoundViolation::new(
                format!("teams[{index}].players"),
                format!(
                    "a roster holds 1 to {} players",
                    TeamRegistration::MAX_ROSTER
                ),
            ));
            continue;
        }
        let mut players = Vec::with_capacity(team.players.len());
        for (place, player) in team.players.iter().enumerate() {
            // (The registration gives the team, whatever is sent.)
            match create::player_of("player", player) {
                Ok(player) => players.push(player),
                Err(err) => violations.push(RoundViolation::new(
                    format!("teams[{index}].players[{place}]"),
                    err.reason,
                )),
            }
        }
        teams.push(Team {
            id: team.id.clone(),
            name: team.name.clone(),
            players,
        });
    }
    if !violations.is_empty() {
        return Err(refused(violations));
    }
    Ok((
        event_id,
        boards,
        teams,
        (expected > 0).then_some(u64::from(expected)),
    ))
}

/// The protobuf form of an event's registration at `version`.
pub fn registration(
    event_id: &EventId,
    registration: &TeamRegistration,
    version: u64,
) -> proto::TeamRegistration {
    proto::TeamRegistration {
        event_id: event_id.to_string(),
        boards: i32::try_from(registration.boards()).unwrap_or(i32::MAX),
        teams: registration
            .teams()
            .iter()
            .map(|team| proto::Team {
                id: team.id.clone(),
                name: team.name.clone(),
                players: team.players.iter().map(convert::player).collect(),
            })
            .collect(),
        version: i32::try_from(version).unwrap_or(i32::MAX),
        update_time: Some(convert::timestamp(registration.updated_at())),
        updated_by: registration.updated_by().to_owned(),
    }
}
