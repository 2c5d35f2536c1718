//! A connection's writes gathered into fewer system calls.
//!
//! HTTP/2 writes a connection's frames as soon as one is ready and flushes
//! them at once. When one game's event goes out to thousands of streams
//! that share a hundred connections, each stream's frame used to cost a
//! `writev` of its own (and, over loopback or to a near client, the
//! receiver's work in the same system call): 10,000 watchers, 10,000
//! system calls a move. A [`Coalesced`] connection keeps what is written
//! in a buffer and, the first time it is asked to flush, yields once to the
//! runtime: the streams already woken by the same event add their frames
//! meanwhile, and the next flush sends everything in one call. A
//! connection whose last [`MISSES`] yields gained nothing (one caller, one
//! reply at a time) stops yielding, and tries again only every
//! [`PROBE_EVERY`] flushes: a lone reply is not kept waiting for others
//! that do not come, and a connection that becomes busy soon yields
//! again.
//!
//! Where the runtime says when it runs out of work ([`idle`](super::idle)),
//! a flush whose first yield gained (one event fanned out to many streams
//! of the connection, whose wake-ups are spread over the whole fan-out)
//! stops yielding and waits for that moment instead, at most [`IDLE_WAIT`],
//! then sends everything the fan-out added in one call: measured, a top
//! board's move went out in about 18 writes a connection when each flush
//! sent once its yields stopped gaining, and in about 4 since.
//!
//! The buffer is bounded ([`LIMIT`]): a write that would overfill it sends
//! what it holds first, and a write larger than the bound goes straight
//! through. An idle connection keeps at most [`KEPT`] bytes of buffer.

use std::{
    io,
    pin::Pin,
    task::{Context, Poll, ready},
};

use tokio::{
    io::{AsyncRead, AsyncWrite, ReadBuf},
    time::{Duration, Instant, Sleep},
};

use super::idle;

/// Bytes a connection holds before it must send them.
pub const LIMIT: usize = 64 * 1024;

/// Times a flush yields at most, while what it holds keeps growing.
pub const MAX_YIELDS: u32 = 16;

/// Yields in a row that gained nothing, after which flushes stop
/// yielding.
pub const MISSES: u32 = 4;

/// Flushes sent without a yield, once yielding stopped, before a flush
/// yields again to see whether it now pays.
pub const PROBE_EVERY: u32 = 16;

/// The buffer an idle connection keeps for its next writes.
pub const KEPT: usize = 16 * 1024;

/// Bytes a yield may add and still have gained nothing: a reply whose
/// frames were flushed early adds its own last ones after the yield (its
/// trailers, a window update, a ping's acknowledgement: a few dozen bytes),
/// where another stream's message adds a frame header, a gRPC prefix and
/// the message.
pub const TAIL: usize = 64;

/// The longest a flush waits for the runtime to run out of work (a
/// runtime that never does: a server at the limit of its cores).
pub const IDLE_WAIT: Duration = Duration::from_millis(20);

/// `S`, its writes gathered until a flush has let the runtime run once.
#[derive(Debug)]
pub struct Coalesced<S> {
    inner: S,
    buffer: Vec<u8>,
    /// How much of `buffer` the connection has taken.
    sent: usize,
    /// How often the pending flush has yielded.
    yields: u32,
    /// How much was buffered at its last yield.
    held_at_yield: usize,
    /// How much was buffered at the pending flush's first yield.
    held_at_first_yield: usize,
    /// Flushes in a row whose yields gained nothing.
    misses: u32,
    /// Flushes sent without a yield since yielding stopped.
    unyielded: u32,
    /// The pending flush waits for this park of the runtime.
    waiting: Option<idle::Ticket>,
    /// Rings when the pending flush has waited [`IDLE_WAIT`].
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<S> Coalesced<S> {
    /// `inner` with its writes gathered.
    pub fn new(inner: S) -> Self {
        Self {
            inner,
            buffer: Vec::new(),
            sent: 0,
            yields: 0,
            held_at_yield: 0,
            held_at_first_yield: 0,
            misses: 0,
            unyielded: 0,
            waiting: None,
            deadline: None,
        }
    }

    /// The wrapped connection.
    #[cfg(test)]
    fn get_ref(&self) -> &S {
        &self.inner
    }
}

impl<S: AsyncWrite + Unpin> Coalesced<S> {
    /// Sends everything buffered.
    fn poll_send(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.sent < self.buffer.len() {
            let taken =
                ready!(Pin::new(&mut self.inner).poll_write(cx, &self.buffer[self.sent..]))?;
            if taken == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.sent += taken;
        }
        self.buffer.clear();
        self.sent = 0;
        if self.buffer.capacity() > KEPT {
            self.buffer.shrink_to(KEPT);
        }
        Poll::Ready(Ok(()))
    }

    /// Makes room for `len` more bytes: `Ok(false)` when they are too many
    /// to buffer and should go straight through (nothing is held then).
    fn poll_room(&mut self, cx: &mut Context<'_>, len: usize) -> Poll<io::Result<bool>> {
        if self.buffer.len() + len > LIMIT && !self.buffer.is_empty() {
            ready!(self.poll_send(cx))?;
        }
        Poll::Ready(Ok(len < LIMIT))
    }
}

impl<S> Coalesced<S> {
    /// Whether the pending flush should let the runtime run before it
    /// sends: while what it holds grows, up to [`MAX_YIELDS`] times; and
    /// for its first yield, unless its last [`MISSES`] yields gained
    /// nothing and no probe is due.
    fn should_yield(&mut self) -> bool {
        if self.buffer.len() >= LIMIT {
            return false;
        }
        if self.yields > 0 {
            return self.yields < MAX_YIELDS && self.grew_since(self.held_at_yield);
        }
        if self.misses < MISSES || self.unyielded >= PROBE_EVERY {
            return true;
        }
        self.unyielded += 1;
        false
    }

    /// Whether the pending flush, having yielded, should wait for the
    /// runtime to run out of work: its yield gained (others add to it), and
    /// the runtime says when it runs out of work.
    fn should_wait_for_idle(&self) -> bool {
        self.yields > 0
            && self.grew_since(self.held_at_yield)
            && self.buffer.len() < LIMIT
            && idle::available()
    }

    /// Whether what the connection holds grew from `held` by more than a
    /// reply's own [`TAIL`]: others added to it.
    fn grew_since(&self, held: usize) -> bool {
        self.buffer.len() > held + TAIL
    }

    /// Waits for the runtime's next park, or [`IDLE_WAIT`].
    fn wait_for_idle(&mut self, cx: &mut Context<'_>) {
        self.waiting = Some(idle::wait(cx.waker()));
        let deadline = Instant::now() + IDLE_WAIT;
        let sleep = match &mut self.deadline {
            Some(sleep) => {
                sleep.as_mut().reset(deadline);
                sleep
            }
            None => self
                .deadline
                .insert(Box::pin(tokio::time::sleep_until(deadline))),
        };
        // Registered to ring for this task.
        let _ = sleep.as_mut().poll(cx);
    }

    /// Whether the wait of the pending flush is over: the runtime parked,
    /// the bound passed, or the buffer is full.
    fn waited(&mut self, cx: &mut Context<'_>, ticket: idle::Ticket) -> bool {
        let rung = self
            .deadline
            .as_mut()
            .is_none_or(|sleep| sleep.as_mut().poll(cx).is_ready());
        rung || idle::passed(ticket) || self.buffer.len() >= LIMIT
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Coalesced<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Coalesced<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if !ready!(this.poll_room(cx, data.len()))? {
            return Pin::new(&mut this.inner).poll_write(cx, data);
        }
        this.buffer.extend_from_slice(data);
        Poll::Ready(Ok(data.len()))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let len = bufs.iter().map(|buf| buf.len()).sum();
        if !ready!(this.poll_room(cx, len))? {
            return Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        }
        for buf in bufs {
            this.buffer.extend_from_slice(buf);
        }
        Poll::Ready(Ok(len))
    }

    /// No: everything written is copied into the buffer anyway, and a
    /// connection that writes vectored has HTTP/2 keep each payload of 256
    /// bytes or more aside and flush before its next frame (a reply's
    /// message, then its trailers: two flushes, and a yield between them
    /// that looked as if others had added to it). Told otherwise, HTTP/2
    /// copies payloads under 1 KiB into its own buffer and flushes a batch
    /// of frames once.
    fn is_write_vectored(&self) -> bool {
        false
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.buffer.len() > this.sent {
            if let Some(ticket) = this.waiting {
                if !this.waited(cx, ticket) {
                    return Poll::Pending;
                }
                this.waiting = None;
            } else if this.should_wait_for_idle() {
                this.wait_for_idle(cx);
                return Poll::Pending;
            } else if this.should_yield() {
                // Round the runtime again: the other streams woken by the
                // same change add their frames to this write.
                if this.yields == 0 {
                    this.held_at_first_yield = this.buffer.len();
                }
                this.yields += 1;
                this.held_at_yield = this.buffer.len();
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            if this.yields > 0 {
                this.unyielded = 0;
                if this.grew_since(this.held_at_first_yield) {
                    this.misses = 0;
                } else {
                    this.misses = this.misses.saturating_add(1);
                }
            }
            ready!(this.poll_send(cx))?;
        }
        this.yields = 0;
        this.waiting = None;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        ready!(this.poll_send(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

impl<S: tonic::transport::server::Connected> tonic::transport::server::Connected for Coalesced<S> {
    type ConnectInfo = S::ConnectInfo;

    fn connect_info(&self) -> Self::ConnectInfo {
        self.inner.connect_info()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    };

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// A connection that counts the writes it is given and takes at most
    /// `chunk` bytes of each.
    struct Counting {
        written: Vec<u8>,
        writes: Arc<AtomicUsize>,
        chunk: usize,
        flushes: usize,
    }

    impl AsyncWrite for Counting {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            data: &[u8],
        ) -> Poll<io::Result<usize>> {
            self.writes.fetch_add(1, Ordering::Relaxed);
            let taken = data.len().min(self.chunk);
            self.written.extend_from_slice(&data[..taken]);
            Poll::Ready(Ok(taken))
        }

        fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.flushes += 1;
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn counting(chunk: usize) -> (Coalesced<Counting>, Arc<AtomicUsize>) {
        let writes = Arc::new(AtomicUsize::new(0));
        let inner = Counting {
            written: Vec::new(),
            writes: writes.clone(),
            chunk,
            flushes: 0,
        };
        (Coalesced::new(inner), writes)
    }

    #[tokio::test]
    async fn small_writes_go_out_in_one_write_at_the_flush() {
        let (mut conn, writes) = counting(usize::MAX);
        for frame in 0..100u8 {
            conn.write_all(&[frame; 150]).await.unwrap();
        }
        assert_eq!(
            writes.load(Ordering::Relaxed),
            0,
            "nothing sent before the flush"
        );
        conn.flush().await.unwrap();
        assert_eq!(writes.load(Ordering::Relaxed), 1);
        let expected: Vec<u8> = (0..100u8).flat_map(|frame| [frame; 150]).collect();
        assert_eq!(conn.get_ref().written, expected);
        assert_eq!(conn.get_ref().flushes, 1);
    }

    #[tokio::test]
    async fn a_flush_yields_while_what_it_holds_grows_then_sends() {
        let (mut conn, writes) = counting(usize::MAX);
        conn.write_all(b"frame").await.unwrap();
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut conn).poll_flush(&mut cx).is_pending());
        // Another stream's frame, written while the flush waits: it goes out
        // with the rest, after one more round (what it holds grew).
        let another = [b'a'; TAIL + 1];
        conn.write_all(&another).await.unwrap();
        assert!(Pin::new(&mut conn).poll_flush(&mut cx).is_pending());
        assert_eq!(writes.load(Ordering::Relaxed), 0);
        assert!(matches!(
            Pin::new(&mut conn).poll_flush(&mut cx),
            Poll::Ready(Ok(()))
        ));
        assert_eq!(writes.load(Ordering::Relaxed), 1);
        assert_eq!(conn.get_ref().written, [&b"frame"[..], &another].concat());
        // Nothing buffered: a flush passes straight on.
        assert!(matches!(
            Pin::new(&mut conn).poll_flush(&mut cx),
            Poll::Ready(Ok(()))
        ));
    }

    #[tokio::test]
    async fn a_connection_whose_yields_gain_nothing_stops_yielding_but_probes() {
        let (mut conn, writes) = counting(usize::MAX);
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        // How many polls a flush takes.
        let flush = |conn: &mut Coalesced<Counting>| {
            let waker = futures::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let mut polls = 1;
            while Pin::new(&mut *conn).poll_flush(&mut cx).is_pending() {
                polls += 1;
            }
            polls
        };
        // Lone replies: each yields once, for nothing, until MISSES of them.
        for _ in 0..MISSES {
            conn.write_all(b"reply").await.unwrap();
            assert_eq!(flush(&mut conn), 2);
        }
        // The next replies go out at their first flush.
        for _ in 0..PROBE_EVERY {
            conn.write_all(b"reply").await.unwrap();
            assert_eq!(flush(&mut conn), 1);
        }
        assert_eq!(
            writes.load(Ordering::Relaxed),
            (MISSES + PROBE_EVERY) as usize
        );
        // Then a probe yields again, and this time others add to it.
        conn.write_all(b"one").await.unwrap();
        assert!(Pin::new(&mut conn).poll_flush(&mut cx).is_pending());
        let two = [b'2'; TAIL + 1];
        conn.write_all(&two).await.unwrap();
        assert_eq!(flush(&mut conn), 2, "one more round: it grew");
        // Yielding paid: the next flush yields at once.
        conn.write_all(b"three").await.unwrap();
        assert_eq!(flush(&mut conn), 2);
        assert!(
            conn.get_ref()
                .written
                .ends_with(&[&b"one"[..], &two, b"three"].concat())
        );
    }

    #[tokio::test]
    async fn a_replys_own_tail_after_its_yield_is_no_gain() {
        let (mut conn, writes) = counting(usize::MAX);
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        // A reply flushed before its trailers (HTTP/2 flushing to make room),
        // then its trailers written after the yield: sent, and counted as a
        // yield that gained nothing, so that lone replies stop yielding.
        for _ in 0..MISSES {
            conn.write_all(&[b'r'; 400]).await.unwrap();
            assert!(Pin::new(&mut conn).poll_flush(&mut cx).is_pending());
            conn.write_all(&[b't'; TAIL]).await.unwrap();
            assert!(
                matches!(Pin::new(&mut conn).poll_flush(&mut cx), Poll::Ready(Ok(()))),
                "no second yield, no wait for the runtime"
            );
        }
        assert_eq!(writes.load(Ordering::Relaxed), MISSES as usize);
        conn.write_all(&[b'r'; 400]).await.unwrap();
        assert!(
            matches!(Pin::new(&mut conn).poll_flush(&mut cx), Poll::Ready(Ok(()))),
            "yielding stopped"
        );
        assert_eq!(writes.load(Ordering::Relaxed), MISSES as usize + 1);
    }

    /// A connection task as HTTP/2's: it writes the frames its streams
    /// hand it, then flushes. `streams` tasks, woken together, each hand it
    /// one frame; returns how many writes the connection made.
    async fn fan_out(streams: usize) -> usize {
        use tokio::sync::{broadcast, mpsc};
        let (mut conn, writes) = counting(usize::MAX);
        let (frames, mut received) = mpsc::unbounded_channel::<Vec<u8>>();
        let (event, _) = broadcast::channel::<u8>(1);
        let mut started = Vec::new();
        for stream in 0..streams {
            let mut woken = event.subscribe();
            let frames = frames.clone();
            started.push(tokio::spawn(async move {
                let byte = woken.recv().await.expect("the event");
                // A stream's own work before its frame: from none to 47
                // turns of the runtime, so that the frames come over many.
                let frame: Vec<u8> = std::iter::repeat_n(byte, 100).collect();
                for _ in 0..stream % 48 {
                    tokio::task::yield_now().await;
                }
                frames.send(frame).expect("the connection");
            }));
        }
        drop(frames);
        // Each time it runs, it takes the frames handed to it, then
        // flushes (a pending flush is polled again with what came since).
        let mut total = 0;
        let connection = tokio::spawn(std::future::poll_fn(move |cx| {
            let mut closed = false;
            loop {
                match received.poll_recv(cx) {
                    Poll::Ready(Some(frame)) => {
                        total += frame.len();
                        let taken = ready!(Pin::new(&mut conn).poll_write(cx, &frame));
                        assert_eq!(taken.unwrap(), frame.len());
                    }
                    Poll::Ready(None) => {
                        closed = true;
                        break;
                    }
                    Poll::Pending => break,
                }
            }
            ready!(Pin::new(&mut conn).poll_flush(cx)).unwrap();
            if closed {
                assert_eq!(conn.get_ref().written.len(), total);
                Poll::Ready(total)
            } else {
                Poll::Pending
            }
        }));
        event.send(7).expect("the streams");
        for stream in started {
            stream.await.expect("a stream");
        }
        assert_eq!(connection.await.expect("the connection"), streams * 100);
        writes.load(Ordering::Relaxed)
    }

    #[test]
    fn a_fan_out_waits_for_the_runtime_to_run_out_of_work() {
        // The server's runtime on one worker, which parks only once every
        // stream has run: the fan-out goes out in one write, or two where
        // the first flush's yield gained nothing (without the wait, in runs
        // of this test: 27 to 44 writes, one after every 16 yields).
        let runtime = crate::server::runtime::builder()
            .worker_threads(1)
            .build()
            .expect("runtime");
        let writes = runtime.block_on(fan_out(500));
        assert!(writes <= 2, "{writes} writes");
    }

    #[tokio::test]
    async fn partial_writes_are_resumed_in_order() {
        let (mut conn, _) = counting(7);
        let data: Vec<u8> = (0..=255u8).cycle().take(5_000).collect();
        conn.write_all(&data).await.unwrap();
        conn.flush().await.unwrap();
        assert_eq!(conn.get_ref().written, data);
    }

    #[tokio::test]
    async fn the_buffer_is_bounded() {
        let (mut conn, _) = counting(usize::MAX);
        for _ in 0..10 {
            conn.write_all(&[1; 10_000]).await.unwrap();
            assert!(conn.buffer.len() <= LIMIT);
        }
        // Larger than the bound: straight through, after what is held.
        conn.write_all(&[2; LIMIT + 1]).await.unwrap();
        assert!(conn.buffer.len() <= LIMIT);
        conn.shutdown().await.unwrap();
        let written = &conn.get_ref().written;
        assert_eq!(written.len(), 100_000 + LIMIT + 1);
        assert!(written[..100_000].iter().all(|&b| b == 1));
        assert!(written[100_000..].iter().all(|&b| b == 2));
        assert!(conn.buffer.capacity() <= KEPT);
    }

    #[tokio::test]
    async fn reads_and_writes_cross_a_real_pipe() {
        let (near, mut far) = tokio::io::duplex(1024);
        let mut conn = Coalesced::new(near);
        let data: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
        let sent = data.clone();
        let writer = tokio::spawn(async move {
            for chunk in sent.chunks(300) {
                conn.write_all(chunk).await.unwrap();
                conn.flush().await.unwrap();
            }
            conn.write_all(b"!").await.unwrap();
            conn.shutdown().await.unwrap();
            let mut answer = [0; 2];
            conn.read_exact(&mut answer).await.unwrap();
            answer
        });
        let mut received = Vec::new();
        far.read_to_end(&mut received).await.unwrap();
        far.write_all(b"ok").await.unwrap();
        assert_eq!(&received[..data.len()], &data[..]);
        assert_eq!(&received[data.len()..], b"!");
        assert_eq!(&writer.await.unwrap(), b"ok");
    }
}
