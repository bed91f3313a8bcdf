#!/usr/bin/env python3
"""Compares one answer of gossamer-graph with GAPBS's answer on the same
graph, vertex by vertex, and prints one line of JSON.

    compare.py KIND OURS GAPBS [BASE]

KIND is bfs, sssp, cc or pr. OURS is our binary dump (--dump-levels:
i64 per vertex, -1 unreached; --dump-dist: f32, +inf unreached;
--dump-labels: u64; --dump-scores: f64). GAPBS is the text file written by
the locally patched GAPBS (one value per vertex per line, floats in C
hexfloat notation): BFS parents (root: itself, unreached: negative), SSSP
distances (unreached: FLT_MAX/2), CC component ids, PR scores (f32).
Our entry i is GAPBS's vertex i, unless OURS has an `.ids` sidecar (a
renumbered graph): then entry i is GAPBS's vertex ids[i] - BASE (BASE: 1
for .mtx/.gr files, 0 for .el; default 0).
"""
import json
import os
import sys

import numpy as np

OUR_TYPES = {"bfs": "<i8", "sssp": "<f4", "cc": "<u8", "pr": "<f8"}


def read_gapbs(path, kind):
    with open(path) as f:
        words = f.read().split()
    if kind in ("sssp", "pr"):
        return np.array([float.fromhex(w) for w in words], dtype=np.float64)
    return np.array([int(w) for w in words], dtype=np.int64)


def levels_from_parents(parent):
    """BFS depth of every vertex from its parent array (-1: unreached)."""
    n = len(parent)
    depth = np.full(n, -2, dtype=np.int64)  # -2: not computed yet
    for start in range(n):
        path = []
        v = start
        while depth[v] == -2:
            p = parent[v]
            if p < 0:
                depth[v] = -1
                break
            if p == v:
                depth[v] = 0
                break
            path.append(v)
            v = p
            if len(path) > n:
                raise SystemExit("the GAPBS parents have a cycle")
        d = depth[v]
        for u in reversed(path):
            d = -1 if d < 0 else d + 1
            depth[u] = d
    return depth


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    kind, ours_path, gapbs_path = sys.argv[1:4]
    base = int(sys.argv[4]) if len(sys.argv) == 5 else 0
    ours = np.fromfile(ours_path, dtype=OUR_TYPES[kind])
    theirs = read_gapbs(gapbs_path, kind)
    if os.path.exists(ours_path + ".ids"):
        ids = np.fromfile(ours_path + ".ids", dtype="<u8").astype(np.int64) - base
        if ids.min() < 0 or ids.max() >= len(theirs):
            sys.exit("the .ids sidecar names vertices GAPBS does not have")
        theirs = theirs[ids]
    out = {"kind": kind, "vertices_ours": len(ours), "vertices_gapbs": len(theirs)}
    if len(ours) != len(theirs):
        out["equal"] = False
        print(json.dumps(out))
        return
    n = len(ours)
    if kind == "bfs":
        lv = levels_from_parents(theirs)
        out["reached"] = int((ours >= 0).sum())
        out["max_level"] = int(ours.max())
        out["mismatches"] = int((ours != lv).sum())
        out["equal"] = out["mismatches"] == 0
    elif kind == "sssp":
        ours = ours.astype(np.float64)
        theirs_f32 = theirs.astype(np.float32)
        unreached_theirs = theirs_f32 >= np.finfo(np.float32).max / 2
        unreached_ours = np.isinf(ours)
        out["reached"] = int((~unreached_ours).sum())
        out["reach_mismatches"] = int((unreached_ours != unreached_theirs).sum())
        both = ~unreached_ours & ~unreached_theirs
        diff = np.abs(ours[both] - theirs[both])
        out["exact"] = int((diff == 0).sum())
        out["max_abs_diff"] = float(diff.max()) if diff.size else 0.0
        rel = diff / np.maximum(np.abs(theirs[both]), np.finfo(np.float64).tiny)
        out["max_rel_diff"] = float(rel.max()) if rel.size else 0.0
        out["equal"] = out["reach_mismatches"] == 0 and out["exact"] == out["reached"]
    elif kind == "cc":
        # Labels are arbitrary: the partitions are equal when our label ->
        # GAPBS label is a function and a bijection.
        pairs = np.unique(np.stack([ours.astype(np.int64), theirs]), axis=1)
        out["components_ours"] = int(len(np.unique(ours)))
        out["components_gapbs"] = int(len(np.unique(theirs)))
        out["label_pairs"] = int(pairs.shape[1])
        out["equal"] = out["label_pairs"] == out["components_ours"] == out["components_gapbs"]
    elif kind == "pr":
        diff = np.abs(ours - theirs)
        out["sum_ours"] = float(ours.sum())
        out["sum_gapbs"] = float(theirs.sum())
        out["max_abs_diff"] = float(diff.max())
        out["l1_diff"] = float(diff.sum())
        out["max_rel_diff"] = float((diff / np.abs(theirs)).max())
        out["equal_as_f32"] = int((ours.astype(np.float32) == theirs.astype(np.float32)).sum())
        # Same order of vertices by score (ties aside)?
        top_ours = np.argsort(-ours, kind="stable")[:10]
        top_theirs = np.argsort(-theirs, kind="stable")[:10]
        out["top10_same"] = bool((top_ours == top_theirs).all())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
