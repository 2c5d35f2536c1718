//! Compiles the protobuf API with `protox` (no system `protoc` needed) and
//! writes the encoded file descriptor set that server reflection serves.

use std::{env, fs, path::PathBuf};

use prost::Message;

const PROTO: &str = "proto/chessarbiter/v1/arbiter.proto";

/// The API's game message.
const GAME: &str = ".chessarbiter.v1.Game";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile([PROTO], ["proto"])?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out_dir.join("arbiter_descriptor.bin"), fds.encode_to_vec())?;
    // A reply's game is boxed in it, so that the reply (a pointer then,
    // where a game is about a kilobyte) moves cheaply through tonic's
    // layers, which move it several times on its way out.
    let mut builder = tonic_prost_build::configure();
    for file in &fds.file {
        for message in &file.message_type {
            for field in &message.field {
                if message.name().ends_with("Response")
                    && field.name() == "game"
                    && field.type_name() == GAME
                {
                    builder = builder.boxed(format!(
                        ".{}.{}.{}",
                        file.package(),
                        message.name(),
                        field.name()
                    ));
                }
            }
        }
    }
    builder
        .build_server(true)
        .build_client(true)
        // Prost's codec, but a malformed request is INVALID_ARGUMENT.
        .codec_path("crate::api::codec::ProtoCodec")
        .compile_fds(fds)?;
    Ok(())
}
