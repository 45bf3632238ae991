//! [`Func`], one function call of an expression under construction, and [`Expr`], the
//! checked expression text it builds into.

use std::fmt;

use super::metric::{BucketSort, Metric};
use super::on::On;
use super::sort::Sort;
use super::text::{check_name, check_text, write_quoted};
use crate::error::Result;

/// One function call of a streaming expression being built: `name(param, param, ...)`.
/// The typed builders ([`super::search`], [`super::top`], ...) make these; nothing is
/// checked until [`Func::build`], which refuses every name or text Solr would not read back
/// as given.
#[derive(Debug, Clone)]
pub struct Func {
    name: &'static str,
    params: Vec<Param>,
}

/// A parameter: positional, or `name=value`.
#[derive(Debug, Clone)]
struct Param {
    name: Option<String>,
    atom: Atom,
}

/// What a parameter holds, each written its own way.
#[derive(Debug, Clone)]
pub(crate) enum Atom {
    /// A collection or field name, bare.
    Name(String),
    /// Free text, quoted and escaped.
    Text(String),
    /// Names, comma-joined and quoted: `"id,a_i"`.
    Names(Vec<String>),
    /// Sort clauses, comma-joined and quoted: `"a_i asc,id desc"`.
    Sorts(Vec<Sort>),
    /// Bucket sorts, comma-joined and quoted.
    BucketSorts(Vec<BucketSort>),
    /// Join fields, quoted.
    On(On),
    /// A whole number, bare.
    Int(u64),
    /// A metric, bare: `sum(a_i)`.
    Metric(Metric),
    /// A field, optionally renamed, bare: `a_s as fieldA`.
    Rename(String, Option<String>),
    /// A nested stream, bare.
    Func(Func),
}

impl Func {
    pub(crate) fn new(name: &'static str) -> Self {
        Func {
            name,
            params: Vec::new(),
        }
    }

    /// Adds a positional parameter.
    pub(crate) fn arg(mut self, atom: Atom) -> Self {
        self.params.push(Param { name: None, atom });
        self
    }

    /// Adds `name=value`.
    pub(crate) fn named(mut self, name: impl Into<String>, atom: Atom) -> Self {
        self.params.push(Param {
            name: Some(name.into()),
            atom,
        });
        self
    }

    /// Checks every name and text (the first refused one is an
    /// [`Error::InvalidInput`](crate::Error::InvalidInput) naming it) and writes the
    /// expression.
    pub fn build(self) -> Result<Expr> {
        self.check()?;
        Ok(Expr {
            text: Rendered(&self).to_string(),
        })
    }

    fn check(&self) -> Result<()> {
        for p in &self.params {
            if let Some(n) = &p.name {
                check_name("parameter name", n)?;
            }
            p.atom.check()?;
        }
        Ok(())
    }
}

impl Atom {
    fn check(&self) -> Result<()> {
        match self {
            Atom::Name(n) => check_name("name", n),
            Atom::Text(t) => check_text("value", t),
            Atom::Names(ns) if ns.is_empty() => check_name("field list", ""),
            Atom::Names(ns) => ns.iter().try_for_each(|n| check_name("field", n)),
            Atom::Sorts(s) if s.is_empty() => check_name("sort", ""),
            Atom::Sorts(s) => s.iter().try_for_each(Sort::check),
            Atom::BucketSorts(s) if s.is_empty() => check_name("bucket sort", ""),
            Atom::BucketSorts(s) => s.iter().try_for_each(BucketSort::check),
            Atom::On(on) => on.check(),
            Atom::Int(_) => Ok(()),
            Atom::Metric(m) => m.check(),
            Atom::Rename(f, to) => {
                check_name("field", f)?;
                to.as_deref().map_or(Ok(()), |t| check_name("field", t))
            }
            Atom::Func(func) => func.check(),
        }
    }
}

/// Writes a checked [`Func`].
struct Rendered<'a>(&'a Func);

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.0.name)?;
        for (i, p) in self.0.params.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if let Some(n) = &p.name {
                write!(f, "{n}=")?;
            }
            write_atom(f, &p.atom)?;
        }
        f.write_str(")")
    }
}

fn write_atom(f: &mut fmt::Formatter<'_>, atom: &Atom) -> fmt::Result {
    match atom {
        Atom::Name(n) => f.write_str(n),
        Atom::Text(t) => write_quoted(f, t),
        Atom::Names(ns) => write!(f, "\"{}\"", ns.join(",")),
        Atom::Sorts(s) => write!(f, "\"{}\"", joined(s)),
        Atom::BucketSorts(s) => write!(f, "\"{}\"", joined(s)),
        Atom::On(on) => write!(f, "\"{on}\""),
        Atom::Int(n) => write!(f, "{n}"),
        Atom::Metric(m) => write!(f, "{m}"),
        Atom::Rename(field, None) => f.write_str(field),
        Atom::Rename(field, Some(to)) => write!(f, "{field} as {to}"),
        Atom::Func(func) => write!(f, "{}", Rendered(func)),
    }
}

fn joined<T: fmt::Display>(items: &[T]) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

/// A checked streaming expression: its [`Display`](fmt::Display) is the text to send as
/// `/stream`'s `expr` parameter, which Solr parses back into exactly the names and values
/// given to the builder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expr {
    text: String,
}

impl Expr {
    /// The expression text.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}
