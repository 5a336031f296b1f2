#!/usr/bin/env python3
"""The module graph of the crate, from its `use` lines and paths.

    scripts/tools/module-graph.py [SRC] [--edges] [--dot]

Reads every `.rs` file under SRC (default `src/`), maps it to its module
(`src/solve/oware/set_up.rs` is `solve::oware::set_up`; the binary's files,
`main.rs` and the folder `src/bin/`, are left out), and collects the
modules each refers to: `use` lines (with their braces) and `crate::`,
`super::`, `self::` and child-module paths in the code, test modules left
out. A path to an item re-exported by a module (`pub use child::Item`) is
followed to the module that defines it.

Then, for every module with children (a "room"), it projects the
references between its children (a reference from anything inside child A
to anything inside child B) and prints the room's arrows and its circles:
the strongly connected groups of children, which should be none. With
`--edges`, every module-to-module reference; with `--dot`, the rooms'
arrows as Graphviz.
"""

import os
import re
import sys
from collections import defaultdict

args = [a for a in sys.argv[1:] if not a.startswith("--")]
src = args[0] if args else "src"
show_edges = "--edges" in sys.argv
dot = "--dot" in sys.argv

# Module path (tuple) -> file.
modules = {}
for root, dirs, files in os.walk(src):
    rel = os.path.relpath(root, src)
    if rel.split(os.sep)[0] == "bin":
        continue
    for f in files:
        if not f.endswith(".rs"):
            continue
        parts = [] if rel == "." else rel.split(os.sep)
        if f in ("lib.rs", "main.rs"):
            if f == "main.rs" and rel == ".":
                continue
            if rel != ".":
                continue
            mod = ()
        elif f == "mod.rs":
            mod = tuple(parts)
        else:
            mod = tuple(parts + [f[:-3]])
        modules[mod] = os.path.join(root, f)


def strip(text):
    """The text without comments, strings and test modules."""
    text = re.sub(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod \w+ \{.*", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    return text


def expand(tree):
    """`a::{b, c::{d, e as f}}` -> [(a,b), (a,c,d), (a,c,e)] with aliases."""
    tree = tree.strip()
    out = []
    depth = 0
    brace = tree.find("{")
    if brace < 0:
        path = tree.split(" as ")
        alias = path[1].strip() if len(path) > 1 else None
        segs = [s for s in path[0].strip().split("::") if s]
        return [(segs, alias)]
    prefix = [s for s in tree[:brace].split("::") if s]
    inner = tree[brace + 1 : tree.rfind("}")]
    items, cur = [], ""
    for ch in inner:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    for item in items:
        if item.strip():
            for segs, alias in expand(item):
                out.append((prefix + segs, alias))
    return out


def children(mod):
    return {m[-1] for m in modules if len(m) == len(mod) + 1 and m[: len(mod)] == mod}


def absolute(mod, segs, aliases):
    """The path `segs` written in `mod`, from the crate root, or None."""
    if not segs:
        return None
    head = segs[0]
    if head == "crate":
        return list(segs[1:])
    if head == "self":
        return list(mod) + absolute_rest(segs[1:])
    if head == "super":
        base = list(mod)
        while segs and segs[0] == "super":
            base = base[:-1]
            segs = segs[1:]
        return base + list(segs)
    if head in aliases:
        return aliases[head] + list(segs[1:])
    if head in children(mod):
        return list(mod) + list(segs)
    return None


def absolute_rest(segs):
    return list(segs)


# Per module: its `use` trees (absolute), its aliases, its re-exports.
uses = {}
reexports = defaultdict(dict)  # module -> item name -> absolute path
texts = {}
for mod, path in modules.items():
    text = strip(open(path).read())
    texts[mod] = text
    trees = []
    for m in re.finditer(r"\b(pub(\([^)]*\))?\s+)?use\s+([^;]+);", text):
        trees.append((m.group(1) is not None, m.group(3)))
    uses[mod] = trees

aliases = {}
for mod, trees in uses.items():
    table = {}
    # Two passes: an alias may be defined by a later line in the file.
    for _ in range(2):
        for public, tree in trees:
            for segs, alias in expand(tree):
                target = absolute(mod, segs, table)
                if target is None:
                    continue
                name = alias or segs[-1]
                if name == "self":
                    name = alias or segs[-2]
                    target = target[:-1]
                table[name] = target
                reexports[mod][name] = target
    aliases[mod] = table


def resolve(path, seen=0):
    """The module that defines what `path` (absolute) names."""
    best = ()
    for i in range(len(path), -1, -1):
        if tuple(path[:i]) in modules:
            best = tuple(path[:i])
            rest = path[i:]
            break
    if rest and seen < 8 and rest[0] in reexports.get(best, {}):
        target = reexports[best][rest[0]]
        if target != list(best) + rest[:1]:
            return resolve(target + rest[1:], seen + 1)
    return best


edges = defaultdict(set)
for mod, text in texts.items():
    table = aliases[mod]
    refs = []
    for public, tree in uses[mod]:
        for segs, alias in expand(tree):
            if segs and segs[-1] == "self":
                segs = segs[:-1]
            target = absolute(mod, segs, table)
            if target is not None:
                refs.append(target)
    body = re.sub(r"\b(pub(\([^)]*\))?\s+)?use\s+[^;]+;", "", text)
    for m in re.finditer(r"\b((?:[A-Za-z_]\w*::)+[A-Za-z_]\w*)", body):
        segs = m.group(1).split("::")
        target = absolute(mod, segs, table)
        if target is not None:
            refs.append(target)
    for target in refs:
        to = resolve(target)
        if to != mod:
            edges[mod].add(to)


def name(mod):
    return "::".join(mod) or "crate"


def inside(mod, room):
    return len(mod) > len(room) and mod[: len(room)] == room


def scc(nodes, arrows):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in arrows.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            out.append(sorted(group))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return [g for g in out if len(g) > 1]


if show_edges:
    for mod in sorted(edges):
        print(f"{name(mod)} -> {', '.join(sorted(name(t) for t in edges[mod]))}")
    sys.exit(0)

rooms = sorted({m[:i] for m in modules for i in range(len(m))})
if dot:
    print("digraph modules {")
total = 0
for room in rooms:
    kids = sorted(children(room))
    if len(kids) < 2:
        continue
    arrows = defaultdict(set)
    for mod, targets in edges.items():
        if not inside(mod, room):
            continue
        a = mod[len(room)]
        for t in targets:
            if inside(t, room) and t[len(room)] != a:
                arrows[a].add(t[len(room)])
    circles = scc(kids, arrows)
    total += len(circles)
    if dot:
        for a in sorted(arrows):
            for b in sorted(arrows[a]):
                print(f'  "{name(room + (a,))}" -> "{name(room + (b,))}";')
        continue
    print(f"{name(room)}: {len(kids)} children")
    for a in sorted(arrows):
        print(f"  {a} -> {', '.join(sorted(arrows[a]))}")
    for c in circles:
        print(f"  CIRCLE: {' <-> '.join(c)}")
if dot:
    print("}")
else:
    print(f"circles: {total}")
