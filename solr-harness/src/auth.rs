//! HTTP basic auth for the benchmark commands, taken from the environment only:
//! `SOLR_BASIC_AUTH=user:password`. Never from a flag (shell history, `ps`) and never from a
//! URL (`--url` with user info is refused, since URLs are written into every report). The
//! client sends it as an `Authorization` header marked sensitive; no report, JSON, CSV, log
//! line or error of a run contains the password or the header's value (e2e
//! `security::a_run_with_basic_auth_writes_no_secret`).

use anyhow::{bail, Result};
use solr_client::{Credentials, SolrClientBuilder};

/// The environment variable holding `user:password`.
pub const ENV: &str = "SOLR_BASIC_AUTH";

/// The credentials of [`ENV`], if set. A value without `:` or with an empty user is refused
/// with a message that does not repeat it.
pub fn from_env() -> Result<Option<Credentials>> {
    let Ok(raw) = std::env::var(ENV) else {
        return Ok(None);
    };
    if raw.is_empty() {
        return Ok(None);
    }
    match raw.split_once(':') {
        Some((user, password)) if !user.is_empty() => Ok(Some(Credentials::basic(user, password))),
        _ => bail!("{ENV} must be user:password (the value is not shown)"),
    }
}

/// `builder` with the credentials of [`ENV`] when set.
pub fn apply(builder: SolrClientBuilder) -> Result<SolrClientBuilder> {
    Ok(match from_env()? {
        Some(c) => builder.credentials(c),
        None => builder,
    })
}
