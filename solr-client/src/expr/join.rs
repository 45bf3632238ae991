//! `innerJoin` and `hashJoin`: tuples of two streams that agree on the join fields.

use super::func::{Atom, Func};
use super::on::On;

/// `innerJoin(left, right, on="...")`: both streams must be sorted on the join fields.
pub fn inner_join(left: impl Into<Func>, right: impl Into<Func>, on: On) -> Func {
    Func::new("innerJoin")
        .arg(Atom::Func(left.into()))
        .arg(Atom::Func(right.into()))
        .named("on", Atom::On(on))
}

/// `hashJoin(left, hashed=right, on="...")`: `hashed` is read into memory first; neither
/// stream needs an order.
pub fn hash_join(left: impl Into<Func>, hashed: impl Into<Func>, on: On) -> Func {
    Func::new("hashJoin")
        .arg(Atom::Func(left.into()))
        .named("hashed", Atom::Func(hashed.into()))
        .named("on", Atom::On(on))
}
