//! `stats`: metrics over every document matching a query.

use super::func::{Atom, Func};
use super::metric::Metric;
use crate::error::Result;
use crate::expr::Expr;

/// The `stats` source: `stats(collection, q="...", metric, ...)`, one tuple.
#[derive(Debug, Clone)]
pub struct Stats(Func);

/// A `stats` of `collection`.
pub fn stats(collection: impl Into<String>) -> Stats {
    Stats(Func::new("stats").arg(Atom::Name(collection.into())))
}

impl Stats {
    /// The query, `q`.
    pub fn q(self, query: impl Into<String>) -> Self {
        Stats(self.0.named("q", Atom::Text(query.into())))
    }

    /// A filter query, `fq` (repeatable).
    pub fn fq(self, filter: impl Into<String>) -> Self {
        Stats(self.0.named("fq", Atom::Text(filter.into())))
    }

    /// A metric to compute.
    pub fn metric(self, m: Metric) -> Self {
        Stats(self.0.arg(Atom::Metric(m)))
    }

    /// Checks and writes the expression (see [`Func::build`]).
    pub fn build(self) -> Result<Expr> {
        self.0.build()
    }
}

impl From<Stats> for Func {
    fn from(s: Stats) -> Func {
        s.0
    }
}
