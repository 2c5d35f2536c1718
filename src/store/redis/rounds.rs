//! Each tournament event's round records: one hash per event, in the slot
//! of the event's game list, with three fields per round, and a hash of
//! the rounds' summaries alone for event-wide reads (see [`super::keys`]).

use std::collections::HashMap;

use async_trait::async_trait;

use super::{RedisStore, keys::event_member};
use crate::{
    domain::EventId,
    store::{
        Corruption, EventPosition, RoundOpening, Rounds, StoreError, StoredRound, StoredTeams,
        TeamsWrite, check_next, check_round,
    },
};

/// The field of a round's record.
fn record_field(number: u32) -> String {
    number.to_string()
}

/// The field of a round's version.
fn version_field(number: u32) -> String {
    format!("{number}:v")
}

/// The field of a round's summary.
fn summary_field(number: u32) -> String {
    format!("{number}:s")
}

/// What a field of an event's round records holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Record,
    Version,
    Summary,
}

/// The round number and the kind of a field of an event's round records;
/// `None` when it is not `<n>`, `<n>:v` or `<n>:s`.
fn parse_field(field: &str) -> Option<(u32, Field)> {
    let (digits, kind) = match field.split_once(':') {
        None => (field, Field::Record),
        Some((digits, "v")) => (digits, Field::Version),
        Some((digits, "s")) => (digits, Field::Summary),
        Some(_) => return None,
    };
    // `parse` alone would take a sign.
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((digits.parse().ok()?, kind))
}

/// A round from its three fields, which exist together or not at all.
fn stored_round(
    event_id: &EventId,
    number: u32,
    fields: Vec<Option<Vec<u8>>>,
) -> Result<Option<StoredRound>, StoreError> {
    let half = || {
        StoreError::Corrupt(Corruption::HalfARound {
            event: event_id.clone(),
            number,
        })
    };
    let [bytes, version, summary]: [Option<Vec<u8>>; 3] =
        fields.try_into().map_err(|fields: Vec<_>| {
            StoreError::Corrupt(Corruption::Reply {
                what: "a round's record",
                detail: format!("3 fields asked for, {} returned", fields.len()),
            })
        })?;
    let (bytes, version, summary) = match (bytes, version, summary) {
        (None, None, None) => return Ok(None),
        (Some(bytes), Some(version), Some(summary)) => (bytes, version, summary),
        _ => return Err(half()),
    };
    let version = std::str::from_utf8(&version)
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
        .ok_or_else(|| {
            StoreError::Corrupt(Corruption::RoundVersion {
                event: event_id.clone(),
                number,
                version: String::from_utf8_lossy(&version).into_owned(),
            })
        })?;
    Ok(Some(StoredRound {
        version,
        bytes,
        summary,
    }))
}

#[async_trait]
impl Rounds for RedisStore {
    async fn round(
        &self,
        event_id: &EventId,
        number: u32,
    ) -> Result<Option<StoredRound>, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let fields: Vec<Option<Vec<u8>>> = self
            .endpoint
            .bounded(
                redis::cmd("HMGET")
                    .arg(self.keys.rounds_key(event_id))
                    .arg(record_field(number))
                    .arg(version_field(number))
                    .arg(summary_field(number))
                    .query_async(&mut conn),
            )
            .await?;
        stored_round(event_id, number, fields)
    }

    async fn put_round(
        &self,
        event_id: &EventId,
        number: u32,
        expected: u64,
        round: &StoredRound,
    ) -> Result<bool, StoreError> {
        check_round(expected, round)?;
        let mut conn = self.endpoint.connection().await?;
        let written: u8 = self
            .endpoint
            .bounded(
                self.put_round
                    .key(self.keys.rounds_key(event_id))
                    .key(self.keys.round_summaries_key(event_id))
                    .arg(number)
                    .arg(expected)
                    .arg(round.version)
                    .arg(round.bytes.as_slice())
                    .arg(round.summary.as_slice())
                    .invoke_async(&mut conn),
            )
            .await?;
        Ok(written == 1)
    }

    async fn open_round(
        &self,
        event_id: &EventId,
        number: u32,
        round: &StoredRound,
        listings: &[EventPosition],
        max_event_games: usize,
        ignoring: &[EventPosition],
        teams: Option<u64>,
    ) -> Result<RoundOpening, StoreError> {
        check_round(0, round)?;
        let mut conn = self.endpoint.connection().await?;
        let mut invocation = self.open_round.prepare_invoke();
        invocation
            .key(self.keys.rounds_key(event_id))
            .key(self.keys.round_summaries_key(event_id))
            .key(self.keys.event_key(event_id))
            .key(self.keys.rounds_in_creation_key(event_id))
            .key(self.keys.teams_key(event_id))
            .arg(number)
            .arg(format!("{number:010}"))
            .arg(format!("{:010}", u64::from(number) + 1))
            .arg(max_event_games)
            .arg(round.bytes.as_slice())
            .arg(round.summary.as_slice())
            .arg(teams.map_or_else(|| "-".to_owned(), |version| version.to_string()))
            .arg(ignoring.len());
        for position in ignoring.iter().chain(listings) {
            invocation.arg(event_member(position));
        }
        let opened: u8 = self
            .endpoint
            .bounded(invocation.invoke_async(&mut conn))
            .await?;
        Ok(match opened {
            1 => RoundOpening::Opened,
            2 => RoundOpening::RoundHasGames,
            3 => RoundOpening::EventFull,
            4 => RoundOpening::TeamsChanged,
            _ => RoundOpening::Exists,
        })
    }

    async fn teams(&self, event_id: &EventId) -> Result<Option<StoredTeams>, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let (bytes, version): (Option<Vec<u8>>, Option<String>) = self
            .endpoint
            .bounded(
                redis::cmd("HMGET")
                    .arg(self.keys.teams_key(event_id))
                    .arg("r")
                    .arg("v")
                    .query_async(&mut conn),
            )
            .await?;
        let corrupt = |detail: String| {
            StoreError::Corrupt(Corruption::Reply {
                what: "an event's team registration",
                detail,
            })
        };
        match (bytes, version) {
            (None, None) => Ok(None),
            (Some(bytes), Some(version)) => {
                let version = version
                    .parse::<u64>()
                    .map_err(|_| corrupt(format!("version {version:?} is not a number")))?;
                Ok(Some(StoredTeams { version, bytes }))
            }
            _ => Err(corrupt(
                "the record and its version are not both there".to_owned(),
            )),
        }
    }

    async fn put_teams(
        &self,
        event_id: &EventId,
        expected: u64,
        teams: &StoredTeams,
        before_rounds: bool,
    ) -> Result<TeamsWrite, StoreError> {
        check_next(expected, teams.version)?;
        let mut conn = self.endpoint.connection().await?;
        let written: u8 = self
            .endpoint
            .bounded(
                self.put_teams
                    .key(self.keys.teams_key(event_id))
                    .key(self.keys.round_summaries_key(event_id))
                    .arg(expected)
                    .arg(teams.version)
                    .arg(teams.bytes.as_slice())
                    .arg(u8::from(before_rounds))
                    .invoke_async(&mut conn),
            )
            .await?;
        Ok(match written {
            1 => TeamsWrite::Written,
            2 => TeamsWrite::RoundsExist,
            _ => TeamsWrite::Conflict,
        })
    }

    async fn rounds_in_creation(&self, event_id: &EventId) -> Result<Vec<u32>, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let members: Vec<String> = self
            .endpoint
            .bounded(
                redis::cmd("SMEMBERS")
                    .arg(self.keys.rounds_in_creation_key(event_id))
                    .query_async(&mut conn),
            )
            .await?;
        members
            .iter()
            .map(|member| {
                member.parse().map_err(|_| {
                    StoreError::Corrupt(Corruption::RoundField {
                        event: event_id.clone(),
                        field: member.clone(),
                    })
                })
            })
            .collect()
    }

    async fn round_created(&self, event_id: &EventId, number: u32) -> Result<(), StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let _: i64 = self
            .endpoint
            .bounded(
                redis::cmd("SREM")
                    .arg(self.keys.rounds_in_creation_key(event_id))
                    .arg(number)
                    .query_async(&mut conn),
            )
            .await?;
        Ok(())
    }

    async fn round_summaries(
        &self,
        event_id: &EventId,
        limit: usize,
    ) -> Result<Vec<(u32, Vec<u8>)>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut conn = self.endpoint.connection().await?;
        let fields: HashMap<Vec<u8>, Vec<u8>> = self
            .endpoint
            .bounded(
                redis::cmd("HGETALL")
                    .arg(self.keys.round_summaries_key(event_id))
                    .query_async(&mut conn),
            )
            .await?;
        let mut summaries = Vec::new();
        for (field, value) in fields {
            let parsed = std::str::from_utf8(&field).ok().and_then(parse_field);
            match parsed {
                Some((number, Field::Record)) => summaries.push((number, value)),
                _ => {
                    return Err(StoreError::Corrupt(Corruption::RoundField {
                        event: event_id.clone(),
                        field: String::from_utf8_lossy(&field).into_owned(),
                    }));
                }
            }
        }
        summaries.sort_unstable_by_key(|(number, _)| *number);
        summaries.truncate(limit);
        Ok(summaries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_name_a_round_and_what_it_holds() {
        assert_eq!(parse_field("7"), Some((7, Field::Record)));
        assert_eq!(parse_field("7:v"), Some((7, Field::Version)));
        assert_eq!(parse_field("12:s"), Some((12, Field::Summary)));
        assert_eq!(parse_field(&record_field(3)), Some((3, Field::Record)));
        assert_eq!(parse_field(&version_field(3)), Some((3, Field::Version)));
        assert_eq!(parse_field(&summary_field(3)), Some((3, Field::Summary)));
        for field in [
            "",
            ":s",
            "+1:s",
            "-1",
            "1:x",
            "1:s:s",
            "x:s",
            "99999999999:s",
        ] {
            assert_eq!(parse_field(field), None, "{field:?}");
        }
    }
}
