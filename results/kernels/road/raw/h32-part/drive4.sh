#!/bin/bash
# The 1024 x 1024 grids: block against striped (main's build), BFS and SSSP, 3 rounds alternated.
cd /tmp/h32-part
R=/work/main/results/kernels/road/bench.py
Q=/work/notes/quiet.py
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then order="base striped"; else order="striped base"; fi
  for b in $order; do
    echo "$(date +%T) round $r $b"
    $Q python3 $R small-$b.csv /tmp/h32-part/road g1024_1024-s g1024_1024-d --ours /tmp/h32-part/gg-$b --gapbs /work/anchors/gapbs \
      --rounds 1 --roots 8 --kernels bfs,sssp --deltas 500 --shapes 1x2,2x1 --maxload 50 > /dev/null || echo FAIL
  done
done
echo "$(date +%T) done"
