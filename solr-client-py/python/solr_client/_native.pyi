"""Type stubs of the native module (Rust, pyo3)."""

from typing import Any, Callable, Dict, List, Optional, Tuple

Answer = Tuple[int, bytes, Dict[str, Any]]

class NativeClient:
    def __init__(
        self,
        nodes: List[str],
        collection: str,
        cloud: bool = ...,
        transport: str = ...,
        gzip: bool = ...,
        timeout: float = ...,
        connect_timeout: Optional[float] = ...,
        basic: Optional[Tuple[str, str]] = ...,
        bearer: Optional[str] = ...,
        token_fn: Optional[Callable[[], Any]] = ...,
        client_cert: Optional[Tuple[str, str]] = ...,
        ca_file: Optional[str] = ...,
        proxy: Optional[str] = ...,
    ) -> None: ...
    def request(
        self,
        method: str,
        path: str,
        params: List[Tuple[str, str]],
        body: Optional[bytes] = ...,
        content_type: Optional[str] = ...,
    ) -> Answer: ...
    def request_async(
        self,
        event_loop: Any,
        done: Callable[[Any, bool, Any], None],
        method: str,
        path: str,
        params: List[Tuple[str, str]],
        body: Optional[bytes] = ...,
        content_type: Optional[str] = ...,
    ) -> Any: ...
    def add_batched(self, docs_json: bytes, batch_size: int) -> Dict[str, Any]: ...
    def add_batched_async(
        self, event_loop: Any, done: Callable[[Any, bool, Any], None], docs_json: bytes,
        batch_size: int,
    ) -> Any: ...
    def stats(self) -> Tuple[int, int]: ...
    def close(self) -> None: ...
    @property
    def closed(self) -> bool: ...

class NativeIndexer:
    def __init__(self, client: NativeClient, batch_docs: int, in_flight: int) -> None: ...
    def push_many(self, docs_json: bytes) -> int: ...
    def push_many_async(
        self, event_loop: Any, done: Callable[[Any, bool, Any], None], docs_json: bytes
    ) -> Any: ...
    def finish(self) -> Dict[str, Any]: ...
    def finish_async(self, event_loop: Any, done: Callable[[Any, bool, Any], None]) -> Any: ...

class NativeTuples:
    def __init__(
        self, client: NativeClient, q: str, fl: str, sort: str, fq: List[str] = ...
    ) -> None: ...
    def next_chunk(self, max: int) -> Optional[bytes]: ...
    def next_chunk_async(
        self, event_loop: Any, done: Callable[[Any, bool, Any], None], max: int
    ) -> Any: ...
