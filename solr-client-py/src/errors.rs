//! Rust errors as Python exceptions. The classes live in `solr_client.errors` (Python): a
//! `SolrError` base and one subclass per kind of [`solr_client::Error`], grouped (connect
//! failures, HTTP status answers...). This file only hands the error's fields to that module's
//! `_make`, which picks the class and sets the attributes (`kind`, `status`, `node`,
//! `solr_message`, `hint`, `report`).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use solr_client::Error;

/// A Python exception for `e`.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    match make(py, &e) {
        Ok(err) => err,
        Err(import) => PyRuntimeError::new_err(format!("{e} (and solr_client.errors: {import})")),
    }
}

/// Calls `solr_client.errors._make` with the error's fields.
fn make(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let (solr_message, hint) = details(e);
    let report = match e {
        Error::Update { report, .. } => Some(crate::batch::to_dict(py, report)?),
        _ => None,
    };
    let module = py.import("solr_client.errors")?;
    let exc = module.call_method1(
        "_make",
        (
            e.kind(),
            e.to_string(),
            e.status(),
            e.node().map(str::to_owned),
            solr_message,
            hint,
            report,
        ),
    )?;
    Ok(PyErr::from_value(exc))
}

/// Solr's own message (for an error answer) and the client's hint, when the error has them.
fn details(e: &Error) -> (Option<String>, Option<String>) {
    match e {
        Error::Solr { body, .. } => (Some(body.msg.clone()), None),
        Error::NotFound { hint, .. } | Error::Unauthorized { hint, .. } => {
            (None, Some(hint.to_string()))
        }
        _ => (None, None),
    }
}

/// A configuration error raised before any request (the same class as the Rust
/// `Error::Config`).
pub fn config(message: String) -> PyErr {
    Python::with_gil(|py| to_py(py, Error::Config(message.into())))
}
