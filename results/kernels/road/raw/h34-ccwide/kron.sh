#!/bin/sh
# one round: base/new alternated (order given by $1), cc kernel seconds, SCALE 18 20 22, 1x2 and 2x1
for s in 18 20 22; do for sh in 1x2 2x1; do
  r=${sh%x*}; t=${sh#*x}; extra=""; [ $r != 1 ] && extra="--ranks $r"
  for b in $1; do
    v=$(./gg-$b $extra cc --graph /work/bench/graphs/s$s.ggraph --threads $t --skip-validation --json | python3 -c 'import json,sys; o=sys.stdin.read(); print(json.loads(o[o.index("{"):])["kernel_time_s"])')
    echo "$2,$b,$sh,s$s,$v"
  done
done; done
