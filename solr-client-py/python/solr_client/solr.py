"""``Solr``: a drop-in for ``pysolr.Solr`` on the Rust client. Same constructor and call
arguments, same return values (``Results`` for searches, Solr's answer text for updates and
ping, a dict of ``(term, count)`` lists for ``suggest_terms``), same exception class name
(``SolrError``). An app changes one line: ``from solr_client import Solr, SolrError``.

The URL is the core's or collection's, as in pysolr (``http://host:8983/solr/core``).
Unlike pysolr, connections are kept alive in a pool shared by every thread using the object,
and the GIL is released while waiting on Solr."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Type, Union
from urllib.parse import urlencode

from . import _params
from ._connect import native_client, split_core_url
from .errors import HttpStatusError, SolrError, check
from .results import Results

# Characters XML 1.0 forbids, which pysolr removes from every update message.
_CTRL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
Doc = Dict[str, Any]


class Solr:
    """The pysolr-compatible client. Extra keyword arguments: ``transport`` ("pooled",
    "http2", "fresh", "reqwest") and ``gzip`` (ask for gzip answers; off by default, unlike
    requests, which asks for them on every call)."""

    def __init__(
        self,
        url: str,
        decoder: Any = None,
        encoder: Any = None,
        timeout: float = 60,
        results_cls: Type[Any] = Results,
        search_handler: str = "select",
        use_qt_param: bool = False,
        always_commit: bool = False,
        auth: Any = None,
        verify: Union[bool, str] = True,
        session: Any = None,
        *,
        transport: str = "pooled",
        gzip: bool = False,
    ) -> None:
        self.url = url
        self.decoder = decoder or json.JSONDecoder()
        self.encoder = encoder or json.JSONEncoder()
        self.timeout = timeout
        self.results_cls = results_cls
        self.search_handler = search_handler
        self.use_qt_param = use_qt_param
        self.always_commit = always_commit
        self.auth = auth
        self.verify = verify
        node, core = split_core_url(url)
        ca = verify if isinstance(verify, str) else None
        self._native = native_client([node], core, False, transport, gzip, timeout, auth, ca)

    # --- the exchange -------------------------------------------------------------------
    def _send(
        self, method: str, path: str, params: _params.Params, body: Optional[bytes] = None,
        content_type: Optional[str] = None,
    ) -> str:
        try:
            status, raw, timing = self._native.request(method, path, params, body, content_type)
            check(status, raw, timing)
        except HttpStatusError as e:
            reason = e.solr_message if e.solr_message is not None else str(e)
            e.args = ("Solr responded with an error (HTTP %s): [Reason: %s]" % (e.status, reason),)
            raise
        return raw.decode("utf-8", errors="replace")

    def _read(self, handler: str, params: _params.Params) -> str:
        """GET, or a form POST when the query string is long (as pysolr: 1024 bytes). The
        query string is only encoded to measure it when it could reach that length: a
        character is at most 4 UTF-8 bytes, a byte at most 3 characters once quoted."""
        if sum(len(k) + len(v) for k, v in params) * 12 + 2 * len(params) < 1024:
            return self._send("GET", handler, params)
        form = urlencode(params).encode()
        if len(form) < 1024:
            return self._send("GET", handler, params)
        ctype = "application/x-www-form-urlencoded; charset=utf-8"
        return self._send("POST", handler, [], form, ctype)

    def _select(self, params: Dict[str, Any], handler: Optional[str]) -> str:
        params.setdefault("wt", "json")
        path = handler or self.search_handler or "select"
        if self.use_qt_param:
            params["qt"], path = path, "select"
        return self._read(path, _params.encode(params))

    # --- searches -----------------------------------------------------------------------
    def search(self, q: str, search_handler: Optional[str] = None, **kwargs: Any) -> Any:
        """A search; ``Results`` (or ``results_cls``). With ``cursorMark``, iterating the
        results fetches the next pages."""
        params: Dict[str, Any] = {"q": q}
        params.update(kwargs)
        decoded = self.decoder.decode(self._select(dict(params), search_handler))
        mark = params.get("cursorMark", None)
        if mark != decoded.get("nextCursorMark", mark):

            def next_page() -> Any:
                more = dict(params)
                more["cursorMark"] = decoded["nextCursorMark"]
                return self.search(search_handler=search_handler, **more)

            return self.results_cls(decoded, next_page)
        return self.results_cls(decoded)

    def more_like_this(self, q: str, mltfl: str, handler: str = "mlt", **kwargs: Any) -> Any:
        """MoreLikeThis through its handler (``/mlt``)."""
        params: Dict[str, Any] = {"q": q, "mlt.fl": mltfl}
        params.update(kwargs)
        return self.results_cls(self.decoder.decode(self._select(params, handler)))

    def suggest_terms(
        self, fields: Union[str, Sequence[str]], prefix: str, handler: str = "terms", **kwargs: Any
    ) -> Dict[str, List[Tuple[str, int]]]:
        """The Terms component: ``{field: [(term, count), ...]}``."""
        params: Dict[str, Any] = {"terms.fl": fields, "terms.prefix": prefix}
        params.update(kwargs)
        terms = self.decoder.decode(self._select(params, handler)).get("terms", {})
        if isinstance(terms, (list, tuple)):
            terms = dict(zip(terms[0::2], terms[1::2]))
        return {f: list(zip(v[0::2], v[1::2])) for f, v in terms.items()}

    def ping(self, handler: str = "admin/ping", **kwargs: Any) -> str:
        """Solr's health check; its answer text."""
        return self._read(handler, _params.encode(kwargs))

    # --- updates ------------------------------------------------------------------------
    def _update(
        self, message: str, commit: Optional[bool] = None, softCommit: bool = False,
        commitWithin: Optional[int] = None, waitFlush: Optional[bool] = None,
        waitSearcher: Optional[bool] = None, overwrite: Optional[bool] = None,
        handler: str = "update", min_rf: Optional[int] = None, clean_ctrl_chars: bool = True,
    ) -> str:
        q = _update_params(commit if commit is not None else self.always_commit, softCommit,
                           commitWithin, waitFlush, waitSearcher, overwrite, min_rf)
        path = handler
        if self.use_qt_param:
            q.insert(0, ("qt", handler))
            path = "select"
        body = _CTRL.sub("", message) if clean_ctrl_chars else message
        ctype = "application/json; charset=utf-8"
        return self._send("POST", path, q, body.encode("utf-8", "backslashreplace"), ctype)

    def add(
        self, docs: Union[Doc, Iterable[Doc]], boost: Optional[Dict[str, float]] = None,
        fieldUpdates: Optional[Dict[str, str]] = None, commit: Optional[bool] = None,
        softCommit: bool = False, commitWithin: Optional[int] = None,
        waitFlush: Optional[bool] = None, waitSearcher: Optional[bool] = None,
        overwrite: Optional[bool] = None, handler: str = "update", min_rf: Optional[int] = None,
    ) -> str:
        """Adds documents (JSON update); Solr's answer text."""
        if boost is not None:
            raise SolrError("index-time boosts are not supported (Solr 7 removed them)")
        batch = [docs] if isinstance(docs, dict) else list(docs)
        message = self.encoder.encode([_clean(d, fieldUpdates) for d in batch])
        return self._update(message, commit, softCommit, commitWithin, waitFlush,
                            waitSearcher, overwrite, handler, min_rf)

    def delete(
        self, id: Any = None, q: Optional[str] = None, commit: Optional[bool] = None,  # noqa: A002
        softCommit: bool = False, waitFlush: Optional[bool] = None,
        waitSearcher: Optional[bool] = None, handler: str = "update",
    ) -> str:
        """Deletes by id (one or a list) or by query; Solr's answer text."""
        if (id is None) == (q is None):
            raise ValueError('You must specify "id" or "q", not both.' if id is not None
                             else 'You must specify "id" or "q".')
        if id is not None:
            ids = list(filter(None, id)) if isinstance(id, (list, set, tuple)) else [id]
            if not ids:
                raise ValueError("The list of documents to delete was empty.")
            message = json.dumps({"delete": [str(i) for i in ids]})
        else:
            message = json.dumps({"delete": {"query": q}})
        return self._update(message, commit, softCommit, None, waitFlush, waitSearcher,
                            handler=handler)

    def commit(
        self, softCommit: bool = False, waitFlush: Optional[bool] = None,
        waitSearcher: Optional[bool] = None, expungeDeletes: Optional[bool] = None,
        handler: str = "update",
    ) -> str:
        """A hard (or soft) commit; Solr's answer text."""
        cmd = {} if expungeDeletes is None else {"expungeDeletes": bool(expungeDeletes)}
        return self._update(json.dumps({"commit": cmd}), not softCommit, softCommit, None,
                            waitFlush, waitSearcher, handler=handler)

    def optimize(
        self, commit: bool = True, waitFlush: Optional[bool] = None,
        waitSearcher: Optional[bool] = None, maxSegments: Optional[int] = None,
        handler: str = "update",
    ) -> str:
        """Merges segments (``maxSegments``); Solr's answer text."""
        cmd = {"maxSegments": int(maxSegments)} if maxSegments else {}
        return self._update(json.dumps({"optimize": cmd}), commit, False, None, waitFlush,
                            waitSearcher, handler=handler)

    def close(self) -> None:
        """Closes the connections (pysolr has no such call; safe to skip)."""
        self._native.close()


def _clean(doc: Doc, field_updates: Optional[Dict[str, str]]) -> Doc:
    """pysolr's JSON document: null values dropped, or atomic updates wrapped."""
    if field_updates is None:
        return {k: v for k, v in doc.items() if not _is_null(v)}
    return {k: ({field_updates[k]: v} if k in field_updates else v) for k, v in doc.items()}


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, str) and len(value) == 0)


def _update_params(
    commit: Any, soft: bool, within: Optional[int], wait_flush: Optional[bool],
    wait_searcher: Optional[bool], overwrite: Optional[bool], min_rf: Optional[int],
) -> _params.Params:
    """The update's query parameters, in pysolr's order and precedence."""
    q: _params.Params = []
    if min_rf:
        q.append(("min_rf", "%i" % min_rf))
    if commit:
        q.append(("commit", _params.flag(commit)))
    elif soft:
        q.append(("softCommit", _params.flag(soft)))
    elif within is not None:
        q.append(("commitWithin", str(int(within))))
    for name, v in (("waitFlush", wait_flush), ("overwrite", overwrite),
                    ("waitSearcher", wait_searcher)):
        if v is not None:
            q.append((name, _params.flag(v)))
    return q
