"""`transport-bench watch` (a live capture on `lo`) on the Python client: it must see what the
client says it did (one connection, every request answered, gzip asked and received) and
time the requests as the client's own timings do."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
from typing import List

import pytest

import solr_client
from conftest import ROOT, docs

N = 20


def _exe() -> str:
    exe = os.environ.get("TRANSPORT_BENCH") or str(ROOT / "target" / "debug" / "transport-bench")
    if not os.path.exists(exe):
        pytest.fail(f"{exe} missing: build it (cargo build -p transport-bench), or set TRANSPORT_BENCH")
    return exe


def _needs_capture() -> None:
    """A live capture needs root (or CAP_NET_RAW): without it, a skip in the ledger."""
    if os.geteuid() == 0:
        return
    ledger = os.environ.get("SKIP_LEDGER")
    if ledger:
        with open(ledger, "a") as f:
            f.write("python: watch on solr_client\ta live capture needs root\tno\n")
    pytest.skip("a live capture needs root (or CAP_NET_RAW)")


def test_watch_agrees_with_the_client(node: str, tag: str) -> None:
    _needs_capture()
    port = int(node.rsplit(":", 1)[1].split("/")[0])
    seed = solr_client.Client(node, "bench")
    seed.add(docs(tag, 30))
    seed.commit()
    seed.close()
    watch = subprocess.Popen(
        [_exe(), "watch", "--port", str(port), "--interface", "lo", "--duration", "8s",
         "--json", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert watch.stderr is not None
    for line in watch.stderr:  # the capture is open once it says so
        if line.startswith("watching tcp port"):
            break
    totals: List[float] = []
    with solr_client.Client(node, "bench", gzip=True) as c:
        for _ in range(N):
            r = c.search(f"tag_s:{tag}", rows=30)
            assert r.num_found == 30
            totals.append(r.timing["total"])
        opened, requests = c.stats()
    stdout, _ = watch.communicate(timeout=60)
    assert watch.returncode == 0
    report = json.loads(stdout)
    figures = report["requests"]
    assert (opened, requests) == (1, N)
    assert figures["wall"]["n"] == N
    assert report["connections"]["opened"] == opened
    assert figures["requests"] == figures["answered"] == figures["qtime_decoded"] == N
    assert figures["accept_gzip"] == figures["compressed_responses"] == N
    assert figures["statuses"] == {"200": N}
    # The same requests timed from the wire and inside the client: medians within a third
    # of each other (plus 0.5 ms for the capture's clock and the client's decode).
    wire, client = figures["wall"]["p50_ms"], statistics.median(totals)
    assert abs(wire - client) <= max(wire, client) / 3 + 0.5, (wire, client)
