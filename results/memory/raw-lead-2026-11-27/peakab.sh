#!/bin/bash
# peakab.sh ROUNDS SCALE KERNEL "extra args" BINS...
R=$1; S=$2; K=$3; X=$4; shift 4
for r in $(seq 1 $R); do for b in "$@"; do
 /usr/bin/time -f "%M" -o t.txt ./$b $K --graph /work/bench/graphs/s$S.gbuilt --threads 2 --skip-validation --json $X > o.json 2>/dev/null
 python3 -c 'import json,sys; d=json.load(open("o.json")); print(sys.argv[1], d.get("kernel_time_s", d.get("median_time_s")), open("t.txt").read().strip())' $b
done; done
