#!/bin/bash
# usage: ab2.sh SCALE ROUNDS OUT.csv LABELS...  bc only; label gapbs = GAPBS's bc; others ./gg-LABEL --rows compressed
S=$1; R=$2; OUT=$3; shift 3; LS="$@"
G=/work/bench/graphs
for r in $(seq ${FIRST:-1} $((${FIRST:-1} + R - 1))); do
  labels="$LS"; [ $((r % 2)) = 0 ] && labels=$(echo $LS | tr ' ' '\n' | tac | tr '\n' ' ')
  for l in $labels; do
    if [ $l = gapbs ]; then cmd="env OMP_NUM_THREADS=2 /work/anchors/gapbs/bc -f $G/s$S.sg -i 4 -n 1"
    else cmd="./gg-$l bc --graph $G/s$S.gbuilt --threads 2 --skip-validation --json --rows compressed"; fi
    /usr/bin/time -o t.txt -f %M $cmd > o.txt 2>e.txt || { echo "FAIL $l"; cat e.txt; }
    peak=$(tail -1 t.txt)
    if [ $l = gapbs ]; then kt=$(grep "Trial Time" o.txt | awk '{print $3}'); else kt=$(python3 -c "import json;d=json.load(open('o.txt'));print(d['kernel_time_s'])"); fi
    echo "bc,$l,$S,$r,$peak,$kt" | tee -a $OUT
  done
done
