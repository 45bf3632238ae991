"""``AsyncClient``: ``Client``'s calls as coroutines for asyncio. A call runs on the Rust
runtime's threads and completes an asyncio future; the event loop never blocks."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Dict, Iterable, Optional, Sequence, Tuple

from . import _params
from ._connect import Auth, native_client
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
        self, url: str, collection: str, *, transport: str = "pooled", gzip: bool = True,
        timeout: float = 60.0, connect_timeout: Optional[float] = None, auth: Auth = None,
        ca_file: Optional[str] = None, client_cert: Optional[Tuple[str, str]] = None,
        proxy: Optional[str] = None,
    ) -> None:
        self._native = native_client([url], collection, False, transport, gzip, timeout, auth,
                                     ca_file, client_cert, proxy, connect_timeout)
        self.collection = collection

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

    def close(self) -> None:
        """Closes every connection."""
        self._native.close()
