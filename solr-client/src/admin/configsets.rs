//! The Configsets API (`/admin/configs`, SolrCloud): upload a directory or a zip, list,
//! delete.

use std::path::Path;

use bytes::Bytes;
use http::Method;
use serde::{Deserialize, Serialize};

use super::{check_name, timed, AdminResponse, Call};
use crate::client::SolrClient;
use crate::error::{Error, Result};
use crate::timing::Timing;
use crate::types::ResponseHeader;

const PATH: &str = "admin/configs";

/// The Configsets API. Borrowed from [`SolrClient::configsets`].
///
/// A configset uploaded without authentication is *untrusted* in Solr 9: a collection can
/// use it unless it loads code (`<lib>` directives, some classes), which Solr then refuses
/// with its own message.
///
/// ```no_run
/// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
/// let configsets = client.configsets();
/// configsets.upload_dir("books_conf", "conf/books", false).await?;
/// assert!(configsets.list().await?.configsets.iter().any(|c| c == "books_conf"));
/// configsets.delete("books_conf").await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Configsets<'a> {
    client: &'a SolrClient,
}

impl<'a> Configsets<'a> {
    pub(crate) fn new(client: &'a SolrClient) -> Self {
        Configsets { client }
    }

    /// `LIST`: every configset's name.
    pub async fn list(&self) -> Result<ConfigsetList> {
        Call::get(PATH, "configset list")
            .param("action", "LIST")
            .send(self.client)
            .await
    }

    /// `UPLOAD` of a directory's files (zipped in memory, see
    /// [`zip_directory`](super::zip_directory)) as configset `name`. With `overwrite`, an
    /// existing configset of that name is replaced (and files it had that the upload lacks
    /// are removed); without it, an existing one is an error from Solr.
    pub async fn upload_dir(
        &self,
        name: &str,
        dir: impl AsRef<Path>,
        overwrite: bool,
    ) -> Result<AdminResponse> {
        check_name("configset", name)?;
        let zip = super::zip::zip_directory(dir)?;
        self.upload_zip(name, zip, overwrite).await
    }

    /// `UPLOAD` of a ready zip archive (the configset's files at its root) as configset
    /// `name`; `overwrite` as in [`Self::upload_dir`].
    pub async fn upload_zip(
        &self,
        name: &str,
        zip: impl Into<Bytes>,
        overwrite: bool,
    ) -> Result<AdminResponse> {
        check_name("configset", name)?;
        let zip = zip.into();
        if zip.len() < 22 || !zip.starts_with(b"PK") {
            return Err(Error::invalid_input(format!(
                "configset {name:?}: the upload is not a zip archive ({} bytes)",
                zip.len()
            )));
        }
        let mut call = Call::get(PATH, "configset upload")
            .param("action", "UPLOAD")
            .param("name", name);
        if overwrite {
            call = call.param("overwrite", "true").param("cleanup", "true");
        }
        call.method = Method::POST;
        call.body = Some(("application/octet-stream", zip));
        call.send(self.client).await
    }

    /// `DELETE`: removes a configset (Solr refuses while a collection uses it).
    pub async fn delete(&self, name: &str) -> Result<AdminResponse> {
        check_name("configset", name)?;
        Call::get(PATH, "configset delete")
            .param("action", "DELETE")
            .param("name", name)
            .send(self.client)
            .await
    }
}

/// The answer of `LIST`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ConfigsetList {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// Every configset's name.
    #[serde(rename = "configSets", default)]
    pub configsets: Vec<String>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

timed!(ConfigsetList);

#[cfg(test)]
mod tests {
    use crate::{Error, SolrClient};

    /// Nothing listens on port 9 (discard): any request sent would be a connect error, so an
    /// `InvalidInput` proves the call was refused before sending.
    fn unreachable() -> SolrClient {
        SolrClient::builder("http://127.0.0.1:9/solr")
            .collection("bench")
            .build()
            .expect("client")
    }

    #[tokio::test]
    async fn bad_uploads_and_names_are_refused_before_sending() {
        let c = unreachable();
        // Solr 9.10 answers an empty upload with a 400 yet leaves an empty configset of
        // that name behind: the client never sends one.
        for zip in [Vec::new(), b"not a zip at all, just text".to_vec()] {
            let e = c
                .configsets()
                .upload_zip("x", zip, false)
                .await
                .expect_err("refused");
            assert!(matches!(e, Error::InvalidInput(_)), "{e}");
        }
        let e = c.configsets().delete("a/b").await.expect_err("refused");
        assert!(matches!(e, Error::InvalidInput(_)), "{e}");
        let e = c.collections().delete("").await.expect_err("refused");
        assert!(matches!(e, Error::InvalidInput(_)), "{e}");
        let e = c
            .collections()
            .create_alias("a", &[])
            .await
            .expect_err("refused");
        assert!(matches!(e, Error::InvalidInput(_)), "{e}");
        let e = c.cores().reload("a b").await.expect_err("refused");
        assert!(matches!(e, Error::InvalidInput(_)), "{e}");
    }
}
