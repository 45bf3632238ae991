//! `/select`: q, fq, fl, sort, rows, start and any extra parameter. The query components
//! (facets, highlighting, grouping, ...) add theirs through the methods their own modules
//! define on [`Select`].

use serde_json::{Map, Value};

/// The longest encoded query string a search sends in the URL of a GET: above it the
/// parameters go as a form-encoded POST body, whatever [`Select::post`] says. Solr's Jetty
/// refuses a request line and headers longer than 8 KiB (`solr.jetty.request.header.size`)
/// with 414 or 431; 4 KiB leaves room for the path, the headers and a proxy's additions.
pub const MAX_GET_QUERY_BYTES: usize = 4096;

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
    /// What the query components and overrides add (boxed: keeps `Select` small for the
    /// enums that carry one).
    pub(crate) more: Box<More>,
}

/// The parts of a [`Select`] set by query components and per-request overrides.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct More {
    /// Parameters added by query components, in the order they were added.
    pub(crate) components: Vec<(String, String)>,
    /// The `json.facet` object, by facet name.
    pub(crate) json_facet: Map<String, Value>,
    /// Request handler path under the collection (default `select`).
    pub(crate) handler: Option<String>,
    /// Collection overriding the client's for this request.
    pub(crate) collection: Option<String>,
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
            more: Box::default(),
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

    /// Adds a filter query tagged `tag` (`{!tag=tag}fq`), which a facet or stats field can
    /// leave out of its domain with `exclude(tag)` (multi-select faceting).
    pub fn fq_tagged(self, tag: &str, fq: impl AsRef<str>) -> Self {
        let fq = format!("{{!tag={tag}}}{}", fq.as_ref());
        self.fq(fq)
    }

    /// Sends this request to `collection` instead of the client's. Default: the client's.
    pub fn collection(mut self, collection: impl Into<String>) -> Self {
        self.more.collection = Some(collection.into());
        self
    }

    /// Sends this request to the handler at `path` under the collection (`terms`,
    /// `suggest`, ...). Default `select`.
    pub fn handler(mut self, path: impl Into<String>) -> Self {
        self.more.handler = Some(path.into());
        self
    }

    /// The handler path (`select` unless [`Self::handler`] set another).
    pub fn handler_path(&self) -> &str {
        self.more.handler.as_deref().unwrap_or("select")
    }

    /// Adds a component parameter.
    pub(crate) fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.more.components.push((name.into(), value.into()));
    }

    /// Adds `name=true` unless already there (a component's switch, e.g. `facet=true`).
    pub(crate) fn enable(&mut self, name: &str) {
        if !self.more.components.iter().any(|(k, _)| k == name) {
            self.push(name, "true");
        }
    }

    /// Any other parameter (repeatable).
    pub fn param(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra.push((name.into(), value.into()));
        self
    }

    /// Sends the parameters as a form-encoded POST body instead of the URL (long queries
    /// such as a 768-float kNN vector). Default: GET, and POST anyway when the encoded
    /// parameters exceed [`MAX_GET_QUERY_BYTES`].
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
        p.extend(self.more.components.iter().cloned());
        p.extend(self.extra.iter().cloned());
        if !self.more.json_facet.is_empty() {
            p.push((
                "json.facet".into(),
                Value::Object(self.more.json_facet.clone()).to_string(),
            ));
        }
        p.push(("wt".into(), "json".into()));
        p
    }
}
