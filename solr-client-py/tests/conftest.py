"""Real local Solr for the Python tests: the project's `local-solr/solr.sh` starts a
standalone node (instance `py`) and, for the cloud tests, a 2-shard SolrCloud (`py-cloud`);
both are stopped at the end. SOLR_PY_KEEP=1 leaves them running (development)."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path
from typing import Dict, Iterator, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOLR_SH = ROOT / "local-solr" / "solr.sh"


def _start(*args: str) -> List[str]:
    """Starts an instance; the node base URLs it printed."""
    out = subprocess.run(["bash", str(SOLR_SH), "start", *args], check=True,
                         stdout=subprocess.PIPE, text=True, timeout=300).stdout
    return [line.split()[2] for line in out.splitlines() if line.startswith("node ")]


def _stop(name: str) -> None:
    if os.environ.get("SOLR_PY_KEEP") != "1":
        subprocess.run(["bash", str(SOLR_SH), "stop", name], check=False, timeout=120)


def _running(name: str) -> List[str]:
    tsv = ROOT / "local-solr" / "run" / name / "nodes.tsv"
    if os.environ.get("SOLR_PY_KEEP") == "1" and tsv.exists():
        return [line.split("\t")[3].strip() for line in tsv.read_text().splitlines() if line]
    return []


@pytest.fixture(scope="session")
def node() -> Iterator[str]:
    """The standalone node's base URL (`http://127.0.0.1:PORT/solr`), core `bench`."""
    urls = _running("py") or _start("standalone", "--name", "py")
    yield urls[0]
    _stop("py")


@pytest.fixture(scope="session")
def core_url(node: str) -> str:
    """The core URL pysolr takes."""
    return node + "/bench"


@pytest.fixture(scope="session")
def cloud_nodes() -> Iterator[List[str]]:
    """The 2-shard SolrCloud's node URLs (collection `bench`, one replica per shard)."""
    urls = _running("py-cloud") or _start("cloud", "--name", "py-cloud", "--shards", "2",
                                          "--replicas", "1")
    yield urls
    _stop("py-cloud")


@pytest.fixture()
def tag() -> str:
    """A tag unique to the test: its documents carry it in `tag_s`."""
    return "py" + uuid.uuid4().hex[:10]


def docs(tag: str, n: int) -> List[Dict[str, object]]:
    """`n` documents tagged `tag` with text, a category, a price and a popularity."""
    words = ["solr", "search", "rust", "python", "latency", "client"]
    return [
        {
            "id": f"{tag}-{i:04d}",
            "tag_s": tag,
            "title": f"{words[i % 6]} {words[(i * 5 + 1) % 6]} document {i}",
            "body": f"the {words[(i + 2) % 6]} body of number {i}",
            "category": ["books", "music", "films"][i % 3],
            "price": float(i % 17) + 0.5,
            "popularity": i % 10,
        }
        for i in range(n)
    ]
