"""Interleaved benchmark of Python Solr clients on one local Solr (not a test): pysolr,
solr_client.Solr (the drop-in), solr_client.Client (pooled and http2) and solrstice.

    python bench.py NODE_URL [--rounds 7] [--searches 400] [--bulk 5000] [--json OUT]

"Client pooled, workers" is Client pooled with its blocking calls on the multi-thread
runtime's workers (SOLR_CLIENT_PY_BLOCKING=shared) instead of the calling thread.

Search: the same query (10 rows, 2 fields) from each client in turn, round after round
(each round runs every client once, the order rotating), so drift hits every client alike.
Per client and round: p50 and p99 of the wall time of one search (perf_counter), and the
process CPU time per search (process_time: Python and every Rust thread; Solr is another
process). Bulk: each client indexes `--bulk` documents in batches of 500, then a commit; the
rate counts only documents Solr then reports (numFound checked exactly, else the run fails);
`--bulk 0` skips it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import uuid
from typing import Any, Callable, Dict, List, Tuple

import pysolr
import solrstice

import solr_client

Search = Callable[[], int]
Bulk = Callable[[List[Dict[str, Any]]], None]


def searchers(node: str) -> Dict[str, Tuple[Search, Bulk]]:
    """Each client's one search (returning numFound) and its bulk add of one list."""
    core = node + "/bench"
    ps, ours = pysolr.Solr(core), solr_client.Solr(core)
    pooled = solr_client.Client(node, "bench", transport="pooled")
    h2 = solr_client.Client(node, "bench", transport="http2")
    os.environ["SOLR_CLIENT_PY_BLOCKING"] = "shared"  # the same client, calls on the workers
    pooled_mt = solr_client.Client(node, "bench", transport="pooled")
    del os.environ["SOLR_CLIENT_PY_BLOCKING"]
    ctx = solrstice.SolrServerContext(solrstice.SolrSingleServerHost(node.rsplit("/solr", 1)[0]))
    q = {"q": "title:solr", "rows": 10, "fl": "id,title"}
    sq = solrstice.SelectQuery(q="title:solr", rows=10, fl=["id", "title"])
    upd = solrstice.UpdateQuery(commit_type=None)

    def chunks(add: Callable[[List[Dict[str, Any]]], Any]) -> Bulk:
        return lambda docs: [add(docs[i:i + 500]) for i in range(0, len(docs), 500)] and None

    def indexer(c: solr_client.Client) -> Bulk:
        def run(docs: List[Dict[str, Any]]) -> None:
            ix = c.indexer(batch_docs=500, in_flight=4)
            ix.push_many(docs)
            assert ix.finish().acknowledged == len(docs)
        return run

    return {
        "pysolr": (lambda: ps.search(**q).hits, chunks(ps.add)),
        "solr_client.Solr": (lambda: ours.search(**q).hits, chunks(ours.add)),
        "Client pooled": (lambda: pooled.search(**q).num_found, indexer(pooled)),
        "Client pooled, workers": (lambda: pooled_mt.search(**q).num_found, indexer(pooled_mt)),
        "Client http2": (lambda: h2.search(**q).num_found, indexer(h2)),
        "solrstice": (lambda: sq.execute_blocking(ctx, "bench").get_docs_response().get_num_found(),
                      chunks(lambda d: upd.execute_blocking(ctx, "bench", d))),
    }


def one_search_round(search: Search, n: int) -> Dict[str, float]:
    walls: List[float] = []
    cpu0 = time.process_time()
    for _ in range(n):
        t0 = time.perf_counter()
        search()
        walls.append((time.perf_counter() - t0) * 1000)
    cpu = (time.process_time() - cpu0) * 1e6 / n
    walls.sort()
    return {"p50": walls[n // 2], "p99": walls[min(n - 1, int(n * 0.99))], "cpu_us": cpu}


def docs(prefix: str, n: int) -> List[Dict[str, Any]]:
    return [{"id": f"{prefix}-{i}", "tag_s": prefix, "title": f"solr bulk {i}",
             "body": "python client benchmark " * 8, "popularity": i % 100} for i in range(n)]


def one_bulk_round(name: str, bulk: Bulk, n: int, count: Callable[[str], int]) -> float:
    prefix = "pybench" + uuid.uuid4().hex[:8]
    batch = docs(prefix, n)
    t0 = time.perf_counter()
    bulk(batch)
    took = time.perf_counter() - t0
    found = count(prefix)
    if found != n:
        sys.exit(f"{name}: bulk sent {n} documents, Solr has {found}")
    return n / took


def add_anatomy(node: str, calls: int = 10) -> Dict[str, float]:
    """Where an ``add`` of 500 documents spends its time, pysolr's and the drop-in's in turn:
    the whole call and Solr's QTime (from its answer), and the JSON encoding both do in
    Python (``json.dumps``); and the phases of the same request sent by ``Client`` (write,
    server_wait: from the request written to the answer's head, transfer); medians over
    ``calls`` calls each, ms."""
    clients = {"pysolr": pysolr.Solr(node + "/bench"), "ours": solr_client.Solr(node + "/bench")}
    phases = solr_client.Client(node, "bench")
    seen: Dict[str, List[float]] = {}
    for i in range(calls):
        for name, c in clients.items():
            batch = docs(f"pybench-anatomy-{name}{i}", 500)
            t0 = time.perf_counter()
            json.dumps(batch).encode()
            seen.setdefault("encode_ms", []).append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            answer = json.loads(c.add(batch))
            seen.setdefault(f"{name}_call_ms", []).append((time.perf_counter() - t0) * 1000)
            seen.setdefault(f"{name}_qtime_ms", []).append(answer["responseHeader"]["QTime"])
        # The same request through Client, whose answer carries the client's phases.
        body = json.dumps(docs(f"pybench-anatomy-phases{i}", 500)).encode()
        r = phases._call("POST", "update", [("wt", "json")], body, "application/json")
        for k in ("write", "server_wait", "transfer"):
            seen.setdefault(f"phases_{k}_ms", []).append(r.timing[k])
    return {k: float(statistics.median(v)) for k, v in seen.items()}


def seed(node: str) -> None:
    c = solr_client.Client(node, "bench")
    assert c.add(docs("pybench-seed", 2000)).acknowledged == 2000
    c.commit()


def spread(values: List[float]) -> Dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("node")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--searches", type=int, default=400)
    ap.add_argument("--bulk", type=int, default=5000)
    ap.add_argument("--json")
    a = ap.parse_args()
    seed(a.node)
    clients = searchers(a.node)
    names = list(clients)
    counter = solr_client.Client(a.node, "bench")

    def count(prefix: str) -> int:
        counter.commit()
        return counter.search(f"tag_s:{prefix}", rows=0).num_found

    hits = {name: clients[name][0]() for name in names}
    if len(set(hits.values())) != 1 or 0 in hits.values():
        sys.exit(f"the clients disagree on numFound: {hits}")
    for name in names:  # warm-up: connections, JIT of Solr's query path
        one_search_round(clients[name][0], 50)
    rows: Dict[str, Dict[str, List[float]]] = {n: {"p50": [], "p99": [], "cpu_us": [],
                                                   "bulk": []} for n in names}
    for r in range(a.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            s = one_search_round(clients[name][0], a.searches)
            for k in ("p50", "p99", "cpu_us"):
                rows[name][k].append(s[k])
        for name in order if a.bulk else ():
            rows[name]["bulk"].append(one_bulk_round(name, clients[name][1], a.bulk, count))
        counter.delete(q="tag_s:pybench*")
        counter.commit()
    anatomy = add_anatomy(a.node) if a.bulk else {}
    counter.delete(q="tag_s:pybench*")
    counter.commit()
    report(rows, a, anatomy)


def paired_ratios(rows: Dict[str, Dict[str, List[float]]]) -> Dict[str, Any]:
    """Round by round (the clients of one round ran back to back, so drift of the machine's
    load hits them alike): each solr_client's figure over solrstice's (search) and over
    pysolr's (bulk); the median ratio [min-max] and the rounds it was better in."""
    ratios: Dict[str, Dict[str, List[float]]] = {}
    lines = []
    ours = [n for n in rows if n not in ("pysolr", "solrstice")]
    for n in ours:
        for k, base, better in (("p50", "solrstice", "lower"), ("cpu_us", "solrstice", "lower"),
                                ("bulk", "pysolr", "higher")):
            r = [a / b for a, b in zip(rows[n][k], rows[base][k]) if b]
            if not r:
                continue
            ratios.setdefault(n, {})[f"{k}/{base}"] = r
            wins = sum(1 for x in r if (x < 1 if better == "lower" else x > 1))
            lines.append(f"paired {n} {k} / {base}: {statistics.median(r):.2f}x "
                         f"[{min(r):.2f}-{max(r):.2f}], {better} in {wins}/{len(r)} rounds")
    return {"ratios": ratios, "lines": lines}


def report(rows: Dict[str, Dict[str, List[float]]], a: argparse.Namespace,
           anatomy: Dict[str, float]) -> None:
    out = {n: {k: spread(v or [0.0]) for k, v in m.items()} for n, m in rows.items()}
    print(f"{a.rounds} interleaved rounds, {a.searches} searches and {a.bulk} bulk documents "
          "per client and round; median [min-max] over rounds")
    print("| client | search p50 ms | search p99 ms | CPU us/search | bulk docs/s |")
    print("|---|---|---|---|---|")
    for n, m in out.items():
        cells = [f"{m[k]['median']:.{p}f} [{m[k]['min']:.{p}f}-{m[k]['max']:.{p}f}]"
                 for k, p in (("p50", 3), ("p99", 3), ("cpu_us", 0), ("bulk", 0))]
        print(f"| {n} | " + " | ".join(cells) + " |")
    base = out["pysolr"]
    for n in [n for n in out if n != "pysolr"]:
        bulk = out[n]["bulk"]["median"] / base["bulk"]["median"] if a.bulk else float("nan")
        print(f"{n} / pysolr: p50 {out[n]['p50']['median'] / base['p50']['median']:.2f}x, "
              f"CPU {out[n]['cpu_us']['median'] / base['cpu_us']['median']:.2f}x, "
              f"bulk {bulk:.2f}x")
    paired = paired_ratios(rows)
    for line in paired["lines"]:
        print(line)
    if anatomy:
        print("add of 500 documents, medians: pysolr call {pysolr_call_ms:.1f} ms (Solr's QTime "
              "{pysolr_qtime_ms:.1f}), solr_client.Solr call {ours_call_ms:.1f} ms (QTime "
              "{ours_qtime_ms:.1f}), JSON encoding {encode_ms:.2f} ms; its phases: write "
              "{phases_write_ms:.2f}, server_wait {phases_server_wait_ms:.1f}, transfer "
              "{phases_transfer_ms:.2f} ms".format(**anatomy))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"clients": out, "add_anatomy": anatomy, "paired": paired["ratios"],
                       "rounds": rows}, f, indent=2)


if __name__ == "__main__":
    main()
