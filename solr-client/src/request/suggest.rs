//! The suggester (Solr reference: "Suggester"): completions of a prefix from a dictionary,
//! at `/suggest`, read back from [`crate::response::SuggestSection`]. The project's
//! configset defines the dictionary `default` over the stored field `suggest_t`.

use super::Select;

/// A suggest request. Turn it into a [`Select`] on `/suggest` with [`Suggest::to_select`].
///
/// ```
/// use solr_client::request::Suggest;
/// let s = Suggest::new("sol").count(5).to_select();
/// assert_eq!(s.handler_path(), "suggest");
/// assert!(s.params().contains(&("suggest.q".into(), "sol".into())));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct Suggest {
    q: String,
    opts: Vec<(String, String)>,
}

impl Suggest {
    /// Suggestions for the text `q`.
    pub fn new(q: impl Into<String>) -> Self {
        Suggest {
            q: q.into(),
            opts: Vec::new(),
        }
    }

    fn opt(mut self, name: &str, value: impl ToString) -> Self {
        self.opts.push((name.to_string(), value.to_string()));
        self
    }

    /// `suggest.dictionary`: repeatable. Default: the handler's (`default`).
    pub fn dictionary(self, name: impl Into<String>) -> Self {
        self.opt("suggest.dictionary", name.into())
    }

    /// `suggest.count`: most suggestions. Default: Solr's (10).
    pub fn count(self, n: u32) -> Self {
        self.opt("suggest.count", n)
    }

    /// `suggest.build`: (re)builds the dictionary from the index first. Default false.
    pub fn build(self, yes: bool) -> Self {
        self.opt("suggest.build", yes)
    }

    /// `suggest.cfq`: a context filter (for suggesters with a `contextField`).
    pub fn context_filter(self, q: impl Into<String>) -> Self {
        self.opt("suggest.cfq", q.into())
    }

    /// The request: handler `suggest`, `suggest=true`, `suggest.q` and the options.
    pub fn to_select(&self) -> Select {
        let mut s = Select::new("").handler("suggest");
        s.q.clear();
        s.push("suggest", "true");
        s.push("suggest.q", self.q.clone());
        for (k, v) in &self.opts {
            s.push(k.clone(), v.clone());
        }
        s
    }
}
