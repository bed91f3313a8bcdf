#!/bin/bash
# Time to first answer and peak RSS, one search from a file: ours from the
# edge-list file (.ggraph) and from the built file (--built), GAPBS from
# its serialized graph (.sg / .wsg). One process per call, alternated,
# ROUNDS rounds; prints one CSV row per call.
#
#   [DELTA=0.0005] first_answer.sh GG GAPBS_DIR GRAPH.ggraph GRAPH.gbuilt GRAPH.sg GRAPH.wsg ROOT [ROUNDS]
#
# GG is the gossamer-graph binary; GAPBS_DIR holds GAPBS's bfs and sssp
# (built with float weights, as results/kernels/six_kernels.md describes);
# DELTA is GAPBS's bucket width (0.0005 measured best at SCALE 20 and 22);
# ROOT is a vertex of the giant component (the same for both programs).
# Ours: `first_answer_s` of --json (process start to the first search's
# answer) and its phases; GAPBS: the process's wall time with one trial
# (-n 1: read, then one search), which is its time to first answer.
set -euo pipefail
GG=$1 GAPBS=$2 GGRAPH=$3 BUILT=$4 SG=$5 WSG=$6 ROOT=$7 ROUNDS=${8:-3}
echo "round,program,file,kernel,first_answer_s,wall_s,peak_rss_kib"
t() { /usr/bin/time -f "%e %M" -o /tmp/first_answer.time "$@"; }
for r in $(seq "$ROUNDS"); do
  for k in bfs sssp; do
    for f in "$GGRAPH" "$BUILT"; do
      t "$GG" "$k" --graph "$f" --threads 2 --root "$ROOT" --skip-validation --json > /tmp/first_answer.json
      fa=$(python3 -c 'import json; print(json.load(open("/tmp/first_answer.json"))["wall_time"]["first_answer_s"])')
      read -r wall rss < /tmp/first_answer.time
      echo "$r,ours,$(basename "$f"),$k,$fa,$wall,$rss"
    done
    g=$SG; [ "$k" = sssp ] && g=$WSG
    extra=(); [ "$k" = sssp ] && extra=(-d "${DELTA:-0.0005}")
    OMP_NUM_THREADS=2 t "$GAPBS/$k" -f "$g" -n 1 -r "$ROOT" "${extra[@]}" > /dev/null
    read -r wall rss < /tmp/first_answer.time
    echo "$r,gapbs,$(basename "$g"),$k,$wall,$wall,$rss"
  done
done
