//! Result grouping (Solr reference: "Result Grouping"): `group.field` and `group.query`
//! commands, read back from [`crate::response::GroupResult`].

use super::Select;

/// Grouping options, added with [`Select::group`].
///
/// ```
/// use solr_client::{request::Group, Select};
/// let s = Select::new("*:*").group(Group::field("category").limit(2).ngroups(true));
/// let p = s.params();
/// assert!(p.contains(&("group".into(), "true".into())));
/// assert!(p.contains(&("group.field".into(), "category".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[must_use]
pub struct Group {
    params: Vec<(String, String)>,
}

impl Group {
    /// Groups by the values of `field` (`group.field`).
    pub fn field(field: impl Into<String>) -> Self {
        Group::default().and_field(field)
    }

    /// One group of the documents matching `q` (`group.query`).
    pub fn query(q: impl Into<String>) -> Self {
        Group::default().and_query(q)
    }

    /// Adds another `group.field` command.
    pub fn and_field(mut self, field: impl Into<String>) -> Self {
        self.params.push(("group.field".into(), field.into()));
        self
    }

    /// Adds another `group.query` command.
    pub fn and_query(mut self, q: impl Into<String>) -> Self {
        self.params.push(("group.query".into(), q.into()));
        self
    }

    fn opt(mut self, name: &str, value: impl ToString) -> Self {
        self.params.push((name.to_string(), value.to_string()));
        self
    }

    /// `group.limit`: documents per group. Default: Solr's (1).
    pub fn limit(self, n: u64) -> Self {
        self.opt("group.limit", n)
    }

    /// `group.offset`: documents to skip in each group. Default 0.
    pub fn offset(self, n: u64) -> Self {
        self.opt("group.offset", n)
    }

    /// `group.sort`: the order of documents within a group. Default: the request's sort.
    pub fn sort(self, s: impl Into<String>) -> Self {
        self.opt("group.sort", s.into())
    }

    /// `group.ngroups`: count the groups (exact across shards only when each group lives
    /// on one shard). Default false.
    pub fn ngroups(self, yes: bool) -> Self {
        self.opt("group.ngroups", yes)
    }

    /// `group.main`: return the groups' documents as the plain `response` list. Default
    /// false.
    pub fn main(self, yes: bool) -> Self {
        self.opt("group.main", yes)
    }

    /// `group.format=simple`: each command's documents in one flat `doclist`. Default
    /// false (`grouped`).
    pub fn simple(self, yes: bool) -> Self {
        self.opt("group.format", if yes { "simple" } else { "grouped" })
    }

    /// `group.facet`: facet counts per group instead of per document. Default false.
    pub fn facet(self, yes: bool) -> Self {
        self.opt("group.facet", yes)
    }

    /// The parameters (`group=true` included).
    pub fn params(&self) -> Vec<(String, String)> {
        let mut p = vec![("group".to_string(), "true".to_string())];
        p.extend(self.params.iter().cloned());
        p
    }
}

impl Select {
    /// Adds result grouping; the groups come back in [`crate::SelectResponse::grouped`]
    /// (or in `response` with [`Group::main`]).
    pub fn group(mut self, g: Group) -> Self {
        for (k, v) in g.params() {
            self.push(k, v);
        }
        self
    }
}
