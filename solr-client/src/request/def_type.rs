//! Query parsers (Solr reference: "Query Syntax and Parsers"): the standard (lucene)
//! parser, DisMax and Extended DisMax with their query fields and boosts.

use super::Select;

/// The query parser of `q` (`defType`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefType {
    /// The standard query parser (`lucene`), Solr's default.
    Lucene,
    /// The DisMax parser with its options.
    Dismax(Dismax),
    /// The Extended DisMax parser with its options.
    Edismax(Dismax),
}

/// Options of the DisMax and eDisMax parsers.
///
/// ```
/// use solr_client::{request::{DefType, Dismax}, Select};
/// let s = Select::new("solr latency")
///     .def_type(DefType::Edismax(Dismax::new().qf("title^2 body").mm("1").tie(0.1)));
/// let p = s.params();
/// assert!(p.contains(&("defType".into(), "edismax".into())));
/// assert!(p.contains(&("qf".into(), "title^2 body".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[must_use]
pub struct Dismax {
    opts: Vec<(String, String)>,
}

impl Dismax {
    /// No option: Solr's defaults (`qf` from the handler's `df`).
    pub fn new() -> Self {
        Dismax::default()
    }

    fn opt(mut self, name: &str, value: impl ToString) -> Self {
        self.opts.push((name.to_string(), value.to_string()));
        self
    }

    /// `qf`: the fields searched, with boosts (`title^2 body`).
    pub fn qf(self, qf: impl Into<String>) -> Self {
        self.opt("qf", qf.into())
    }

    /// `pf`: phrase fields, boosting documents where the terms appear close together.
    pub fn pf(self, pf: impl Into<String>) -> Self {
        self.opt("pf", pf.into())
    }

    /// `mm`: minimum should match (`2`, `75%`, `2<75%`).
    pub fn mm(self, mm: impl Into<String>) -> Self {
        self.opt("mm", mm.into())
    }

    /// `tie`: tie breaker between fields (0 pure max, 1 sum).
    pub fn tie(self, tie: f64) -> Self {
        self.opt("tie", tie)
    }

    /// `bq`: a boost query (repeatable).
    pub fn bq(self, q: impl Into<String>) -> Self {
        self.opt("bq", q.into())
    }

    /// `bf`: an additive boost function (repeatable).
    pub fn bf(self, f: impl Into<String>) -> Self {
        self.opt("bf", f.into())
    }

    /// `boost` (eDisMax only): a multiplicative boost function.
    pub fn boost(self, f: impl Into<String>) -> Self {
        self.opt("boost", f.into())
    }

    /// `q.alt`: the query when `q` is empty.
    pub fn q_alt(self, q: impl Into<String>) -> Self {
        self.opt("q.alt", q.into())
    }
}

impl Select {
    /// Sets the query parser of `q` (`defType` and its options). Default: the standard
    /// parser.
    pub fn def_type(mut self, d: DefType) -> Self {
        let (name, opts) = match d {
            DefType::Lucene => ("lucene", Vec::new()),
            DefType::Dismax(o) => ("dismax", o.opts),
            DefType::Edismax(o) => ("edismax", o.opts),
        };
        self.push("defType", name);
        for (k, v) in opts {
            self.push(k, v);
        }
        self
    }
}
