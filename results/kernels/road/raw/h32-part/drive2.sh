#!/bin/bash
cd /tmp/h32-part
R=/work/main/results/kernels/road/bench.py
AB=/work/main/results/kernels/shape/ab.py
Q=/work/notes/quiet.py
for r in 4 5; do
  for g in g1024_4096-s g1024_4096-d; do
    if [ $((r % 2)) = 1 ]; then order="base striped"; else order="striped base"; fi
    for b in $order; do
      echo "$(date +%T) round $r $g $b"
      $Q python3 $R road-$b.csv /tmp/h32-part/road $g --ours /tmp/h32-part/gg-$b --gapbs /work/anchors/gapbs \
        --rounds 1 --roots 8 --kernels bfs,sssp --deltas 500 --shapes 1x2,2x1 --maxload 50 > /dev/null || echo FAIL
    done
  done
  if [ $((r % 2)) = 1 ]; then bins="block=/tmp/h32-part/gg-base striped=/tmp/h32-part/gg-striped"; else bins="striped=/tmp/h32-part/gg-striped block=/tmp/h32-part/gg-base"; fi
  echo "$(date +%T) round $r kron 22 sssp"
  $Q python3 $AB kron-r$r.csv /work/bench/graphs $bins --rounds 1 --scales 22 --shapes 1x2,2x1 --kernels sssp,bfs --roots 8 --maxload 50 || echo FAIL
done
for r in 1 2 3; do
  echo "$(date +%T) built round $r"
  $Q python3 /tmp/h32-part/built.py built.csv $r || echo FAIL
done
echo "$(date +%T) done"
