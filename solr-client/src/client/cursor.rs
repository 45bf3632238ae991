//! Deep paging with Solr's `cursorMark`: [`SolrClient::cursor_as`] streams every document
//! matching a search, decoded into the caller's type, one page in memory at a time.

use futures::Stream;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};
use crate::request::Select;
use crate::response::{Document, SelectResponse};
use crate::SolrClient;

/// Where a cursor is: the client and request it pages with, the mark of the next page (none
/// after the last) and the documents of the current page not yet yielded. The stream moves
/// it from one document to the next: nothing is cloned per document.
struct Page<T> {
    client: SolrClient,
    base: Select,
    mark: Option<String>,
    buf: std::vec::IntoIter<T>,
}

impl SolrClient {
    /// Streams every document matching `select` with Solr's cursorMark, `page_rows` per
    /// request, holding one page in memory at a time; the documents are the untyped
    /// [`Document`]. See [`Self::cursor_as`].
    pub fn cursor(
        &self,
        select: Select,
        page_rows: u64,
    ) -> impl Stream<Item = Result<Document>> + Send + 'static {
        self.cursor_as::<Document>(select, page_rows)
    }

    /// Streams every document matching `select` with Solr's cursorMark, `page_rows` per
    /// request, each page decoded straight into `T` (as [`Self::select_as`] does) and held
    /// alone in memory. The sort gets the uniqueKey field ascending as tie-breaker when it
    /// lacks it (cursors require it; the field is [`SolrClientBuilder::unique_key`],
    /// `id` by default).
    ///
    /// The stream owns a clone of this client (clones share the transport and its
    /// connections): it is `'static`, so it can outlive `self` and move into a task.
    ///
    /// ```no_run
    /// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
    /// use futures::TryStreamExt;
    /// #[derive(serde::Deserialize)]
    /// struct Book { id: String, price: Option<f64> }
    /// let books = client.cursor_as::<Book>(solr_client::Select::new("*:*").fl("id,price"), 1000);
    /// let task = tokio::spawn(async move { books.try_collect::<Vec<_>>().await });
    /// let all = task.await.expect("task")?;
    /// # let _ = all;
    /// # Ok(()) }
    /// ```
    ///
    /// [`SolrClientBuilder::unique_key`]: crate::SolrClientBuilder::unique_key
    pub fn cursor_as<T: DeserializeOwned + Send + 'static>(
        &self,
        select: Select,
        page_rows: u64,
    ) -> impl Stream<Item = Result<T>> + Send + 'static {
        let sort = with_tie_breaker(select.sort.as_deref(), self.unique_key());
        let mut base = select.sort(sort).rows(page_rows);
        base.start = None;
        let init = Page {
            client: self.clone(),
            base,
            mark: Some("*".to_string()),
            buf: Vec::new().into_iter(),
        };
        futures::stream::try_unfold(init, next_doc)
    }
}

/// The sort with `key asc` appended unless one of its clauses already sorts on `key`.
fn with_tie_breaker(sort: Option<&str>, key: &str) -> String {
    match sort {
        None => format!("{key} asc"),
        Some(s)
            if s.split(',')
                .any(|c| c.split_whitespace().next() == Some(key)) =>
        {
            s.into()
        }
        Some(s) => format!("{s}, {key} asc"),
    }
}

/// The next document, fetching the next page when the current one is used up.
async fn next_doc<T: DeserializeOwned>(mut page: Page<T>) -> Result<Option<(T, Page<T>)>> {
    loop {
        if let Some(doc) = page.buf.next() {
            return Ok(Some((doc, page)));
        }
        let Some(mark) = page.mark.take() else {
            return Ok(None);
        };
        let request = page.base.clone().param("cursorMark", mark.as_str());
        let r: SelectResponse<T> = page.client.select_as(&request).await?;
        let next = r.next_cursor_mark.clone().ok_or_else(|| Error::Decode {
            node: r.timing.node.clone().into(),
            what: "cursor response",
            message: "nextCursorMark missing".into(),
            snippet: Default::default(),
        })?;
        let docs = r.into_docs();
        if next != mark && !docs.is_empty() {
            page.mark = Some(next);
        }
        if docs.is_empty() {
            return Ok(None);
        }
        page.buf = docs.into_iter();
    }
}

#[cfg(test)]
mod tests {
    use super::with_tie_breaker;

    #[test]
    fn the_unique_key_breaks_ties_once() {
        assert_eq!(with_tie_breaker(None, "id"), "id asc");
        assert_eq!(
            with_tie_breaker(Some("price desc"), "sku"),
            "price desc, sku asc"
        );
        assert_eq!(
            with_tie_breaker(Some("price desc, sku desc"), "sku"),
            "price desc, sku desc"
        );
        assert_eq!(with_tie_breaker(Some("idx asc"), "id"), "idx asc, id asc");
    }
}
