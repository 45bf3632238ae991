//! The read-idle clock of an HTTP/2 stream: which bytes of a shared connection keep it alive.
//!
//! On an HTTP/1.1 connection every byte belongs to the one request in flight, so its idle
//! clock restarts on every byte the socket meter sees. An HTTP/2 connection carries many
//! streams, and hyper hands a frame to its stream only once the whole frame has arrived:
//! counting frames alone lets a frame that arrives slowly (a 16 KB DATA frame at 20 kbit/s
//! takes 6.5 s) trip the clock while bytes keep coming, and counting every byte on the
//! socket lets the complete frames of busy streams keep a stalled one alive.
//!
//! So a waiting stream's clock restarts on:
//! - every frame of its own (the response head, every DATA frame), as hyper delivers it;
//! - every wire byte received while the connection is in the middle of a frame, the byte
//!   that completes that frame included: a frame still arriving may be this stream's, and
//!   nothing else can arrive on the connection before it ends.
//!
//! [`FrameEdges`] sits between TLS and hyper and follows the frame boundaries of what the
//! server sends (each frame opens with a 9-byte header whose first 3 bytes are its payload
//! length). Each time the bytes received end exactly on a boundary it records the wire byte
//! count, and, when a frame had been arriving over more than one read, the instant it was
//! completed. Wire bytes beyond the recorded count belong to a frame not yet complete (or to
//! a TLS record not yet decrypted); their last arrival is the socket meter's last read.
//! Reading this costs two atomic loads, and only when the stream's timer fires.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::transport::connect::connector::{Activity, ConnMeter};

/// Length of an HTTP/2 frame header (RFC 9113, 4.1).
const FRAME_HEADER: u8 = 9;

/// What the connection's [`FrameEdges`] recorded, shared with the streams that wait on it.
#[derive(Debug)]
pub(crate) struct FrameClock {
    meter: Arc<ConnMeter>,
    /// When this clock was made: the origin of `spanned_done`.
    origin: Instant,
    /// Wire bytes read when the frames received last ended on a boundary.
    edge_in: AtomicU64,
    /// Nanoseconds after `origin` (plus one; 0: never) at which a frame that had been
    /// arriving over more than one read was completed.
    spanned_done: AtomicU64,
}

impl FrameClock {
    /// A clock over the connection whose socket `meter` counts.
    pub(crate) fn new(meter: Arc<ConnMeter>) -> Self {
        FrameClock {
            meter,
            origin: Instant::now(),
            edge_in: AtomicU64::new(0),
            spanned_done: AtomicU64::new(0),
        }
    }

    /// True when wire bytes arrived after the last frame boundary.
    fn mid_frame(&self) -> bool {
        self.meter.bytes().0 > self.edge_in.load(Ordering::Relaxed)
    }

    /// The received bytes end on a frame boundary; `spanned`: a frame completed now had
    /// been arriving over more than one read.
    fn edge(&self, spanned: bool) {
        self.edge_in.store(self.meter.bytes().0, Ordering::Relaxed);
        if spanned {
            let nanos = u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
            self.spanned_done.store(nanos + 1, Ordering::Relaxed);
        }
    }
}

impl Activity for FrameClock {
    /// The last wire byte of a frame in progress, or the completion of the last frame
    /// that arrived over more than one read, whichever is later.
    fn last_activity(&self) -> Option<Instant> {
        let partial = if self.mid_frame() {
            self.meter.marks().last_read
        } else {
            None
        };
        let done = match self.spanned_done.load(Ordering::Relaxed) {
            0 => None,
            n => self
                .origin
                .checked_add(std::time::Duration::from_nanos(n - 1)),
        };
        partial.max(done)
    }
}

/// Where the reader stands in the server's frame sequence.
#[derive(Debug, Default, Clone, Copy)]
struct FramePos {
    /// Bytes of the current frame header read so far (0: at a boundary or in a payload).
    header: u8,
    /// Payload length, gathered from the header's first 3 bytes.
    len: u32,
    /// Payload bytes still to come.
    left: u32,
}

impl FramePos {
    /// Advances over `bytes`.
    fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.left > 0 {
                let n = bytes.len().min(self.left as usize);
                self.left -= n as u32;
                bytes = &bytes[n..];
                continue;
            }
            if self.header < 3 {
                self.len = (self.len << 8) | u32::from(bytes[0]);
            }
            self.header += 1;
            bytes = &bytes[1..];
            if self.header == FRAME_HEADER {
                (self.header, self.left, self.len) = (0, self.len, 0);
            }
        }
    }

    /// True between two frames.
    fn at_edge(&self) -> bool {
        self.header == 0 && self.left == 0
    }
}

pin_project_lite::pin_project! {
    /// The connection's socket (above TLS) as hyper reads it, reporting frame boundaries
    /// to its [`FrameClock`]. Writes pass through.
    #[derive(Debug)]
    pub(crate) struct FrameEdges<S> {
        #[pin]
        inner: S,
        clock: Arc<FrameClock>,
        pos: FramePos,
        // A frame has been arriving over more than one read.
        spanning: bool,
    }
}

impl<S> FrameEdges<S> {
    /// Wraps `inner`, reporting to `clock`.
    pub(crate) fn new(inner: S, clock: Arc<FrameClock>) -> Self {
        FrameEdges {
            inner,
            clock,
            pos: FramePos::default(),
            spanning: false,
        }
    }
}

impl<S: AsyncRead> AsyncRead for FrameEdges<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let res = this.inner.poll_read(cx, buf);
        match res {
            Poll::Ready(Ok(())) if buf.filled().len() > before => {
                this.pos.feed(&buf.filled()[before..]);
                if this.pos.at_edge() {
                    this.clock.edge(*this.spanning);
                    *this.spanning = false;
                } else {
                    *this.spanning = true;
                }
            }
            // Wire bytes held below (a TLS record not yet complete): a frame is arriving.
            Poll::Pending if !*this.spanning && this.clock.mid_frame() => *this.spanning = true,
            _ => {}
        }
        res
    }
}

impl<S: AsyncWrite> AsyncWrite for FrameEdges<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame header announcing a payload of `len` bytes (type DATA, stream 1).
    fn header(len: u32) -> [u8; 9] {
        let l = len.to_be_bytes();
        [l[1], l[2], l[3], 0, 0, 0, 0, 0, 1]
    }

    /// Frames split anywhere (one byte at a time, across headers, several per read) are
    /// followed exactly: at a boundary only after each whole frame.
    #[test]
    fn frame_boundaries_are_followed_whatever_the_reads() {
        let mut wire = Vec::new();
        wire.extend_from_slice(&header(3));
        wire.extend_from_slice(b"abc");
        wire.extend_from_slice(&header(0));
        wire.extend_from_slice(&header(70_000));
        wire.extend_from_slice(&[b'x'; 70_000]);
        let ends = [12, 21, 70_030];

        let mut pos = FramePos::default();
        let edges: Vec<usize> = (0..wire.len())
            .filter(|&i| {
                pos.feed(&wire[i..i + 1]);
                pos.at_edge()
            })
            .map(|i| i + 1)
            .collect();
        assert_eq!(edges, ends);

        for split in [1, 5, 9, 10, 13, 20, 4096] {
            let mut pos = FramePos::default();
            let mut edges = Vec::new();
            let mut at = 0;
            for chunk in wire.chunks(split) {
                pos.feed(chunk);
                at += chunk.len();
                if pos.at_edge() {
                    edges.push(at);
                }
            }
            let want: Vec<usize> = ends
                .iter()
                .copied()
                .filter(|e| e % split == 0 || *e == wire.len())
                .collect();
            assert_eq!(edges, want, "reads of {split} bytes");
        }
    }
}
