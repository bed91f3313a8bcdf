#!/bin/bash
# rounds.sh N BIN...: cc kernel_time, 1x2 and 2x1 on both 2048 grids, N rounds, binaries alternated
cd /tmp/h32-start
n=$1; shift
for r in $(seq $n); do for g in s d; do for b in "$@"; do
  G=/work/bench/road/g2048_2048-$g.ggraph
  a=$(./$b cc --graph $G --threads 2 --json --skip-validation 2>/dev/null | grep -o '"kernel_time_s":[0-9.]*' | cut -d: -f2)
  c=$(./$b --ranks 2 cc --graph $G --threads 1 --json --skip-validation 2>/dev/null | grep -o '"kernel_time_s":[0-9.]*' | cut -d: -f2)
  echo "$r $g $b 1x2 $a"; echo "$r $g $b 2x1 $c"
done; done; done
