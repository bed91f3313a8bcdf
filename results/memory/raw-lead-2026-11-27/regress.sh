#!/bin/bash
# usage: regress.sh ROUNDS SCALE  -> kernel_time_s and peak for each kernel, base vs new alternated
R=${1:-3}; S=${2:-20}; G=/work/bench/graphs/s$S.gbuilt
for r in $(seq 1 $R); do
 for k in bfs sssp cc pagerank bc tc; do
  for b in gg-base gg-new; do
   extra=""; case $k in bfs|sssp) extra="--roots 8";; esac
   out=$(/usr/bin/time -f "%M" ./$b $k --graph $G --threads 2 --skip-validation --json $extra 2>err.txt)
   peak=$(tail -1 err.txt)
   kt=$(echo "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("kernel_time_s", d.get("median_time_s","?")), d["wall_time"]["first_answer_s"], sep=",")' 2>/dev/null)
   echo "$r,$k,$b,$kt,$peak"
  done
 done
done
