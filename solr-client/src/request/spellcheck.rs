//! Spell checking (Solr reference: "Spell Checking"): suggestions for misspelled query
//! words, read back from [`crate::response::Spellcheck`]. The project's configset
//! registers a `DirectSolrSpellChecker` on `title` and `body` for `/select`.

use super::Select;

/// Spellcheck options, added with [`Select::spellcheck`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[must_use]
pub struct Spellcheck {
    opts: Vec<(String, String)>,
}

impl Spellcheck {
    /// Checks the main query `q`.
    pub fn new() -> Self {
        Spellcheck::default()
    }

    fn opt(mut self, name: &str, value: impl ToString) -> Self {
        self.opts.push((name.to_string(), value.to_string()));
        self
    }

    /// `spellcheck.q`: checks this text instead of `q`.
    pub fn q(self, q: impl Into<String>) -> Self {
        self.opt("spellcheck.q", q.into())
    }

    /// `spellcheck.dictionary`. Default: the configset's `default`.
    pub fn dictionary(self, name: impl Into<String>) -> Self {
        self.opt("spellcheck.dictionary", name.into())
    }

    /// `spellcheck.count`: suggestions per word. Default: Solr's (1).
    pub fn count(self, n: u32) -> Self {
        self.opt("spellcheck.count", n)
    }

    /// `spellcheck.extendedResults`: frequencies and `correctlySpelled`. Default false.
    pub fn extended_results(self, yes: bool) -> Self {
        self.opt("spellcheck.extendedResults", yes)
    }

    /// `spellcheck.collate`: a corrected query. Default false.
    pub fn collate(self, yes: bool) -> Self {
        self.opt("spellcheck.collate", yes)
    }

    /// `spellcheck.onlyMorePopular`: only suggest words more frequent than the original.
    /// Default false.
    pub fn only_more_popular(self, yes: bool) -> Self {
        self.opt("spellcheck.onlyMorePopular", yes)
    }

    /// The parameters (`spellcheck=true` included).
    pub fn params(&self) -> Vec<(String, String)> {
        let mut p = vec![("spellcheck".to_string(), "true".to_string())];
        p.extend(self.opts.iter().cloned());
        p
    }
}

impl Select {
    /// Adds spell checking; the suggestions come back in
    /// [`crate::SelectResponse::spellcheck`].
    pub fn spellcheck(mut self, s: Spellcheck) -> Self {
        for (k, v) in s.params() {
            self.push(k, v);
        }
        self
    }
}
