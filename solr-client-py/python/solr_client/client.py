"""``Client``: the solr-client API in Python. Every call returns Solr's QTime and the
client's phases; ``add`` returns the exact account of every document; ``cursor`` and
``export`` iterate at constant memory; ``indexer`` sends batches concurrently.

One client is shared by threads (the GIL is released while waiting on Solr). After
``os.fork()`` the child's first call opens connections of its own: the parent's sockets are
never used (nor closed) by the child."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from . import _params
from ._connect import Auth, cloud_client, native_client
from ._native import NativeIndexer, NativeTuples
from .errors import check
from .response import BatchReport, Doc, Response

_JSON = "application/json"
#: Tuples handed from Rust to Python at once by ``export`` (one JSON array each).
EXPORT_CHUNK = 256


class Client:
    """A client of one collection (or core) on one node, or on a SolrCloud
    (``Client.cloud``). ``transport``: "pooled" (keep-alive pool, default), "http2" (one
    multiplexed connection), "fresh" (a connection per request), "reqwest". ``gzip=True``
    asks Solr for gzip answers (off by default, as in the Rust crate: inflating a small
    answer costs more CPU than the bytes it saves on a local network)."""

    def __init__(
        self, url: str, collection: str, *, transport: str = "pooled", gzip: bool = False,
        timeout: float = 60.0, connect_timeout: Optional[float] = None, auth: Auth = None,
        ca_file: Optional[str] = None, client_cert: Optional[Tuple[str, str]] = None,
        proxy: Optional[str] = None,
    ) -> None:
        self._native = native_client([url], collection, False, transport, gzip, timeout, auth,
                                     ca_file, client_cert, proxy, connect_timeout)
        self.collection = collection

    @classmethod
    def cloud(cls, urls: Sequence[str], collection: str, **options: Any) -> "Client":
        """A SolrCloud client: reads the cluster state from any of ``urls`` (no ZooKeeper),
        sends updates to shard leaders and spreads reads over replicas."""
        self = cls.__new__(cls)
        self._native = cloud_client(urls, collection, options)
        self.collection = collection
        return self

    def _call(self, method: str, path: str, params: _params.Params,
              body: Optional[bytes] = None, ctype: Optional[str] = None) -> Response:
        status, raw, timing = self._native.request(method, path, params, body, ctype)
        check(status, raw, timing)
        return Response(status, raw, timing)

    def search(self, q: str = "*:*", **params: Any) -> Response:
        """``/select``: the answer with ``docs``, ``num_found``, ``qtime``, ``timing``."""
        return self._call("GET", "select", _params.encode({"q": q, "wt": "json", **params}))

    def ping(self) -> Response:
        """``admin/ping``."""
        return self._call("GET", "admin/ping", [("wt", "json")])

    def add(self, docs: Iterable[Doc], batch_size: int = 500) -> BatchReport:
        """Adds documents in batches of ``batch_size`` (nothing is committed) and accounts
        for every one: acknowledged, failed (with id and message), unknown, not attempted."""
        body = json.dumps(list(docs)).encode()
        return BatchReport(self._native.add_batched(body, batch_size))

    def delete(self, ids: Optional[Sequence[str]] = None, q: Optional[str] = None) -> Response:
        """Deletes by ids or by query (one of them)."""
        if (ids is None) == (q is None):
            raise ValueError("give ids or q, one of them")
        cmd: Any = {"delete": list(ids)} if ids is not None else {"delete": {"query": q}}
        return self._call("POST", "update", [("wt", "json")], json.dumps(cmd).encode(), _JSON)

    def commit(self, soft: bool = False) -> Response:
        """A hard commit (or a soft one), waiting for the new searcher."""
        p = [("softCommit" if soft else "commit", "true"), ("wt", "json")]
        return self._call("POST", "update", p, b"{}", _JSON)

    def cursor(self, q: str = "*:*", sort: str = "id asc", rows: int = 500,
               **params: Any) -> Iterator[Doc]:
        """Every matching document through ``cursorMark`` paging, one page in memory."""
        mark = "*"
        while True:
            p = _params.encode({"q": q, "sort": sort, "rows": rows, "wt": "json", **params})
            r = self._call("GET", "select", p + [("cursorMark", mark)])
            yield from r.docs
            nxt = r.raw.get("nextCursorMark", mark)
            if nxt == mark:
                return
            mark = nxt

    def export(self, q: str, fl: str, sort: str, fq: Sequence[str] = ()) -> Iterator[Doc]:
        """``/export``: every matching document, read from the body as it arrives."""
        tuples = NativeTuples(self._native, q, fl, sort, list(fq))
        while True:
            chunk = tuples.next_chunk(EXPORT_CHUNK)
            if chunk is None:
                return
            yield from json.loads(chunk)

    def indexer(self, batch_docs: int = 500, in_flight: int = 4) -> "Indexer":
        """A bulk indexer: ``push`` documents, ``finish`` for the account."""
        return Indexer(NativeIndexer(self._native, batch_docs, in_flight))

    def stats(self) -> Tuple[int, int]:
        """(connections opened, requests sent) by this client's transport."""
        return self._native.stats()

    def close(self) -> None:
        """Closes every connection; later calls raise ``SolrError``."""
        self._native.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Indexer:
    """Bulk indexing: batches of ``batch_docs`` documents, ``in_flight`` requests at once."""

    def __init__(self, native: NativeIndexer) -> None:
        self._native = native
        self._pending: List[Doc] = []

    def push(self, doc: Doc) -> None:
        """Queues one document (sent in batches)."""
        self._pending.append(doc)
        if len(self._pending) >= 256:
            self._flush()

    def push_many(self, docs: Iterable[Doc]) -> None:
        """Queues many documents."""
        for d in docs:
            self.push(d)

    def _flush(self) -> None:
        if self._pending:
            self._native.push_many(json.dumps(self._pending).encode())
            self._pending = []

    def finish(self) -> BatchReport:
        """Sends what is left, waits for every batch: the account of every document."""
        self._flush()
        return BatchReport(self._native.finish())


