//! Types and service stubs generated from `proto/chessarbiter/v1`.

#![allow(missing_docs, clippy::all, clippy::pedantic)]

tonic::include_proto!("chessarbiter.v1");

/// The encoded file descriptor set served by gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("arbiter_descriptor");
