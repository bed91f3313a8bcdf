#!/bin/bash

set -euo pipefail
S=$1 ROUNDS=$2
for r in $(seq $ROUNDS); do for b in gg-new-df1e34e gg-new; do
  ./$b pagerank --graph s$S.gbuilt --threads 2 --skip-validation --json | python3 -c 'import json,sys; d=json.load(sys.stdin); ph={p["name"]:p["seconds"] for p in d["wall_time"]["phases"]}; print(sys.argv[1],sys.argv[2],sys.argv[3],round(d["wall_time"]["first_answer_s"],3),round(ph["kernel set-up and gathering"],3),round(ph["kernel time"],3),round(d["wall_time"]["wall_s"] if "wall_s" in d["wall_time"] else -1,3))' $S $r $b
done; done
