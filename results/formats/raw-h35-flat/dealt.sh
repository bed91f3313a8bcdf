#!/bin/bash
# Today's layout (sS.gbuilt, positions by degree per trustee) against files
# whose ids deal the global degree ranks into K runs (kK-S.gbuilt, the
# by_degree example with K), run in local order (GG_LOCAL_ORDER=1: flat id =
# file id, the O(vertices) path's ids) or by degree; gg-sw (main + the
# temporary switch), block partition, alternated (order rotated each round).
#   scale,round,variant,kernel,metric,first_answer_s
# metric: bfs/sssp harmonic-mean TEPS over 16 roots; cc/pagerank kernel_time_s.
set -euo pipefail
S=$1 ROUNDS=${2:-3} VS=${3:-"base2 k2loc2 k64loc2 k64deg2 base1 k64loc1"} FIRST=${4:-1} ROOTS=${ROOTS:-16}
read -ra V <<< "$VS"
for r in $(seq "$FIRST" $((FIRST + ROUNDS - 1))); do
  n=${#V[@]}; rot=$(( (r - 1) % n )); vs=("${V[@]:rot}" "${V[@]:0:rot}")
  for k in bfs sssp cc pagerank; do
    for v in "${vs[@]}"; do
      extra=""; [ $k = bfs ] || [ $k = sssp ] && extra="--roots $ROOTS"
      t=${v: -1}; name=${v%?}
      case $name in
        base) f=s$S.gbuilt; unset GG_LOCAL_ORDER;;
        k2loc) f=k2-$S.gbuilt; export GG_LOCAL_ORDER=1;;
        k64loc) f=k64-$S.gbuilt; export GG_LOCAL_ORDER=1;;
        k2deg) f=k2-$S.gbuilt; unset GG_LOCAL_ORDER;;
        k64deg) f=k64-$S.gbuilt; unset GG_LOCAL_ORDER;;
      esac
      ./gg-sw $k --graph $f --partition block --threads $t --skip-validation --json $extra > l.json 2>l.err
      python3 -c '
import json,sys; d=json.load(open("l.json"))
m=d.get("harmonic_mean_teps") or d.get("kernel_time_s")
print(",".join([sys.argv[1],sys.argv[2],sys.argv[3],sys.argv[4],str(m),str(d["wall_time"]["first_answer_s"])]))' $S $r $v $k
    done
  done
done
unset GG_LOCAL_ORDER
