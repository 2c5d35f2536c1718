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

/// A [`shakmaty::Chess`] position as its FEN.
pub mod position {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};
    use shakmaty::{CastlingMode, Chess, EnPassantMode, fen::Fen};

    pub fn serialize<S: Serializer>(pos: &Chess, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&Fen::from_position(pos, EnPassantMode::Legal).to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Chess, D::Error> {
        let text = String::deserialize(d)?;
        let fen: Fen = text.parse().map_err(D::Error::custom)?;
        fen.into_position(CastlingMode::Standard)
            .map_err(D::Error::custom)
    }
}
