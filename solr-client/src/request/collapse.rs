//! Collapse and expand (Solr reference: "Collapse and Expand Results"): one document per
//! field value (`fq={!collapse}`), and the collapsed documents per group (`expand=true`)
//! read back from [`crate::SelectResponse::expanded`].

use super::Select;

/// What the collapse does with documents without a value (`nullPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullPolicy {
    /// Drop them (Solr's default).
    Ignore,
    /// Collapse them into one group.
    Collapse,
    /// Keep each of them.
    Expand,
}

/// The collapsing filter `{!collapse field=...}`, added with [`Select::collapse`].
///
/// ```
/// use solr_client::{request::Collapse, Select};
/// let s = Select::new("*:*").collapse(Collapse::field("category").min("price"));
/// assert!(s.params().contains(&("fq".into(), "{!collapse field=category min=price}".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Collapse {
    local: Vec<String>,
}

impl Collapse {
    /// Keeps one document per value of `field` (the highest scoring unless
    /// [`Self::min`], [`Self::max`] or [`Self::sort`] say otherwise).
    pub fn field(field: impl AsRef<str>) -> Self {
        Collapse {
            local: vec![format!("field={}", field.as_ref())],
        }
    }

    /// Keeps the document with the smallest value of `expr` (a field or function).
    pub fn min(mut self, expr: impl AsRef<str>) -> Self {
        self.local.push(format!("min={}", expr.as_ref()));
        self
    }

    /// Keeps the document with the largest value of `expr`.
    pub fn max(mut self, expr: impl AsRef<str>) -> Self {
        self.local.push(format!("max={}", expr.as_ref()));
        self
    }

    /// Keeps the first document by `sort` (e.g. `price asc id asc`; quoted for you).
    pub fn sort(mut self, sort: impl AsRef<str>) -> Self {
        self.local.push(format!("sort='{}'", sort.as_ref()));
        self
    }

    /// `nullPolicy`. Default [`NullPolicy::Ignore`].
    pub fn null_policy(mut self, p: NullPolicy) -> Self {
        let v = match p {
            NullPolicy::Ignore => "ignore",
            NullPolicy::Collapse => "collapse",
            NullPolicy::Expand => "expand",
        };
        self.local.push(format!("nullPolicy={v}"));
        self
    }

    /// The filter query text.
    pub fn to_fq(&self) -> String {
        format!("{{!collapse {}}}", self.local.join(" "))
    }
}

/// The expand component's options, added with [`Select::expand`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[must_use]
pub struct Expand {
    opts: Vec<(String, String)>,
}

impl Expand {
    /// `expand=true` with Solr's defaults.
    pub fn new() -> Self {
        Expand::default()
    }

    /// `expand.rows`: documents per expanded group. Default: Solr's (5).
    pub fn rows(mut self, n: u64) -> Self {
        self.opts.push(("expand.rows".into(), n.to_string()));
        self
    }

    /// `expand.sort`: the order within an expanded group. Default: score.
    pub fn sort(mut self, s: impl Into<String>) -> Self {
        self.opts.push(("expand.sort".into(), s.into()));
        self
    }

    /// `expand.q`: the query of the expanded groups. Default: the main query.
    pub fn q(mut self, q: impl Into<String>) -> Self {
        self.opts.push(("expand.q".into(), q.into()));
        self
    }

    /// `expand.fq`: a filter of the expanded groups. Default: the main filters.
    pub fn fq(mut self, fq: impl Into<String>) -> Self {
        self.opts.push(("expand.fq".into(), fq.into()));
        self
    }

    /// The parameters (`expand=true` included).
    pub fn params(&self) -> Vec<(String, String)> {
        let mut p = vec![("expand".to_string(), "true".to_string())];
        p.extend(self.opts.iter().cloned());
        p
    }
}

impl Select {
    /// Adds a collapsing filter query.
    pub fn collapse(self, c: Collapse) -> Self {
        self.fq(c.to_fq())
    }

    /// Adds the expand component (after a [`Select::collapse`]); the groups come back in
    /// [`crate::SelectResponse::expanded`].
    pub fn expand(mut self, e: Expand) -> Self {
        for (k, v) in e.params() {
            self.push(k, v);
        }
        self
    }
}
