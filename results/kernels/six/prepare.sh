#!/usr/bin/env bash
# Builds the graphs both sides read for the six-kernel comparison
# (issue 11, item 6; see ../six_kernels.md). Nothing here is timed.
#
#   prepare.sh WORKDIR SCALE...
#
# For each SCALE it writes into WORKDIR (never into the repository):
#   sS.ggraph   ours: `gossamer-graph generate` (Graph500 Kronecker,
#               edgefactor 16, seeds 2/3, f32 weights, its 64 search roots)
#   sS.roots    those roots, one per line (GAPBS's -r takes the same ids)
#   sS.mtx      the same edges and weights as Matrix Market (make_mtx.py of
#               results/formats/gapbs_equality), 1-based, symmetric
#   sS.sg       GAPBS, stock build: `converter -s -f sS.mtx -b sS.sg`
#
# GAPBS's float-weight build reads sS.mtx itself for sssp: its converter
# writes .wsg only for int32 weights, and the weights are in (0, 1).
#
# Environment: GG (our binary), GAPBS (stock build dir), THREADS (default 2).
set -euo pipefail
if [ $# -lt 2 ]; then sed -n '2,18p' "$0"; exit 2; fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
work=$1; shift
GG=${GG:-$repo/target/release/gossamer-graph}
GAPBS=${GAPBS:?stock GAPBS build directory}
THREADS=${THREADS:-2}
export OMP_NUM_THREADS=$THREADS
mkdir -p "$work"
cd "$work"
for s in "$@"; do
    "$GG" generate --scale "$s" --threads "$THREADS" -o "s$s.ggraph" \
        --edges-out "s$s.edges" --weights-out "s$s.weights" --roots-out "s$s.roots"
    python3 "$repo/results/formats/gapbs_equality/make_mtx.py" "s$s.edges" "s$s.weights" "$s" "s$s.mtx"
    "$GAPBS/converter" -s -f "s$s.mtx" -b "s$s.sg"
    rm -f "s$s.edges" "s$s.weights"
    sha256sum "s$s.mtx"
done
