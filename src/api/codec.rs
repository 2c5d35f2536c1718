//! The protobuf codec of the generated services: prost's, except that a
//! request body that is not a valid message is the client's error,
//! INVALID_ARGUMENT (`MALFORMED_REQUEST`), not INTERNAL, which says the
//! server failed. [`FrameCodec`] decodes requests the same way and sends
//! replies already encoded as they are.

use std::marker::PhantomData;

use bytes::{BufMut, Bytes};
use prost::Message;
use tonic::{
    Code, Status,
    codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder},
};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// Prost's codec with malformed messages answered as the client's error.
#[derive(Debug, Clone)]
pub struct ProtoCodec<T, U> {
    _types: PhantomData<(T, U)>,
}

impl<T, U> Default for ProtoCodec<T, U> {
    fn default() -> Self {
        Self {
            _types: PhantomData,
        }
    }
}

impl<T, U> Codec for ProtoCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ProtoDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::default().encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProtoDecoder(ProstCodec::<T, U>::default().decoder())
    }
}

/// Prost's decoder, its failures made INVALID_ARGUMENT.
#[derive(Debug)]
pub struct ProtoDecoder<U>(ProstDecoder<U>);

impl<U: Message + Default> Decoder for ProtoDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.0.decode(buf).map_err(|status| {
            if status.code() == Code::Internal {
                super::status::malformed_request(status.message())
            } else {
                status
            }
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.0.buffer_settings()
    }
}

/// Requests of type `U`, decoded as [`ProtoCodec`] does; replies already
/// encoded, sent as they are.
#[derive(Debug, Clone)]
pub struct FrameCodec<U> {
    _types: PhantomData<U>,
}

impl<U> Default for FrameCodec<U> {
    fn default() -> Self {
        Self {
            _types: PhantomData,
        }
    }
}

impl<U: Message + Default + Send + 'static> Codec for FrameCodec<U> {
    type Encode = Bytes;
    type Decode = U;
    type Encoder = FrameEncoder;
    type Decoder = ProtoDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        FrameEncoder
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProtoCodec::<U, U>::default().decoder()
    }
}

/// The buffer a stream's frames are written into, to start with: a watch
/// stream's messages are a few hundred bytes, and tonic's default (8 KiB a
/// stream) would be most of what an open stream holds. A larger message
/// (a snapshot) takes a larger buffer for itself.
const FRAME_BUFFER: usize = 512;

/// Bytes of frames a stream gathers before it hands them on (tonic's
/// default).
const FRAME_YIELD: usize = 32 * 1024;

/// Sends a message's bytes as they are.
#[derive(Debug, Clone, Copy)]
pub struct FrameEncoder;

impl Encoder for FrameEncoder {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::new(FRAME_BUFFER, FRAME_YIELD)
    }
}
