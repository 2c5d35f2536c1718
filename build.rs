//! Compiles the protobuf API with `protox` (no system `protoc` needed) and
//! writes the encoded file descriptor set that server reflection serves.

use std::{env, fs, path::PathBuf};

use prost::Message;

const PROTO: &str = "proto/chessarbiter/v1/arbiter.proto";

/// The replies that carry a game: it is boxed in them, so that a reply
/// (a pointer then, where the game is about a kilobyte) moves cheaply
/// through tonic's layers, which move it several times on its way out.
const REPLIES_WITH_A_GAME: &[&str] = &[
    "GetGameResponse",
    "MakeMoveResponse",
    "ResignGameResponse",
    "OfferDrawResponse",
    "AcceptDrawResponse",
    "DeclineDrawResponse",
    "ClaimDrawResponse",
    "AbortGameResponse",
    "CheckInResponse",
    "ClaimVictoryResponse",
    "ReportConnectionResponse",
    "CreateGameResponse",
    "AdjustClockResponse",
    "PauseClockResponse",
    "ResumeClockResponse",
    "SetGameResultResponse",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile([PROTO], ["proto"])?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out_dir.join("arbiter_descriptor.bin"), fds.encode_to_vec())?;
    let mut builder = tonic_prost_build::configure();
    for reply in REPLIES_WITH_A_GAME {
        builder = builder.boxed(format!(".chessarbiter.v1.{reply}.game"));
    }
    builder
        .build_server(true)
        .build_client(true)
        // Prost's codec, but a malformed request is INVALID_ARGUMENT.
        .codec_path("crate::api::codec::ProtoCodec")
        .compile_fds(fds)?;
    Ok(())
}
