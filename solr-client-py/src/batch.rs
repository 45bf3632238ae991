//! A [`BatchReport`] as a Python dict: `acknowledged`, `failed` (dicts of `id`, `message`,
//! `index`), `unknown`, `not_attempted`, `other_errors`, `sent`, `requests`.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use solr_client::BatchReport;

/// The report as a dict.
pub fn to_dict(py: Python<'_>, r: &BatchReport) -> PyResult<Py<PyDict>> {
    let d = PyDict::new(py);
    d.set_item("sent", r.sent)?;
    d.set_item("acknowledged", r.acknowledged)?;
    let failed = PyList::empty(py);
    for f in &r.failed {
        let one = PyDict::new(py);
        one.set_item("id", &f.id)?;
        one.set_item("message", &f.message)?;
        one.set_item("index", f.index)?;
        failed.append(one)?;
    }
    d.set_item("failed", failed)?;
    d.set_item("unknown", &r.unknown)?;
    d.set_item("not_attempted", &r.not_attempted)?;
    d.set_item("other_errors", &r.other_errors)?;
    d.set_item("requests", r.requests)?;
    Ok(d.unbind())
}
