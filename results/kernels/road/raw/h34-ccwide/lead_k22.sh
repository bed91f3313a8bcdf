#!/bin/sh
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then order="base gate"; else order="gate base"; fi
  for b in $order; do
    v=$(./gg-$b --ranks 2 cc --graph /work/bench/graphs/s22.ggraph --threads 1 --skip-validation --json | python3 -c 'import json,sys; o=sys.stdin.read(); print(json.loads(o[o.index("{"):])["kernel_time_s"])')
    echo "$r,$b,2x1,s22,$v" | tee -a lead-kron22.csv
  done
done
