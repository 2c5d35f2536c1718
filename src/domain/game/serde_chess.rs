//! Serde adapters for the chess library's types, so game state can be
//! persisted without the library's optional serde support.

/// A [`shakmaty::Color`] as `"white"` or `"black"`.
pub mod color {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(color: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(color.fold_wb("white", "black"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        match String::deserialize(d)?.as_str() {
            "white" => Ok(Color::White),
            "black" => Ok(Color::Black),
            other => Err(D::Error::custom(format!("unknown colour '{other}'"))),
        }
    }
}

/// An optional [`shakmaty::Color`].
pub mod opt_color {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(color: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
        match color {
            Some(color) => s.serialize_some(color.fold_wb("white", "black")),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
        match Option::<String>::deserialize(d)?.as_deref() {
            None => Ok(None),
            Some("white") => Ok(Some(Color::White)),
            Some("black") => Ok(Some(Color::Black)),
            Some(other) => Err(D::Error::custom(format!("unknown colour '{other}'"))),
        }
    }
}

/// A [`shakmaty::Chess`] position as its FEN (en passant square only when
/// the capture is legal) and, for Chess960 castling, `"chess960": true`, so
/// that it reads back with the castling rules it was played under.
pub mod position {
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error};
    use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, fen::Fen};

    #[derive(Serialize, Deserialize)]
    struct Stored {
        fen: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        chess960: bool,
    }

    pub fn serialize<S: Serializer>(pos: &Chess, s: S) -> Result<S::Ok, S::Error> {
        Stored {
            fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(),
            chess960: pos.castles().mode().is_chess960(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Chess, D::Error> {
        let stored = Stored::deserialize(d)?;
        let mode = if stored.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        from_fen(&stored.fen, mode).map_err(D::Error::custom)
    }

    /// A stored position that cannot be read.
    #[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
    pub enum StoredPositionError {
        /// The text is not FEN.
        #[error("stored position: not FEN: {detail}")]
        NotFen {
            /// What the FEN reader found wrong.
            detail: String,
        },
        /// The FEN is not a legal position.
        #[error("stored position: {detail}")]
        Illegal {
            /// Why the position is not legal.
            detail: String,
        },
    }

    /// Reads a stored FEN under `mode`.
    pub fn from_fen(fen: &str, mode: CastlingMode) -> Result<Chess, StoredPositionError> {
        let fen: Fen = fen.parse().map_err(|err: shakmaty::fen::ParseFenError| {
            StoredPositionError::NotFen {
                detail: err.to_string(),
            }
        })?;
        fen.into_position(mode)
            .map_err(|err| StoredPositionError::Illegal {
                detail: err.to_string(),
            })
    }
}
