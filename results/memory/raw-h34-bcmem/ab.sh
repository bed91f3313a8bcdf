#!/bin/bash
# usage: ab.sh SCALE ROUNDS OUT.csv [validate]
# Alternates main's binary (base), this branch's (plain, comp = --rows compressed)
# and GAPBS's bc, from the built file (ours) and the .sg (GAPBS), 2 threads, 4 sources.
# Rows: label,round,peak_kib,kernel_s
S=$1; R=$2; OUT=$3; V=${4:-}
G=/work/bench/graphs
skip=--skip-validation; [ "$V" = validate ] && skip=
for r in $(seq ${FIRST:-1} $((${FIRST:-1} + R - 1))); do
  labels="base plain comp gapbs"; [ $((r % 2)) = 0 ] && labels="gapbs comp plain base"
  for l in $labels; do
    case $l in
      base)  cmd="./gg-base bc --graph $G/s$S.gbuilt --threads 2 $skip --json";;
      plain) cmd="./gg-new bc --graph $G/s$S.gbuilt --threads 2 $skip --json";;
      comp)  cmd="./gg-new bc --graph $G/s$S.gbuilt --threads 2 $skip --json --rows compressed";;
      gapbs) [ -n "$V" ] && continue; cmd="env OMP_NUM_THREADS=2 /work/anchors/gapbs/bc -f $G/s$S.sg -i 4 -n 1";;
    esac
    /usr/bin/time -o t.txt -f %M $cmd > o.txt 2>e.txt || { echo "FAIL $l"; cat e.txt; }
    peak=$(tail -1 t.txt)
    if [ $l = gapbs ]; then k=$(grep "Trial Time" o.txt | awk '{print $3}'); else k=$(python3 -c "import json;print(json.load(open('o.txt'))['kernel_time_s'])"); fi
    echo "$l,$r,$peak,$k" | tee -a $OUT
  done
done
