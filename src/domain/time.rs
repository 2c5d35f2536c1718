//! The arbiter's notion of time: a server timestamp passed into every rule.

use serde::{Deserialize, Serialize};

/// A point in time, in milliseconds since the Unix epoch.
///
/// The domain never reads a clock: every command receives "now" from the
/// store, which reads it once per request from the one source all replicas
/// share.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Timestamp(u64);

/// Why a calendar time cannot be a [`Timestamp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    /// Before 1970-01-01T00:00:00Z, where the arbiter's time begins.
    #[error("must be a time after 1970")]
    BeforeEpoch,
    /// After 9999-12-31T23:59:59.999999999Z, the last instant RFC 3339 (and
    /// protobuf's `Timestamp`) can write.
    #[error("must be a time before the year 10000")]
    AfterYear9999,
    /// A fraction of a second outside 0 to 999,999,999 nanoseconds.
    #[error("nanos must be from 0 to 999999999, not {0}")]
    Nanos(i64),
}

impl Timestamp {
    /// The last instant a timestamp may be: 9999-12-31T23:59:59.999Z.
    pub const LATEST: Self = Self(253_402_300_799_999);

    /// A timestamp from seconds and nanoseconds since the Unix epoch, as
    /// protobuf's `Timestamp` carries them, to the millisecond (finer
    /// fractions are dropped); refused outside 1970 to 9999 and for a
    /// fraction that is not one.
    pub fn from_unix_parts(seconds: i64, nanos: i64) -> Result<Self, TimestampError> {
        if !(0..=999_999_999).contains(&nanos) {
            return Err(TimestampError::Nanos(nanos));
        }
        let seconds = u64::try_from(seconds).map_err(|_| TimestampError::BeforeEpoch)?;
        if seconds > Self::LATEST.0 / 1000 {
            return Err(TimestampError::AfterYear9999);
        }
        // Both parts are in range, so neither step can overflow.
        Ok(Self(seconds * 1000 + nanos.unsigned_abs() / 1_000_000))
    }

    /// A timestamp from milliseconds since the Unix epoch.
    pub const fn from_unix_millis(millis: u64) -> Self {
        Self(millis)
    }

    /// Milliseconds since the Unix epoch.
    pub const fn unix_millis(self) -> u64 {
        self.0
    }

    /// This instant, or [`Timestamp::LATEST`] if it is later: what a
    /// response may write.
    pub fn clamped(self) -> Self {
        self.min(Self::LATEST)
    }

    /// This instant plus `millis`.
    pub const fn plus_millis(self, millis: u64) -> Self {
        Self(self.0.saturating_add(millis))
    }

    /// Milliseconds from `earlier` to this instant (0 if `earlier` is later).
    pub const fn millis_since(self, earlier: Timestamp) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The UTC date of this instant: year, month (1 to 12), day (1 to 31).
    pub fn civil_date(self) -> (i64, u32, u32) {
        civil_from_days(i64::try_from(self.0 / 86_400_000).unwrap_or(0))
    }

    /// This instant in RFC 3339, UTC, to the millisecond
    /// (`2026-12-04T18:42:43.123Z`).
    pub fn rfc3339(self) -> String {
        let (year, month, day) = self.civil_date();
        let in_day = self.0 % 86_400_000;
        let (h, m, s, milli) = (
            in_day / 3_600_000,
            in_day / 60_000 % 60,
            in_day / 1000 % 60,
            in_day % 1000,
        );
        format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
    }
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // Both are small: a month is 1 to 12, a day 1 to 31.
    (year, month as u32, day as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_one_rfc_3339_can_write() {
        assert_eq!(
            Timestamp::from_unix_parts(0, 0),
            Ok(Timestamp::from_unix_millis(0))
        );
        assert_eq!(
            Timestamp::from_unix_parts(253_402_300_799, 999_999_999),
            Ok(Timestamp::LATEST)
        );
        assert_eq!(
            Timestamp::from_unix_parts(1_700_000_000, 2_500_000),
            Ok(Timestamp::from_unix_millis(1_700_000_000_002))
        );
        assert_eq!(
            Timestamp::from_unix_parts(253_402_300_800, 0),
            Err(TimestampError::AfterYear9999)
        );
        assert_eq!(
            Timestamp::from_unix_parts(i64::MAX, 0),
            Err(TimestampError::AfterYear9999)
        );
        assert_eq!(
            Timestamp::from_unix_parts(-1, 0),
            Err(TimestampError::BeforeEpoch)
        );
        assert_eq!(
            Timestamp::from_unix_parts(0, 1_000_000_000),
            Err(TimestampError::Nanos(1_000_000_000))
        );
        assert_eq!(
            Timestamp::from_unix_parts(0, -1),
            Err(TimestampError::Nanos(-1))
        );
        assert_eq!(
            Timestamp::from_unix_millis(u64::MAX).clamped(),
            Timestamp::LATEST
        );
    }

    #[test]
    fn an_instant_is_written_in_rfc_3339_utc() {
        assert_eq!(
            Timestamp::from_unix_millis(0).rfc3339(),
            "1970-01-01T00:00:00.000Z"
        );
        // 2024-02-29T12:34:56.789Z
        assert_eq!(
            Timestamp::from_unix_millis(1_709_210_096_789).rfc3339(),
            "2024-02-29T12:34:56.789Z"
        );
        assert_eq!(Timestamp::LATEST.rfc3339(), "9999-12-31T23:59:59.999Z");
    }
}
