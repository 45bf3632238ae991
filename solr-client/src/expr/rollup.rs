//! `rollup`: metrics per group of consecutive tuples sharing the `over` fields.

use super::func::{Atom, Func};
use super::metric::Metric;
use crate::error::Result;
use crate::expr::Expr;

/// The `rollup` decorator: `rollup(stream, over="...", metric, ...)`. The inner stream
/// must be sorted on the `over` fields.
#[derive(Debug, Clone)]
pub struct Rollup(Func);

/// A `rollup` of `inner` grouped by `over`.
pub fn rollup<S: Into<String>>(
    inner: impl Into<Func>,
    over: impl IntoIterator<Item = S>,
) -> Rollup {
    let names = over.into_iter().map(Into::into).collect();
    Rollup(
        Func::new("rollup")
            .arg(Atom::Func(inner.into()))
            .named("over", Atom::Names(names)),
    )
}

impl Rollup {
    /// A metric computed per group.
    pub fn metric(self, m: Metric) -> Self {
        Rollup(self.0.arg(Atom::Metric(m)))
    }

    /// Checks and writes the expression (see [`Func::build`]).
    pub fn build(self) -> Result<Expr> {
        self.0.build()
    }
}

impl From<Rollup> for Func {
    fn from(r: Rollup) -> Func {
        r.0
    }
}
