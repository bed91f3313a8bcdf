#!/bin/bash
# Today's layout (sS.gbuilt, block partition, positions by degree per
# trustee) against the graph renumbered by global degree rank (dS.gbuilt,
# by_degree example): block (equal vertex counts) and blocks cut at equal
# entries (one contiguous run per trustee, table2.txt), 1 x 2, main's
# binary gg-base, alternated (order rotated every round). One CSV row:
#   scale,round,variant,kernel,metric,first_answer_s
# metric: bfs/sssp harmonic-mean TEPS over 16 roots; cc/pagerank kernel_time_s.
set -euo pipefail
S=$1 ROUNDS=${2:-3}
TABLE=$(cat table2.txt)
for r in $(seq "$ROUNDS"); do
  case $((r % 3)) in 1) vs="base dblock dblocks";; 2) vs="dblock dblocks base";; 0) vs="dblocks base dblock";; esac
  for k in bfs sssp cc pagerank; do
    for v in $vs; do
      extra=""; [ $k = bfs ] || [ $k = sssp ] && extra="--roots 16"
      case $v in
        base) args="--graph s$S.gbuilt --partition block";;
        dblock) args="--graph d$S.gbuilt --partition block";;
        dblocks) args="--graph d$S.gbuilt --partition blocks --block-table $TABLE";;
      esac
      ./gg-base $k $args --threads 2 --skip-validation --json $extra > l.json 2>l.err
      python3 -c '
import json,sys; d=json.load(open("l.json"))
m=d.get("harmonic_mean_teps") or d.get("kernel_time_s")
print(",".join([sys.argv[1],sys.argv[2],sys.argv[3],sys.argv[4],str(m),str(d["wall_time"]["first_answer_s"])]))' $S $r $v $k
    done
  done
done
