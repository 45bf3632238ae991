//! `select`: keeps (and renames) fields of each tuple.

use super::func::{Atom, Func};

/// One field `select` keeps: as it is, or renamed (`a_s as fieldA`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    field: String,
    rename: Option<String>,
}

impl Selection {
    /// Keeps `field` under its name.
    pub fn field(field: impl Into<String>) -> Self {
        Selection {
            field: field.into(),
            rename: None,
        }
    }

    /// Keeps `field` under the name `to`.
    pub fn rename(field: impl Into<String>, to: impl Into<String>) -> Self {
        Selection {
            field: field.into(),
            rename: Some(to.into()),
        }
    }
}

/// `select(stream, field, field as name, ...)`.
pub fn select(inner: impl Into<Func>, fields: impl IntoIterator<Item = Selection>) -> Func {
    fields
        .into_iter()
        .fold(Func::new("select").arg(Atom::Func(inner.into())), |f, s| {
            f.arg(Atom::Rename(s.field, s.rename))
        })
}
