//! The blocking tuple streams: `/export`, `/stream` and `/sql` as iterators.

use serde::de::DeserializeOwned;

use super::SolrClient;
use crate::error::Result;
use crate::stream::Export;

/// The iterator of [`SolrClient::export_as`], [`SolrClient::stream_as`] and
/// [`SolrClient::sql_as`]: tuples decoded as they arrive (see [`crate::Tuples`]). Like every
/// blocking call, `next` yields an error when called inside a Tokio runtime.
#[must_use = "an iterator does nothing until consumed"]
pub struct TupleIter<'a, T> {
    client: &'a SolrClient,
    tuples: crate::Tuples<T>,
}

impl<T> std::fmt::Debug for TupleIter<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TupleIter")
            .field("tuples", &self.tuples)
            .finish_non_exhaustive()
    }
}

impl<T: DeserializeOwned> Iterator for TupleIter<'_, T> {
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        use futures::StreamExt;
        match self.client.run("tuple stream", self.tuples.next()) {
            Ok(item) => item,
            Err(e) => Some(Err(e)),
        }
    }
}

impl SolrClient {
    /// [`crate::SolrClient::export_as`], as an iterator.
    pub fn export_as<T: DeserializeOwned>(&self, export: &Export) -> Result<TupleIter<'_, T>> {
        let tuples = self.run("export", self.inner.export_as::<T>(export))??;
        Ok(TupleIter {
            client: self,
            tuples,
        })
    }

    /// [`crate::SolrClient::stream_as`], as an iterator.
    pub fn stream_as<T: DeserializeOwned>(
        &self,
        expr: impl std::fmt::Display,
    ) -> Result<TupleIter<'_, T>> {
        let tuples = self.run("stream", self.inner.stream_as::<T>(expr))??;
        Ok(TupleIter {
            client: self,
            tuples,
        })
    }

    /// [`crate::SolrClient::stream_as_with`], as an iterator.
    pub fn stream_as_with<T: DeserializeOwned>(
        &self,
        expr: impl std::fmt::Display,
        extra: &[(&str, &str)],
    ) -> Result<TupleIter<'_, T>> {
        let tuples = self.run("stream", self.inner.stream_as_with::<T>(expr, extra))??;
        Ok(TupleIter {
            client: self,
            tuples,
        })
    }

    /// [`crate::SolrClient::sql_as`], as an iterator.
    pub fn sql_as<T: DeserializeOwned>(&self, statement: &str) -> Result<TupleIter<'_, T>> {
        self.sql_as_with(statement, &[])
    }

    /// [`crate::SolrClient::sql_as_with`], as an iterator.
    pub fn sql_as_with<T: DeserializeOwned>(
        &self,
        statement: &str,
        extra: &[(&str, &str)],
    ) -> Result<TupleIter<'_, T>> {
        let tuples = self.run("sql", self.inner.sql_as_with::<T>(statement, extra))??;
        Ok(TupleIter {
            client: self,
            tuples,
        })
    }
}
