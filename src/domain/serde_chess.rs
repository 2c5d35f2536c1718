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
