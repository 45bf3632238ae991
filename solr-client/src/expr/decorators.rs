//! The decorators that take their whole shape at once: `top`, `unique`, `merge` and
//! `update`. Each returns a [`Func`]; [`Func::build`] checks and writes it.

use super::func::{Atom, Func};
use super::sort::Sort;

/// `top(n=n, stream, sort="...")`: the `n` first tuples of `inner` in `sort` order.
pub fn top(n: u64, inner: impl Into<Func>, sort: impl IntoIterator<Item = Sort>) -> Func {
    Func::new("top")
        .named("n", Atom::Int(n))
        .arg(Atom::Func(inner.into()))
        .named("sort", Atom::Sorts(sort.into_iter().collect()))
}

/// `unique(stream, over="...")`: the first tuple of each run sharing the `over` fields
/// (the inner stream must be sorted on them).
pub fn unique<S: Into<String>>(inner: impl Into<Func>, over: impl IntoIterator<Item = S>) -> Func {
    let names = over.into_iter().map(Into::into).collect();
    Func::new("unique")
        .arg(Atom::Func(inner.into()))
        .named("over", Atom::Names(names))
}

/// `merge(stream, stream, ..., on="...")`: streams sorted on `on`, merged in that order.
pub fn merge<F: Into<Func>>(
    streams: impl IntoIterator<Item = F>,
    on: impl IntoIterator<Item = Sort>,
) -> Func {
    let merged = streams
        .into_iter()
        .fold(Func::new("merge"), |m, s| m.arg(Atom::Func(s.into())));
    merged.named("on", Atom::Sorts(on.into_iter().collect()))
}

/// `update(collection, batchSize=n, stream)`: indexes every tuple of `inner` into
/// `collection`, `batch_size` at a time.
pub fn update(collection: impl Into<String>, batch_size: u64, inner: impl Into<Func>) -> Func {
    Func::new("update")
        .arg(Atom::Name(collection.into()))
        .named("batchSize", Atom::Int(batch_size))
        .arg(Atom::Func(inner.into()))
}
