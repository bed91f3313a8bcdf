#!/bin/sh
for r in 1 2; do
 for b in base final; do
  python3 /work/main/results/kernels/road/bench.py check-$b.csv /work/bench/road g1024_4096-s --ours ./gg-$b --gapbs /work/anchors/gapbs --rounds 1 --roots 4 --shapes 1x2 --kernels bfs,sssp,pr --deltas 2000 --maxload 9 > /dev/null 2>&1
 done
done
