"""``AsyncClient``: ``Client``'s calls as coroutines for asyncio (``cursor`` and ``export``
as async iterators, ``indexer`` an ``AsyncIndexer`` with awaitable ``push``/``finish``). A
call runs on the Rust runtime's threads and completes an asyncio future; the event loop
never blocks."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Dict, Iterable, List, Optional, Sequence, Tuple

from . import _params
from ._connect import Auth, cloud_client, native_client
from ._native import NativeIndexer, NativeTuples
from .client import EXPORT_CHUNK
from .errors import check
from .response import BatchReport, Doc, Response

_JSON = "application/json"


def _done(future: "asyncio.Future[Any]", ok: bool, value: Any) -> None:
    """Completes ``future`` from the loop's thread (a cancelled one is left alone)."""
    if future.cancelled():
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class AsyncClient:
    """The async twin of ``Client`` (same constructor, same return values)."""

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
    def cloud(cls, urls: Sequence[str], collection: str, **options: Any) -> "AsyncClient":
        """See ``Client.cloud``: a SolrCloud client, the cluster state read from the nodes."""
        self = cls.__new__(cls)
        self._native = cloud_client(urls, collection, options)
        self.collection = collection
        return self

    async def _call(self, method: str, path: str, params: _params.Params,
                    body: Optional[bytes] = None, ctype: Optional[str] = None) -> Response:
        loop = asyncio.get_running_loop()
        fut = self._native.request_async(loop, _done, method, path, params, body, ctype)
        status, raw, timing = await fut
        check(status, raw, timing)
        return Response(status, raw, timing)

    async def search(self, q: str = "*:*", **params: Any) -> Response:
        """See ``Client.search``."""
        return await self._call("GET", "select", _params.encode({"q": q, "wt": "json", **params}))

    async def ping(self) -> Response:
        """See ``Client.ping``."""
        return await self._call("GET", "admin/ping", [("wt", "json")])

    async def add(self, docs: Iterable[Doc], batch_size: int = 500) -> BatchReport:
        """See ``Client.add``."""
        loop = asyncio.get_running_loop()
        body = json.dumps(list(docs)).encode()
        d: Dict[str, Any] = await self._native.add_batched_async(loop, _done, body, batch_size)
        return BatchReport(d)

    async def delete(self, ids: Optional[Sequence[str]] = None,
                     q: Optional[str] = None) -> Response:
        """See ``Client.delete``."""
        if (ids is None) == (q is None):
            raise ValueError("give ids or q, one of them")
        cmd: Any = {"delete": list(ids)} if ids is not None else {"delete": {"query": q}}
        return await self._call("POST", "update", [("wt", "json")], json.dumps(cmd).encode(),
                                _JSON)

    async def commit(self, soft: bool = False) -> Response:
        """See ``Client.commit``."""
        p = [("softCommit" if soft else "commit", "true"), ("wt", "json")]
        return await self._call("POST", "update", p, b"{}", _JSON)

    async def cursor(self, q: str = "*:*", sort: str = "id asc", rows: int = 500,
                     **params: Any) -> AsyncIterator[Doc]:
        """See ``Client.cursor``: an async iterator, one page in memory."""
        mark = "*"
        while True:
            p = _params.encode({"q": q, "sort": sort, "rows": rows, "wt": "json", **params})
            r = await self._call("GET", "select", p + [("cursorMark", mark)])
            for doc in r.docs:
                yield doc
            nxt = r.raw.get("nextCursorMark", mark)
            if nxt == mark:
                return
            mark = nxt

    async def export(self, q: str, fl: str, sort: str,
                     fq: Sequence[str] = ()) -> AsyncIterator[Doc]:
        """See ``Client.export``: an async iterator, read from the body as it arrives (at
        most 256 documents in memory at once)."""
        loop = asyncio.get_running_loop()
        tuples = NativeTuples(self._native, q, fl, sort, list(fq))
        while True:
            chunk = await tuples.next_chunk_async(loop, _done, EXPORT_CHUNK)
            if chunk is None:
                return
            for doc in json.loads(chunk):
                yield doc

    def indexer(self, batch_docs: int = 500, in_flight: int = 4) -> "AsyncIndexer":
        """See ``Client.indexer``: ``await push(doc)``, ``await finish()`` for the account."""
        return AsyncIndexer(NativeIndexer(self._native, batch_docs, in_flight))

    def stats(self) -> Tuple[int, int]:
        """See ``Client.stats``."""
        return self._native.stats()

    def close(self) -> None:
        """Closes every connection; later calls raise ``SolrError``."""
        self._native.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.close()


class AsyncIndexer:
    """The async twin of ``Indexer``: batches of ``batch_docs`` documents, ``in_flight``
    requests at once; ``push`` waits (without blocking the loop) while the queue is full."""

    def __init__(self, native: NativeIndexer) -> None:
        self._native = native
        self._pending: List[Doc] = []

    async def push(self, doc: Doc) -> None:
        """Queues one document (sent in batches)."""
        self._pending.append(doc)
        if len(self._pending) >= 256:
            await self._flush()

    async def push_many(self, docs: Iterable[Doc]) -> None:
        """Queues many documents."""
        for d in docs:
            await self.push(d)

    async def _flush(self) -> None:
        if self._pending:
            body = json.dumps(self._pending).encode()
            self._pending = []
            await self._native.push_many_async(asyncio.get_running_loop(), _done, body)

    async def finish(self) -> BatchReport:
        """Sends what is left, waits for every batch: the account of every document."""
        await self._flush()
        loop = asyncio.get_running_loop()
        return BatchReport(await self._native.finish_async(loop, _done))
