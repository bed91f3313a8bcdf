#!/usr/bin/env bash
# Supplement to run.sh: GAPBS's per-trial times with -n TRIALS in one
# process (later trials reuse warm memory and page tables), against ours
# with the NROOTS searches in one process for bfs/sssp. Appends to
# WORKDIR/warm.csv: scale,kernel,tool,root,trial,time_s.
#
#   warm.sh WORKDIR        (same environment as run.sh; TRIALS default 5)
set -euo pipefail
if [ $# -ne 1 ]; then sed -n '2,8p' "$0"; exit 2; fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
work=$1
GG=${GG:-$repo/target/release/gossamer-graph}
GAPBS=${GAPBS:?}
GAPBS_FLOAT=${GAPBS_FLOAT:?}
THREADS=${THREADS:-2}
TRIALS=${TRIALS:-5}
SCALES=${SCALES:-"18 20"}
NROOTS=${NROOTS:-4}
export OMP_NUM_THREADS=$THREADS
cd "$work"
[ -f warm.csv ] || echo "scale,kernel,tool,root,trial,time_s" >warm.csv
trials() { awk -v p="$1" '/^Trial Time:/ {n++; print p "," n "," $3}' >>warm.csv; }
for s in $SCALES; do
    roots=$(head -n "$NROOTS" "s$s.roots" | tr '\n' ' ')
    dvar=DELTA_$s
    delta=${!dvar:-0.005}
    echo "$(date -u +%H:%M:%S) scale $s load $(cut -d' ' -f1-3 /proc/loadavg)" >>warm.log
    for k in bfs sssp; do
        "$GG" "$k" --graph "s$s.ggraph" --threads "$THREADS" --skip-validation --json --roots "$NROOTS" |
            python3 -c "
import json, sys
for i, r in enumerate(json.load(sys.stdin)['roots']):
    print(f'$s,$k,ours,{r[\"root\"]},{i + 1},{r[\"time_s\"]}')" >>warm.csv
    done
    for r in $roots; do
        "$GAPBS/bfs" -f "s$s.sg" -r "$r" -n "$TRIALS" | trials "$s,bfs,gapbs,$r"
        "$GAPBS_FLOAT/sssp" -f "s$s.mtx" -s -r "$r" -n "$TRIALS" -d "$delta" | trials "$s,sssp,gapbs,$r"
        "$GAPBS/bc" -f "s$s.sg" -r "$r" -i 1 -n "$TRIALS" | trials "$s,bc1,gapbs,$r"
    done
    "$GAPBS/cc" -f "s$s.sg" -n "$TRIALS" | trials "$s,cc,gapbs,"
    "$GAPBS/pr" -f "s$s.sg" -i 20 -t 1e-4 -n "$TRIALS" | trials "$s,pr,gapbs,"
    "$GAPBS/tc" -f "s$s.sg" -n "$TRIALS" | trials "$s,tc,gapbs,"
done
echo "$(date -u +%H:%M:%S) end load $(cut -d' ' -f1-3 /proc/loadavg)" >>warm.log
