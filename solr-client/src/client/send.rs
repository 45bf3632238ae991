//! The exchange every call makes: sending (signed), the metrics hook, the call span, the
//! not-found hint ([`crate::observe`]).

use super::SolrClient;
use crate::error::Result;
use crate::observe::Outcome;
use crate::timing::Timing;
use crate::transport::{WireRequest, WireResponse};

/// The exchange every call makes: the metrics hook, the call span, the not-found hint
/// ([`crate::observe`]).
impl SolrClient {
    /// Sends `req`, decodes the response with `decode`, sets QTime from `qtime`, calls the
    /// hook, records the spans, and turns a 404 that is not Solr's into [`Error::NotFound`].
    pub(crate) async fn exchange<T>(
        &self,
        req: WireRequest,
        decode: impl FnOnce(WireResponse) -> Result<(T, Timing)>,
        qtime: impl FnOnce(&T) -> Option<u32>,
    ) -> Result<(T, Timing)> {
        let method = req.method.clone();
        let path = req.path.clone();
        // For the not-found hint: the client's own node (nearly every request) is not copied.
        let other_node = (req.node != self.node).then(|| req.node.clone());
        let pending = self.observer.meter.request(&req);
        let (resp, trace) = self.traced_send(req).await;
        if let Err(e) = &resp {
            pending.no_response(&path, e);
        }
        let (resp, trace) = trace.answered(resp, &method, &path)?;
        let status = resp.status.as_u16();
        let keep = self.observer.wants_timing();
        let mut kept = keep.then(|| resp.timing.clone());
        let scheme = self.auth.as_ref().map(|a| a.scheme());
        let decoded = if status == 401 {
            Err(crate::transport::auth::unauthorized(
                &resp.headers,
                &resp.timing.node,
                scheme,
                false,
            ))
        } else {
            decode(resp)
        };
        let out = match decoded {
            Ok((v, mut timing)) => {
                timing.qtime_ms = qtime(&v);
                Ok((v, timing))
            }
            Err(e) => {
                let node = other_node.as_ref().unwrap_or(&self.node);
                Err(crate::hint::not_found(e, node, &path))
            }
        };
        let timing = match &out {
            Ok((_, t)) => Some(t),
            Err(e) => kept.as_mut().map(|t| {
                // Solr's error answers carry a QTime too.
                t.qtime_ms = crate::observe::error_qtime(e);
                &*t
            }),
        };
        if let Some(timing) = timing {
            let event = crate::observe::ResponseEvent {
                method: &method,
                path: &path,
                node: &timing.node,
                status,
                qtime_ms: timing.qtime_ms,
                timing,
                error: out.as_ref().err(),
            };
            self.observer.response(&pending, &event);
        }
        trace.finish(Outcome {
            method: &method,
            path: &path,
            status: Some(status),
            timing,
            error: out.as_ref().err(),
        });
        out
    }

    /// Sends `req` for an answer whose body is read as it arrives, signed when the client
    /// has credentials. After a 401 head the request (whole until then) is re-sent once when
    /// the provider has a new credential, as a buffered call is
    /// ([`crate::transport::auth::send_signed_streaming`]); a 401 that stands is
    /// [`Error::Unauthorized`].
    pub(crate) async fn send_streaming(
        &self,
        req: WireRequest,
    ) -> Result<crate::transport::StreamingResponse> {
        let resp =
            crate::transport::auth::send_signed_streaming(&self.transport, self.auth.as_ref(), req)
                .await?;
        if resp.status == http::StatusCode::UNAUTHORIZED {
            let scheme = self.auth.as_ref().map(|a| a.scheme());
            return Err(crate::transport::auth::unauthorized(
                &resp.headers,
                &resp.timing().node,
                scheme,
                false,
            ));
        }
        Ok(resp)
    }

    /// [`SolrClient::send_raw`]: sends `req` as it is, reporting the response to the hook.
    pub(crate) async fn exchange_raw(&self, req: WireRequest) -> Result<WireResponse> {
        let method = req.method.clone();
        let path = req.path.clone();
        let pending = self.observer.meter.request(&req);
        let (resp, trace) = self.traced_send(req).await;
        if let Err(e) = &resp {
            pending.no_response(&path, e);
        }
        let (resp, trace) = trace.answered(resp, &method, &path)?;
        let event = crate::observe::ResponseEvent {
            method: &method,
            path: &path,
            node: &resp.timing.node,
            status: resp.status.as_u16(),
            qtime_ms: None,
            timing: &resp.timing,
            error: None,
        };
        self.observer.response(&pending, &event);
        trace.finish(Outcome {
            method: &method,
            path: &path,
            status: Some(resp.status.as_u16()),
            timing: Some(&resp.timing),
            error: None,
        });
        Ok(resp)
    }

    #[cfg(not(feature = "tracing"))]
    async fn traced_send(
        &self,
        req: WireRequest,
    ) -> (Result<WireResponse>, crate::observe::CallTrace) {
        let sent =
            crate::transport::auth::send_signed(&self.transport, self.auth.as_ref(), req).await;
        (sent, crate::observe::CallTrace)
    }

    #[cfg(feature = "tracing")]
    async fn traced_send(
        &self,
        req: WireRequest,
    ) -> (Result<WireResponse>, crate::observe::CallTrace) {
        use tracing::Instrument;
        let span = tracing::debug_span!(
            target: "solr_client",
            "solr.request",
            method = %req.method,
            path = %req.path,
            db.system.name = "solr",
            db.collection.name = crate::transport::span::collection(&req.path),
            http.request.method = %req.method,
            http.response.status_code = tracing::field::Empty,
            status = tracing::field::Empty,
            attempts = tracing::field::Empty,
            qtime_ms = tracing::field::Empty,
            total_ms = tracing::field::Empty,
            error_kind = tracing::field::Empty,
            error = tracing::field::Empty,
        );
        let (transport, auth) = (self.transport.clone(), self.auth.clone());
        let state = std::cell::RefCell::new(crate::transport::span::CallState::default());
        let (resp, last) = crate::transport::span::CALL
            .scope(state, async move {
                let resp =
                    crate::transport::auth::send_signed(&transport, auth.as_ref(), req).await;
                let last = crate::transport::span::CALL
                    .try_with(|c| c.borrow_mut().last.take())
                    .ok()
                    .flatten();
                (resp, last)
            })
            .instrument(span.clone())
            .await;
        (resp, crate::observe::CallTrace { span, last })
    }
}

/// `t` with Solr's QTime.
pub(super) fn with_qtime(mut t: Timing, qtime: Option<u32>) -> Timing {
    t.qtime_ms = qtime;
    t
}
