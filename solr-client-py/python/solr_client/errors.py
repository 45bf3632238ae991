"""The exceptions of solr_client: ``SolrError`` (pysolr's class name) and one subclass per
group of failures of the Rust client, each with ``kind`` (the Rust ``Error`` variant),
``status`` (HTTP status, when there was an answer), ``node``, ``solr_message`` (Solr's own
error message), ``hint`` (what to check) and, for an update that did not fully go,
``report`` (the account of every document)."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional


class SolrError(Exception):
    """Every error of solr_client. ``pysolr.SolrError`` handlers catch it by name."""

    kind: str = "Solr"
    status: Optional[int] = None
    node: Optional[str] = None
    solr_message: Optional[str] = None
    hint: Optional[str] = None
    report: Optional[Dict[str, Any]] = None


class ConfigError(SolrError, ValueError):
    """A bad argument or document, refused before anything was sent."""


class ConnectError(SolrError, ConnectionError):
    """No connection could be made: DNS, TCP connect, TLS, client certificate, proxy."""


class SolrTimeoutError(SolrError, TimeoutError):
    """A timeout (connect, read idle or the whole request); ``str()`` names the phase."""


class HttpStatusError(SolrError):
    """Solr (or something in front of it) answered with an error status."""


class NotFoundError(HttpStatusError):
    """HTTP 404 without a Solr error body: a wrong core, collection, handler or base URL."""


class UnauthorizedError(HttpStatusError):
    """HTTP 401: no or wrong credentials."""


class VersionConflictError(HttpStatusError):
    """HTTP 409: optimistic concurrency, the ``_version_`` did not match."""


class TransportError(SolrError):
    """The exchange broke: I/O, a body that does not decode, too large, bad gzip."""


class UpdateError(SolrError):
    """An update in which not every document is known to be indexed; ``report`` says which."""


class NoNodeError(SolrError):
    """SolrCloud: no live node can serve the request."""


class AuthError(SolrError):
    """The auth provider could not sign the request (the token callable failed)."""


_CLASSES = {
    "Config": ConfigError,
    "InvalidInput": ConfigError,
    "InvalidDocument": ConfigError,
    "Dns": ConnectError,
    "Connect": ConnectError,
    "Tls": ConnectError,
    "ClientCertificate": ConnectError,
    "ProxyRefused": ConnectError,
    "ProxyAuth": ConnectError,
    "Timeout": SolrTimeoutError,
    "Solr": HttpStatusError,
    "UnexpectedResponse": HttpStatusError,
    "RetriesExhausted": HttpStatusError,
    "Redirect": HttpStatusError,
    "NotFound": NotFoundError,
    "Unauthorized": UnauthorizedError,
    "VersionConflict": VersionConflictError,
    "Io": TransportError,
    "Decode": TransportError,
    "Decompress": TransportError,
    "TooLarge": TransportError,
    "Update": UpdateError,
    "NoNode": NoNodeError,
    "Auth": AuthError,
    "AsyncCommand": HttpStatusError,
}

_HINTS = {
    ConnectError: "is Solr running at that URL? check the host, port and scheme (http/https)",
    SolrTimeoutError: "Solr or the network is slow: raise `timeout`, or look at Solr's load",
    ConfigError: "check the arguments and documents given",
    UpdateError: "`report` names every document not indexed and why",
    NoNodeError: "no live node hosts the collection: check the cluster state",
    AuthError: "the token callable raised or returned something else than str or (str, seconds)",
    UnauthorizedError: "give `auth=(user, password)` or a bearer token",
    NotFoundError: "no such core, collection or request handler on this node: check the "
                   "URL (http://host:8983/solr), the collection name and the handler",
    VersionConflictError: "the document changed since its _version_ was read: read it again",
    HttpStatusError: "Solr refused the request: `solr_message` says why",
    TransportError: "the exchange broke after it started: look at the network or a proxy",
}


def _make(
    kind: str,
    message: str,
    status: Optional[int],
    node: Optional[str],
    solr_message: Optional[str],
    hint: Optional[str],
    report: Optional[Dict[str, Any]],
) -> SolrError:
    """The exception for one Rust error (called by the native module)."""
    cls = _CLASSES.get(kind, SolrError)
    e = cls(message)
    e.kind, e.status, e.node = kind, status, node
    e.solr_message, e.report = solr_message, report
    e.hint = hint or _HINTS.get(cls)
    return e


_BY_STATUS = {401: "Unauthorized", 404: "NotFound", 409: "VersionConflict"}


def check(status: int, body: bytes, timing: Dict[str, Any]) -> None:
    """Raises the ``HttpStatusError`` for a non-2xx answer, with Solr's message."""
    if 200 <= status < 300:
        return
    solr_message = None
    try:
        solr_message = str(json.loads(body)["error"]["msg"])
    except (ValueError, KeyError, TypeError):
        pass
    node = timing.get("node")
    kind = _BY_STATUS.get(status, "Solr")
    text = " ".join(body[:300].decode("utf-8", "replace").split())
    detail = solr_message if solr_message is not None else text
    message = f"{node}: HTTP {status}: {detail}"
    raise _make(kind, message, status, node, solr_message, None, None)
