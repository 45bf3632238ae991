//! Attempts: one request sent through the inner transport until it succeeds or may not be
//! tried again. Failover on transport errors (reads and admin requests), the shared 429/503
//! retry policy, one view refresh and retry after an answer saying the view is stale, the
//! write rules of the module docs ([`super`]), and the whole-call deadline.
//!
//! [`Routing::route_until`] is the loop; each step is its own function: plan, send one
//! attempt, judge an answer ([`Routing::on_answer`]) or an error ([`Routing::on_error`]).
//! The loop is written once for both ways of reading an answer ([`Reply`]): whole or
//! streamed ([`WireRequest::streamed`]). A streamed call is judged on its head, as a whole one is on its answer: once the head has been
//! accepted, the body is the caller's to read, and an error in it is the caller's (no
//! failover, no retry).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::answer::hold;
use super::nodes::{node_key, Availability};
use super::plan::Target;
use super::Routing;
use crate::error::{Error, Result};
use crate::transport::layer::retry::solr_error;
use crate::transport::{retries_status, retry_after, Reply, RequestKind, RouteKey, WireRequest};

/// The state of one call across its attempts.
struct Call {
    req: WireRequest,
    deadline: Instant,
    max: u32,
    attempts: u32,
    waited: Duration,
    /// True once the view was refreshed after a stale answer (done once per call).
    refreshed: bool,
    pos: usize,
    plan: Vec<Target>,
}

impl Call {
    fn target(&self) -> Target {
        self.plan[self.pos % self.plan.len()].clone()
    }

    /// True when another attempt is allowed by the budget and the deadline.
    fn may_retry(&self) -> bool {
        self.attempts < self.max && Instant::now() < self.deadline
    }
}

/// What a step decided: the call's result, or another attempt.
type Step = Result<Option<Reply>>;

impl Routing {
    fn prepare(&self, req: &WireRequest, target: &Target) -> WireRequest {
        let mut r = req.clone();
        r.node = target.node.url.clone();
        let collection = &self.view().collection;
        if let Some(core) = &target.core {
            if matches!(req.route, Some(RouteKey::Replicas(_))) {
                // A pinned read: the core replaces whatever collection the path names.
                let rest = r.path.split_once('/').map_or("", |(_, rest)| rest);
                r.path = format!("{core}/{rest}");
            } else if let Some(rest) = r.path.strip_prefix(&format!("{collection}/")) {
                r.path = format!("{core}/{rest}");
            }
        }
        let chooses = |(k, _): &(String, String)| k == "shards.preference" || k == "distrib";
        if self.cloud && req.kind == RequestKind::Read && !r.query.iter().any(chooses) {
            let value = self.preference.shards_preference_value();
            r.query.push(("shards.preference".into(), value.into()));
        }
        r
    }

    /// Sends `req` to the node (and core) its plan gives, failing over and retrying by the
    /// rules of the module docs, until the request deadline: the answer read as `A` says
    /// (the deadline bounds a streamed call up to its response head).
    pub(super) async fn route(&self, mut req: WireRequest) -> Result<Reply> {
        self.start_ticker();
        self.refuse_without_collection(&req)?;
        let deadline = req.start_deadline();
        let timeout = req.request_timeout();
        crate::transport::until_deadline(deadline, timeout, self.route_until(req, deadline)).await
    }

    /// An admin-only SolrCloud router (no collection) takes node-level admin requests only.
    /// A client without a collection builds collection paths with an empty name, so they
    /// start with `/`.
    fn refuse_without_collection(&self, req: &WireRequest) -> Result<()> {
        let scoped = req.kind != RequestKind::Admin || req.path.starts_with('/');
        if self.cloud && self.collection.is_none() && scoped {
            return Err(Error::config(format!(
                "{} needs a collection, and this SolrCloud client has none (admin-only): give \
                 one with .collection(\"name\") when building it",
                req.path.trim_start_matches('/')
            )));
        }
        Ok(())
    }

    async fn route_until(&self, req: WireRequest, deadline: Instant) -> Result<Reply> {
        self.refresh_if_stale().await?;
        let mut call = Call {
            req,
            deadline,
            max: self.retry.max_attempts.max(1),
            attempts: 0,
            waited: Duration::ZERO,
            refreshed: false,
            pos: 0,
            plan: Vec::new(),
        };
        loop {
            if call.plan.is_empty() {
                match self.plan(&call.req) {
                    Ok(p) => (call.plan, call.pos) = (p, 0),
                    Err(e) => {
                        self.wait_for_plan(&mut call, e).await?;
                        continue;
                    }
                }
            }
            let target = call.target();
            let (res, took) = self.attempt(&mut call, &target).await;
            let step = match res {
                Ok(resp) => self.on_answer(&mut call, &target, took, resp).await,
                Err(e) => self.on_error(&mut call, &target, took, e).await,
            };
            if let Some(resp) = step? {
                return Ok(resp);
            }
        }
    }

    /// Before the first attempt: reload the view when it is old or marked stale. Failing to
    /// load it is an error only when there is no view at all.
    async fn refresh_if_stale(&self) -> Result<()> {
        if !self.cloud {
            return Ok(());
        }
        if self.view_too_old() {
            self.stale.store(true, Ordering::Release);
        }
        if self.stale.load(Ordering::Acquire) {
            let seen = self.refreshes();
            if let Err(e) = self.refresh_with(seen).await {
                let view = self.view();
                if view.shards.is_empty() && view.live_urls.is_empty() {
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Refreshes the view now (marked stale first, so a failed refresh is retried by the
    /// next request).
    async fn force_refresh(&self) {
        let seen = self.refreshes();
        self.stale.store(true, Ordering::Release);
        let _ = self.refresh_with(seen).await;
    }

    /// No node for the request: nothing was sent. Wait, refresh, and let the loop plan
    /// again; the error when the budget or the deadline is spent.
    async fn wait_for_plan(&self, call: &mut Call, e: Error) -> Result<()> {
        call.attempts += 1;
        let wait = self.retry.wait(call.attempts, None);
        if !self.cloud
            || call.attempts >= call.max
            || !self.retry.fits(call.waited, wait, call.deadline)
        {
            return Err(e);
        }
        tokio::time::sleep(wait).await;
        call.waited += wait;
        self.force_refresh().await;
        Ok(())
    }

    /// Sends one attempt to `target`, counted on its node (outstanding there until its
    /// answer has been read: [`hold`]). The duration is the service time up to the
    /// answer: the whole body, or (streamed) the head.
    async fn attempt(&self, call: &mut Call, target: &Target) -> (Result<Reply>, Duration) {
        if target.node.availability(Instant::now()) == Availability::Probe {
            // Claim the probe; when another request holds it, this one still goes (it is
            // the first candidate left), which is harmless.
            let _ = target.node.claim_probe();
        }
        call.attempts += 1;
        // The attempt carries the request's provider: the base signs it when it writes it.
        let attempt = self.prepare(&call.req, target);
        let flight = target.node.begin(call.req.kind);
        let res = self.inner.send(attempt).await;
        let took = flight.elapsed();
        let res = res.map(|mut answer| {
            hold(&mut answer, flight);
            answer
        });
        (res, took)
    }

    /// An HTTP answer: refresh once and retry when it says the view is stale, back off on
    /// 429/503, otherwise the result. The body is read only where a rule looks into it (a
    /// SolrCloud 503, a SolrCloud write); an error reading it is the call's error.
    async fn on_answer(
        &self,
        call: &mut Call,
        target: &Target,
        took: Duration,
        mut resp: Reply,
    ) -> Step {
        if target.node.answered(took) && self.cloud {
            // A node came back: it restarted, and leadership may have moved.
            self.stale.store(true, Ordering::Release);
        }
        let limit = call.req.max_response_bytes;
        let status = resp.status().as_u16();
        let stale = self.cloud
            && !call.refreshed
            && match status {
                503 => is_stale_answer(status, &resp.body_bytes(limit).await?),
                _ => is_stale_answer(status, &[]),
            };
        if stale {
            call.refreshed = true;
            self.force_refresh().await;
            // A write answered 404 was refused before any update processor ran.
            let safe = call.req.kind != RequestKind::Write || status == 404;
            if safe && call.may_retry() {
                call.plan.clear();
                return Ok(None);
            }
        }
        if retries_status(call.req.kind, resp.status()) {
            self.back_off_status(call, target, resp).await?;
            return Ok(None);
        }
        if self.cloud
            && call.req.kind == RequestKind::Write
            && has_rf_sentinel(&resp.body_bytes(limit).await?)
        {
            self.stale.store(true, Ordering::Release);
        }
        let timing = resp.timing_mut();
        timing.attempts = call.attempts;
        timing.node = node_key(&target.node.url);
        Ok(Some(resp))
    }

    /// A 429 or 503 to retry: wait (Retry-After or backoff) and move to the next
    /// candidate, or [`Error::RetriesExhausted`] when the budget or deadline is spent.
    /// The error keeps Solr's message from the last answer's body.
    async fn back_off_status(
        &self,
        call: &mut Call,
        target: &Target,
        mut resp: Reply,
    ) -> Result<()> {
        let node = node_key(&target.node.url);
        let status = resp.status();
        let wait = self.retry.wait(call.attempts, retry_after(resp.headers()));
        if call.attempts >= call.max || !self.retry.fits(call.waited, wait, call.deadline) {
            // An error in reading the body only loses Solr's message.
            let body = resp.body_bytes(call.req.max_response_bytes).await;
            return Err(Error::RetriesExhausted {
                solr: body
                    .ok()
                    .and_then(|b| solr_error(resp.headers(), &b))
                    .map(|b| Box::new(b.into())),
                node: node.into(),
                status: status.as_u16(),
                attempts: call.attempts,
                waited: call.waited,
            });
        }
        // Not held (nor its connection) through the wait.
        drop(resp);
        crate::transport::span::retrying(&node, call.attempts, &status, wait);
        tokio::time::sleep(wait).await;
        call.waited += wait;
        call.pos += 1;
        Ok(())
    }

    /// A transport error: the node is marked (down after a failed connect); a read or an
    /// unsent write fails over (refreshing the view after a failed connect in SolrCloud),
    /// anything else is the result.
    async fn on_error(&self, call: &mut Call, target: &Target, took: Duration, e: Error) -> Step {
        if let Error::Redirect { .. } = e {
            // The node answered, with a redirect that is not followed: it is up, and
            // another node would not change the answer.
            let _ = target.node.answered(took);
            return Err(e);
        }
        let connect = e.is_connect();
        target.node.failed(connect, &self.health);
        let retryable = match call.req.kind {
            RequestKind::Write => e.is_not_sent(),
            RequestKind::Read | RequestKind::Admin => is_transport_error(&e),
        };
        if !retryable || !call.may_retry() {
            return Err(e);
        }
        if self.cloud && connect {
            // The node is gone: the leader may have moved. Cheap (one CLUSTERSTATUS), and
            // needed on every retry while an election runs. The new plan puts the node
            // that just failed last.
            self.force_refresh().await;
            call.plan = self.plan(&call.req).unwrap_or_default();
            call.pos = 0;
        } else {
            call.pos += 1;
        }
        self.pause_before_same_node(call, target, e).await?;
        Ok(None)
    }

    /// Backs off when the next attempt goes to the same node (a write to its leader, or a
    /// single candidate); fails over at once otherwise.
    async fn pause_before_same_node(
        &self,
        call: &mut Call,
        target: &Target,
        e: Error,
    ) -> Result<()> {
        let node = node_key(&target.node.url);
        let same = call
            .plan
            .get(call.pos % call.plan.len().max(1))
            .is_none_or(|t| Arc::ptr_eq(&t.node, &target.node));
        if !same {
            crate::transport::span::retrying(&node, call.attempts, &e, Duration::ZERO);
            return Ok(());
        }
        let wait = self.retry.wait(call.attempts, None);
        if !self.retry.fits(call.waited, wait, call.deadline) {
            return Err(e);
        }
        crate::transport::span::retrying(&node, call.attempts, &e, wait);
        tokio::time::sleep(wait).await;
        call.waited += wait;
        Ok(())
    }
}

/// Transport failures a read may fail over on.
fn is_transport_error(e: &Error) -> bool {
    matches!(
        e,
        Error::Dns { .. }
            | Error::Connect { .. }
            | Error::Tls { .. }
            | Error::Timeout { .. }
            | Error::Io { .. }
            | Error::NoNode(_)
    )
}

/// An answer that says the cluster view is stale: the core is not on that node (404), the
/// cluster state moved on (510), or the node is not/has no leader (503 mentioning a leader).
fn is_stale_answer(status: u16, body: &[u8]) -> bool {
    match status {
        404 | 510 => true,
        503 => contains(body, b"leader"),
        _ => false,
    }
}

/// The tolerant chain's "leader unreachable" sentinel `rf=2147483647`.
fn has_rf_sentinel(body: &[u8]) -> bool {
    contains(body, b"\"rf\":2147483647")
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_and_sentinel_detection() {
        assert!(is_stale_answer(404, b"Can not find"));
        assert!(is_stale_answer(503, b"No registered leader was found"));
        assert!(!is_stale_answer(503, b"overloaded"));
        assert!(has_rf_sentinel(
            br#"{"responseHeader":{"rf":2147483647,"status":0}}"#
        ));
        assert!(!has_rf_sentinel(
            br#"{"responseHeader":{"rf":2,"status":0}}"#
        ));
    }
}
