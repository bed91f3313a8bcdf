#!/bin/bash
for S in 20 22; do
 /usr/bin/time -f "%M" -o t.txt ./gg-final bc --graph /work/bench/graphs/s$S.gbuilt --threads 2 --rows compressed --json > o.json 2>e.txt
 python3 -c 'import json,sys; d=json.load(open("o.json")); print("bc", sys.argv[1], "validated", d["validated"], "kernel", d["kernel_time_s"], "peak", open("t.txt").read().strip())' $S
done
