#!/bin/sh
# 3 rounds, ours (main's binary) and GAPBS alternated, order reversed each round; peak RSS via /usr/bin/time %M
G=/work/bench/graphs
ours() { /usr/bin/time -f "ours S$1 round $2 maxrss %M wall %e" ./gg-base sssp --graph $G/s$1.gbuilt --threads 2 --roots 1 --skip-validation >/dev/null; }
gap() { OMP_NUM_THREADS=2 /usr/bin/time -f "gapbs S$1 round $2 maxrss %M wall %e" /work/anchors/gapbs/sssp -f $G/s$1.wsg -n 1 -d 0.0005 >/dev/null; }
for S in 20 22; do
  for r in 1 2 3; do
    if [ $((r % 2)) = 1 ]; then ours $S $r; gap $S $r; else gap $S $r; ours $S $r; fi
  done
done
