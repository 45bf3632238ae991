//! `/select`: q, fq, fl, sort, rows, start and any extra parameter.

/// A search request. Built fluently; every setter says its default.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Select {
    pub(crate) q: String,
    pub(crate) fq: Vec<String>,
    pub(crate) fl: Option<String>,
    pub(crate) sort: Option<String>,
    pub(crate) rows: Option<u64>,
    pub(crate) start: Option<u64>,
    pub(crate) extra: Vec<(String, String)>,
    pub(crate) post: bool,
}

impl Select {
    /// A search for `q` (Solr syntax; use [`crate::escape_query`] for user text).
    pub fn new(q: impl Into<String>) -> Self {
        Select {
            q: q.into(),
            fq: Vec::new(),
            fl: None,
            sort: None,
            rows: None,
            start: None,
            extra: Vec::new(),
            post: false,
        }
    }

    /// Adds a filter query. Default: none.
    pub fn fq(mut self, fq: impl Into<String>) -> Self {
        self.fq.push(fq.into());
        self
    }

    /// Fields to return. Default: Solr's (all stored fields).
    pub fn fl(mut self, fl: impl Into<String>) -> Self {
        self.fl = Some(fl.into());
        self
    }

    /// Sort clause, e.g. `price asc, id asc`. Default: score.
    pub fn sort(mut self, sort: impl Into<String>) -> Self {
        self.sort = Some(sort.into());
        self
    }

    /// Page size. Default: Solr's (10).
    pub fn rows(mut self, rows: u64) -> Self {
        self.rows = Some(rows);
        self
    }

    /// Offset. Default 0.
    pub fn start(mut self, start: u64) -> Self {
        self.start = Some(start);
        self
    }

    /// Any other parameter (repeatable).
    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra.push((name.into(), value.into()));
        self
    }

    /// Sends the parameters as a form-encoded POST body instead of the URL (long queries
    /// such as a 768-float kNN vector). Default: GET.
    pub fn post(mut self, yes: bool) -> Self {
        self.post = yes;
        self
    }

    /// The request parameters in order, `wt=json` included.
    pub fn params(&self) -> Vec<(String, String)> {
        let mut p = vec![("q".to_string(), self.q.clone())];
        p.extend(self.fq.iter().map(|f| ("fq".to_string(), f.clone())));
        if let Some(fl) = &self.fl {
            p.push(("fl".into(), fl.clone()));
        }
        if let Some(s) = &self.sort {
            p.push(("sort".into(), s.clone()));
        }
        if let Some(r) = self.rows {
            p.push(("rows".into(), r.to_string()));
        }
        if let Some(s) = self.start {
            p.push(("start".into(), s.to_string()));
        }
        p.extend(self.extra.iter().cloned());
        p.push(("wt".into(), "json".into()));
        p
    }
}
