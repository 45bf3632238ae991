#!/usr/bin/env python3
"""Checks the house's size limits on production code, and that no tracked file cites a seed or
an issue by number outside docs/findings/.

    scripts/house-limits.py [--list N] [--report-only]

Production code is every `.rs` file under a workspace crate's `src/`, minus test modules
(`#[cfg(test)] mod x { ... }` blocks, and `#[cfg(test)] mod x;` files). Tests, examples,
benches and fuzz targets are not production code.

Limits (exit 1 when one is broken):
  - no function longer than 120 lines;
  - at most 3% of functions longer than 60 lines;
  - no `transport-bench` source file longer than 700 lines.

A function's length runs from its `fn` line to its closing brace, both included.

Citations (exit 1 when one is found): code, tests, scripts and user-facing text (README,
CHANGELOG, docs/ apart from docs/findings/) name a behaviour by its own name, never as
`seed 0NN`, `issue #N` or `issue N` (either case); only the findings in docs/findings/ say where a
figure or a question came from. Every file git tracks is read, as it is in the working tree.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATES = ["solr-client", "solr-client-py", "transport-bench", "solr-watch", "bench-report", "solr-harness", "wan-emu"]
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")
MAX_FN, LONG_FN, LONG_SHARE, MAX_FILE = 120, 60, 0.03, 700
CITATION = re.compile(r"\bseed 0\d\d|\bissues? #?\d+", re.IGNORECASE)
CITATIONS_ALLOWED = ("docs/findings/",)


def code_only(line, state):
    """The line without comments, strings and char literals; `state` carries block comments."""
    out, i = [], 0
    while i < len(line):
        if state["block"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block"], i = False, end + 2
            continue
        two = line[i:i + 2]
        if two == "//":
            break
        if two == "/*":
            state["block"], i = True, i + 2
            continue
        ch = line[i]
        if ch == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "'" and re.match(r"'(\\.|[^\\'])'", line[i:i + 4]):
            i += len(re.match(r"'(\\.|[^\\'])'", line[i:i + 4]).group(0))
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def raw_strings_blanked(text):
    return re.sub(r'r(#+)".*?"\1', lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)


def is_test_cfg(line):
    return re.search(r"#\[cfg\((?:all\()?[^\]]*\btest\b", line) is not None


def test_files(path, lines):
    """Files and folders that a `#[cfg(test)] mod x;` in this file pulls in."""
    out, base, stem = [], os.path.dirname(path), os.path.basename(path)[:-3]
    sub = base if stem in ("mod", "lib", "main") else os.path.join(base, stem)
    for i, line in enumerate(lines):
        if not is_test_cfg(line):
            continue
        explicit = None
        for follow in lines[i + 1:i + 4]:
            m = re.match(r'\s*#\[path\s*=\s*"([^"]+)"\]', follow)
            if m:
                explicit = os.path.join(base, m.group(1))
                continue
            m = re.match(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", follow)
            if m:
                out += [explicit] if explicit else [
                    os.path.join(sub, m.group(1) + ".rs"), os.path.join(sub, m.group(1)) + os.sep]
            if not follow.strip().startswith("#"):
                break
    return out


def functions(path):
    """(name, first line, length) of each production function in one file."""
    lines = raw_strings_blanked(open(path, encoding="utf-8").read()).splitlines()
    state, depth, found, stack, skip_at, pending_test = {"block": False}, 0, [], [], None, False
    for no, raw in enumerate(lines, 1):
        code = code_only(raw, state)
        if skip_at is None and is_test_cfg(code):
            pending_test = True
        m = FN.match(code)
        if skip_at is None and pending_test and re.match(r"\s*(?:pub\s+)?mod\s+\w+\s*\{", code):
            skip_at, pending_test = depth, False
        elif m and skip_at is None:
            stack.append((m.group(1), no, depth))
        if code.strip() and not code.strip().startswith("#") and not re.match(r"\s*(?:pub\s+)?mod\s+\w+\s*\{", code):
            pending_test = pending_test and False
        for ch in code:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if stack and depth == stack[-1][2] and stack[-1][1] <= no:
                    name, first, _ = stack.pop()
                    found.append((name, first, no - first + 1))
                if skip_at is not None and depth == skip_at:
                    skip_at = None
        if stack and code.rstrip().endswith(";") and depth == stack[-1][2]:
            stack.pop()  # a declaration without a body (trait method)
    return found, len(lines), test_files(path, lines)


def production_files():
    for crate in CRATES:
        for base, _, names in os.walk(os.path.join(ROOT, crate, "src")):
            for name in sorted(names):
                if name.endswith(".rs"):
                    yield os.path.join(base, name)


def citations():
    """`path:line: text` of each line of a tracked file outside docs/findings/ that cites a seed
    or an issue by number."""
    listed = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], capture_output=True,
                            check=True).stdout.decode("utf-8").split("\0")
    found = []
    for rel in listed:
        path = os.path.join(ROOT, rel)
        if not rel or rel.startswith(CITATIONS_ALLOWED) or not os.path.isfile(path):
            continue  # deleted in the working tree, or allowed
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue  # not text (a capture, an image)
        found += [f"{rel}:{no}: {line.strip()}" for no, line in enumerate(text.splitlines(), 1)
                  if CITATION.search(line)]
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", type=int, default=0, help="print the N longest functions")
    ap.add_argument("--report-only", action="store_true", help="never fail")
    args = ap.parse_args()
    all_fns, long_files, skip = [], [], []
    files = list(production_files())
    for path in files:
        skip += functions(path)[2]
    for path in files:
        if any(path == s or (s.endswith(os.sep) and path.startswith(s)) for s in skip):
            continue
        fns, nlines, _ = functions(path)
        rel = os.path.relpath(path, ROOT)
        all_fns += [(n, rel, first, length) for n, first, length in fns]
        if rel.startswith("transport-bench/") and nlines > MAX_FILE:
            long_files.append((nlines, rel))
    over_max = [f for f in all_fns if f[3] > MAX_FN]
    over_long = [f for f in all_fns if f[3] > LONG_FN]
    share = len(over_long) / max(1, len(all_fns))
    for n, rel, first, length in sorted(all_fns, key=lambda f: -f[3])[: args.list]:
        print(f"{length:5} {rel}:{first} {n}")
    for nlines, rel in sorted(long_files, reverse=True):
        print(f"file over {MAX_FILE} lines: {rel} ({nlines})")
    for n, rel, first, length in over_max:
        print(f"function over {MAX_FN} lines: {rel}:{first} {n} ({length})")
    cited = citations()
    for line in cited:
        print(f"cites a seed or an issue outside docs/findings/: {line}")
    ok = not over_max and share <= LONG_SHARE and not long_files and not cited
    print(f"{len(all_fns)} functions, {len(over_long)} over {LONG_FN} lines ({share:.1%}, limit "
          f"{LONG_SHARE:.0%}), {len(over_max)} over {MAX_FN}; {len(long_files)} transport-bench "
          f"files over {MAX_FILE} lines; {len(cited)} citations outside docs/findings/: "
          f"{'ok' if ok else 'LIMITS BROKEN'}")
    return 0 if ok or args.report_only else 1


if __name__ == "__main__":
    sys.exit(main())
