//! Typed Solr requests. Each builds the query parameters of one request kind; the client
//! turns them into a [`crate::transport::WireRequest`]. The query components add their
//! parameters to a [`Select`] through methods defined in their own module:
//!
//! | component (Solr reference name) | builder | `Select` method |
//! |---|---|---|
//! | Faceting (field, query, range, pivot, interval) | [`Facet`] | [`Select::facet`] |
//! | JSON Facet API (terms, range, query, stats, domains) | [`JsonFacet`], [`Domain`] | [`Select::json_facet`] |
//! | Highlighting | [`Highlight`] | [`Select::highlight`] |
//! | Result Grouping | [`Group`] | [`Select::group`] |
//! | Collapse and Expand Results | [`Collapse`], [`Expand`] | [`Select::collapse`], [`Select::expand`] |
//! | Stats Component | [`StatsField`] | [`Select::stats`] |
//! | Spell Checking | [`Spellcheck`] | [`Select::spellcheck`] |
//! | Suggester | [`Suggest`] | [`Suggest::to_select`] |
//! | MoreLikeThis | [`MoreLikeThis`] | [`Select::more_like_this`] |
//! | Terms Component | [`Terms`] | [`Terms::to_select`] |
//! | Query parsers: lucene, dismax, edismax | [`DefType`], [`Dismax`] | [`Select::def_type`] |
//! | Filter query tags and excludes (`{!tag}` / `{!ex}`) | | [`Select::fq_tagged`], [`Facet::exclude`] |
//! | Dense vector search (`{!knn}`) | [`Knn`] | [`Knn::to_select`] |
//!
//! The JSON Request API (a search as a JSON body to `/query`) is [`JsonQuery`], run with
//! [`crate::SolrClient::query_json`]; it shares [`JsonFacet`] and the typed answer.

mod collapse;
mod def_type;
mod facet;
mod get;
mod group;
mod highlight;
mod json_facet;
mod json_query;
mod knn;
mod mlt;
mod select;
mod spellcheck;
mod stats;
mod suggest;
mod terms;

pub use collapse::{Collapse, Expand, NullPolicy};
pub use def_type::{DefType, Dismax};
pub use facet::{Facet, FacetSort, RangeOther};
pub use group::Group;
pub use highlight::{Highlight, HlMethod};
pub use json_facet::{Domain, JsonFacet};
pub use json_query::JsonQuery;
mod update;

pub(crate) use get::Raw as GetRaw;
pub use get::{Get, GetResponse};
pub use knn::Knn;
pub use mlt::MoreLikeThis;
pub use select::{Select, MAX_GET_QUERY_BYTES};
pub use spellcheck::Spellcheck;
pub use stats::StatsField;
pub use suggest::Suggest;
pub use terms::Terms;
pub(crate) use update::{conflict_error, single_conflict};
pub use update::{AtomicOp, AtomicUpdate};
