#!/bin/bash
R=${1:-5}; S=${2:-20}; K=$3; shift 3; BINS="$@"
for r in $(seq 1 $R); do for b in $BINS; do
 ./$b $K --graph /work/bench/graphs/s$S.gbuilt --threads 2 --skip-validation --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sys.argv[1], d["kernel_time_s"])' $b
done; done
