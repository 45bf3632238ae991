"""Where the time of each call goes: Solr's QTime beside the client's phases, the exact
account of an add, and the async client.

    python examples/timings.py http://127.0.0.1:8983/solr bench
"""

from __future__ import annotations

import asyncio
import sys
from typing import List

import solr_client


def sync_part(node: str, collection: str) -> None:
    with solr_client.Client(node, collection, transport="pooled", gzip=True) as client:
        report = client.add([{"id": "timings-1"}, {"title": "no id: refused, accounted"}])
        print(report, [f["message"][:40] for f in report.failed])
        client.commit()
        for _ in range(3):
            r = client.search("*:*", rows=0)
            t = r.timing
            print(f"QTime {r.qtime} ms, total {t['total']:.2f} ms, reused {r.reused}, "
                  f"connect {t['connect']}, bytes in/out {r.bytes_in}/{r.bytes_out}")
        ids: List[str] = [d["id"] for d in client.cursor("id:timings-*", rows=100, fl="id")]
        print("cursor:", ids)
        client.delete(ids=["timings-1"])
        client.commit()


async def async_part(node: str, collection: str) -> None:
    client = solr_client.AsyncClient(node, collection)
    answers = await asyncio.gather(*[client.search("*:*", rows=0) for _ in range(4)])
    print("async:", [a.num_found for a in answers])
    client.close()


if __name__ == "__main__":
    node = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8983/solr"
    collection = sys.argv[2] if len(sys.argv) > 2 else "bench"
    try:
        sync_part(node, collection)
        asyncio.run(async_part(node, collection))
    except solr_client.SolrError as e:
        print(f"{type(e).__name__}: {e} (hint: {e.hint})")
        sys.exit(1)
