#!/bin/bash
# usage: ab2.sh SCALE ROUNDS OUT.csv A B ... : alternates binaries ./gg-A (plain rows), kernel time and peak
S=$1; R=$2; OUT=$3; shift 3
G=/work/bench/graphs
for r in $(seq 1 $R); do
  for l in "$@"; do
    /usr/bin/time -o t.txt -f %M ./gg-$l bc --graph $G/s$S.gbuilt --threads 2 --skip-validation --json --source 469580,129031,989678,404994 > o.txt 2>e.txt || cat e.txt
    k=$(python3 -c "import json;print(json.load(open('o.txt'))['kernel_time_s'])")
    echo "$l,$r,$(tail -1 t.txt),$k" | tee -a $OUT
  done
done
