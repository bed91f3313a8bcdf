#!/bin/bash
# Time to first answer of cc and pagerank from the built file, with and
# without its ready rows, against GAPBS's read + kernel: `gg-base` (a build
# whose cc and pagerank prepare their rows from the built file) and
# `gg-new` (a build whose cc and pagerank map FILE.w2.ready), one process
# per call, alternated with GAPBS's cc/pr from its .sg, ROUNDS rounds; one
# CSV row per call:
#
#   scale,round,program,kernel,first_answer_s,wall_s,peak_rss_kib,gapbs_read_plus_trial_s
#
# (the last field empty for ours). Ours' `--json` of every call is appended
# to phases-sS.jsonl (its `wall_time` holds the phases). Run it in a
# directory that holds gg-base, gg-new, and sS.gbuilt (a link to the built
# file) with sS.gbuilt.w2.ready beside it (`gg-new ready sS.gbuilt
# --threads 2`), through /work/notes/quiet.py:
#
#   first_answer_whole.sh S ROUNDS
#
# Ours: `first_answer_s` of --json, validation skipped, 2 threads, default
# settings; GAPBS: process wall with -n 1, and the Read Time + Trial Time
# it prints.
set -euo pipefail
S=$1 ROUNDS=${2:-3}
G=/work/bench/graphs GAPBS=/work/anchors/gapbs
T=/tmp/first_answer_whole.$$
t() { /usr/bin/time -f "%e %M" -o $T.time "$@"; }
for r in $(seq "$ROUNDS"); do
  for k in cc pagerank; do
    for b in gg-base gg-new; do
      t ./$b $k --graph s$S.gbuilt --threads 2 --skip-validation --json > $T.json
      fa=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_time"]["first_answer_s"])' $T.json)
      python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("trustees",None); print(json.dumps({"round":int(sys.argv[2]),"program":sys.argv[3],**d}))' $T.json "$r" "$b" >> phases-s$S.jsonl
      read -r wall rss < $T.time
      echo "$S,$r,$b,$k,$fa,$wall,$rss,"
    done
    g=cc; [ "$k" = pagerank ] && g=pr
    OMP_NUM_THREADS=2 t $GAPBS/$g -f $G/s$S.sg -n 1 > $T.out
    rt=$(awk '/^Read Time:/ {r=$3} /^Trial Time:/ {t=$3} END {print r+t}' $T.out)
    read -r wall rss < $T.time
    echo "$S,$r,gapbs,$k,$wall,$wall,$rss,$rt"
  done
done
rm -f $T.time $T.json $T.out
