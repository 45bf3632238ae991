//! A refreshing bearer token from a Python callable: `fn() -> str` (renewed after a 401) or
//! `fn() -> (str, seconds_valid)` (renewed ahead of its expiry). The callable runs on a
//! runtime thread with the GIL taken for the call; an exception it raises fails the
//! request with an auth error carrying its message.

use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;
use solr_client::auth::{AuthProvider, Refreshing, Token, TokenError};

/// The provider over `fetch`.
pub fn provider(fetch: Py<PyAny>) -> Arc<dyn AuthProvider> {
    let fetch = Arc::new(fetch);
    Arc::new(Refreshing::new(move || {
        let fetch = fetch.clone();
        async move { Python::with_gil(|py| call(py, &fetch)) }
    }))
}

/// Calls the callable and reads its answer.
fn call(py: Python<'_>, fetch: &Py<PyAny>) -> Result<Token, TokenError> {
    let answer = fetch.call0(py).map_err(|e| e.to_string())?;
    let answer = answer.bind(py);
    if let Ok(token) = answer.extract::<String>() {
        return Ok(Token::without_expiry(token));
    }
    let (token, secs) = answer
        .extract::<(String, f64)>()
        .map_err(|_| "the token callable must return str or (str, seconds_valid)".to_string())?;
    Ok(Token::new(token, Duration::from_secs_f64(secs.max(0.0))))
}
