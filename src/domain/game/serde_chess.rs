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
///
/// In a binary form (the live state) it is bytes instead: a flags byte
/// ([`binary::CHESS960`]) and the position packed as shakmaty's
/// `PackedSetup`, move counters included (at most 30 bytes), or, for a
/// position the packing refuses (never a legal one), its FEN text behind
/// [`binary::FEN_TEXT`].
pub mod position {
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de::Error};
    use shakmaty::{
        CastlingMode, Chess, EnPassantMode, FromSetup, Position, fen::Fen, packed::PackedSetup,
    };

    /// The flags byte of the binary form.
    pub mod binary {
        /// Castling under the Chess960 rules.
        pub const CHESS960: u8 = 1;
        /// The rest is FEN text, not a packed setup.
        pub const FEN_TEXT: u8 = 1 << 1;
    }

    fn mode(chess960: bool) -> CastlingMode {
        if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        }
    }

    fn pack(pos: &Chess) -> Vec<u8> {
        let chess960 = pos.castles().mode().is_chess960();
        let mut flags = if chess960 { binary::CHESS960 } else { 0 };
        let setup = pos.to_setup(EnPassantMode::Legal);
        let mut out = Vec::with_capacity(32);
        match PackedSetup::pack_standard(&setup) {
            Ok(packed) => {
                out.push(flags);
                out.extend_from_slice(packed.as_bytes());
            }
            Err(_) => {
                flags |= binary::FEN_TEXT;
                out.push(flags);
                out.extend_from_slice(
                    Fen::from_position(pos, EnPassantMode::Legal)
                        .to_string()
                        .as_bytes(),
                );
            }
        }
        out
    }

    fn unpack(bytes: &[u8]) -> Result<Chess, StoredPositionError> {
        let (&flags, rest) = bytes.split_first().ok_or(StoredPositionError::NotPacked {
            detail: "no bytes".to_owned(),
        })?;
        let mode = mode(flags & binary::CHESS960 != 0);
        if flags & binary::FEN_TEXT != 0 {
            let text = std::str::from_utf8(rest).map_err(|err| StoredPositionError::NotFen {
                detail: err.to_string(),
            })?;
            return from_fen(text, mode);
        }
        let not_packed = |detail: String| StoredPositionError::NotPacked { detail };
        let setup = PackedSetup::try_from_bytes(rest)
            .map_err(|err| not_packed(err.to_string()))?
            .unpack_standard()
            .map_err(|err| not_packed(err.to_string()))?;
        Chess::from_setup(setup, mode).map_err(|err| StoredPositionError::Illegal {
            detail: err.to_string(),
        })
    }

    #[derive(Serialize, Deserialize)]
    struct Stored {
        fen: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        chess960: bool,
    }

    pub fn serialize<S: Serializer>(pos: &Chess, s: S) -> Result<S::Ok, S::Error> {
        if !s.is_human_readable() {
            return serde_bytes::Bytes::new(&pack(pos)).serialize(s);
        }
        Stored {
            fen: Fen::from_position(pos, EnPassantMode::Legal).to_string(),
            chess960: pos.castles().mode().is_chess960(),
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Chess, D::Error> {
        if !d.is_human_readable() {
            let bytes = serde_bytes::ByteBuf::deserialize(d)?;
            return unpack(&bytes).map_err(D::Error::custom);
        }
        let stored = Stored::deserialize(d)?;
        from_fen(&stored.fen, mode(stored.chess960)).map_err(D::Error::custom)
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
        /// The bytes are not a packed position.
        #[error("stored position: not a packed position: {detail}")]
        NotPacked {
            /// What the unpacking found wrong.
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
