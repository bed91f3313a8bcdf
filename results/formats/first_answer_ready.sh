#!/bin/bash
# Time to first answer from the built file with and without its ready rows:
# `gg-base` (a build without ready rows: the kernels prepare their rows
# from the built file) and `gg-new` (a build that maps FILE.w2.ready), one
# process per call, alternated with GAPBS from its .sg/.wsg, ROUNDS rounds;
# one CSV row per call (scale,round,program,kernel,first_answer_s,wall_s,
# peak_rss_kib). Run it in a directory that holds gg-base, gg-new, and
# sS.gbuilt (a link to the built file) with sS.gbuilt.w2.ready beside it
# (`gg-new ready sS.gbuilt --threads 2`), through /work/notes/quiet.py:
#
#   first_answer_ready.sh S ROUNDS
#
# Ours: `first_answer_s` of --json, validation skipped, 2 threads, the
# first root of rS; GAPBS: process wall with -n 1 (SSSP -d 0.0005).
set -euo pipefail
S=$1 ROUNDS=${2:-3}
G=/work/bench/graphs ROOT=$(head -1 $G/r$S) GAPBS=/work/anchors/gapbs
t() { /usr/bin/time -f "%e %M" -o /tmp/first_answer_ready.time "$@"; }
for r in $(seq "$ROUNDS"); do
  for k in bfs sssp; do
    for b in gg-base gg-new; do
      t ./$b $k --graph s$S.gbuilt --threads 2 --root "$ROOT" --skip-validation --json > /tmp/first_answer_ready.json
      fa=$(python3 -c 'import json; print(json.load(open("/tmp/first_answer_ready.json"))["wall_time"]["first_answer_s"])')
      read -r wall rss < /tmp/first_answer_ready.time
      echo "$S,$r,$b,$k,$fa,$wall,$rss"
    done
    g=$G/s$S.sg; extra=(); [ "$k" = sssp ] && { g=$G/s$S.wsg; extra=(-d 0.0005); }
    OMP_NUM_THREADS=2 t $GAPBS/$k -f "$g" -n 1 -r "$ROOT" "${extra[@]}" > /dev/null
    read -r wall rss < /tmp/first_answer_ready.time
    echo "$S,$r,gapbs,$k,$wall,$wall,$rss"
  done
done
