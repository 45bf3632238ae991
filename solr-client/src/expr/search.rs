//! `search`: documents of a collection, from `/select` or `/export`.

use super::func::{Atom, Func};
use super::sort::Sort;
use crate::error::Result;
use crate::expr::Expr;

/// The `search` source: `search(collection, q="...", fl="...", sort="...")`.
#[derive(Debug, Clone)]
pub struct Search(Func);

/// A `search` of `collection`: add its query, fields and sort (Solr needs all three).
pub fn search(collection: impl Into<String>) -> Search {
    Search(Func::new("search").arg(Atom::Name(collection.into())))
}

impl Search {
    /// The main query, `q`.
    pub fn q(self, query: impl Into<String>) -> Self {
        Search(self.0.named("q", Atom::Text(query.into())))
    }

    /// A filter query, `fq` (repeatable).
    pub fn fq(self, filter: impl Into<String>) -> Self {
        Search(self.0.named("fq", Atom::Text(filter.into())))
    }

    /// The fields each tuple carries, `fl`.
    pub fn fl<S: Into<String>>(self, fields: impl IntoIterator<Item = S>) -> Self {
        let names = fields.into_iter().map(Into::into).collect();
        Search(self.0.named("fl", Atom::Names(names)))
    }

    /// The order of the tuples, `sort`.
    pub fn sort(self, clauses: impl IntoIterator<Item = Sort>) -> Self {
        Search(
            self.0
                .named("sort", Atom::Sorts(clauses.into_iter().collect())),
        )
    }

    /// The request handler, `qt`: `/export` streams the whole result (docValues fields
    /// only), `/select` (the default) pages it.
    pub fn qt(self, handler: impl Into<String>) -> Self {
        Search(self.0.named("qt", Atom::Text(handler.into())))
    }

    /// How many documents (with `/select`), `rows`.
    pub fn rows(self, n: u64) -> Self {
        Search(self.0.named("rows", Atom::Int(n)))
    }

    /// Any other Solr parameter, `name="value"`.
    pub fn param(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        Search(self.0.named(name, Atom::Text(value.into())))
    }

    /// Checks and writes the expression (see [`Func::build`]).
    pub fn build(self) -> Result<Expr> {
        self.0.build()
    }
}

impl From<Search> for Func {
    fn from(s: Search) -> Func {
        s.0
    }
}
