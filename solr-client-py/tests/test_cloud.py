"""Client.cloud and the pysolr drop-in against a real 2-shard SolrCloud (no ZooKeeper in the
client: the cluster state is read from the nodes)."""

from __future__ import annotations

import asyncio
from typing import List

import pysolr

import solr_client
from conftest import docs
from test_async import _check_account, _index_with_a_bad_doc


def test_cloud_client_routes_and_counts(cloud_nodes: List[str], tag: str) -> None:
    with solr_client.Client.cloud(cloud_nodes, "bench") as c:
        report = c.add(docs(tag, 40) + [{"title": "no id"}], batch_size=16)
        assert (report.sent, report.acknowledged, len(report.failed)) == (41, 40, 1)
        c.commit()
        assert c.search(f"tag_s:{tag}", rows=0).num_found == 40
        ids = [d["id"] for d in c.cursor(f"tag_s:{tag}", rows=9, fl="id")]
        assert ids == [f"{tag}-{i:04d}" for i in range(40)]
        ix = c.indexer(batch_docs=25, in_flight=2)
        ix.push_many(docs(tag + "x", 100))
        assert ix.finish().acknowledged == 100
        c.commit()
        assert c.search(f"tag_s:{tag}x", rows=0).num_found == 100


def test_drop_in_on_a_cloud_collection(cloud_nodes: List[str], tag: str) -> None:
    url = cloud_nodes[0] + "/bench"
    ours, theirs = solr_client.Solr(url), pysolr.Solr(url)
    ours.add(docs(tag, 20), commit=True)
    a = ours.search(f"tag_s:{tag}", sort="id asc", fl="id,price", rows=50,
                    **{"facet": "true", "facet.field": "category"})
    b = theirs.search(f"tag_s:{tag}", sort="id asc", fl="id,price", rows=50,
                      **{"facet": "true", "facet.field": "category"})
    assert a.hits == b.hits == 20
    assert a.docs == b.docs and a.facets == b.facets
    theirs.delete(q=f"tag_s:{tag}", commit=True)
    assert ours.search(f"tag_s:{tag}").hits == 0


def test_async_cloud_indexer_export_and_calls(cloud_nodes: List[str], tag: str) -> None:
    async def main() -> None:
        async with solr_client.AsyncClient.cloud(cloud_nodes, "bench") as c:
            report = await _index_with_a_bad_doc(c, tag, 300, 40)
            _check_account(report, tag, 300)
            await c.commit()
            assert (await c.search(f"tag_s:{tag}", rows=0)).num_found == 300
            exported = [d["id"] async for d in c.export(f"tag_s:{tag}", fl="id", sort="id asc")]
            assert exported == [f"{tag}-{i:04d}" for i in range(300)]
            ids = [d["id"] async for d in c.cursor(f"tag_s:{tag}", rows=70, fl="id")]
            assert ids == exported
            await c.delete(ids=exported[:100])
            await c.commit()
            assert (await c.search(f"tag_s:{tag}", rows=0)).num_found == 200
            await c.delete(q=f"tag_s:{tag}")
            await c.commit()

    asyncio.run(main())
