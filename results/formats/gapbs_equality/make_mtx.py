#!/usr/bin/env python3
"""Writes a generated graph (`gossamer-graph generate --edges-out E
--weights-out W`: u64 src, u64 dst per edge; one f32 weight per edge, both
little-endian) as a weighted Matrix Market file.

    make_mtx.py EDGES WEIGHTS SCALE OUT.mtx

The file is `coordinate real symmetric` with 1-based ids and the header's
size 2^SCALE. Every edge is written as it was generated (self-loops and
repeated pairs included: both readers must cope with them), as `row col`
with row >= col, since a symmetric file stores the lower triangle. Each
weight is printed as the shortest decimal that reads back as the same f32,
so a reader that rounds correctly to f32 gets the generator's weight.
"""
import sys

import numpy as np


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    edges_path, weights_path, scale, out_path = sys.argv[1:]
    n = 1 << int(scale)
    edges = np.fromfile(edges_path, dtype="<u8").reshape(-1, 2)
    weights = np.fromfile(weights_path, dtype="<f4")
    if len(edges) != len(weights):
        sys.exit(f"{len(edges)} edges but {len(weights)} weights")
    if len(edges) and edges.max() >= n:
        sys.exit(f"an id is >= 2^{scale}")
    row = np.maximum(edges[:, 0], edges[:, 1]) + 1
    col = np.minimum(edges[:, 0], edges[:, 1]) + 1
    with open(out_path, "w") as out:
        out.write("%%MatrixMarket matrix coordinate real symmetric\n")
        out.write(f"% gossamer-graph generate --scale {scale}: every generated edge, weights as f32\n")
        out.write(f"{n} {n} {len(edges)}\n")
        text = [
            f"{r} {c} {np.format_float_positional(w, unique=True, trim='-')}\n"
            for r, c, w in zip(row.tolist(), col.tolist(), weights)
        ]
        out.writelines(text)


if __name__ == "__main__":
    main()
