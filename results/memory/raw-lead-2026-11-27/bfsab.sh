#!/bin/bash
R=${1:-5}; S=${2:-20}; shift 2; BINS="$@"
for r in $(seq 1 $R); do for b in $BINS; do
 ./$b bfs --graph /work/bench/graphs/s$S.gbuilt --threads 2 --skip-validation --json --roots 16 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sys.argv[1], d["median_time_s"], d["harmonic_mean_teps"])' $b
done; done
