#!/usr/bin/env bash
# Checks the fleet view's Prometheus files (docs/fleet.md) with promtool: the documented
# scrape config, the alert rules and their unit tests, and every PromQL expression of
# docs/fleet.md (```promql blocks) and of the Grafana dashboard (Grafana's $variables
# replaced by values), parsed as recording rules. That the metric names they use are the
# ones `watch --serve` exports is checked against a live scrape by the e2e test `fleet::`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT/docs/fleet"
if ! command -v promtool >/dev/null 2>&1; then
  echo "fleet-check: promtool is missing (Debian package prometheus; scripts/setup.sh installs it)" >&2
  exit 1
fi
promtool check config prometheus.yml
promtool check rules alerts.yml
promtool test rules alerts.test.yml
exprs=$(mktemp "${TMPDIR:-/tmp}/fleet-exprs.XXXXXX.yml")
trap 'rm -f "$exprs"' EXIT
python3 - "$ROOT/docs/fleet.md" dashboard.json >"$exprs" <<'PY'
import json, re, sys
doc, dash = sys.argv[1], sys.argv[2]
exprs = [("docs/fleet.md", m) for m in re.findall(r"```promql\n(.*?)```", open(doc).read(), re.S)]
for p in json.load(open(dash))["panels"]:
    for t in p.get("targets", []):
        exprs.append((f"dashboard.json: {p['title']}", t["expr"]))
grafana = {"$__rate_interval": "5m", "$__range": "6h", "$host": ".*"}
if len(exprs) < 10:
    sys.exit(f"fleet-check: only {len(exprs)} expressions found; the extraction is broken")
print("groups:\n  - name: fleet-docs-expressions\n    rules:")
for i, (where, e) in enumerate(exprs):
    for k, v in grafana.items():
        e = e.replace(k, v)
    if "$" in e:
        sys.exit(f"fleet-check: {where}: an unknown Grafana variable in {e!r}")
    print(f"      - record: fleet_docs_expression_{i}\n        expr: {json.dumps(e.strip())}")
print(f"fleet-check: {len(exprs)} PromQL expressions", file=sys.stderr)
PY
promtool check rules "$exprs"
echo "fleet-check: ok"
