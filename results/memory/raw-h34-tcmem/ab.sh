#!/bin/bash
# usage: ab.sh OUT.csv SCALE ROUNDS LABELS...   labels: base | new | newp | gapbs
# base = main's binary (plain rows, the only kind it has), new = this branch --rows compressed,
# newp = this branch --rows plain; 1 process x 2 threads, no validation; order rotated each round.
out=$1; S=$2; R=$3; shift 3
labels=("$@")
G=/work/bench/graphs
for r in $(seq 1 $R); do
  n=${#labels[@]}
  for i in $(seq 0 $((n-1))); do
    l=${labels[$(( (i + r) % n ))]}
    case $l in
      base) cmd="./gg-base tc --graph $G/s$S.gbuilt --threads 2 --skip-validation --json";;
      new)  cmd="./gg-new tc --graph $G/s$S.gbuilt --threads 2 --skip-validation --json --rows compressed";;
      newp) cmd="./gg-new tc --graph $G/s$S.gbuilt --threads 2 --skip-validation --json --rows plain";;
      gapbs) cmd="env OMP_NUM_THREADS=2 /work/anchors/gapbs/tc -f $G/s$S.sg -n 1";;
    esac
    /usr/bin/time -f "PEAK %M" $cmd > run.out 2> run.err
    peak=$(grep PEAK run.err | awk '{print $2}')
    if [ $l = gapbs ]; then
      k=$(grep "Trial Time" run.out | awk '{print $3}'); c=""; t=$(grep -o "[0-9]* triangles" run.out | awk '{print $1}')
    else
      k=$(python3 -c "import json;d=json.load(open('run.out'));print(d['kernel_time_s'])")
      c=$(python3 -c "import json;d=json.load(open('run.out'));print(d['count_time_s'])")
      t=$(python3 -c "import json;d=json.load(open('run.out'));print(d['triangles'])")
    fi
    echo "$l,$S,$r,$peak,$k,$c,$t" | tee -a $out
  done
done
