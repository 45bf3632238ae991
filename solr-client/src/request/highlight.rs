//! Highlighting (Solr reference: "Highlighting"): snippets of the matching text per
//! document and field, read back from [`crate::response::Highlighting`].

use super::Select;

/// The highlighter implementation (`hl.method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HlMethod {
    /// The Unified Highlighter, Solr 9's default and the fastest.
    #[default]
    Unified,
    /// The Original Highlighter.
    Original,
    /// The FastVector Highlighter (needs term vectors).
    FastVector,
}

impl HlMethod {
    fn as_str(self) -> &'static str {
        match self {
            HlMethod::Unified => "unified",
            HlMethod::Original => "original",
            HlMethod::FastVector => "fastVector",
        }
    }
}

/// Highlighting options, added with [`Select::highlight`].
///
/// ```
/// use solr_client::{request::Highlight, Select};
/// let s = Select::new("body:solr").highlight(
///     Highlight::fields(["title", "body"])
///         .snippets(2)
///         .tags("<em>", "</em>")
///         .field_fragsize("body", 60),
/// );
/// assert!(s.params().contains(&("f.body.hl.fragsize".into(), "60".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Highlight {
    fields: Vec<String>,
    method: HlMethod,
    opts: Vec<(String, String)>,
}

impl Highlight {
    /// Highlights `fields` (`hl.fl`; `*` for every stored text field), with the unified
    /// highlighter.
    pub fn fields<I, S>(fields: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Highlight {
            fields: fields.into_iter().map(Into::into).collect(),
            method: HlMethod::Unified,
            opts: Vec::new(),
        }
    }

    /// `hl.method`. Default [`HlMethod::Unified`].
    pub fn method(mut self, m: HlMethod) -> Self {
        self.method = m;
        self
    }

    fn opt(mut self, name: String, value: impl ToString) -> Self {
        self.opts.push((name, value.to_string()));
        self
    }

    /// `hl.snippets`: snippets per field. Default: Solr's (1).
    pub fn snippets(self, n: u32) -> Self {
        self.opt("hl.snippets".into(), n)
    }

    /// `hl.fragsize`: characters per snippet (0: the whole field). Default: Solr's (100).
    pub fn fragsize(self, n: u32) -> Self {
        self.opt("hl.fragsize".into(), n)
    }

    /// `hl.tag.pre` / `hl.tag.post`: the markup around each match. Default `<em>`/`</em>`.
    pub fn tags(self, pre: impl Into<String>, post: impl Into<String>) -> Self {
        self.opt("hl.tag.pre".into(), pre.into())
            .opt("hl.tag.post".into(), post.into())
    }

    /// `hl.q`: highlight the matches of this query instead of `q`.
    pub fn query(self, q: impl Into<String>) -> Self {
        self.opt("hl.q".into(), q.into())
    }

    /// `hl.requireFieldMatch`: highlight a field only for query terms on that field.
    /// Default false.
    pub fn require_field_match(self, yes: bool) -> Self {
        self.opt("hl.requireFieldMatch".into(), yes)
    }

    /// `f.<field>.hl.snippets`: snippets for one field.
    pub fn field_snippets(self, field: &str, n: u32) -> Self {
        self.opt(format!("f.{field}.hl.snippets"), n)
    }

    /// `f.<field>.hl.fragsize`: snippet size for one field.
    pub fn field_fragsize(self, field: &str, n: u32) -> Self {
        self.opt(format!("f.{field}.hl.fragsize"), n)
    }

    /// Any other highlighting parameter (`hl.bs.type`, `f.title.hl.alternateField`...).
    pub fn param(self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.opt(name.into(), value.into())
    }

    /// The parameters (`hl=true` included).
    pub fn params(&self) -> Vec<(String, String)> {
        let mut p = vec![
            ("hl".to_string(), "true".to_string()),
            ("hl.fl".to_string(), self.fields.join(",")),
            ("hl.method".to_string(), self.method.as_str().to_string()),
        ];
        p.extend(self.opts.iter().cloned());
        p
    }
}

impl Select {
    /// Adds highlighting; the snippets come back in
    /// [`crate::SelectResponse::highlighting`].
    pub fn highlight(mut self, h: Highlight) -> Self {
        for (k, v) in h.params() {
            self.push(k, v);
        }
        self
    }
}
