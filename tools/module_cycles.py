#!/usr/bin/env python3
"""Module dependency edges of a Rust crate (file = module) and their cycles.

An edge A -> B: file A names an item of module B through a `use crate::`/`use super::`/
`use self::` path, a child-relative `use child::` in a mod.rs, or an inline `crate::`/
`super::` path in code. Paths are resolved through re-exports (`pub use`) to the file
that defines the item. Test modules (from `#[cfg(test)]` at column 0) and comments are
skipped. Edges from a folder's mod.rs to its own children are not counted (mod.rs is
the folder's map, and a type's impl may be spread over its children).
usage: tools/module_cycles.py SRC_DIR [--edges]   (e.g. gossamer/src)
"""
import os, re, sys
root = sys.argv[1]
files = {}
for d, _, fs in os.walk(root):
    for f in fs:
        if f.endswith('.rs'):
            p = os.path.relpath(os.path.join(d, f), root)
            parts = p[:-3].split('/')
            if parts[-1] in ('mod', 'lib'):
                parts = parts[:-1]
            files[tuple(parts)] = p

def code_of(p):
    t = open(os.path.join(root, p)).read()
    m = re.search(r'^#\[cfg\(test\)\]', t, re.M)
    if m: t = t[:m.start()]
    t = re.sub(r'//[^\n]*', '', t)
    t = re.sub(r"'\\?.'", "' '", t)
    t = re.sub(r'"(\\.|[^"\\\n])*"', '""', t)
    return t

def expand(tree):
    tree = tree.strip()
    m = re.match(r'^(.*?)\{(.*)\}$', tree, re.S)
    if not m:
        return [tree]
    pre, inner = m.group(1), m.group(2)
    out, depth, cur = [], 0, ''
    for ch in inner:
        if ch == ',' and depth == 0:
            out.append(cur); cur = ''; continue
        depth += ch == '{'; depth -= ch == '}'; cur += ch
    out.append(cur)
    res = []
    for o in out:
        if o.strip():
            for e in expand(o):
                res.append(pre + e.strip())
    return res

def absolute(mod, path):
    segs = [s.strip() for s in path.split('::') if s.strip()]
    segs = [s.split(' as ')[0].strip() for s in segs]
    base = list(mod)
    if segs and segs[0] == 'crate':
        return segs[1:]
    if segs and segs[0] in ('super', 'self'):
        while segs and segs[0] in ('super', 'self'):
            if segs[0] == 'super': base = base[:-1]
            segs = segs[1:]
        return base + segs
    if segs and tuple(base + [segs[0]]) in files:   # child-relative
        return base + segs
    return None

uses, reexports = {}, {}
for mod, p in files.items():
    t = code_of(p)
    us = []
    for m in re.finditer(r'^\s*(pub(\([^)]*\))?\s+)?use\s+([^;]+);', t, re.M):
        for leaf in expand(m.group(3)):
            a = absolute(mod, leaf)
            if a is None: continue
            us.append(a)
            if m.group(1):
                name = leaf.split('::')[-1].split(' as ')[-1].strip()
                reexports[(mod, name)] = a
    for m in re.finditer(r'(?<![\w:])((?:crate|super)(?:::\w+)+)', t):
        a = absolute(mod, m.group(1))
        if a: us.append(a)
    uses[mod] = us

def resolve(a, depth=0):
    for k in range(len(a), -1, -1):
        if tuple(a[:k]) in files:
            mod = tuple(a[:k]); rest = a[k:]
            if rest and (mod, rest[0]) in reexports and depth < 20:
                return resolve(reexports[(mod, rest[0])] + rest[1:], depth + 1)
            return mod
    return ()

edges = {}
for mod, us in uses.items():
    for a in us:
        b = resolve(a)
        if b == mod or b[:len(mod)] == mod:   # itself, or its own child
            continue
        edges.setdefault(mod, set()).add(b)

name = lambda m: '/'.join(m) or 'lib'
if '--edges' in sys.argv:
    for a in sorted(edges):
        print(name(a), '->', ', '.join(sorted(name(b) for b in edges[a])))
# Tarjan's strongly connected components
index, low, stack, on, sccs, i = {}, {}, [], set(), [], [0]
def visit(v):
    index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
    for w in edges.get(v, ()):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v: break
        if len(c) > 1: sccs.append(c)
sys.setrecursionlimit(10000)
for v in list(files):
    if v not in index: visit(v)
print(f'{len(files)} modules, {sum(len(e) for e in edges.values())} edges, {len(sccs)} cycle(s)')
for c in sccs:
    print('cycle:', ' <-> '.join(sorted(name(m) for m in c)))
