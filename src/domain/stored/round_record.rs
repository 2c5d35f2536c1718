//! The stored form of a round's record and of its summary, and of an
//! event's team registration: JSON in an envelope that names its schema,
//! `{"schema":1,"round":{…}}`, `{"schema":1,"summary":{…}}` and
//! `{"schema":1,"teams":{…}}`, readable with `redis-cli`. A newer schema
//! than this release knows is refused rather than misread.

use serde::{Deserialize, Serialize};

use crate::domain::{Round, RoundSummary, TeamRegistration, stored::encoding::DecodeError};

/// The schema this release writes.
pub const ROUND_SCHEMA: u32 = 1;

#[derive(Serialize, Deserialize)]
struct RoundEnvelope {
    schema: u32,
    round: Round,
}

#[derive(Serialize, Deserialize)]
struct SummaryEnvelope {
    schema: u32,
    summary: RoundSummary,
}

#[derive(Serialize, Deserialize)]
struct TeamsEnvelope {
    schema: u32,
    teams: TeamRegistration,
}

/// Only the schema, read first so that a newer record is told apart from
/// a malformed one.
#[derive(Deserialize)]
struct SchemaOnly {
    schema: u32,
}

fn malformed(what: &'static str, err: &serde_json::Error) -> DecodeError {
    DecodeError::Malformed {
        what,
        detail: err.to_string(),
    }
}

fn check_schema(what: &'static str, bytes: &[u8]) -> Result<(), DecodeError> {
    let SchemaOnly { schema } =
        serde_json::from_slice(bytes).map_err(|err| malformed(what, &err))?;
    if schema > ROUND_SCHEMA {
        return Err(DecodeError::NewerSchema { what, schema });
    }
    Ok(())
}

/// A round's record as stored.
pub fn encode_round(round: &Round) -> Result<Vec<u8>, DecodeError> {
    serde_json::to_vec(&RoundEnvelope {
        schema: ROUND_SCHEMA,
        round: round.clone(),
    })
    .map_err(|err| malformed("round", &err))
}

/// A round from its stored record.
pub fn decode_round(bytes: &[u8]) -> Result<Round, DecodeError> {
    check_schema("round", bytes)?;
    let envelope: RoundEnvelope =
        serde_json::from_slice(bytes).map_err(|err| malformed("round", &err))?;
    Ok(envelope.round)
}

/// A round's summary as stored.
pub fn encode_summary(summary: &RoundSummary) -> Result<Vec<u8>, DecodeError> {
    serde_json::to_vec(&SummaryEnvelope {
        schema: ROUND_SCHEMA,
        summary: summary.clone(),
    })
    .map_err(|err| malformed("round summary", &err))
}

/// A round's summary from its stored form.
pub fn decode_summary(bytes: &[u8]) -> Result<RoundSummary, DecodeError> {
    check_schema("round summary", bytes)?;
    let envelope: SummaryEnvelope =
        serde_json::from_slice(bytes).map_err(|err| malformed("round summary", &err))?;
    Ok(envelope.summary)
}

/// An event's team registration as stored.
pub fn encode_teams(teams: &TeamRegistration) -> Result<Vec<u8>, DecodeError> {
    serde_json::to_vec(&TeamsEnvelope {
        schema: ROUND_SCHEMA,
        teams: teams.clone(),
    })
    .map_err(|err| malformed("team registration", &err))
}

/// An event's team registration from its stored form.
pub fn decode_teams(bytes: &[u8]) -> Result<TeamRegistration, DecodeError> {
    check_schema("team registration", bytes)?;
    let envelope: TeamsEnvelope =
        serde_json::from_slice(bytes).map_err(|err| malformed("team registration", &err))?;
    Ok(envelope.teams)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{
        Acceleration, BoardRequest, ByeKind, EventId, ForbiddenPair, GameRules, NewGame, Pairing,
        RoundBye, RoundRequest, StartPosition, Variant, test_support::*,
    };

    fn round() -> Round {
        let setup = NewGame::new(
            player("a", "A"),
            player("b", "B"),
            Variant::Standard,
            &StartPosition::Standard,
            Pairing::default(),
            GameRules::default(),
        )
        .expect("setup");
        let request = RoundRequest {
            event: EventId::parse("e").expect("event"),
            number: 3,
            request_id: Some("r3".into()),
            boards: vec![BoardRequest {
                board: 1,
                field: "boards[0]".into(),
                white: setup.white().clone(),
                black: setup.black().clone(),
                setup: Ok(setup),
            }],
            byes: vec![RoundBye {
                player: player("c", "C"),
                kind: ByeKind::HalfPoint,
            }],
            roster: vec![player("a", "A"), player("b", "B"), player("c", "C")],
            forbidden_pairs: vec![ForbiddenPair {
                first: "a".into(),
                second: "c".into(),
            }],
            accelerations: vec![Acceleration {
                player: "b".into(),
                points: crate::domain::Points::from_milli(1000),
                first: 1,
                last: 2,
            }],
            refused: Vec::new(),
            teams: false,
            matches: Vec::new(),
            match_setup: None,
            team_byes: Vec::new(),
        };
        Round::plan(request, &[], at(7)).expect("round")
    }

    #[test]
    fn a_round_and_its_summary_read_back_as_written() {
        let round = round().started_by("chief", at(9));
        let bytes = encode_round(&round).expect("encoded");
        assert!(bytes.starts_with(b"{\"schema\":1,\"round\":"));
        assert_eq!(decode_round(&bytes), Ok(round.clone()));
        let summary = round.summary();
        let bytes = encode_summary(&summary).expect("encoded");
        assert_eq!(decode_summary(&bytes), Ok(summary));
    }

    #[test]
    fn newer_and_malformed_records_are_refused() {
        assert_eq!(
            decode_round(b"{\"schema\":2,\"round\":{}}"),
            Err(DecodeError::NewerSchema {
                what: "round",
                schema: 2
            })
        );
        assert!(matches!(
            decode_round(b"{\"schema\":1,\"round\":{}}"),
            Err(DecodeError::Malformed { what: "round", .. })
        ));
        assert!(matches!(
            decode_summary(b"not json"),
            Err(DecodeError::Malformed { .. })
        ));
    }
}
