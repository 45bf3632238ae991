//! A typed builder for Solr's streaming expressions (Solr reference: "Streaming
//! Expressions"), sent to a collection's `/stream` handler.
//!
//! Sources ([`search`], [`facet`], [`stats`]) and decorators ([`rollup`], [`top`],
//! [`unique`], [`merge`], [`inner_join`], [`hash_join`], [`select`], [`update`]) nest as
//! [`Func`] values; [`Func::build`] (or a source's own `build`) checks every name and value
//! and gives an [`Expr`], whose `Display` is the text Solr parses back into exactly those
//! names and values. Free text (a query, a filter) is quoted and escaped: commas,
//! parentheses and quotes in it are safe. An escaped quote (`\"`) is not: Solr's parser
//! cannot pass one on, so `build` refuses it (query such a value with `{!term f=field}`). What Solr's parser cannot give back
//! (an escaped quote, a backtick, a line starting with `#`, ...) is an [`Error::InvalidInput`](crate::Error)
//! from `build`, never a mangled expression.
//!
//! ```
//! use solr_client::expr::{self, Metric, Sort};
//!
//! let e = expr::rollup(
//!     expr::search("sales")
//!         .q("region:\"north, east\"")
//!         .fl(["region_s", "amount_i"])
//!         .sort([Sort::asc("region_s")])
//!         .qt("/export"),
//!     ["region_s"],
//! )
//! .metric(Metric::sum("amount_i"))
//! .metric(Metric::count())
//! .build()?;
//! assert_eq!(
//!     e.to_string(),
//!     r#"rollup(search(sales, q="region:\"north, east\"", fl="region_s,amount_i", sort="region_s asc", qt="/export"), over="region_s", sum(amount_i), count(*))"#
//! );
//! # Ok::<(), solr_client::Error>(())
//! ```

mod decorators;
mod facet;
mod func;
mod join;
mod metric;
mod on;
mod rollup;
mod search;
mod select;
mod sort;
mod stats;
#[cfg(test)]
mod tests;
mod text;

pub use decorators::{merge, top, unique, update};
pub use facet::{facet, Facet};
pub use func::{Expr, Func};
pub use join::{hash_join, inner_join};
pub use metric::{BucketSort, Metric};
pub use on::On;
pub use rollup::{rollup, Rollup};
pub use search::{search, Search};
pub use select::{select, Selection};
pub use sort::{Order, Sort};
pub use stats::{stats, Stats};
