//! A hyper response body read incrementally, for the streaming path of the hyper-based
//! transports (fresh, pooled, http2): each frame's data is a chunk, every wait for one is
//! bounded by the read-idle timeout (counted only while the reader waits, not while it
//! works on the previous chunk), and when the body has been read to its end the connection
//! is handed back ([`IncomingBody::on_end`]: the pooled transport returns it to its pool).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::Stream;
use hyper::body::Incoming;

use super::connector::Activity;
use super::h1::{map_hyper, ConnTimer, Watch};
use crate::error::{Error, Result, TimeoutPhase};

/// What runs when the body has been read to its end, given the connection's timer back.
pub(crate) type OnEnd = Box<dyn FnOnce(ConnTimer) + Send>;

/// A hyper body as a stream of chunks (see the module docs).
pub(crate) struct IncomingBody<A: Activity + Send + Sync + ?Sized + 'static> {
    body: Incoming,
    activity: Arc<A>,
    timer: Option<ConnTimer>,
    idle: Duration,
    last: Instant,
    /// A chunk was handed out: the next wait counts from when the reader asks again.
    resume: bool,
    /// HTTP/2: each frame of the stream restarts the idle clock (the connection's bytes
    /// belong to other streams too).
    frames_restart: bool,
    node: String,
    on_end: Option<OnEnd>,
    done: bool,
}

impl<A: Activity + Send + Sync + ?Sized + 'static> IncomingBody<A> {
    /// The body `body` of a response from `node`, whose bytes `activity` reports, watched on
    /// `timer` with the `idle` limit.
    pub(crate) fn new(
        body: Incoming,
        activity: Arc<A>,
        timer: ConnTimer,
        idle: Duration,
        node: String,
    ) -> Self {
        IncomingBody {
            body,
            activity,
            timer: Some(timer),
            idle,
            last: Instant::now(),
            resume: false,
            frames_restart: false,
            node,
            on_end: None,
            done: false,
        }
    }

    /// Each frame restarts the idle clock (HTTP/2).
    #[cfg(feature = "http2")]
    pub(crate) fn frames_restart(mut self) -> Self {
        self.frames_restart = true;
        self
    }

    /// Runs `f` with the connection's timer once the body has been read to its end. A body
    /// dropped before its end never runs it (the connection is dropped: closed).
    pub(crate) fn on_end(mut self, f: OnEnd) -> Self {
        self.on_end = Some(f);
        self
    }

    fn idle_timeout(&self) -> Error {
        Error::Timeout {
            node: self.node.clone(),
            phase: TimeoutPhase::ReadIdle,
            after: self.idle,
        }
    }
}

impl<A: Activity + Send + Sync + ?Sized + 'static> Stream for IncomingBody<A> {
    type Item = Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            if this.resume {
                this.resume = false;
                this.last = this.last.max(Instant::now());
            }
            let Some(timer) = this.timer.as_mut() else {
                return Poll::Ready(None);
            };
            let mut watch = Watch::on(&*this.activity, timer.here(), this.idle, this.last, None);
            let body = &mut this.body;
            let polled = watch.poll(cx, |cx| hyper::body::Body::poll_frame(Pin::new(body), cx));
            this.last = watch.last();
            let frame = match polled {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(_)) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(this.idle_timeout())));
                }
                Poll::Ready(Ok(frame)) => frame,
            };
            match frame {
                None => {
                    this.done = true;
                    if let (Some(f), Some(t)) = (this.on_end.take(), this.timer.take()) {
                        f(t);
                    }
                    return Poll::Ready(None);
                }
                Some(Err(e)) => {
                    this.done = true;
                    return Poll::Ready(Some(Err(map_hyper(&this.node, e))));
                }
                Some(Ok(frame)) => {
                    if this.frames_restart {
                        this.last = Instant::now();
                    }
                    if let Ok(data) = frame.into_data() {
                        if !data.is_empty() {
                            this.resume = true;
                            return Poll::Ready(Some(Ok(data)));
                        }
                    }
                }
            }
        }
    }
}
