//! Classic faceting (Solr reference: "Faceting"): field, query, range, pivot and interval
//! facets, read back from [`crate::response::FacetCounts`].
//!
//! Per-field options are sent as `f.<field>.facet.*`, so two facets of the same field in
//! one request share them.

use super::Select;

/// How field facet values are ordered (`facet.sort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FacetSort {
    /// By count, highest first (Solr's default when `limit > 0`).
    Count,
    /// By value, in index order.
    Index,
}

impl FacetSort {
    fn as_str(self) -> &'static str {
        match self {
            FacetSort::Count => "count",
            FacetSort::Index => "index",
        }
    }
}

/// What a range facet counts besides its gaps (`facet.range.other`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeOther {
    /// Documents below `start`.
    Before,
    /// Documents at or above `end`.
    After,
    /// Documents between `start` and `end`.
    Between,
    /// All three.
    All,
}

impl RangeOther {
    fn as_str(self) -> &'static str {
        match self {
            RangeOther::Before => "before",
            RangeOther::After => "after",
            RangeOther::Between => "between",
            RangeOther::All => "all",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Field(String),
    Query(String),
    Range {
        field: String,
        start: String,
        end: String,
        gap: String,
    },
    Pivot(Vec<String>),
    Interval {
        field: String,
        sets: Vec<String>,
    },
}

/// One classic facet. Built with [`Facet::field`], [`Facet::query`], [`Facet::range`],
/// [`Facet::pivot`] or [`Facet::interval`], added with [`Select::facet`].
///
/// ```
/// use solr_client::{request::Facet, Select};
/// let s = Select::new("*:*")
///     .facet(Facet::field("category").mincount(1).limit(10))
///     .facet(Facet::query("price:[0 TO 10]"));
/// let p = s.params();
/// assert!(p.contains(&("facet.field".into(), "category".into())));
/// assert!(p.contains(&("f.category.facet.limit".into(), "10".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Facet {
    kind: Kind,
    key: Option<String>,
    exclude: Vec<String>,
    opts: Vec<(String, String)>,
}

impl Facet {
    fn of(kind: Kind) -> Self {
        Facet {
            kind,
            key: None,
            exclude: Vec::new(),
            opts: Vec::new(),
        }
    }

    /// `facet.field`: counts per term of `field`.
    pub fn field(field: impl Into<String>) -> Self {
        Facet::of(Kind::Field(field.into()))
    }

    /// `facet.query`: the count of documents matching `query`.
    pub fn query(query: impl Into<String>) -> Self {
        Facet::of(Kind::Query(query.into()))
    }

    /// `facet.range`: counts per `gap` from `start` to `end` (numbers, or dates with date
    /// math such as `NOW/DAY-7DAYS` and `+1DAY`).
    pub fn range(
        field: impl Into<String>,
        start: impl ToString,
        end: impl ToString,
        gap: impl ToString,
    ) -> Self {
        Facet::of(Kind::Range {
            field: field.into(),
            start: start.to_string(),
            end: end.to_string(),
            gap: gap.to_string(),
        })
    }

    /// `facet.pivot`: a decision tree over `fields`, in order.
    pub fn pivot<S: AsRef<str>>(fields: &[S]) -> Self {
        Facet::of(Kind::Pivot(
            fields.iter().map(|f| f.as_ref().to_string()).collect(),
        ))
    }

    /// `facet.interval`: counts per interval of `field` (`[0,10)`, `(*,5]`...).
    pub fn interval<S: AsRef<str>>(field: impl Into<String>, sets: &[S]) -> Self {
        Facet::of(Kind::Interval {
            field: field.into(),
            sets: sets.iter().map(|s| s.as_ref().to_string()).collect(),
        })
    }

    /// The name the result is listed under (`{!key=...}`). Default: the field or query.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// Leaves the filter queries tagged `tag` out of this facet's counts (`{!ex=tag}`;
    /// see [`Select::fq_tagged`]). Repeatable.
    pub fn exclude(mut self, tag: impl Into<String>) -> Self {
        self.exclude.push(tag.into());
        self
    }

    fn opt(mut self, name: &str, value: impl ToString) -> Self {
        self.opts.push((name.to_string(), value.to_string()));
        self
    }

    /// `facet.mincount` (field, range, pivot): leave out values with fewer documents.
    /// Default: Solr's (0; 1 for pivots).
    pub fn mincount(self, n: u64) -> Self {
        self.opt("mincount", n)
    }

    /// `facet.limit` (field, pivot): most values returned; negative for all. Default:
    /// Solr's (100).
    pub fn limit(self, n: i64) -> Self {
        self.opt("limit", n)
    }

    /// `facet.offset` (field, pivot): values to skip, for paging. Default 0.
    pub fn offset(self, n: u64) -> Self {
        self.opt("offset", n)
    }

    /// `facet.sort` (field, pivot). Default: Solr's (count).
    pub fn sort(self, s: FacetSort) -> Self {
        self.opt("sort", s.as_str())
    }

    /// `facet.prefix` (field): only values starting with `p`. Default none.
    pub fn prefix(self, p: impl Into<String>) -> Self {
        self.opt("prefix", p.into())
    }

    /// `facet.missing` (field, pivot): also count documents without a value (listed under
    /// a null name). Default false.
    pub fn missing(self, yes: bool) -> Self {
        self.opt("missing", yes)
    }

    /// `facet.range.other` (range). Default none.
    pub fn other(self, o: RangeOther) -> Self {
        self.opt("range.other", o.as_str())
    }

    /// `facet.range.hardend` (range): the last gap ends at `end` exactly. Default false.
    pub fn hardend(self, yes: bool) -> Self {
        self.opt("range.hardend", yes)
    }

    fn local_params(&self) -> String {
        let mut lp = Vec::new();
        if !self.exclude.is_empty() {
            lp.push(format!("ex={}", self.exclude.join(",")));
        }
        if let Some(k) = &self.key {
            lp.push(format!("key={k}"));
        }
        if lp.is_empty() {
            String::new()
        } else {
            format!("{{!{}}}", lp.join(" "))
        }
    }

    /// The parameters of this facet (without `facet=true`).
    pub fn params(&self) -> Vec<(String, String)> {
        let lp = self.local_params();
        let mut p = Vec::new();
        let per_field = |p: &mut Vec<(String, String)>, field: &str| {
            for (k, v) in &self.opts {
                p.push((format!("f.{field}.facet.{k}"), v.clone()));
            }
        };
        match &self.kind {
            Kind::Field(f) => {
                p.push(("facet.field".into(), format!("{lp}{f}")));
                per_field(&mut p, f);
            }
            Kind::Query(q) => p.push(("facet.query".into(), format!("{lp}{q}"))),
            Kind::Range {
                field,
                start,
                end,
                gap,
            } => {
                p.push(("facet.range".into(), format!("{lp}{field}")));
                p.push((format!("f.{field}.facet.range.start"), start.clone()));
                p.push((format!("f.{field}.facet.range.end"), end.clone()));
                p.push((format!("f.{field}.facet.range.gap"), gap.clone()));
                per_field(&mut p, field);
            }
            Kind::Pivot(fields) => {
                p.push(("facet.pivot".into(), format!("{lp}{}", fields.join(","))));
                for (k, v) in &self.opts {
                    if k == "mincount" {
                        p.push(("facet.pivot.mincount".into(), v.clone()));
                    } else {
                        for f in fields {
                            p.push((format!("f.{f}.facet.{k}"), v.clone()));
                        }
                    }
                }
            }
            Kind::Interval { field, sets } => {
                p.push(("facet.interval".into(), format!("{lp}{field}")));
                for s in sets {
                    p.push((format!("f.{field}.facet.interval.set"), s.clone()));
                }
            }
        }
        p
    }
}

impl Select {
    /// Adds a classic facet (`facet=true` plus its parameters); repeatable. The counts come
    /// back in [`crate::SelectResponse::facet_counts`].
    pub fn facet(mut self, f: Facet) -> Self {
        self.enable("facet");
        for (k, v) in f.params() {
            self.push(k, v);
        }
        self
    }
}
