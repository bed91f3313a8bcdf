#!/bin/bash
# Block against striped (main's build fa009fb), alternated; every call through quiet.py.
cd /tmp/h32-part
R=/work/main/results/kernels/road/bench.py
AB=/work/main/results/kernels/shape/ab.py
Q=/work/notes/quiet.py
for r in 1 2 3; do
  for g in g2048_2048-s g2048_2048-d g1024_4096-s g1024_4096-d; do
    if [ $((r % 2)) = 1 ]; then order="base striped"; else order="striped base"; fi
    for b in $order; do
      bin=/tmp/h32-part/gg-$b
      echo "$(date +%T) round $r $g $b"
      $Q python3 $R road-$b.csv /tmp/h32-part/road $g --ours $bin --gapbs /work/anchors/gapbs \
        --rounds 1 --roots 8 --kernels bfs,sssp,pr --deltas 500 --shapes 1x2,2x1 --maxload 50 > /dev/null || echo FAIL
    done
  done
  for s in 20 22; do
    for sh in 1x2 2x1; do
      if [ $((r % 2)) = 1 ]; then bins="block=/tmp/h32-part/gg-base striped=/tmp/h32-part/gg-striped"; else bins="striped=/tmp/h32-part/gg-striped block=/tmp/h32-part/gg-base"; fi
      echo "$(date +%T) round $r kron $s $sh"
      $Q python3 $AB kron-r$r.csv /work/bench/graphs $bins --rounds 1 --scales $s --shapes $sh \
        --kernels bfs,sssp,pagerank --roots 8 --maxload 50 || echo FAIL
    done
  done
done
echo "$(date +%T) done"
