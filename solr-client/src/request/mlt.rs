//! MoreLikeThis (Solr reference: "MoreLikeThis"), as the search component: for each hit,
//! the documents most like it, read back from [`crate::SelectResponse::more_like_this`].

use super::Select;

/// MoreLikeThis options, added with [`Select::more_like_this`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct MoreLikeThis {
    opts: Vec<(String, String)>,
}

impl MoreLikeThis {
    /// Similarity over the terms of `fields` (`mlt.fl`).
    pub fn fields<S: AsRef<str>>(fields: &[S]) -> Self {
        let fl: Vec<&str> = fields.iter().map(AsRef::as_ref).collect();
        MoreLikeThis {
            opts: vec![("mlt.fl".into(), fl.join(","))],
        }
    }

    fn opt(mut self, name: &str, value: impl ToString) -> Self {
        self.opts.push((name.to_string(), value.to_string()));
        self
    }

    /// `mlt.count`: similar documents per hit. Default: Solr's (5).
    pub fn count(self, n: u32) -> Self {
        self.opt("mlt.count", n)
    }

    /// `mlt.mintf`: ignore terms less frequent in the source document. Default: Solr's (2).
    pub fn min_tf(self, n: u32) -> Self {
        self.opt("mlt.mintf", n)
    }

    /// `mlt.mindf`: ignore terms in fewer documents. Default: Solr's (5).
    pub fn min_df(self, n: u32) -> Self {
        self.opt("mlt.mindf", n)
    }

    /// `mlt.minwl`: ignore shorter words. Default: none.
    pub fn min_word_len(self, n: u32) -> Self {
        self.opt("mlt.minwl", n)
    }

    /// `mlt.maxqt`: most query terms. Default: Solr's (25).
    pub fn max_query_terms(self, n: u32) -> Self {
        self.opt("mlt.maxqt", n)
    }

    /// `mlt.boost`: boost terms by their score. Default false.
    pub fn boost(self, yes: bool) -> Self {
        self.opt("mlt.boost", yes)
    }

    /// The parameters (`mlt=true` included).
    pub fn params(&self) -> Vec<(String, String)> {
        let mut p = vec![("mlt".to_string(), "true".to_string())];
        p.extend(self.opts.iter().cloned());
        p
    }
}

impl Select {
    /// Adds the MoreLikeThis component.
    pub fn more_like_this(mut self, m: MoreLikeThis) -> Self {
        for (k, v) in m.params() {
            self.push(k, v);
        }
        self
    }
}
