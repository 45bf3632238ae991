"""Turning the Python constructors' arguments into a native client: the core URL split into
node and core, and ``auth`` read as basic credentials, a bearer token or a token callable."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union
from urllib.parse import urlsplit, urlunsplit

from ._native import NativeClient
from .errors import ConfigError

#: ``(user, password)``, a bearer token, a callable returning a token (or ``(token,
#: seconds_valid)``), or an object with ``username`` and ``password`` (requests' HTTPBasicAuth).
Auth = Union[None, Tuple[str, str], str, Callable[[], Any], Any]


def split_core_url(url: str) -> Tuple[str, str]:
    """``http://h:8983/solr/core`` -> (``http://h:8983/solr``, ``core``)."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    node_path, _, core = path.rpartition("/")
    if not core or parts.scheme not in ("http", "https"):
        raise ConfigError(f"not a core or collection URL (http://host:8983/solr/CORE): {url!r}")
    return urlunsplit((parts.scheme, parts.netloc, node_path, "", "")), core


def _auth_args(auth: Auth) -> Tuple[Optional[Tuple[str, str]], Optional[str], Any]:
    """(basic, bearer, token_fn) from one ``auth`` value."""
    if auth is None:
        return None, None, None
    if isinstance(auth, tuple) and len(auth) == 2:
        return (str(auth[0]), str(auth[1])), None, None
    if isinstance(auth, str):
        return None, auth, None
    if hasattr(auth, "username") and hasattr(auth, "password"):
        return (str(auth.username), str(auth.password)), None, None
    if callable(auth):
        return None, None, auth
    raise ConfigError("auth: give (user, password), a bearer token, or a callable returning one")


def native_client(
    nodes: Sequence[str],
    collection: str,
    cloud: bool,
    transport: str,
    gzip: bool,
    timeout: float,
    auth: Auth = None,
    ca_file: Optional[str] = None,
    client_cert: Optional[Tuple[str, str]] = None,
    proxy: Optional[str] = None,
    connect_timeout: Optional[float] = None,
) -> NativeClient:
    """The native client for these options."""
    basic, bearer, token_fn = _auth_args(auth)
    node_list: List[str] = [n.rstrip("/") for n in nodes]
    return NativeClient(
        node_list, collection, cloud, transport, gzip, float(timeout), connect_timeout,
        basic, bearer, token_fn, client_cert, ca_file, proxy,
    )


def cloud_client(urls: Sequence[str], collection: str, options: Dict[str, Any]) -> NativeClient:
    """The native SolrCloud client for ``Client.cloud``/``AsyncClient.cloud``'s options
    (the constructor's keyword arguments); an unknown option is a ``TypeError``."""
    o = dict(options)
    native = native_client(
        list(urls), collection, True, o.pop("transport", "pooled"), o.pop("gzip", False),
        o.pop("timeout", 60.0), o.pop("auth", None), o.pop("ca_file", None),
        o.pop("client_cert", None), o.pop("proxy", None), o.pop("connect_timeout", None))
    if o:
        raise TypeError(f"unknown options: {sorted(o)}")
    return native
