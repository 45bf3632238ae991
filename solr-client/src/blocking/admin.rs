//! Blocking twins of the admin API handles ([`crate::admin`]): each call runs the async
//! handle's call on the blocking client's runtime, with the same inside-a-runtime check as
//! every other blocking call.
//!
//! ```no_run
//! # fn run() -> solr_client::Result<()> {
//! use solr_client::admin::{SchemaCommand, SchemaField};
//! use solr_client::{blocking, SolrClient};
//! let client = blocking::SolrClient::new(
//!     SolrClient::builder("http://127.0.0.1:8983/solr").collection("bench").build()?,
//! )?;
//! client
//!     .schema()
//!     .update(&[SchemaCommand::AddField(SchemaField::new("rating_i", "pint"))])?;
//! println!("{} fields", client.schema().fields()?.fields.len());
//! # Ok(()) }
//! ```

use std::path::Path;
use std::time::Duration;

use bytes::Bytes;

use super::SolrClient;
use crate::admin::{
    self, AdminResponse, Aliases, ClusterStatus, CollectionList, CollectionStatus, ConfigsetList,
    CopyFieldList, CoreStatusResponse, CreateCollection, CreateCore, FieldList, FieldTypeList,
    Metrics, MetricsQuery, ReplicaSpec, RequestStatus, SchemaCommand, SystemInfo, UniqueKey,
};
use crate::error::Result;

/// Declares a blocking handle over an async admin handle, and its calls: each one runs the
/// async call of the same name and arguments to completion (see [`SolrClient`]).
macro_rules! blocking_handle {
    (
        $(#[$doc:meta])*
        $name:ident => $async_name:ident, $label:literal;
        $( $(#[$m:meta])* fn $call:ident($($arg:ident: $ty:ty),*) -> $ret:ty; )*
    ) => {
        $(#[$doc])*
        #[derive(Debug)]
        #[must_use = "a handle does nothing until one of its calls is made"]
        pub struct $name<'a> {
            client: &'a SolrClient,
            inner: admin::$async_name<'a>,
        }

        impl $name<'_> {
            $(
                $(#[$m])*
                pub fn $call(&self, $($arg: $ty),*) -> Result<$ret> {
                    self.client.run(
                        concat!($label, "().", stringify!($call)),
                        self.inner.$call($($arg),*),
                    )?
                }
            )*
        }
    };
}

blocking_handle! {
    /// The Collections API, blocking ([`admin::Collections`]).
    Collections => Collections, "collections";
    /// See [`admin::Collections::create`].
    fn create(c: &CreateCollection) -> AdminResponse;
    /// See [`admin::Collections::delete`].
    fn delete(name: &str) -> AdminResponse;
    /// See [`admin::Collections::reload`].
    fn reload(name: &str) -> AdminResponse;
    /// See [`admin::Collections::list`].
    fn list() -> CollectionList;
    /// See [`admin::Collections::cluster_status`].
    fn cluster_status(collection: Option<&str>) -> ClusterStatus;
    /// See [`admin::Collections::create_alias`].
    fn create_alias(alias: &str, collections: &[&str]) -> AdminResponse;
    /// See [`admin::Collections::list_aliases`].
    fn list_aliases() -> Aliases;
    /// See [`admin::Collections::delete_alias`].
    fn delete_alias(alias: &str) -> AdminResponse;
    /// See [`admin::Collections::add_replica`].
    fn add_replica(r: &ReplicaSpec) -> AdminResponse;
    /// See [`admin::Collections::delete_replica`].
    fn delete_replica(collection: &str, shard: &str, replica: &str) -> AdminResponse;
    /// See [`admin::Collections::request_status`].
    fn request_status(id: &str) -> RequestStatus;
    /// See [`admin::Collections::delete_status`].
    fn delete_status(id: &str) -> AdminResponse;
    /// See [`admin::Collections::wait_for`].
    fn wait_for(id: &str, every: Duration, timeout: Duration) -> RequestStatus;
    /// See [`admin::Collections::modify`].
    fn modify(name: &str, attributes: &[(&str, &str)]) -> AdminResponse;
    /// See [`admin::Collections::status`].
    fn status(collection: Option<&str>) -> CollectionStatus;
    /// See [`admin::Collections::split_shard`].
    fn split_shard(collection: &str, shard: &str) -> AdminResponse;
    /// See [`admin::Collections::backup`].
    fn backup(collection: &str, name: &str, location: &str) -> AdminResponse;
    /// See [`admin::Collections::restore`].
    fn restore(name: &str, location: &str, collection: &str) -> AdminResponse;
}

impl Collections<'_> {
    /// See [`admin::Collections::with_async_id`].
    pub fn with_async_id(self, id: impl Into<String>) -> Self {
        Collections {
            client: self.client,
            inner: self.inner.with_async_id(id),
        }
    }
}

blocking_handle! {
    /// The Configsets API, blocking ([`admin::Configsets`]).
    Configsets => Configsets, "configsets";
    /// See [`admin::Configsets::list`].
    fn list() -> ConfigsetList;
    /// See [`admin::Configsets::upload_dir`].
    fn upload_dir(name: &str, dir: impl AsRef<Path>, overwrite: bool) -> AdminResponse;
    /// See [`admin::Configsets::upload_zip`].
    fn upload_zip(name: &str, zip: impl Into<Bytes>, overwrite: bool) -> AdminResponse;
    /// See [`admin::Configsets::delete`].
    fn delete(name: &str) -> AdminResponse;
}

blocking_handle! {
    /// The Schema API, blocking ([`admin::Schema`]).
    Schema => Schema, "schema";
    /// See [`admin::Schema::fields`].
    fn fields() -> FieldList;
    /// See [`admin::Schema::dynamic_fields`].
    fn dynamic_fields() -> FieldList;
    /// See [`admin::Schema::field_types`].
    fn field_types() -> FieldTypeList;
    /// See [`admin::Schema::copy_fields`].
    fn copy_fields() -> CopyFieldList;
    /// See [`admin::Schema::unique_key`].
    fn unique_key() -> UniqueKey;
    /// See [`admin::Schema::update`].
    fn update(commands: &[SchemaCommand]) -> AdminResponse;
}

impl Schema<'_> {
    /// See [`admin::Schema::wait_for_replicas`].
    pub fn wait_for_replicas(self, secs: u32) -> Self {
        Schema {
            client: self.client,
            inner: self.inner.wait_for_replicas(secs),
        }
    }
}

blocking_handle! {
    /// The CoreAdmin API, blocking ([`admin::Cores`]).
    Cores => Cores, "cores";
    /// See [`admin::Cores::status`].
    fn status(core: Option<&str>) -> CoreStatusResponse;
    /// See [`admin::Cores::reload`].
    fn reload(core: &str) -> AdminResponse;
    /// See [`admin::Cores::create`].
    fn create(c: &CreateCore) -> AdminResponse;
    /// See [`admin::Cores::unload`].
    fn unload(core: &str, delete_files: bool) -> AdminResponse;
    /// See [`admin::Cores::swap`].
    fn swap(core: &str, other: &str) -> AdminResponse;
    /// See [`admin::Cores::rename`].
    fn rename(core: &str, to: &str) -> AdminResponse;
}

blocking_handle! {
    /// System information and metrics, blocking ([`admin::System`]).
    System => System, "system";
    /// See [`admin::System::info`].
    fn info() -> SystemInfo;
    /// See [`admin::System::metrics`].
    fn metrics(q: &MetricsQuery) -> Metrics;
}

/// The admin API handles of the blocking client.
impl SolrClient {
    /// The Collections API (SolrCloud), blocking.
    pub fn collections(&self) -> Collections<'_> {
        Collections {
            client: self,
            inner: self.inner.collections(),
        }
    }

    /// The Configsets API (SolrCloud), blocking.
    pub fn configsets(&self) -> Configsets<'_> {
        Configsets {
            client: self,
            inner: self.inner.configsets(),
        }
    }

    /// The Schema API of the client's collection (or core), blocking.
    pub fn schema(&self) -> Schema<'_> {
        Schema {
            client: self,
            inner: self.inner.schema(),
        }
    }

    /// The CoreAdmin API of the client's node (standalone), blocking.
    pub fn cores(&self) -> Cores<'_> {
        Cores {
            client: self,
            inner: self.inner.cores(),
        }
    }

    /// System information and metrics of the client's node, blocking.
    pub fn system(&self) -> System<'_> {
        System {
            client: self,
            inner: self.inner.system(),
        }
    }
}
