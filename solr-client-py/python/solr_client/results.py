"""``Results``: a search answer in pysolr's shape (``docs``, ``hits``, ``raw_response``,
``qtime``, ``facets``, ``highlighting``, ``grouped``, ``stats``, ``spellcheck``,
``nextCursorMark``, ``debug``; ``len()`` and iteration, which follows the cursor when the
search used one)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, Optional

Doc = Dict[str, Any]


class Results:
    """A decoded Solr search answer, as ``pysolr.Results``."""

    def __init__(
        self,
        decoded: Dict[str, Any],
        next_page_query: Optional[Callable[[], "Results"]] = None,
        timing: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.raw_response = decoded
        response = decoded.get("response") or {}
        self.docs: Any = response.get("docs", ())
        self.hits: int = response.get("numFound", 0)
        self.debug: Dict[str, Any] = decoded.get("debug", {})
        self.highlighting: Dict[str, Any] = decoded.get("highlighting", {})
        self.facets: Dict[str, Any] = decoded.get("facet_counts", {})
        self.spellcheck: Dict[str, Any] = decoded.get("spellcheck", {})
        self.stats: Dict[str, Any] = decoded.get("stats", {})
        self.qtime: Optional[int] = decoded.get("responseHeader", {}).get("QTime", None)
        self.grouped: Dict[str, Any] = decoded.get("grouped", {})
        self.nextCursorMark: Optional[str] = decoded.get("nextCursorMark", None)
        self._next_page_query = (self.nextCursorMark is not None and next_page_query) or None
        #: The client's phases of the request that brought this page (solr_client only).
        self.timing: Dict[str, Any] = timing or {}

    def __len__(self) -> int:
        return self.hits if self._next_page_query else len(self.docs)

    def __iter__(self) -> Iterator[Doc]:
        page: Optional[Results] = self
        while page:
            yield from page.docs
            page = page._next_page_query() if page._next_page_query else None
