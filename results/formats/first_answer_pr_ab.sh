#!/bin/bash
# pagerank from the ready rows, before (gg-new-df1e34e: the first scores by
# a damping-0 sweep over every row) and after (gg-new: a sweep that reads
# no row), alternated, ROUNDS rounds; prints: scale round program
# first_answer_s kernel-set-up-and-gathering_s kernel_time_s. Run as
# first_answer_whole.sh is, through /work/notes/quiet.py:  first_answer_pr_ab.sh S ROUNDS
set -euo pipefail
S=$1 ROUNDS=$2
for r in $(seq $ROUNDS); do for b in gg-new-df1e34e gg-new; do
  ./$b pagerank --graph s$S.gbuilt --threads 2 --skip-validation --json | python3 -c 'import json,sys; d=json.load(sys.stdin); ph={p["name"]:p["seconds"] for p in d["wall_time"]["phases"]}; print(sys.argv[1],sys.argv[2],sys.argv[3],round(d["wall_time"]["first_answer_s"],3),round(ph["kernel set-up and gathering"],3),round(ph["kernel time"],3))' $S $r $b
done; done
