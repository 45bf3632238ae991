#!/usr/bin/env python3
"""Checks that adding a scenario edits at most two existing files of transport-bench.

    scripts/scenario-check.py [--report-only]

A scenario is a folder `transport-bench/src/scenario/<name>/`. Outside its own folder, only
`scenario/mod.rs` (its `mod` line) and the scenario list (`cli/registry.rs`) may name it
(`crate::scenario::<name>`, `scenario::{<name>, ...}`, `super::<name>` from a sibling
scenario); its command page `docs/commands/<cmd>.md` and its tests are new files. Every other
file that names a scenario is listed, and the check fails (exit 1) unless --report-only.
"""
import argparse
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "transport-bench", "src")
ALLOWED = {os.path.join("scenario", "mod.rs"), os.path.join("cli", "registry.rs")}
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(l.split("//", 1)[0] for l in text.splitlines())


def named(text, scenarios, in_scenario_dir):
    """The scenarios a file's text names."""
    out = set()
    for m in re.finditer(r"\bscenario::\{([^;]*?)\}", text, re.S):
        out |= {s for s in re.findall(IDENT, m.group(1)) if s in scenarios}
    out |= {s for s in re.findall(r"\bscenario::(" + IDENT + ")", text) if s in scenarios}
    if in_scenario_dir:
        # From scenario/<a>/mod.rs, `super::b` is the sibling scenario b.
        out |= {s for s in re.findall(r"\bsuper::(" + IDENT + ")", text) if s in scenarios}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report-only", action="store_true")
    a = ap.parse_args()
    scen_dir = os.path.join(SRC, "scenario")
    scenarios = sorted(d for d in os.listdir(scen_dir) if os.path.isdir(os.path.join(scen_dir, d)))
    problems = []
    for d, _, fs in os.walk(SRC):
        for f in sorted(fs):
            if not f.endswith(".rs"):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, SRC)
            if rel in ALLOWED:
                continue
            parts = rel.split(os.sep)
            own = parts[1] if parts[0] == "scenario" and len(parts) > 2 else None
            direct_child = parts[0] == "scenario" and len(parts) == 3 and parts[2] == "mod.rs"
            names = named(strip_comments(open(path).read()), scenarios, direct_child) - {own}
            for s in sorted(names):
                problems.append(f"{rel} names scenario {s}")
    print(f"scenario-check: {len(scenarios)} scenarios, {len(problems)} file(s) outside a scenario's folder name one")
    for p in problems:
        print("  " + p)
    if problems and not a.report_only:
        sys.exit(1)


if __name__ == "__main__":
    main()
