#!/bin/bash
# Degree positions vs forced local order (GG_LOCAL_ORDER=1, a temporary
# switch in graph_core::csr::positions), same binary gg-sw, from the built
# file, 1 x 2, alternated (order reversed every round). One CSV row per call:
#   scale,round,mode,kernel,metric,first_answer_s
# metric: bfs/sssp harmonic-mean TEPS over 16 roots; cc/pagerank kernel_time_s.
set -euo pipefail
S=$1 ROUNDS=${2:-3}
for r in $(seq "$ROUNDS"); do
  modes="deg loc"; [ $((r % 2)) = 0 ] && modes="loc deg"
  for k in bfs sssp cc pagerank; do
    for m in $modes; do
      extra=""; [ $k = bfs ] || [ $k = sssp ] && extra="--roots 16"
      if [ $m = loc ]; then export GG_LOCAL_ORDER=1; else unset GG_LOCAL_ORDER; fi
      ./gg-sw $k --graph s$S.gbuilt --threads 2 --skip-validation --json $extra > o.json 2>o.err
      python3 -c '
import json,sys; d=json.load(open("o.json"))
m=d.get("harmonic_mean_teps") or d.get("kernel_time_s")
print(",".join([sys.argv[1],sys.argv[2],sys.argv[3],sys.argv[4],str(m),str(d["wall_time"]["first_answer_s"])]))' $S $r $m $k
    done
  done
done
