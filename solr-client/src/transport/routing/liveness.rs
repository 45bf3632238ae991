//! Liveness: down nodes are checked with a cheap request ([`Routing::probe`]; SolrCloud:
//! `admin/info/health`, which succeeds only while the node is live in ZooKeeper; standalone:
//! `{core}/admin/ping`), and a router built with
//! [`RoutingBuilder::build_shared`](super::RoutingBuilder::build_shared) runs the checks and
//! the timed SolrCloud refresh in a background task, as SolrJ's alive check does.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::nodes::{Availability, NodeState};
use super::Routing;
use crate::transport::RequestKind;

impl Routing {
    /// Checks every node that is down and whose backoff has elapsed; a node whose check
    /// succeeds is up again (and, in SolrCloud, the view is marked stale: leadership may
    /// have moved). Returns how many came back.
    pub async fn probe(&self) -> usize {
        let now = Instant::now();
        let mut back = 0;
        for u in self.view().nodes().iter().chain(&self.seeds) {
            let node = self.pool.get(u);
            if node.availability(now) != Availability::Probe || !node.claim_probe() {
                continue;
            }
            if self.check(&node).await {
                self.stale.store(self.cloud, Ordering::Release);
                back += 1;
            }
        }
        back
    }

    /// One liveness check of a down node; true when it succeeded (the node is then up).
    async fn check(&self, node: &Arc<NodeState>) -> bool {
        let path = match (&self.collection, self.cloud) {
            (Some(core), false) => format!("{core}/admin/ping"),
            _ => "admin/info/health".to_string(),
        };
        let req = self.admin_request(&node.url, &path);
        let flight = node.begin(RequestKind::Admin);
        let res = self.send_own(req).await;
        let took = flight.elapsed();
        drop(flight);
        match res {
            Ok(resp) if resp.status.is_success() => {
                node.answered(took);
                true
            }
            // Not healthy yet (e.g. 503 "not in live nodes"), not reachable, or the
            // credentials were refused.
            Ok(_) | Err(_) => {
                node.failed(true, &self.health);
                false
            }
        }
    }

    /// Starts the background task once, on the first request inside a Tokio runtime, when
    /// this router was built shared.
    pub(super) fn start_ticker(&self) {
        if self.me.strong_count() == 0 || self.ticking.load(Ordering::Acquire) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.ticking.swap(true, Ordering::AcqRel) {
            return;
        }
        runtime.spawn(tick_loop(self.me.clone(), self.tick_interval()));
    }

    /// How often the task wakes: the liveness interval, and at least as often as the view
    /// may age (SolrCloud).
    fn tick_interval(&self) -> Duration {
        let every = self.liveness_interval.unwrap_or(self.view_max_age);
        let every = if self.cloud {
            every.min(self.view_max_age)
        } else {
            every
        };
        every.max(Duration::from_millis(10))
    }

    /// One tick: check down nodes, then reload the view if it is old or stale.
    async fn tick(&self) {
        if self.liveness_interval.is_some() {
            self.probe().await;
        }
        if self.cloud && (self.view_too_old() || self.stale.load(Ordering::Acquire)) {
            let seen = self.refreshes();
            let _ = self.refresh_with(seen).await;
        }
    }
}

/// The background task: ends when the router is dropped.
async fn tick_loop(me: Weak<Routing>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        let Some(routing) = me.upgrade() else {
            return;
        };
        routing.tick().await;
    }
}
