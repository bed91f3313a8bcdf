#!/bin/sh
# 2 ranks x 1 thread from the built file: base, new compressed, new plain; count and per-rank peak
S=$1
for l in base new newp; do
  case $l in base) b="./gg-base"; x="";; new) b="./gg-new"; x="--rows compressed";; newp) b="./gg-new"; x="--rows plain";; esac
  $b --ranks 2 tc --graph /work/bench/graphs/s$S.gbuilt --threads 1 --skip-validation --json $x > r2.out 2>r2.err
  python3 -c "import json;d=json.load(open('r2.out'));print('$l',$S,d['triangles'],d['simple_edges'],d['kernel_time_s'],d['peak_rss_kib_per_rank'])"
done
