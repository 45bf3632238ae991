//! Attempts: one request sent through the inner transport until it succeeds or may not be
//! tried again. Failover on transport errors (reads and admin requests), the shared 429/503
//! retry policy, one view refresh and retry after an answer saying the view is stale, the
//! write rules of the module docs ([`super`]), and the whole-call deadline.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::nodes::{node_key, Availability};
use super::plan::Target;
use super::Routing;
use crate::error::{Error, Result};
use crate::transport::{retries_status, retry_after, RequestKind, WireRequest, WireResponse};

impl Routing {
    fn prepare(&self, req: &WireRequest, target: &Target) -> WireRequest {
        let mut r = req.clone();
        r.node = target.node.url.clone();
        let collection = &self.view().collection;
        if let Some(core) = &target.core {
            if let Some(rest) = r.path.strip_prefix(&format!("{collection}/")) {
                r.path = format!("{core}/{rest}");
            }
        }
        if self.cloud
            && req.kind == RequestKind::Read
            && !r
                .query
                .iter()
                .any(|(k, _)| k == "shards.preference" || k == "distrib")
        {
            r.query
                .push(("shards.preference".into(), "replica.location:local".into()));
        }
        r
    }

    pub(super) async fn route(&self, mut req: WireRequest) -> Result<WireResponse> {
        let deadline = req.start_deadline();
        let timeout = req.request_timeout();
        crate::transport::until_deadline(deadline, timeout, self.route_until(req, deadline)).await
    }

    async fn route_until(
        &self,
        req: WireRequest,
        deadline: std::time::Instant,
    ) -> Result<WireResponse> {
        if self.cloud && self.view_too_old() {
            self.stale.store(true, Ordering::Release);
        }
        if self.cloud && self.stale.load(Ordering::Acquire) {
            let seen = self.refreshes();
            if let Err(e) = self.refresh_with(&req.headers, seen).await {
                if self.view().shards.is_empty() {
                    return Err(e);
                }
            }
        }
        let max = self.retry.max_attempts.max(1);
        let mut attempts = 0u32;
        let mut waited = Duration::ZERO;
        let mut refreshed = false;
        let mut pos = 0usize;
        let mut plan = Vec::new();
        loop {
            if plan.is_empty() {
                match self.plan(&req) {
                    Ok(p) => plan = p,
                    Err(e) => {
                        // No node for it: nothing was sent. Wait, refresh, try again.
                        attempts += 1;
                        let wait = self.retry.wait(attempts, None);
                        if !self.cloud
                            || attempts >= max
                            || !self.retry.fits(waited, wait, deadline)
                        {
                            return Err(e);
                        }
                        tokio::time::sleep(wait).await;
                        waited += wait;
                        let seen = self.refreshes();
                        let _ = self.refresh_with(&req.headers, seen).await;
                        continue;
                    }
                }
                pos = 0;
            }
            let target = plan[pos % plan.len()].clone();
            let now = std::time::Instant::now();
            if target.node.availability(now) == Availability::Probe {
                // Claim the probe; when another request holds it, this one still goes (it is
                // the first candidate left), which is harmless.
                let _ = target.node.claim_probe();
            }
            attempts += 1;
            let mut attempt = self.prepare(&req, &target);
            crate::auth::resign(&mut attempt).await?;
            let flight = target.node.begin(req.kind);
            let res = self.inner.send(attempt).await;
            let took = flight.elapsed();
            drop(flight);
            let node_name = node_key(&target.node.url);
            match res {
                Ok(mut resp) => {
                    if target.node.answered(took) && self.cloud {
                        // A node came back: it restarted, and leadership may have moved.
                        self.stale.store(true, Ordering::Release);
                    }
                    let status = resp.status.as_u16();
                    if self.cloud && !refreshed && is_stale_answer(status, &resp.body) {
                        refreshed = true;
                        let seen = self.refreshes();
                        self.stale.store(true, Ordering::Release);
                        let _ = self.refresh_with(&req.headers, seen).await;
                        let safe = req.kind != RequestKind::Write || status == 404;
                        if safe && attempts < max && std::time::Instant::now() < deadline {
                            plan.clear();
                            continue;
                        }
                    }
                    if retries_status(req.kind, resp.status) {
                        let exhausted = |waited| Error::RetriesExhausted {
                            node: node_name.clone(),
                            status,
                            attempts,
                            waited,
                        };
                        if attempts >= max {
                            return Err(exhausted(waited));
                        }
                        let wait = self.retry.wait(attempts, retry_after(&resp.headers));
                        if !self.retry.fits(waited, wait, deadline) {
                            return Err(exhausted(waited));
                        }
                        crate::transport::span::retrying(&node_name, attempts, &resp.status, wait);
                        tokio::time::sleep(wait).await;
                        waited += wait;
                        pos += 1;
                        continue;
                    }
                    if self.cloud && req.kind == RequestKind::Write && has_rf_sentinel(&resp.body) {
                        self.stale.store(true, Ordering::Release);
                    }
                    resp.timing.attempts = attempts;
                    resp.timing.node = node_name;
                    return Ok(resp);
                }
                Err(e @ Error::Redirect { .. }) => {
                    // The node answered, with a redirect that is not followed: it is up, and
                    // another node would not change the answer.
                    let _ = target.node.answered(took);
                    return Err(e);
                }
                Err(e) => {
                    let connect = e.is_connect();
                    target.node.failed(connect, &self.health);
                    let retryable = match req.kind {
                        RequestKind::Write => e.is_not_sent(),
                        RequestKind::Read | RequestKind::Admin => is_transport_error(&e),
                    };
                    if !retryable || attempts >= max || std::time::Instant::now() >= deadline {
                        return Err(e);
                    }
                    if self.cloud && connect {
                        // The node is gone: the leader may have moved. Cheap (one
                        // CLUSTERSTATUS), and needed on every retry while an election runs.
                        let seen = self.refreshes();
                        let _ = self.refresh_with(&req.headers, seen).await;
                        plan.clear();
                        if let Ok(p) = self.plan(&req) {
                            plan = p;
                        }
                        // The new plan puts the node that just failed last.
                        pos = 0;
                    } else {
                        pos += 1;
                    }
                    // Back off when the next attempt goes to the same node (a write to its
                    // leader, or a single candidate); fail over at once otherwise.
                    let same = plan
                        .get(pos % plan.len().max(1))
                        .is_none_or(|t| Arc::ptr_eq(&t.node, &target.node));
                    if same {
                        let wait = self.retry.wait(attempts, None);
                        if !self.retry.fits(waited, wait, deadline) {
                            return Err(e);
                        }
                        crate::transport::span::retrying(&node_name, attempts, &e, wait);
                        tokio::time::sleep(wait).await;
                        waited += wait;
                    } else {
                        crate::transport::span::retrying(&node_name, attempts, &e, Duration::ZERO);
                    }
                }
            }
        }
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
