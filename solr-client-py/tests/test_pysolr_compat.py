"""solr_client.Solr beside pysolr itself, on the same real Solr and the same data: every
pysolr call gives the same values (QTime apart)."""

from __future__ import annotations

import json
from typing import Any, Dict
from urllib.parse import urlencode

import pysolr
import pytest

import solr_client
from conftest import docs


def _same_answer(a: Any, b: Any) -> None:
    """Two decoded answers equal but for QTime and Solr's request id (`rid`)."""
    for x in (a, b):
        x.get("responseHeader", {}).pop("QTime", None)
        x.get("responseHeader", {}).get("params", {}).pop("rid", None)
    assert a == b


def _same_results(ours: solr_client.Results, theirs: pysolr.Results) -> None:
    for attr in ("docs", "hits", "facets", "highlighting", "grouped", "stats", "spellcheck",
                 "nextCursorMark", "debug"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert len(ours) == len(theirs)
    assert isinstance(ours.qtime, int) and isinstance(theirs.qtime, int)
    _same_answer(ours.raw_response, theirs.raw_response)


@pytest.fixture()
def pair(core_url: str, tag: str) -> Any:
    ours, theirs = solr_client.Solr(core_url), pysolr.Solr(core_url)
    theirs.add(docs(tag, 30), commit=True)
    yield ours, theirs
    theirs.delete(q=f"tag_s:{tag}", commit=True)
    ours.close()


SEARCHES: Dict[str, Dict[str, Any]] = {
    "plain": {"sort": "id asc", "rows": 7},
    "facets": {"facet": "true", "facet.field": ["category", "popularity"], "rows": 0},
    "highlighting": {"hl": "true", "hl.fl": "title", "sort": "id asc", "rows": 3},
    "grouping": {"group": "true", "group.field": "category", "sort": "id asc"},
    "stats": {"stats": "true", "stats.field": "price", "rows": 0},
    "spellcheck": {"spellcheck": "true", "spellcheck.q": "serch", "rows": 0},
    "booleans_as_pysolr_writes_them": {"facet": True, "facet.field": "category", "rows": 1,
                                       "sort": "id asc"},
}


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_search_gives_pysolr_values(pair: Any, tag: str, name: str) -> None:
    ours, theirs = pair
    kwargs = dict(SEARCHES[name], fq=f"tag_s:{tag}")
    _same_results(ours.search("title:solr OR body:rust", **kwargs),
                  theirs.search("title:solr OR body:rust", **kwargs))


def test_cursor_iteration_matches(pair: Any, tag: str) -> None:
    ours, theirs = pair
    kw = {"fq": f"tag_s:{tag}", "sort": "id asc", "rows": 7, "cursorMark": "*", "fl": "id"}
    a, b = ours.search("*:*", **kw), theirs.search("*:*", **kw)
    assert len(a) == len(b) == 30
    assert [d["id"] for d in a] == [d["id"] for d in b] == [f"{tag}-{i:04d}" for i in range(30)]


def test_long_query_goes_as_post(pair: Any, tag: str) -> None:
    ours, theirs = pair
    q = " OR ".join(f"id:\"{tag}-{i:04d}\" OR id:\"{tag}-{i:04d}x\"" for i in range(30))
    assert len(urlencode({"q": q})) > 1024
    a, b = ours.search(q, fl="id", rows=50, sort="id asc"), theirs.search(q, fl="id", rows=50,
                                                                          sort="id asc")
    assert a.hits == b.hits == 30
    _same_results(a, b)


def test_more_like_this_and_suggest_terms(pair: Any, tag: str) -> None:
    ours, theirs = pair
    kw = {"fq": f"tag_s:{tag}", "mlt": "true", "mlt.mintf": 1, "mlt.mindf": 1, "fl": "id",
          "handler": "select"}
    _same_results(ours.more_like_this(f"id:{tag}-0001", "title", **kw),
                  theirs.more_like_this(f"id:{tag}-0001", "title", **kw))
    a = ours.suggest_terms("title", "doc")
    assert a == theirs.suggest_terms("title", "doc") and a["title"][0][0] == "document"
    a = ours.suggest_terms(["title", "body"], "num")
    assert a == theirs.suggest_terms(["title", "body"], "num") and set(a) == {"title", "body"}


def test_updates_answer_as_pysolr(core_url: str, tag: str) -> None:
    ours, theirs = solr_client.Solr(core_url), pysolr.Solr(core_url)
    for client, side in ((ours, "a"), (theirs, "b")):
        ans = client.add([{"id": f"{tag}-{side}1", "tag_s": tag, "title": "x", "body": None},
                          {"id": f"{tag}-{side}2", "tag_s": tag, "popularity": 3}],
                         commitWithin=None, overwrite=True)
        assert json.loads(ans)["responseHeader"]["status"] == 0
        client.commit()
        client.add({"id": f"{tag}-{side}1", "popularity": 9}, fieldUpdates={"popularity": "set"},
                   commit=True)
    a = ours.search(f"tag_s:{tag}", sort="id asc", fl="id,title,popularity")
    b = theirs.search(f"tag_s:{tag}", sort="id asc", fl="id,title,popularity")
    strip = [{k: v for k, v in d.items() if k != "id"} for d in a.docs]
    assert strip == [{k: v for k, v in d.items() if k != "id"} for d in b.docs]
    assert strip == [{"title": "x", "popularity": 9}, {"popularity": 3}] * 2
    assert ours.delete(id=[f"{tag}-a1"], commit=True) and theirs.delete(id=f"{tag}-b1", commit=True)
    assert ours.search(f"tag_s:{tag}").hits == 2
    assert ours.optimize() and theirs.optimize()
    ours.delete(q=f"tag_s:{tag}", commit=True)
    assert theirs.search(f"tag_s:{tag}").hits == 0
    _same_answer(json.loads(ours.ping()), json.loads(theirs.ping()))
    with pytest.raises(ValueError):
        ours.delete()


def test_always_commit(core_url: str, tag: str) -> None:
    s = solr_client.Solr(core_url, always_commit=True)
    s.add([{"id": f"{tag}-c", "tag_s": tag}])
    assert pysolr.Solr(core_url).search(f"tag_s:{tag}").hits == 1
    s.delete(q=f"tag_s:{tag}")
    assert pysolr.Solr(core_url).search(f"tag_s:{tag}").hits == 0


def test_errors_have_pysolr_class_name_and_message(core_url: str, node: str) -> None:
    ours, theirs = solr_client.Solr(core_url), pysolr.Solr(core_url)
    with pytest.raises(pysolr.SolrError) as want:
        theirs.search("title:(")
    with pytest.raises(solr_client.SolrError) as got:
        ours.search("title:(")
    assert solr_client.SolrError.__name__ == pysolr.SolrError.__name__
    assert str(got.value) == str(want.value)
    assert got.value.status == 400 and isinstance(got.value, solr_client.HttpStatusError)
    with pytest.raises(solr_client.SolrError) as nf:
        solr_client.Solr(node + "/nosuchcore").search("*:*")
    assert nf.value.status == 404
    with pytest.raises(solr_client.ConnectError) as ce:
        solr_client.Solr("http://127.0.0.1:9/solr/bench", timeout=5).search("*:*")
    assert isinstance(ce.value, solr_client.SolrError) and ce.value.hint
