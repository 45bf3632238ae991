//! A decorator that records every exchange of the transport it wraps into a JSON-lines file,
//! for [`super::Replay::from_file`] to answer from later without Solr.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use http::header::CONTENT_TYPE;

use super::Exchange;
use crate::error::{Error, Result};
use crate::transport::{BoxFuture, Reply, Transport, TransportStats, WireRequest, WireResponse};

/// Records the exchanges of `inner` (every whole response it returns) as JSON lines. Streamed
/// responses (`/export`, `/stream`) pass through unrecorded.
#[derive(Debug)]
pub struct Recorder {
    inner: Arc<dyn Transport>,
    file: Mutex<std::fs::File>,
}

impl Recorder {
    /// Records `inner`'s exchanges into a new file at `path` (an existing one is replaced).
    pub fn create(inner: Arc<dyn Transport>, path: &Path) -> Result<Recorder> {
        let file = std::fs::File::create(path).map_err(|e| {
            Error::config(format!(
                "cannot create the recording {}: {e}",
                path.display()
            ))
        })?;
        Ok(Recorder {
            inner,
            file: Mutex::new(file),
        })
    }

    fn record(&self, req: &WireRequest, resp: &WireResponse) -> Result<()> {
        let ct = resp.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok());
        let e = Exchange::of(req, resp.status.as_u16(), ct.unwrap_or(""), &resp.body);
        let line = serde_json::to_string(&e)
            .map_err(|e| Error::config(format!("cannot record an exchange: {e}")))?;
        let mut file = self
            .file
            .lock()
            .map_err(|_| Error::config("the recording's file lock is poisoned"))?;
        writeln!(file, "{line}")
            .map_err(|e| Error::config(format!("cannot write the recording: {e}")))
    }
}

impl Transport for Recorder {
    /// Records whole answers; a streamed one passes through unrecorded.
    fn send(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        Box::pin(async move {
            let resp = self.inner.send(req.clone()).await?;
            if let Reply::Whole(whole) = &resp {
                self.record(&req, whole)?;
            }
            Ok(resp)
        })
    }

    fn name(&self) -> String {
        format!("{}+recorded", self.inner.name())
    }

    fn stats(&self) -> TransportStats {
        self.inner.stats()
    }

    fn shard_groups<'a>(
        &'a self,
        req: &'a WireRequest,
        ids: &'a [String],
    ) -> BoxFuture<'a, Result<Option<Vec<crate::transport::ShardGroup>>>> {
        self.inner.shard_groups(req, ids)
    }
}
