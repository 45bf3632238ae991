//! The builder's URL input: a node base URL as the caller typed it, and its parsing.

use crate::error::{Error, Result};
use crate::redact::{node_label, redact, RedactedDebug};

/// A URL as the caller typed it, kept for parsing later: its Debug output is redacted (so a
/// builder's Debug never shows a password, even before the URL is refused).
#[derive(Clone)]
pub(crate) struct UrlText(pub(crate) String);

impl std::fmt::Debug for UrlText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        RedactedDebug(&self.0).fmt(f)
    }
}

/// Parses a node base URL the way every part of the client accepts one: http or https, and
/// no user info (credentials in a URL leak into logs, errors and reports; they go to
/// [`SolrClientBuilder::credentials`](crate::SolrClientBuilder::credentials)). The errors
/// never echo a password.
pub(crate) fn parse_node_url(raw: &str) -> Result<url::Url> {
    let url = url::Url::parse(raw.trim_end_matches('/')).map_err(|e| {
        let shown = redact(raw);
        if shown.contains('@') {
            Error::config(format!(
                "bad node URL (not shown: it contains '@', maybe credentials): {e}"
            ))
        } else {
            Error::config(format!("bad node URL {shown:?}: {e}"))
        }
    })?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Error::config(format!(
            "node URL {} carries user info (user:password@), which is not accepted: it would \
             leak into logs, errors and reports; give the URL without it and the credentials \
             with .credentials(Credentials::basic(user, password))",
            node_label(&url)
        )));
    }
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Error::config(format!(
            "node URL must be http or https: {url}"
        )));
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWORD: &str = "s3cret-P4ss";
    const URL: &str = "http://solr:s3cret-P4ss@solr.example:8983/solr";

    #[test]
    fn node_urls_with_user_info_are_refused_without_echo() {
        for raw in [
            URL,
            "ftp://solr:s3cret-P4ss@solr.example/solr",
            "http://solr:s3cret-P4ss@solr.example:notaport/solr",
            "http://solr:s3cret-P4ss@solr.example:8983/solr/",
        ] {
            let err = parse_node_url(raw).expect_err(raw);
            assert!(matches!(err, Error::Config(_)), "{raw}");
            for shown in [err.to_string(), format!("{err:?}")] {
                assert!(!shown.contains(PASSWORD), "{shown}");
            }
        }
        let msg = parse_node_url(URL).expect_err("userinfo").to_string();
        assert!(msg.contains("http://solr.example:8983/solr"), "{msg}");
        assert!(msg.contains(".credentials("), "{msg}");
        let msg = parse_node_url("ftp://solr.example/solr")
            .expect_err("ftp")
            .to_string();
        assert!(msg.contains("http or https"), "{msg}");
        assert!(parse_node_url("https://solr.example:8983/solr/").is_ok());
    }
}
