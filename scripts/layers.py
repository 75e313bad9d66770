#!/usr/bin/env python3
"""The house's floors (DESIGN §3, docs/architecture.md), checked.

Prints the folder-level import graph of src/ (non-test code: `#[cfg(test)]`
modules, `tests.rs`, `*_tests.rs` and `tests/` folders are left out) and fails
(exit 1) on an import cycle between top-level modules or an import from a
lower floor to a higher one. A module may import its own floor or below; two
modules of one floor may not import each other.

    python3 scripts/layers.py [--src src] [--quiet]

A top-level module missing from FLOORS is an error too: a new folder must be
given its floor here (and in docs/architecture.md).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import defaultdict

FLOORS: dict[str, int] = {
    # 0: leaf utilities
    "output": 0, "fsutil": 0, "diagnostic": 0, "exit_code": 0, "clock": 0,
    "digest": 0, "interrupt": 0, "env_policy": 0, "reaper": 0,
    # 1: the shared data
    "model": 1,
    # 2: pure tests, the suite model, trace ingestion
    "stats": 2, "spec": 2, "trace": 2,
    # 3: the evaluation DAG, evaluation, recurring issues
    "dag": 3, "eval": 3, "insights": 3,
    # 4: the judge transport
    "llm": 4,
    # 5: what is asked of a judge
    "judged": 5,
    # 6: baselines and the decisions of a comparison
    "baseline": 6, "compare": 6,
    # 7: selection, run and replay, progressive tiers, shards
    "runner": 7,
    # 8: renderers and GitHub I/O
    "report": 8, "github": 8,
    # 9: the application
    "app": 9,
}

TEST_MOD = re.compile(r"^\s*#\[cfg\(test\)\]\s*\n\s*(pub(\(crate\))?\s+)?mod\s+\w+", re.M)


def edges_of(src: str, tops: set[str]) -> dict[str, dict[str, set[str]]]:
    edges: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for root, _dirs, files in os.walk(src):
        rel = os.path.relpath(root, src)
        if "tests" in rel.split(os.sep):
            continue
        for f in sorted(files):
            if not f.endswith(".rs") or f == "tests.rs" or f.endswith("_tests.rs"):
                continue
            path = os.path.join(root, f)
            top = rel.split(os.sep)[0] if rel != "." else os.path.splitext(f)[0]
            if top not in tops:
                continue
            text = open(path, encoding="utf-8", errors="replace").read()
            m = TEST_MOD.search(text)
            if m:
                text = text[: m.start()]
            text = re.sub(r"//[^\n]*", "", text)
            where = os.path.relpath(path, src)
            for b in re.findall(r"\bcrate::(\w+)", text):
                if b in tops and b != top:
                    edges[top][b].add(where)
            for grp in re.findall(r"\buse\s+crate::\{([^;]*)\}", text, re.S):
                for b in re.findall(r"(?:^|[,{\s])(\w+)(?=\s*(?:::|,|\}|$))", grp):
                    if b in tops and b != top:
                        edges[top][b].add(where)
    return edges


def cycles(edges: dict[str, dict[str, set[str]]], nodes: list[str]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=os.path.join(os.path.dirname(__file__), "..", "src"))
    ap.add_argument("--quiet", action="store_true", help="print only problems and the summary")
    args = ap.parse_args()
    src = args.src
    tops = {
        os.path.splitext(n)[0]
        for n in os.listdir(src)
        if n.endswith(".rs") or os.path.isdir(os.path.join(src, n))
    } - {"main", "lib"}
    problems: list[str] = []
    for t in sorted(tops - FLOORS.keys()):
        problems.append(f"`src/{t}` has no floor: add it to FLOORS in scripts/layers.py and to docs/architecture.md")
    edges = edges_of(src, tops)
    by_floor = sorted(tops, key=lambda t: (FLOORS.get(t, 99), t))
    for a in by_floor:
        targets = sorted(edges.get(a, {}), key=lambda t: (FLOORS.get(t, 99), t))
        if not args.quiet:
            shown = ", ".join(f"{b}({FLOORS.get(b, '?')})" for b in targets) or "-"
            print(f"floor {FLOORS.get(a, '?')} {a:<11} -> {shown}")
        for b in targets:
            if a in FLOORS and b in FLOORS and FLOORS[b] > FLOORS[a]:
                files = ", ".join(sorted(edges[a][b]))
                problems.append(f"upward import: {a} (floor {FLOORS[a]}) -> {b} (floor {FLOORS[b]}) in {files}")
    for comp in cycles(edges, sorted(tops)):
        problems.append("import cycle between folders: " + " -> ".join(comp))
    n_edges = sum(len(v) for v in edges.values())
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    print(f"{len(tops)} top-level modules, {n_edges} folder-level imports, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
