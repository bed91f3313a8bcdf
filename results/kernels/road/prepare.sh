#!/usr/bin/env bash
# The road-like grids of bench.py, for both programs:
#   prepare.sh GRAPHDIR GOSSAMER_GRAPH GAPBS_DIR ROWSxCOLS...
# For each size, a symmetrized grid (gR_C-s: each street one undirected
# edge) and a directed one (gR_C-d: each street two arcs, as road files
# list them), each as NAME.ggraph (ours, with its 64 roots in NAME.roots)
# and NAME.sg / NAME-f32.wsg (GAPBS's converter reading the same graph from
# the DIMACS file our generator writes; -s symmetrizes the undirected one;
# GAPBS_DIR must be the build with f32 weights, see shared/anchors).
set -euo pipefail
[[ $# -ge 4 ]] || { echo "usage: $0 GRAPHDIR GOSSAMER_GRAPH GAPBS_DIR ROWSxCOLS..." >&2; exit 2; }
dir=$1 gg=$2 gapbs=$3
shift 3
mkdir -p "$dir"
for size in "$@"; do
  rows=${size%x*} cols=${size#*x}
  for kind in s d; do
    name=g${rows}_${cols}-$kind
    [[ -s $dir/$name-f32.wsg ]] && { echo "$name: kept"; continue; }
    flag=(); sym=(-s)
    [[ $kind == d ]] && { flag=(--directed); sym=(); }
    "$gg" generate --kind grid --rows "$rows" --cols "$cols" "${flag[@]}" \
      -o "$dir/$name.ggraph" --dimacs-out "$dir/$name.gr" --roots-out "$dir/$name.roots"
    "$gapbs/converter" -f "$dir/$name.gr" "${sym[@]}" -b "$dir/$name.sg" >/dev/null
    "$gapbs/converter" -f "$dir/$name.gr" "${sym[@]}" -wb "$dir/$name-f32.wsg" >/dev/null
    rm "$dir/$name.gr"
    echo "$name: made"
  done
done
