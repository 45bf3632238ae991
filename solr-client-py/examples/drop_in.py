"""A pysolr app after its one-line change (`import pysolr` -> `import solr_client as pysolr`).

    python examples/drop_in.py http://127.0.0.1:8983/solr/bench
"""

from __future__ import annotations

import sys

import solr_client as pysolr


def main(url: str) -> int:
    solr = pysolr.Solr(url, always_commit=True, timeout=10)
    solr.add([{"id": "drop-in-1", "title": "A pysolr app on solr_client"}])
    results = solr.search("id:drop-in-1", fl="id,title")
    print(f"{results.hits} hit(s), QTime {results.qtime} ms")
    for doc in results:
        print(doc["id"], doc.get("title"))
    try:
        solr.search("title:(")
    except pysolr.SolrError as e:
        print("SolrError:", str(e)[:60])
    solr.delete(id="drop-in-1")
    return 0 if results.hits == 1 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8983/solr/bench"))
