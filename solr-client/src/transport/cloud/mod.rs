//! What the [`Routing`](crate::transport::Routing) decorator knows of a SolrCloud collection:
//! [`view`] holds the cluster view (nodes, shards, replicas, leaders) read from
//! `CLUSTERSTATUS`; [`hash`] is SolrCloud's compositeId hashing, which maps an id to a shard.

pub mod hash;
pub mod view;

pub use hash::{composite_id_hash, murmurhash3_x86_32, HashRange};
pub use view::{ClusterView, ReplicaInfo, ReplicaType, ShardInfo};
