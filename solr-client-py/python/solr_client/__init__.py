"""solr_client: a Solr client with a Rust core.

- ``Solr``: a drop-in for ``pysolr.Solr`` (change ``import pysolr`` to
  ``import solr_client as pysolr``, or import ``Solr`` and ``SolrError`` from here);
- ``Client`` / ``AsyncClient`` (the same calls, awaitable): every call returns Solr's QTime
  and the client's phases;
  exact accounting of adds; cursor and export iterators; bulk indexer; SolrCloud without
  ZooKeeper (``Client.cloud``).

Threads share a client (the GIL is released while waiting on Solr). A client made before
``os.fork()`` opens new connections in the child on its first call there; the parent's
sockets are never shared."""

from .async_client import AsyncClient, AsyncIndexer
from .client import Client, Indexer
from .errors import (
    AuthError,
    ConfigError,
    ConnectError,
    HttpStatusError,
    NoNodeError,
    NotFoundError,
    SolrError,
    SolrTimeoutError,
    TransportError,
    UnauthorizedError,
    UpdateError,
    VersionConflictError,
)
from .response import BatchReport, Response
from .results import Results
from .solr import Solr

__all__ = [
    "AsyncClient", "AsyncIndexer", "AuthError", "BatchReport", "Client", "ConfigError", "ConnectError",
    "HttpStatusError", "Indexer", "NoNodeError", "NotFoundError", "Response", "Results",
    "Solr", "SolrError", "SolrTimeoutError", "TransportError", "UnauthorizedError",
    "UpdateError", "VersionConflictError",
]
