//! The credentials' records: one hash of id to record and a sorted set of
//! the ids for listing in order, and the logs of their changes (a stream
//! per event, and the platform's), all under the hash tag `{credentials}`
//! so that one script writes a record and its change together (see
//! [`super::keys`]).

use async_trait::async_trait;

use super::{
    RawEntries, RedisStore,
    keys::{feed_position, stream_id},
    timestamp_of,
};
use crate::{
    domain::{EventId, Timestamp, access::CredentialId},
    store::{
        Corruption, CredentialAdded, CredentialLogEntry, Credentials, FeedPosition, StoreError,
    },
};

fn reply(detail: impl Into<String>) -> StoreError {
    StoreError::Corrupt(Corruption::Reply {
        what: "the credentials",
        detail: detail.into(),
    })
}

#[async_trait]
impl Credentials for RedisStore {
    async fn add_credential(
        &self,
        id: &CredentialId,
        record: &[u8],
        max: usize,
        change: CredentialLogEntry<'_>,
    ) -> Result<CredentialAdded, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let (outcome, existing): (u8, Option<Vec<u8>>) = self
            .endpoint
            .bounded(
                self.add_credential
                    .key(self.keys.credentials_key())
                    .key(self.keys.credential_ids_key())
                    .key(self.keys.credential_log_key(change.event))
                    .arg(id.as_str())
                    .arg(record)
                    .arg(max)
                    .arg(change.entry)
                    .invoke_async(&mut conn),
            )
            .await?;
        match (outcome, existing) {
            (1, None) => Ok(CredentialAdded::Added),
            (2, Some(existing)) => Ok(CredentialAdded::Exists(existing)),
            (3, None) => Ok(CredentialAdded::Full),
            (outcome, _) => Err(reply(format!("add_credential answered {outcome}"))),
        }
    }

    async fn credential(
        &self,
        id: &CredentialId,
    ) -> Result<(Option<Vec<u8>>, Timestamp), StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let (record, time): (Option<Vec<u8>>, (u64, u64)) = self
            .endpoint
            .bounded(
                redis::pipe()
                    .cmd("HGET")
                    .arg(self.keys.credentials_key())
                    .arg(id.as_str())
                    .cmd("TIME")
                    .query_async(&mut conn),
            )
            .await?;
        Ok((record, timestamp_of(time)))
    }

    async fn replace_credential(
        &self,
        id: &CredentialId,
        (expected, record): (&[u8], &[u8]),
        change: CredentialLogEntry<'_>,
    ) -> Result<bool, StoreError> {
        let mut conn = self.endpoint.connection().await?;
        let written: u8 = self
            .endpoint
            .bounded(
                self.replace_credential
                    .key(self.keys.credentials_key())
                    .key(self.keys.credential_log_key(change.event))
                    .arg(id.as_str())
                    .arg(record)
                    .arg(change.entry)
                    .arg(expected)
                    .invoke_async(&mut conn),
            )
            .await?;
        Ok(written == 1)
    }

    async fn credentials(
        &self,
        after: Option<&CredentialId>,
        limit: usize,
    ) -> Result<Vec<(CredentialId, Vec<u8>)>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let start = after.map_or_else(|| "-".to_owned(), |id| format!("({id}"));
        let mut conn = self.endpoint.connection().await?;
        let flat: Vec<Vec<u8>> = self
            .endpoint
            .bounded(
                self.list_credentials
                    .key(self.keys.credentials_key())
                    .key(self.keys.credential_ids_key())
                    .arg(start)
                    .arg(limit)
                    .invoke_async(&mut conn),
            )
            .await?;
        if !flat.len().is_multiple_of(2) {
            return Err(reply("an id without its record"));
        }
        flat.chunks_exact(2)
            .map(|pair| {
                let id = std::str::from_utf8(&pair[0])
                    .ok()
                    .and_then(|id| CredentialId::parse(id).ok())
                    .ok_or_else(|| reply("an id that is not one"))?;
                if pair[1].is_empty() {
                    return Err(reply(format!("credential {id} is listed without a record")));
                }
                Ok((id, pair[1].clone()))
            })
            .collect()
    }

    async fn credential_log(
        &self,
        event: Option<&EventId>,
        after: FeedPosition,
        limit: usize,
    ) -> Result<Vec<(FeedPosition, Vec<u8>)>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let start = if after == FeedPosition::default() {
            "-".to_owned()
        } else {
            format!("({}", stream_id(after))
        };
        let mut conn = self.endpoint.connection().await?;
        let entries: RawEntries = self
            .endpoint
            .bounded(
                redis::cmd("XRANGE")
                    .arg(self.keys.credential_log_key(event))
                    .arg(start)
                    .arg("+")
                    .arg("COUNT")
                    .arg(limit)
                    .query_async(&mut conn),
            )
            .await?;
        entries
            .into_iter()
            .map(|(id, mut fields)| {
                let entry = fields
                    .remove("c")
                    .ok_or_else(|| reply(format!("log entry {id} holds no change")))?;
                Ok((feed_position(&id)?, entry))
            })
            .collect()
    }
}
