//! The players who take the seats of a game.

use serde::{Deserialize, Serialize};

use crate::domain::FieldError;

/// A player as the platform identifies them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// The platform's identifier, opaque to the arbiter (1 to 128 characters).
    pub id: String,
    /// Display name for exports (up to 200 characters; may be empty).
    pub name: String,
    /// What broadcasts and reports show of the player, when the platform
    /// gave it. Left out of the stored form while empty.
    #[serde(default, skip_serializing_if = "PlayerDetails::is_empty")]
    pub details: PlayerDetails,
}

/// A player's rating, title, FIDE id and team, as the platform gives them
/// (for broadcasts: `WhiteElo`, `WhiteTitle`, `WhiteFideId`, `WhiteTeam`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerDetails {
    /// The rating (1 to 4000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// A FIDE title: GM, IM, FM, CM, WGM, WIM, WFM or WCM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The FIDE id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fide_id: Option<u32>,
    /// The team (up to 200 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

impl PlayerDetails {
    /// The FIDE titles a player may hold.
    pub const TITLES: [&'static str; 8] = ["GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM"];
    /// The highest rating accepted.
    pub const MAX_RATING: u32 = 4_000;
    /// Longest accepted team name.
    pub const MAX_TEAM_LEN: usize = 200;

    /// Whether nothing is known.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Validates the details taken from a request (0 and empty: not
    /// given); `field` names the seat.
    pub fn parse(
        field: &'static str,
        rating: i32,
        title: &str,
        fide_id: i32,
        team: &str,
    ) -> Result<Self, FieldError> {
        let rating = match u32::try_from(rating) {
            Ok(0) => None,
            Ok(r) if r <= Self::MAX_RATING => Some(r),
            _ => {
                return Err(FieldError::new(
                    field,
                    format!("rating must be from 1 to {} (0: none)", Self::MAX_RATING),
                ));
            }
        };
        let title = match title.trim() {
            "" => None,
            t if Self::TITLES.contains(&t) => Some(t.to_owned()),
            _ => {
                return Err(FieldError::new(
                    field,
                    format!("title must be one of {}", Self::TITLES.join(", ")),
                ));
            }
        };
        let fide_id = match u32::try_from(fide_id) {
            Ok(0) => None,
            Ok(id) => Some(id),
            Err(_) => return Err(FieldError::new(field, "fide_id must not be negative")),
        };
        if team.chars().count() > Self::MAX_TEAM_LEN {
            return Err(FieldError::new(
                field,
                format!("team is longer than {} characters", Self::MAX_TEAM_LEN),
            ));
        }
        if team.chars().any(char::is_control) {
            return Err(FieldError::new(field, "team contains control characters"));
        }
        let team = Some(team.to_owned()).filter(|t| !t.is_empty());
        Ok(Self {
            rating,
            title,
            fide_id,
            team,
        })
    }
}

impl Player {
    /// The team the player plays for, trimmed; `None` when the platform
    /// gave none (or only blanks).
    pub fn team(&self) -> Option<&str> {
        self.details
            .team
            .as_deref()
            .map(str::trim)
            .filter(|team| !team.is_empty())
    }

    /// Longest accepted identifier.
    pub const MAX_ID_LEN: usize = 128;
    /// Longest accepted name.
    pub const MAX_NAME_LEN: usize = 200;

    /// Validates a player taken from a request; `field` names the seat.
    pub fn parse(field: &'static str, id: &str, name: &str) -> Result<Self, FieldError> {
        if id.is_empty() {
            return Err(FieldError::new(field, "needs a player id"));
        }
        if id.chars().count() > Self::MAX_ID_LEN {
            return Err(FieldError::new(
                field,
                format!("id is longer than {} characters", Self::MAX_ID_LEN),
            ));
        }
        if name.chars().count() > Self::MAX_NAME_LEN {
            return Err(FieldError::new(
                field,
                format!("name is longer than {} characters", Self::MAX_NAME_LEN),
            ));
        }
        if id.chars().chain(name.chars()).any(char::is_control) {
            return Err(FieldError::new(field, "contains control characters"));
        }
        Ok(Self {
            id: id.to_owned(),
            name: name.to_owned(),
            details: PlayerDetails::default(),
        })
    }

    /// This player with `details`.
    #[must_use]
    pub fn with_details(mut self, details: PlayerDetails) -> Self {
        self.details = details;
        self
    }

    /// The name to show: the display name, or the id when there is none.
    pub fn display_name(&self) -> &str {
        if self.name.is_empty() {
            &self.id
        } else {
            &self.name
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn details_are_checked_and_empty_ones_are_none() {
        let parsed = PlayerDetails::parse("white", 2712, "GM", 1503014, "Norway").expect("valid");
        assert_eq!(parsed.rating, Some(2712));
        assert_eq!(parsed.title.as_deref(), Some("GM"));
        assert_eq!(parsed.fide_id, Some(1_503_014));
        assert_eq!(parsed.team.as_deref(), Some("Norway"));
        assert!(
            PlayerDetails::parse("white", 0, "", 0, "")
                .expect("none")
                .is_empty()
        );
        for (rating, title, fide_id, team) in [
            (4001, "", 0, ""),
            (-1, "", 0, ""),
            (0, "XM", 0, ""),
            (0, "", -5, ""),
            (0, "", 0, "a\nb"),
        ] {
            let err =
                PlayerDetails::parse("white", rating, title, fide_id, team).expect_err("refused");
            assert_eq!(err.field, "white");
        }
        let long = "t".repeat(PlayerDetails::MAX_TEAM_LEN + 1);
        assert!(PlayerDetails::parse("black", 0, "", 0, &long).is_err());
    }

    #[test]
    fn only_given_details_are_stored() {
        let plain = Player::parse("white", "p1", "Ann").expect("valid");
        assert_eq!(
            serde_json::to_string(&plain).expect("json"),
            r#"{"id":"p1","name":"Ann"}"#
        );
        let rated = plain.with_details(PlayerDetails {
            rating: Some(1800),
            ..PlayerDetails::default()
        });
        assert_eq!(
            serde_json::to_string(&rated).expect("json"),
            r#"{"id":"p1","name":"Ann","details":{"rating":1800}}"#
        );
        let back: Player = serde_json::from_str(r#"{"id":"p1","name":"Ann"}"#).expect("read");
        assert!(back.details.is_empty());
    }
}
