#!/bin/sh
for s in 18 20; do
  for b in $1; do
    v=$(./gg-$b --ranks 2 cc --graph /work/bench/graphs/s$s.ggraph --threads 1 --skip-validation --json | python3 -c 'import json,sys; o=sys.stdin.read(); print(json.loads(o[o.index("{"):])["kernel_time_s"])')
    echo "$2,$b,2x1,s$s,$v"
  done
done
