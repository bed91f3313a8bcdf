#!/bin/bash
# one-thread sitting on graph $1: ours base/new (alternated) and GAPBS 1 thread; per-root times
G=$1; R=/work/bench/road; REPS=${REPS:-2}
for r in $(seq 1 $REPS); do
  order="base new"; [ $((r % 2)) -eq 0 ] && order="new base"
  for k in sssp bfs; do
    extra=""; [ $k = sssp ] && extra="--delta 500"
    for b in $order; do
      t=$(/tmp/h25-row-$b/gossamer-graph $k --graph $R/$G.ggraph --threads 1 --roots 4 $extra --skip-validation 2>&1 | awk '/^ +[0-9]+ +[0-9.]+ /{printf "%s ", $2}')
      echo "$k-$b $t"
    done
    if [ $k = sssp ]; then cmd="/work/anchors/gapbs/sssp -f $R/$G-f32.wsg -n 4 -d 500"; else cmd="/work/anchors/gapbs/bfs -f $R/$G.sg -n 4"; fi
    t=$(GAPBS_ROOTS=$R/.$G.first4 OMP_NUM_THREADS=1 $cmd | awk '/Trial Time/{printf "%s ", $3}')
    echo "$k-gapbs1 $t"
  done
done
