"""solr_client.Client against the real standalone Solr: timings, exact accounting of adds,
cursor and export iterators, the bulk indexer, typed errors, threads, fork, close."""

from __future__ import annotations

import gc
import os
import socket
import threading
import time
from typing import List

import pytest

import solr_client
from conftest import docs


def test_search_returns_qtime_and_phases(node: str, tag: str) -> None:
    with solr_client.Client(node, "bench") as c:
        first = c.search("*:*", rows=0)
        second = c.search("*:*", rows=0)
        assert isinstance(first.qtime, int) and first.timing["qtime"] == first.qtime
        assert first.reused is False and second.reused is True
        assert first.timing["connect"] is not None and second.timing["connect"] is None
        assert first.bytes_in > 0 and first.bytes_out > 0
        for phase in ("blocked", "write", "server_wait", "transfer", "total"):
            assert first.timing[phase] >= 0.0
        assert c.stats() == (1, 2)


@pytest.mark.parametrize("transport", ["pooled", "http2", "fresh", "reqwest"])
def test_every_transport(node: str, tag: str, transport: str) -> None:
    with solr_client.Client(node, "bench", transport=transport, gzip=False) as c:
        report = c.add(docs(tag, 5))
        assert report.acknowledged == 5 and report.ok
        c.commit()
        r = c.search(f"tag_s:{tag}", rows=0)
        assert r.num_found == 5
        assert r.timing["http_version"] == ("HTTP/2" if transport == "http2" else "HTTP/1.1")
        c.delete(q=f"tag_s:{tag}")
        c.commit()
        assert c.search(f"tag_s:{tag}", rows=0).num_found == 0


def test_add_accounts_for_bad_documents_exactly(node: str, tag: str) -> None:
    good = docs(tag, 10)
    bad_value = {"id": f"{tag}-bad", "tag_s": tag, "popularity": "not a number"}
    no_id = {"tag_s": tag, "title": "no id"}
    batch = good[:4] + [bad_value] + good[4:] + [no_id]
    with solr_client.Client(node, "bench") as c:
        report = c.add(batch, batch_size=4)
        assert report.sent == 12
        assert report.acknowledged == 10
        assert sorted(f["id"] for f in report.failed if f["index"] is None) == [f"{tag}-bad"]
        assert [f["index"] for f in report.failed if f["index"] is not None] == [11]
        assert report.unknown == [] and report.not_attempted == []
        c.commit()
        assert c.search(f"tag_s:{tag}", rows=0).num_found == 10


def test_cursor_and_export_iterate_every_document(node: str, tag: str) -> None:
    want = [f"{tag}-{i:04d}" for i in range(23)]
    with solr_client.Client(node, "bench") as c:
        c.add(docs(tag, 23))
        c.commit()
        got = [d["id"] for d in c.cursor(f"tag_s:{tag}", rows=5, fl="id")]
        assert got == want
        exported = [d["id"] for d in c.export(f"tag_s:{tag}", fl="id", sort="id asc")]
        assert exported == want
        c.delete(q=f"tag_s:{tag}")
        c.commit()


def test_indexer_sends_every_document(node: str, tag: str) -> None:
    with solr_client.Client(node, "bench") as c:
        ix = c.indexer(batch_docs=100, in_flight=3)
        ix.push_many(docs(tag, 1000))
        report = ix.finish()
        assert (report.sent, report.acknowledged, report.failed) == (1000, 1000, [])
        c.commit()
        assert c.search(f"tag_s:{tag}", rows=0).num_found == 1000
        with pytest.raises(solr_client.SolrError):
            ix.finish()
        c.delete(q=f"tag_s:{tag}")
        c.commit()


def test_errors_are_typed_with_hints(node: str) -> None:
    with pytest.raises(solr_client.NotFoundError) as nf:
        solr_client.Client(node, "nosuchcore").search()
    assert nf.value.status == 404 and nf.value.hint
    with pytest.raises(solr_client.HttpStatusError) as bad:
        solr_client.Client(node, "bench").search("title:(")
    assert bad.value.status == 400 and "SyntaxError" in (bad.value.solr_message or "")
    with pytest.raises(solr_client.ConnectError) as ce:
        solr_client.Client("http://127.0.0.1:9/solr", "bench").search()
    assert ce.value.kind == "Connect" and ce.value.hint
    with pytest.raises(solr_client.ConfigError):
        solr_client.Client(node, "bench", transport="pigeon")


def test_timeout_is_typed() -> None:
    # A listener that never answers: Solr cannot be made to stall like this.
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    port = srv.getsockname()[1]
    try:
        with pytest.raises(solr_client.SolrTimeoutError) as te:
            solr_client.Client(f"http://127.0.0.1:{port}/solr", "bench", timeout=0.5).search()
        assert te.value.kind == "Timeout" and isinstance(te.value, TimeoutError)
    finally:
        srv.close()


def test_token_callable_is_used_and_its_failure_is_an_auth_error(node: str) -> None:
    calls: List[int] = []

    def token() -> tuple:
        calls.append(1)
        return ("t0k3n", 3600.0)

    with solr_client.Client(node, "bench", auth=token) as c:
        c.search(rows=0)
        c.search(rows=0)
    assert len(calls) == 1

    def broken() -> str:
        raise RuntimeError("identity provider down")

    with pytest.raises(solr_client.AuthError) as ae:
        solr_client.Client(node, "bench", auth=broken).search(rows=0)
    assert "identity provider down" in str(ae.value)


def test_threads_share_one_client(node: str) -> None:
    errors: List[BaseException] = []
    with solr_client.Client(node, "bench") as c:

        def work() -> None:
            try:
                for _ in range(20):
                    assert c.search("*:*", rows=0).status == 200
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        opened, requests = c.stats()
    assert errors == []
    assert requests == 160 and 1 <= opened <= 8


def _connections(port: int) -> int:
    """This process's established TCP connections to `port` (from /proc/net/tcp*)."""
    mine = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            mine.add(link[8:-1])
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in open(table).read().splitlines()[1:]:
            f = line.split()
            if int(f[2].rsplit(":", 1)[1], 16) == port and f[3] == "01" and f[9] in mine:
                n += 1
    return n


def _threads() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise AssertionError("no Threads line")


def test_close_leaks_no_socket_or_thread(node: str) -> None:
    port = int(node.rsplit(":", 1)[1].split("/")[0])
    warm = solr_client.Client(node, "bench")
    warm.search(rows=0)
    warm.close()
    gc.collect()  # other tests' clients, dropped without close()
    time.sleep(0.2)
    threads = _threads()
    assert _connections(port) == 0
    for transport in ("pooled", "http2", "fresh", "pooled"):
        c = solr_client.Client(node, "bench", transport=transport)
        for _ in range(3):
            c.search(rows=0)
        # fresh: a connection per request, the last one may still be closing.
        assert _connections(port) == 1 or transport == "fresh", transport
        c.close()
        assert c._native.closed
        with pytest.raises(solr_client.SolrError):
            c.search()
        time.sleep(0.1)  # a connection task ends on the runtime after close
        assert _connections(port) == 0, transport
    assert _threads() == threads


def test_fork_child_opens_its_own_connection(node: str) -> None:
    c = solr_client.Client(node, "bench")
    assert c.search(rows=0).reused is False
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its two searches, exit without pytest's teardown
        try:
            a, b = c.search(rows=0), c.search(rows=0)
            os.write(write, f"{a.reused} {b.reused} {a.num_found >= 0} {c.stats()[0]}".encode())
        finally:
            os._exit(0)
    os.close(write)
    said = os.read(read, 200).decode()
    os.waitpid(pid, 0)
    assert said == "False True True 1", said
    # The parent's connection is intact and still its only one.
    assert c.search(rows=0).reused is True
    assert c.stats()[0] == 1
    c.close()


@pytest.mark.parametrize("blocking", ["direct", "shared"])
def test_blocking_calls_indexer_and_export_share_one_client(
        node: str, tag: str, blocking: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocking calls run on the calling thread (or on the workers with
    SOLR_CLIENT_PY_BLOCKING=shared), the indexer and exports on the workers: interleaved on
    one client, every call completes and every document is counted once."""
    if blocking == "shared":
        monkeypatch.setenv("SOLR_CLIENT_PY_BLOCKING", "shared")
    with solr_client.Client(node, "bench") as c:
        assert c.add(docs(tag, 50)).acknowledged == 50
        ix = c.indexer(batch_docs=40, in_flight=2)
        for i in range(3):
            ix.push_many(docs(f"{tag}{i}", 100))
            assert c.search(f"tag_s:{tag}", rows=0).num_found in (0, 50)
        assert ix.finish().acknowledged == 300
        c.commit()
        got = [d["id"] for d in c.export(f"tag_s:{tag}*", fl="id", sort="id asc")]
        assert len(got) == len(set(got)) == 350
        assert c.search(f"tag_s:{tag}*", rows=0).num_found == 350
        # add, 8 batches, 3 searches, commit, export, search: each request counted once
        assert c.stats()[1] == 1 + 8 + 3 + 1 + 1 + 1
        c.delete(q=f"tag_s:{tag}*")
        c.commit()
