#!/bin/bash
# bcroad.sh ROUNDS: bc on the 2048 grids (sym, directed): base vs final vs GAPBS; kernel s, first answer s, peak KiB
for r in $(seq 1 $1); do for g in s d; do
 for b in gg-base gg-final; do
  /usr/bin/time -f "%M" -o t.txt ./$b bc --graph /work/bench/road/g2048_2048-$g.ggraph --threads 2 --skip-validation --json > o.json 2>/dev/null
  python3 -c 'import json,sys; d=json.load(open("o.json")); print(sys.argv[1], sys.argv[2], d["kernel_time_s"], d["wall_time"]["first_answer_s"], open("t.txt").read().strip())' $g $b
 done
 S=$(python3 -c 'import json; print(json.load(open("o.json"))["sources"][0])' 2>/dev/null)
 OMP_NUM_THREADS=2 /usr/bin/time -f "%M" -o t.txt /work/anchors/gapbs/bc -f /work/bench/road/g2048_2048-$g.sg -i 4 -n 1 > gout.txt 2>&1
 echo "$g gapbs $(grep -m1 'Trial Time' gout.txt | awk '{print $3}') - $(cat t.txt)"
done; done
