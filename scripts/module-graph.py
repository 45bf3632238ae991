#!/usr/bin/env python3
"""Checks the module graph of one crate: no import cycles, no import from the crate root.

    scripts/module-graph.py CRATE_DIR [--split MOD,...] [--layer LOW:HIGH ...] [--toc] [--show]

Every `crate::a::b` and `super::` path in every .rs file under CRATE_DIR/src (in `use` lines
and inline, test modules included) is an edge from the file's module to the module it names.
Paths through re-exports of the root (`pub use x::{y, z};` and `pub mod m { pub use ...; }` in
lib.rs) are resolved to where the item lives. A node is a top-level module, or, for the
modules named with --split, one of its children (`scenario::nrt`); edges inside one node
(a module and its own children) are not edges of the graph.

It fails (exit 1) when
  - the graph has a cycle (printed as a path);
  - a module names an item defined in lib.rs itself (`crate::out_dir`): the root is a table
    of contents, nothing lives there;
  - a module of layer LOW names one of layer HIGH (`--layer scenario:cli`);
  - a module names another crate's item through a `crate::` path, i.e. through a module's
    `pub use other_crate::...` re-export (`crate::witness::PcapCount`): it names the crate;
  - with --toc, lib.rs holds a `pub use` or a `pub mod m { ... }` re-export module: the root
    is a table of contents of `pub mod` lines.
"""
import argparse
import os
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def module_of(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return rel


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(l.split("//", 1)[0] if "//" in l else l for l in text.splitlines())


def expand(path_tail):
    """`{a::b, c}` or `a::b` after `crate::`/`super::` -> list of segment lists."""
    path_tail = path_tail.strip()
    if path_tail.startswith("{"):
        inner, depth, parts, cur = path_tail[1:-1], 0, [], ""
        for ch in inner:
            if ch in "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        out = []
        for p in parts:
            p = p.strip()
            if not p:
                continue
            m = re.match(r"(" + IDENT + r"(?:::" + IDENT + r")*)(::\{.*\})?", p, re.S)
            if m:
                out.append(m.group(1).split("::"))
        return out
    return [path_tail.split("::")]


def inline_modules(text):
    """(start, end, name) of each inline `mod name { ... }` (e.g. `mod tests`)."""
    out = []
    for m in re.finditer(r"\bmod (" + IDENT + r")\s*\{", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out.append((m.end(), i, m.group(1)))
    return out


def refs(text):
    """(kind, inline module path, ups, segments) for each `crate::...` / `super::...` path."""
    inline = inline_modules(text)
    pat = re.compile(r"\b(crate|super)((?:::super)*)((?:::" + IDENT + r")*)(::\{[^;]*?\})?", re.S)
    for m in pat.finditer(text):
        ups = 1 + m.group(2).count("super") if m.group(1) == "super" else 0
        inside = [name for (a, b, name) in inline if a <= m.start() < b]
        prefix = [p for p in m.group(3).split("::") if p]
        groups = expand(m.group(4)[2:]) if m.group(4) else [[]]
        for segs in groups:
            if prefix + segs:
                yield m.group(1), inside, ups, prefix + segs


LOCAL = {"crate", "self", "super", "std", "core", "alloc"}


def external_reexports(src, files, modules):
    """(module, name) -> the other crate's path, for each `pub use other_crate::...` of a module."""
    out = {}
    pat = re.compile(r"\bpub use (" + IDENT + r"(?:::" + IDENT + r")*)(::\{[^;]*\})?( as " + IDENT + r")?;", re.S)
    for f in files:
        me = module_of(src, f)
        for m in pat.finditer(strip_comments(open(f).read())):
            segs = m.group(1).split("::")
            if segs[0] in LOCAL or tuple(me + segs[:1]) in modules:
                continue
            if m.group(2):
                for inner in expand(m.group(2)[2:]):
                    out[(tuple(me), inner[-1])] = "::".join(segs + inner)
            else:
                name = m.group(3)[4:] if m.group(3) else segs[-1]
                out[(tuple(me), name)] = "::".join(segs)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("crate")
    ap.add_argument("--split", default="")
    ap.add_argument("--layer", action="append", default=[])
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--toc", action="store_true")
    a = ap.parse_args()
    src = os.path.join(a.crate, "src")
    split = set(filter(None, a.split.split(",")))
    files = []
    for d, _, fs in os.walk(src):
        files += [os.path.join(d, f) for f in fs if f.endswith(".rs")]
    modules = {tuple(module_of(src, f)) for f in files}
    # Inline modules (`mod tests {`) are part of their file's module.
    root = next(f for f in files if module_of(src, f) == [] and f.endswith("lib.rs"))
    root_text = strip_comments(open(root).read())
    aliases = {}  # name at the root -> segments it stands for (None: another crate)
    for m in re.finditer(r"pub use (" + IDENT + r"(?:::" + IDENT + r")*)::(\{[^;]*\}|" + IDENT + r")( as " + IDENT + ")?;", root_text):
        base = m.group(1).split("::")
        inner = m.group(2)
        names = [s.strip() for s in inner.strip("{}").split(",") if s.strip()] if inner.startswith("{") else [inner]
        for n in names:
            parts = n.split(" as ")
            seg = base + parts[0].strip().split("::")
            name = parts[-1].strip().split("::")[-1]
            aliases[name] = seg if tuple(seg[:1]) in {t[:1] for t in modules if t} else None
    for m in re.finditer(r"pub mod (" + IDENT + r") \{(.*?)\n\}", root_text, re.S):
        aliases[m.group(1)] = None  # a façade over another crate
        for u in re.finditer(r"pub use crate::(" + IDENT + r"(?:::" + IDENT + r")*) as (" + IDENT + r");", m.group(2)):
            aliases[m.group(1) + "::" + u.group(2)] = u.group(1).split("::")
    root_items = set(re.findall(r"^pub (?:async )?(?:fn|struct|enum|const|static|type|trait) (" + IDENT + ")", root_text, re.M))

    def node(segs):
        if not segs:
            return "<root>"
        if segs[0] in split and len(segs) > 1:
            return "::".join(segs[:2])
        return segs[0]

    def resolve(segs):
        """Longest known module prefix of segs, through root aliases."""
        if len(segs) >= 2 and "::".join(segs[:2]) in aliases:
            segs = aliases["::".join(segs[:2])] + segs[2:]
        elif segs[0] in aliases:
            if aliases[segs[0]] is None:
                return None
            segs = aliases[segs[0]] + segs[1:]
        for k in range(len(segs), 0, -1):
            if tuple(segs[:k]) in modules:
                return list(segs[:k])
        return segs[:1]

    edges, problems = {}, []
    if a.toc:
        for m in re.finditer(r"^pub use [^;]*;|^pub mod " + IDENT + r" \{", root_text, re.M):
            problems.append(f"lib.rs: {m.group(0)} (the root only declares modules)")
    foreign = external_reexports(src, files, modules)
    for f in files:
        me = module_of(src, f)
        if f == root or (me == [] and f.endswith("main.rs")):
            continue
        text = strip_comments(open(f).read())
        for kind, inside, ups, segs in refs(text):
            if kind == "super":
                here = me + inside
                segs = here[: len(here) - ups] + segs
            elif segs[0] in root_items:
                problems.append(f"{'::'.join(me)}: names the root item crate::{segs[0]} ({os.path.relpath(f, a.crate)})")
                continue
            for k in range(len(segs)):
                if kind == "crate" and (tuple(segs[:k]), segs[k]) in foreign:
                    other = foreign[(tuple(segs[:k]), segs[k])]
                    problems.append(f"{'::'.join(me)}: names {other} through crate::{'::'.join(segs[:k + 1])} ({os.path.relpath(f, a.crate)})")
            target = resolve(segs)
            if target is None:
                continue
            a_node, b_node = node(me), node(target)
            if a_node != b_node and b_node != "<root>":
                edges.setdefault(a_node, set()).add(b_node)
    nodes = sorted(set(edges) | {b for bs in edges.values() for b in bs})
    if a.show:
        for n in nodes:
            print(f"{n} -> {', '.join(sorted(edges.get(n, ())))}")
    for rule in a.layer:
        low, high = rule.split(":")
        for n, bs in edges.items():
            if n == low or n.startswith(low + "::"):
                for b in bs:
                    if b == high or b.startswith(high + "::"):
                        problems.append(f"{n} -> {b}: layer {low} must not import {high}")
    # Cycles: depth-first search with colours.
    colour, stack = {}, []

    def visit(n):
        colour[n] = 1
        stack.append(n)
        for b in sorted(edges.get(n, ())):
            if colour.get(b) == 1:
                problems.append("cycle: " + " -> ".join(stack[stack.index(b):] + [b]))
            elif b not in colour:
                visit(b)
        stack.pop()
        colour[n] = 2

    for n in nodes:
        if n not in colour:
            visit(n)
    name = os.path.basename(os.path.abspath(a.crate))
    if problems:
        print(f"{name}: {len(problems)} problem(s) in {len(nodes)} modules, {sum(map(len, edges.values()))} edges")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print(f"{name}: {len(nodes)} modules, {sum(map(len, edges.values()))} edges, no cycle, nothing imported from the root")


if __name__ == "__main__":
    main()
