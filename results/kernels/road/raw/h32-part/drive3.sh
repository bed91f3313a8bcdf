#!/bin/bash
# The new build's defaults against main's, BFS and SSSP on the 2048 grids and BFS at SCALE 22.
cd /tmp/h32-part
R=/work/main/results/kernels/road/bench.py
AB=/work/main/results/kernels/shape/ab.py
Q=/work/notes/quiet.py
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then order="base new"; else order="new base"; fi
  for b in $order; do
    echo "$(date +%T) round $r $b"
    $Q python3 $R confirm-$b.csv /tmp/h32-part/road g2048_2048-s g2048_2048-d g1024_4096-s --ours /tmp/h32-part/gg-$b --gapbs /work/anchors/gapbs \
      --rounds 1 --roots 8 --kernels bfs --shapes 1x2,2x1 --maxload 50 > /dev/null || echo FAIL
  done
done
echo "$(date +%T) done"
