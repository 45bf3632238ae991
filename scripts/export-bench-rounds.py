#!/usr/bin/env python3
"""The rounds and the report of scripts/export-bench.sh (which starts Solr and loads it).

    export-bench-rounds.py rounds RESULTS --rust-bin BIN --core URL --argfile FILE --found N
                                  --rounds R --work DIR
    export-bench-rounds.py report RESULTS --found N --rounds R --load-s S

`rounds` reads the core's /export (q=*:*, fl=id,category,price,popularity, sort=id asc) with
every reader once per round, the order rotating by one reader each round, and appends one
JSON line per read to RESULTS. The readers:

  solr-client-h1   the Rust bench (export_as::<Row>), pooled HTTP/1.1 transport, fresh process
  solr-client-h2   the same, http2 transport (h2c with prior knowledge)
  solrj-h1         SolrJ SolrStream, Jetty's HTTP/1.1 client, in a JVM kept for all rounds (warm)
  solrj-h2         SolrJ SolrStream, Jetty's HTTP/2 client (h2c), in a JVM kept for all rounds
  solrj-h1-cold    a fresh JVM's first read, client construction included
  solrj-h2-cold    the same over HTTP/2
  curl-h1          curl -s -o FILE --http1.1 on the same URL solr-client sends
  curl-h2          curl -s -o FILE --http2-prior-knowledge (h2c) on that URL

The warm JVMs read once before the first round (their cold read, not counted) and the Rust
bench reads once (untimed): Solr's docValues and the page cache are warm for everyone. Every
read must give numFound documents, each id of 0..numFound once (sum and xor): a read that
does not is printed at once as FAILED and the command exits 1 after the rounds.

`report` prints per reader docs/s median [min-max] over the rounds, wall, CPU and RSS growth,
then solr-client's docs/s as ratios to each other reader, paired within a round (median
[min-max] of the per-round ratios), and the verdict against the goals: at least warm SolrJ's
docs/s on the same protocol, at least 0.9x curl's on the same protocol, peak RSS growth at
most 32 MiB at 1,000,000 documents. Exits 1 when a read was wrong or missing.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

FL = "id,category,price,popularity"
READERS = ["solr-client-h1", "solr-client-h2", "solrj-h1", "solrj-h2",
           "solrj-h1-cold", "solrj-h2-cold", "curl-h1", "curl-h2"]
RUST_TRANSPORT = {"solr-client-h1": "pooled", "solr-client-h2": "http2"}
JVM_PROTO = {"solrj-h1": "http1", "solrj-h2": "http2", "solrj-h1-cold": "http1", "solrj-h2-cold": "http2"}
CURL_PROTO = {"curl-h1": ("--http1.1", "1.1"), "curl-h2": ("--http2-prior-knowledge", "2")}


class ReadFailed(Exception):
    """A reader could not read at all (its process failed)."""


def export_json(out, what):
    """The EXPORTJSON line of a reader's output, as a dict."""
    for line in out.splitlines():
        if line.startswith("EXPORTJSON "):
            return json.loads(line.split(" ", 1)[1])
    raise ReadFailed(f"{what}: no EXPORTJSON line in its output")


class Bench:
    def __init__(self, a):
        self.a = a
        self.url = (f"{a.core}/export?q=*%3A*&fl={FL.replace(',', '%2C')}&sort=id+asc"
                    "&wt=json&indent=off")
        self.jvms = {}

    def java(self):
        return ["java", "-Xmx512m", f"@{self.a.argfile}", "dev.solrbench.ExportStream", self.a.core]

    def rust(self, reader):
        env = dict(os.environ, SOLR_URL=self.a.core.rsplit("/", 1)[0], COLLECTION="bench",
                   TRANSPORT=RUST_TRANSPORT[reader])
        p = subprocess.run([self.a.rust_bin], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            raise ReadFailed(f"{reader}: exit {p.returncode}: {p.stderr.strip()[-500:]}")
        return export_json(p.stdout, reader)

    def start_jvm(self, reader):
        err = open(os.path.join(self.a.work, f"{reader}.log"), "w")
        p = subprocess.Popen(self.java() + [JVM_PROTO[reader]], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=err, text=True, bufsize=1)
        self.jvms[reader] = p
        return self.jvm_read(reader)

    def jvm_read(self, reader):
        p = self.jvms[reader]
        p.stdin.write("read\n")
        p.stdin.flush()
        # Anything else the JVM prints on stdout before its answer is skipped.
        for line in iter(p.stdout.readline, ""):
            if line.startswith("EXPORTJSON "):
                return export_json(line, reader)
        raise ReadFailed(f"{reader}: its JVM ended (see {self.a.work}/{reader}.log)")

    def cold_jvm(self, reader):
        p = subprocess.run(self.java() + [JVM_PROTO[reader]], input="read\n",
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise ReadFailed(f"{reader}: exit {p.returncode}: {p.stderr.strip()[-500:]}")
        r = export_json(p.stdout, reader)
        r["client"] = reader
        return r

    def curl(self, reader):
        flag, want = CURL_PROTO[reader]
        path = os.path.join(self.a.work, f"{reader}.json")
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run(["curl", "-sS", "-f", "-o", path, flag, "-w",
                            "%{time_total} %{http_version} %{size_download}", self.url],
                           capture_output=True, text=True)
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if p.returncode != 0:
            raise ReadFailed(f"{reader}: curl exit {p.returncode}: {p.stderr.strip()}")
        wall, version, size = p.stdout.split()
        if version != want:
            raise ReadFailed(f"{reader}: curl spoke HTTP/{version}, not HTTP/{want}")
        with open(path, "rb") as f:
            body = json.load(f)
        os.remove(path)
        ids = [int(d["id"]) for d in body["response"]["docs"]]
        xor = 0
        for i in ids:
            xor ^= i
        wall = float(wall)
        cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
        return {"client": reader, "docs": len(ids), "id_sum": sum(ids), "id_xor": xor,
                "wall_s": wall, "docs_per_s": len(ids) / max(wall, 1e-9), "cpu_s": cpu,
                "rss_growth_kib": None, "bytes": int(size)}

    def read(self, reader):
        if reader in RUST_TRANSPORT:
            return self.rust(reader)
        if reader in ("solrj-h1", "solrj-h2"):
            return self.jvm_read(reader)
        if reader in JVM_PROTO:
            return self.cold_jvm(reader)
        return self.curl(reader)


def expected(found):
    xor = 0
    for i in range(found):
        xor ^= i
    return found, found * (found - 1) // 2, xor


def rounds(a):
    bench, want = Bench(a), expected(a.found)
    wrong = 0
    with open(a.results, "a") as out:
        bench.rust("solr-client-h1")  # untimed: Solr's docValues and the page cache warm
        for reader in ("solrj-h1", "solrj-h2"):
            bench.start_jvm(reader)  # the JVM's cold read: not counted in the warm figures
        for r in range(a.rounds):
            order = READERS[r % len(READERS):] + READERS[:r % len(READERS)]
            print(f"export-bench: round {r + 1}/{a.rounds} ({os.getloadavg()[0]:.1f} load): "
                  + " ".join(order), file=sys.stderr)
            for reader in order:
                try:
                    res = bench.read(reader)
                except ReadFailed as e:
                    print(f"export-bench: round {r + 1}: {e}: FAILED", file=sys.stderr)
                    wrong += 1
                    continue
                res.update(client=reader, round=r)
                got = (res["docs"], res["id_sum"], res["id_xor"])
                if got != want:
                    print(f"export-bench: round {r + 1}: {reader} read {res['docs']} documents "
                          f"(id sum {res['id_sum']}, xor {res['id_xor']}); numFound {a.found} "
                          f"(sum {want[1]}, xor {want[2]}): FAILED", file=sys.stderr)
                    wrong += 1
                out.write(json.dumps(res) + "\n")
                out.flush()
    for p in bench.jvms.values():
        p.stdin.close()
        p.wait(timeout=60)
    return 1 if wrong else 0


def spread(values, fmt):
    values = sorted(values)
    return f"{fmt.format(statistics.median(values))} [{fmt.format(values[0])}-{fmt.format(values[-1])}]"


def paired(by, a, b):
    """Per-round ratios of a's docs/s to b's."""
    rb = {r["round"]: r["docs_per_s"] for r in by[b]}
    return [r["docs_per_s"] / rb[r["round"]] for r in by[a] if r["round"] in rb and rb[r["round"]]]


def report(a):
    runs = [json.loads(line) for line in open(a.results)]
    want = expected(a.found)
    bad = [r for r in runs if (r["docs"], r["id_sum"], r["id_xor"]) != want]
    clients = READERS + (["solr-client-cloud"] if any(r["client"] == "solr-client-cloud" for r in runs) else [])
    by = {c: [r for r in runs if r["client"] == c] for c in clients}
    missing = [(c, len(v)) for c, v in by.items() if len(v) != a.rounds]
    print(f"/export of {a.found} documents (fl={FL}, sort=id asc, wt=json, indent=off), load "
          f"{a.load_s} s, {a.rounds} interleaved rounds (order rotating), median [min-max]")
    print(f"{'reader':<18}{'docs/s':>28}{'wall s':>10}{'CPU s':>9}{'RSS +MiB':>21}")
    for c in clients:
        v = by[c]
        if not v:
            continue
        rss = [r["rss_growth_kib"] / 1024 for r in v if r.get("rss_growth_kib") is not None]
        rss_s = spread(rss, "{:.1f}") if rss else "-"
        print(f"{c:<18}{spread([r['docs_per_s'] for r in v], '{:.0f}'):>28}"
              f"{statistics.median(r['wall_s'] for r in v):>10.3f}"
              f"{statistics.median(r['cpu_s'] for r in v):>9.3f}{rss_s:>21}")
    print("solr-client docs/s / other reader's, paired per round: median [min-max]")
    for mine in ("solr-client-h1", "solr-client-h2"):
        cells = [f"{o}: {spread(paired(by, mine, o), '{:.2f}')}" for o in READERS[2:] if paired(by, mine, o)]
        print(f"  {mine}: " + "; ".join(cells))
    verdicts = []
    for mine, proto in (("solr-client-h1", "h1"), ("solr-client-h2", "h2")):
        for other, floor in ((f"solrj-{proto}", 1.0), (f"curl-{proto}", 0.9)):
            ratios = paired(by, mine, other)
            if ratios:
                m = statistics.median(ratios)
                verdicts.append(f"{mine} >= {floor}x {other}: {'met' if m >= floor else 'MISSED'} ({m:.2f}x)")
    for mine in ("solr-client-h1", "solr-client-h2"):
        rss = [r["rss_growth_kib"] / 1024 for r in by[mine]]
        if rss:
            peak = max(rss)
            judged = "n/a, goal stated at 1M docs" if a.found != 1_000_000 else ("met" if peak <= 32 else "MISSED")
            verdicts.append(f"{mine} peak RSS growth <= 32 MiB: {judged} (max {peak:.1f} MiB)")
    verdicts.append("all counts exact" if not bad and not missing else
                    f"{len(bad)} WRONG COUNTS, missing reads {missing}")
    print("verdict:\n  " + "\n  ".join(verdicts))
    for r in bad:
        print(f"wrong: {r}, expected docs={want[0]} id_sum={want[1]} id_xor={want[2]}", file=sys.stderr)
    return 1 if bad or missing else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("mode", choices=["rounds", "report"])
    p.add_argument("results")
    p.add_argument("--rust-bin")
    p.add_argument("--core")
    p.add_argument("--argfile")
    p.add_argument("--work")
    p.add_argument("--found", type=int, required=True)
    p.add_argument("--rounds", type=int, required=True)
    p.add_argument("--load-s", default="?")
    a = p.parse_args()
    t0 = time.monotonic()
    rc = rounds(a) if a.mode == "rounds" else report(a)
    if a.mode == "rounds":
        print(f"export-bench: rounds took {time.monotonic() - t0:.0f} s", file=sys.stderr)
    sys.exit(rc)


if __name__ == "__main__":
    main()
