"""What ``Client`` calls return: ``Response`` (Solr's answer with its QTime and the client's
phases) and ``BatchReport`` (the exact account of an add)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

Doc = Dict[str, Any]


class Response:
    """One answer: ``raw`` (the decoded JSON), ``status``, ``qtime`` (Solr's time, ms, or
    None), ``timing`` (the client's phases in ms: ``blocked``, ``dns``, ``connect``,
    ``tls``, ``write``, ``server_wait``, ``transfer``, ``decompress``, ``total``...),
    ``reused``, ``bytes_in``, ``bytes_out``; for searches ``docs`` and ``num_found``."""

    __slots__ = ("raw", "status", "timing")

    def __init__(self, status: int, body: bytes, timing: Dict[str, Any]) -> None:
        self.status = status
        self.raw: Dict[str, Any] = json.loads(body) if body else {}
        self.timing = timing
        timing["qtime"] = self.qtime

    @property
    def qtime(self) -> Optional[int]:
        """Solr's QTime in ms (None when the answer had no header)."""
        q = self.raw.get("responseHeader", {}).get("QTime")
        return int(q) if q is not None else None

    @property
    def reused(self) -> bool:
        """Whether the connection had served a request before this one."""
        return bool(self.timing.get("reused"))

    @property
    def bytes_in(self) -> int:
        """Bytes read from the socket for this request."""
        return int(self.timing.get("bytes_in", 0))

    @property
    def bytes_out(self) -> int:
        """Bytes written on the socket for this request."""
        return int(self.timing.get("bytes_out", 0))

    @property
    def docs(self) -> List[Doc]:
        """The documents of a search answer."""
        return list((self.raw.get("response") or {}).get("docs", []))

    @property
    def num_found(self) -> int:
        """numFound of a search answer."""
        return int((self.raw.get("response") or {}).get("numFound", 0))

    def __repr__(self) -> str:
        return f"<Response status={self.status} qtime={self.qtime} total={self.timing.get('total')}>"


class BatchReport:
    """The account of every document of an add: ``acknowledged`` (a count), ``failed``
    (dicts with ``id``, ``message`` and, for a document refused before sending, ``index``),
    ``unknown`` and ``not_attempted`` (ids), ``other_errors``; ``sent`` and ``requests``.
    ``acknowledged + len(failed) + len(unknown) + len(not_attempted) == sent``."""

    __slots__ = ("sent", "acknowledged", "failed", "unknown", "not_attempted", "other_errors",
                 "requests")

    def __init__(self, d: Dict[str, Any]) -> None:
        self.sent: int = d["sent"]
        self.acknowledged: int = d["acknowledged"]
        self.failed: List[Dict[str, Any]] = d["failed"]
        self.unknown: List[str] = d["unknown"]
        self.not_attempted: List[str] = d["not_attempted"]
        self.other_errors: List[str] = d["other_errors"]
        self.requests: int = d["requests"]

    @property
    def ok(self) -> bool:
        """True when every document was acknowledged."""
        return self.acknowledged == self.sent and not self.other_errors

    def __repr__(self) -> str:
        return (f"<BatchReport sent={self.sent} acknowledged={self.acknowledged} "
                f"failed={len(self.failed)} unknown={len(self.unknown)} "
                f"not_attempted={len(self.not_attempted)}>")
