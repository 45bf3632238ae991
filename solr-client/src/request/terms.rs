//! The Terms Component (Solr reference: "Terms Component"): indexed terms of a field with
//! their document frequencies, at `/terms`, read back from
//! [`crate::response::TermsSection`].

use super::Select;

/// A terms request. Turn it into a [`Select`] on `/terms` with [`Terms::to_select`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Terms {
    opts: Vec<(String, String)>,
}

impl Terms {
    /// The terms of `field` (`terms.fl`).
    pub fn field(field: impl Into<String>) -> Self {
        Terms {
            opts: vec![("terms.fl".into(), field.into())],
        }
    }

    fn opt(mut self, name: &str, value: impl ToString) -> Self {
        self.opts.push((name.to_string(), value.to_string()));
        self
    }

    /// `terms.prefix`: only terms starting with `p`.
    pub fn prefix(self, p: impl Into<String>) -> Self {
        self.opt("terms.prefix", p.into())
    }

    /// `terms.limit`: most terms; -1 for all. Default: Solr's (10).
    pub fn limit(self, n: i64) -> Self {
        self.opt("terms.limit", n)
    }

    /// `terms.mincount`: leave out rarer terms. Default: Solr's (1).
    pub fn mincount(self, n: u64) -> Self {
        self.opt("terms.mincount", n)
    }

    /// `terms.sort=index`: in index order instead of by frequency. Default false.
    pub fn sort_index(self, yes: bool) -> Self {
        self.opt("terms.sort", if yes { "index" } else { "count" })
    }

    /// `terms.lower`: start at this term.
    pub fn lower(self, t: impl Into<String>) -> Self {
        self.opt("terms.lower", t.into())
    }

    /// The request: handler `terms`, `terms=true`, `distrib` left to Solr.
    pub fn to_select(&self) -> Select {
        let mut s = Select::new("").handler("terms");
        s.q.clear();
        s.push("terms", "true");
        for (k, v) in &self.opts {
            s.push(k.clone(), v.clone());
        }
        s
    }
}
