#!/bin/sh
for r in 1 2 3; do
 if [ $((r % 2)) = 1 ]; then order="base final"; else order="final base"; fi
 for b in $order; do
  python3 /work/main/results/kernels/road/bench.py check-bfs-$b.csv /work/bench/road g1024_4096-s g1024_4096-d --ours ./gg-$b --gapbs /work/anchors/gapbs --rounds 1 --roots 8 --shapes 1x2 --kernels bfs --maxload 9 > /dev/null 2>&1
 done
done
