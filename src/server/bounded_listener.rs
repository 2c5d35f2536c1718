//! A listener for the plain HTTP ports that face the public (the broadcast
//! feed): at most so many connections at once (the next wait to be
//! accepted), and a connection that sends nothing for a while is closed,
//! so that slow or idle clients cannot hold the port.

use std::{
    io,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::{TcpListener, TcpStream},
    sync::{OwnedSemaphorePermit, Semaphore},
    time::{Instant, Sleep},
};

/// `inner` with at most `max_connections` open at once, each closed once
/// it has sent nothing for `idle`.
pub struct BoundedListener {
    inner: TcpListener,
    permits: Arc<Semaphore>,
    idle: Duration,
}

impl BoundedListener {
    /// Bounds `inner`.
    pub fn new(inner: TcpListener, max_connections: usize, idle: Duration) -> Self {
        Self {
            inner,
            permits: Arc::new(Semaphore::new(max_connections.max(1))),
            idle,
        }
    }
}

impl axum::serve::Listener for BoundedListener {
    type Io = Bounded;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        // A permit first: past the limit, connections wait in the backlog.
        // The semaphore is never closed, so a permit always comes.
        let Ok(permit) = self.permits.clone().acquire_owned().await else {
            return std::future::pending().await;
        };
        loop {
            match self.inner.accept().await {
                Ok((stream, address)) => {
                    let _ = stream.set_nodelay(true);
                    let io = Bounded {
                        stream,
                        _permit: permit,
                        idle: self.idle,
                        deadline: Box::pin(tokio::time::sleep(self.idle)),
                    };
                    return (io, address);
                }
                Err(err) => {
                    tracing::warn!(error = %err, "could not accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// An accepted connection: it holds its place among the connections until
/// it closes, and fails its next read once it has sent nothing for the
/// listener's idle time.
pub struct Bounded {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    idle: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl AsyncRead for Bounded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        match Pin::new(&mut self.stream).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    let next = Instant::now() + self.idle;
                    self.deadline.as_mut().reset(next);
                }
                Poll::Ready(result)
            }
            Poll::Pending => match self.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the client sent nothing for too long",
                ))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

impl AsyncWrite for Bounded {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
