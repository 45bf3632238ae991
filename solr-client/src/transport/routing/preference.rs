//! Read preferences: which replicas a read tries first ([`ReadPreference`] for leadership
//! or a node, replica types), and the `shards.preference` Solr is told
//! ([`ReplicaPreference`]). The plan turns them into tiers of candidate replicas.

use crate::transport::cloud::{ReplicaInfo, ReplicaType};

use super::nodes::node_key;

/// A test of one preference tier.
pub(crate) type Tier<'a> = Box<dyn Fn(&ReplicaInfo) -> bool + 'a>;

/// Which replicas a read prefers, by leadership or node.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ReadPreference {
    /// Non-leader replicas first, the leader only when none is reachable. Default.
    #[default]
    NonLeader,
    /// Any replica, leader included, all in one tier.
    Any,
    /// The leader first (reads that must see the latest acknowledged write in a pair).
    Leader,
    /// This node first (a base URL), then the others as with `NonLeader`.
    Node(String),
}

/// Where SolrCloud reads go: a [`ReadPreference`], preferred replica types, and the
/// `shards.preference` parameter passed to Solr with every read.
///
/// The router picks the node a read is sent to (tier by tier: the preferred node, then each
/// preferred replica type in order, then the [`ReadPreference`] tiers); Solr then picks the
/// replica of every other shard by `shards.preference`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ReplicaPreference {
    /// Leadership or node preference. Default [`ReadPreference::NonLeader`].
    pub order: ReadPreference,
    /// Replica types tried first, in this order. Default none (every type alike).
    pub types: Vec<ReplicaType>,
    /// `shards.preference` sent with every read that sets neither it nor `distrib`. Default
    /// None: `replica.location:local`, so that the chosen node serves what it holds.
    pub shards_preference: Option<String>,
}

impl ReplicaPreference {
    /// Sets [`ReplicaPreference::order`].
    pub fn order(mut self, order: ReadPreference) -> Self {
        self.order = order;
        self
    }

    /// Reads go to this node (base URL) first: [`ReadPreference::Node`].
    pub fn node(self, base_url: impl Into<String>) -> Self {
        self.order(ReadPreference::Node(base_url.into()))
    }

    /// Sets [`ReplicaPreference::types`]: e.g. `[Pull, Tlog]` reads PULL replicas, then
    /// TLOG ones, then the rest.
    pub fn replica_types(mut self, types: impl IntoIterator<Item = ReplicaType>) -> Self {
        self.types = types.into_iter().collect();
        self
    }

    /// Sets [`ReplicaPreference::shards_preference`], passed to Solr as it is
    /// (e.g. `replica.type:PULL,replica.location:local`).
    pub fn shards_preference(mut self, value: impl Into<String>) -> Self {
        self.shards_preference = Some(value.into());
        self
    }

    /// The `shards.preference` value sent with reads.
    pub(crate) fn shards_preference_value(&self) -> &str {
        self.shards_preference
            .as_deref()
            .unwrap_or("replica.location:local")
    }

    /// The tiers of candidate replicas, most preferred first; a replica belongs to the
    /// first tier whose test it passes.
    pub(crate) fn tiers(&self) -> Vec<Tier<'_>> {
        let mut tiers: Vec<Tier<'_>> = Vec::new();
        if let ReadPreference::Node(n) = &self.order {
            let key = n.trim_end_matches('/');
            tiers.push(Box::new(move |r| node_key(&r.base_url) == key));
        }
        for t in &self.types {
            tiers.push(Box::new(move |r| r.kind == *t));
        }
        match self.order {
            ReadPreference::Any => {}
            ReadPreference::Leader => tiers.push(Box::new(|r| r.leader)),
            ReadPreference::NonLeader | ReadPreference::Node(_) => {
                tiers.push(Box::new(|r| !r.leader))
            }
        }
        tiers.push(Box::new(|_| true));
        tiers
    }
}

impl From<ReadPreference> for ReplicaPreference {
    fn from(order: ReadPreference) -> Self {
        ReplicaPreference::default().order(order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use url::Url;

    fn replica(port: u16, leader: bool, kind: ReplicaType) -> ReplicaInfo {
        ReplicaInfo {
            name: format!("r{port}"),
            core: "c".into(),
            base_url: Url::parse(&format!("http://127.0.0.1:{port}/solr")).expect("url"),
            leader,
            usable: true,
            kind,
        }
    }

    /// The index of the first tier each replica passes.
    fn tier_of(p: &ReplicaPreference, r: &ReplicaInfo) -> usize {
        p.tiers()
            .iter()
            .position(|t| t(r))
            .expect("the last tier takes all")
    }

    #[test]
    fn node_then_types_then_leadership() {
        let leader = replica(1, true, ReplicaType::Nrt);
        let pull = replica(2, false, ReplicaType::Pull);
        let tlog = replica(3, false, ReplicaType::Tlog);
        let p = ReplicaPreference::default()
            .node("http://127.0.0.1:1/solr/")
            .replica_types([ReplicaType::Pull, ReplicaType::Tlog]);
        let tiers: Vec<usize> = [&leader, &pull, &tlog]
            .iter()
            .map(|r| tier_of(&p, r))
            .collect();
        assert_eq!(tiers, vec![0, 1, 2]);
        let plain = ReplicaPreference::from(ReadPreference::Leader);
        assert_eq!((tier_of(&plain, &leader), tier_of(&plain, &pull)), (0, 1));
        assert_eq!(plain.shards_preference_value(), "replica.location:local");
        let passed = plain.shards_preference("replica.type:PULL");
        assert_eq!(passed.shards_preference_value(), "replica.type:PULL");
    }
}
