//! A listener for the HTTP ports that face the public (the broadcast
//! feed): at most so many connections at once (the next wait to be
//! accepted), TLS when configured (each handshake on its own task, bounded
//! in time, so a slow client delays nobody), and a connection that sends
//! nothing for a while is closed, so that slow or idle clients cannot hold
//! the port.

use std::{
    io,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    net::TcpListener,
    sync::{OwnedSemaphorePermit, Semaphore, mpsc},
    time::{Instant, Sleep},
};
use tokio_rustls::TlsAcceptor;

/// A connection's byte stream, in the clear or under TLS.
trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}

impl<S: AsyncRead + AsyncWrite + Send + Unpin> Stream for S {}

/// `inner`'s connections, with at most `max_connections` open at once,
/// each closed once it has sent nothing for `idle`; accepted (and their
/// TLS handshakes made) by a task of their own.
pub struct BoundedListener {
    ready: mpsc::Receiver<(Bounded, std::net::SocketAddr)>,
    local: std::net::SocketAddr,
}

impl BoundedListener {
    /// Bounds `inner`, under TLS with `tls`.
    pub fn new(
        inner: TcpListener,
        max_connections: usize,
        idle: Duration,
        tls: Option<TlsAcceptor>,
    ) -> io::Result<Self> {
        let local = inner.local_addr()?;
        let (send, ready) = mpsc::channel(64);
        let permits = Arc::new(Semaphore::new(max_connections.max(1)));
        tokio::spawn(accept(inner, permits, idle, tls, send));
        Ok(Self { ready, local })
    }
}

/// Accepts `listener`'s connections while the listener is served: each
/// after a permit (past the limit, connections wait in the backlog) and,
/// under TLS, its handshake.
async fn accept(
    listener: TcpListener,
    permits: Arc<Semaphore>,
    idle: Duration,
    tls: Option<TlsAcceptor>,
    ready: mpsc::Sender<(Bounded, std::net::SocketAddr)>,
) {
    loop {
        // The semaphore is never closed, so a permit always comes.
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => return,
            },
            () = ready.closed() => return,
        };
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = ready.closed() => return,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(err) => {
                tracing::warn!(error = %err, "could not accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let bounded = move |stream: Box<dyn Stream>| Bounded {
            stream,
            _permit: permit,
            idle,
            deadline: Box::pin(tokio::time::sleep(idle)),
        };
        match &tls {
            None => {
                if ready.send((bounded(Box::new(stream)), peer)).await.is_err() {
                    return;
                }
            }
            Some(acceptor) => {
                let (acceptor, ready) = (acceptor.clone(), ready.clone());
                tokio::spawn(async move {
                    if let Some(stream) = super::tls::handshake(&acceptor, stream, peer).await {
                        let _ = ready.send((bounded(Box::new(stream)), peer)).await;
                    }
                });
            }
        }
    }
}

impl axum::serve::Listener for BoundedListener {
    type Io = Bounded;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.ready.recv().await {
            Some(accepted) => accepted,
            // The accepting task never stops while the listener lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.local)
    }
}

/// An accepted connection: it holds its place among the connections until
/// it closes, and fails its next read once it has sent nothing for the
/// listener's idle time.
pub struct Bounded {
    stream: Box<dyn Stream>,
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
