//! Sort clauses: the `sort` of a `search` or `top`, the `on` of a `merge`.

use std::fmt;

use super::text::check_name;
use crate::error::Result;

/// Ascending or descending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// `asc`.
    Asc,
    /// `desc`.
    Desc,
}

impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Order::Asc => "asc",
            Order::Desc => "desc",
        })
    }
}

/// One sort clause: a field and its order, written `field asc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sort {
    field: String,
    order: Order,
}

impl Sort {
    /// `field asc`.
    pub fn asc(field: impl Into<String>) -> Self {
        Sort {
            field: field.into(),
            order: Order::Asc,
        }
    }

    /// `field desc`.
    pub fn desc(field: impl Into<String>) -> Self {
        Sort {
            field: field.into(),
            order: Order::Desc,
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        check_name("sort field", &self.field)
    }
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.field, self.order)
    }
}
