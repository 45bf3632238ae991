//! The `on` of `innerJoin` and `hashJoin`: the fields both sides must agree on.

use std::fmt;

use super::text::check_name;
use crate::error::Result;

/// Join fields: `a` (the same name on both sides), `left=right`, or several, comma-joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct On {
    pairs: Vec<(String, Option<String>)>,
}

impl On {
    /// Joins on `field`, named so on both sides.
    pub fn field(field: impl Into<String>) -> Self {
        On {
            pairs: vec![(field.into(), None)],
        }
    }

    /// Joins the left stream's `left` field to the right stream's `right` field.
    pub fn pair(left: impl Into<String>, right: impl Into<String>) -> Self {
        On {
            pairs: vec![(left.into(), Some(right.into()))],
        }
    }

    /// These join fields and `other`'s: both must agree.
    pub fn and(mut self, other: On) -> Self {
        self.pairs.extend(other.pairs);
        self
    }

    pub(crate) fn check(&self) -> Result<()> {
        for (l, r) in &self.pairs {
            check_name("join field", l)?;
            if let Some(r) = r {
                check_name("join field", r)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for On {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (l, r)) in self.pairs.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            f.write_str(l)?;
            if let Some(r) = r {
                write!(f, "={r}")?;
            }
        }
        Ok(())
    }
}
