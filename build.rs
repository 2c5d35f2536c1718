//! Compiles the protobuf API with `protox` (no system `protoc` needed) and
//! writes the encoded file descriptor set that server reflection serves.

use std::{env, fs, path::PathBuf};

use prost::Message;

const PROTO: &str = "proto/chessarbiter/v1/arbiter.proto";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile([PROTO], ["proto"])?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    fs::write(out_dir.join("arbiter_descriptor.bin"), fds.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        // Prost's codec, but a malformed request is INVALID_ARGUMENT.
        .codec_path("crate::api::codec::ProtoCodec")
        .compile_fds(fds)?;
    Ok(())
}
