"""solr_client.AsyncClient in asyncio, against the real standalone Solr."""

from __future__ import annotations

import asyncio

import pytest

import solr_client
from conftest import docs


def test_async_calls(node: str, tag: str) -> None:
    async def main() -> None:
        c = solr_client.AsyncClient(node, "bench")
        report = await c.add(docs(tag, 12) + [{"title": "no id"}])
        assert (report.sent, report.acknowledged, len(report.failed)) == (13, 12, 1)
        await c.commit()
        answers = await asyncio.gather(*[c.search(f"tag_s:{tag}", rows=0) for _ in range(10)])
        assert [a.num_found for a in answers] == [12] * 10
        assert (await c.ping()).raw["status"] == "OK"
        ids = [d["id"] async for d in c.cursor(f"tag_s:{tag}", rows=5, fl="id")]
        assert ids == [f"{tag}-{i:04d}" for i in range(12)]
        with pytest.raises(solr_client.HttpStatusError):
            await c.search("title:(")
        await c.delete(q=f"tag_s:{tag}")
        await c.commit()
        assert (await c.search(f"tag_s:{tag}", rows=0)).num_found == 0
        c.close()

    asyncio.run(main())


def test_cancelled_call_leaves_the_loop_sound(node: str) -> None:
    async def main() -> int:
        c = solr_client.AsyncClient(node, "bench")
        t = asyncio.ensure_future(c.search(rows=0))
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        r = await c.search(rows=0)
        await asyncio.sleep(0.05)  # the cancelled call's answer arrives and is dropped
        c.close()
        return r.status

    assert asyncio.run(main()) == 200


async def _index_with_a_bad_doc(c: solr_client.AsyncClient, tag: str, n: int,
                                batch_docs: int) -> solr_client.BatchReport:
    """Pushes `n` good documents and one Solr refuses (its popularity is not an int)."""
    ix = c.indexer(batch_docs=batch_docs, in_flight=3)
    good = docs(tag, n)
    await ix.push_many(good[: n // 2])
    await ix.push({"id": f"{tag}-bad", "tag_s": tag, "popularity": "not a number"})
    await ix.push_many(good[n // 2:])
    return await ix.finish()


def _check_account(report: solr_client.BatchReport, tag: str, n: int) -> None:
    accounted = (report.acknowledged + len(report.failed) + len(report.unknown)
                 + len(report.not_attempted))
    assert (report.sent, accounted) == (n + 1, n + 1)
    assert (report.acknowledged, [f["id"] for f in report.failed]) == (n, [f"{tag}-bad"])
    assert (report.unknown, report.not_attempted) == ([], [])


def test_async_indexer_and_export(node: str, tag: str) -> None:
    async def main() -> None:
        async with solr_client.AsyncClient(node, "bench") as c:
            report = await _index_with_a_bad_doc(c, tag, 700, 100)
            _check_account(report, tag, 700)
            empty = c.indexer()
            assert (await empty.finish()).sent == 0
            with pytest.raises(solr_client.ConfigError):
                await empty.finish()
            await c.commit()
            ids = [d["id"] async for d in c.export(f"tag_s:{tag}", fl="id", sort="id asc")]
            assert ids == [f"{tag}-{i:04d}" for i in range(700)]
            with pytest.raises(solr_client.HttpStatusError):
                [d async for d in c.export(f"tag_s:{tag}", fl="body", sort="id asc")]
            await c.delete(q=f"tag_s:{tag}")
            await c.commit()
            assert (await c.search(f"tag_s:{tag}", rows=0)).num_found == 0
            assert c.stats()[1] > 0

    asyncio.run(main())

