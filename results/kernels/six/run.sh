#!/usr/bin/env bash
# Six kernels, ours against GAPBS, on the same graphs (issue 11, item 6;
# see ../six_kernels.md for what it shows).
#
#   run.sh WORKDIR
#
# WORKDIR holds the files of prepare.sh (sS.ggraph, sS.roots, sS.mtx,
# sS.sg for every SCALE in SCALES). Appends to WORKDIR/times.csv (one row
# per timed kernel call) and WORKDIR/load.csv (uptime before every batch).
#
# One timed call = one process on each side. Within a round, for each
# SCALE and kernel: ours, then GAPBS (per root for bfs/sssp; bc: ours once
# for its 4 sources, GAPBS once per source with -i 1, the four trial times
# summed). Rounds repeat the whole sequence, so the two sides alternate.
#
# Environment:
#   GG           our binary (default: target/release/gossamer-graph here)
#   GAPBS        stock GAPBS build dir (bfs cc pr bc tc)        (required)
#   GAPBS_FLOAT  float-WeightT GAPBS build dir (sssp)            (required)
#   THREADS      2 (GAPBS gets OMP_NUM_THREADS)
#   ROUNDS       5
#   FIRST_ROUND  1 (number of the first round, to add rounds to a times.csv)
#   SCALES       "18 20"
#   KERNELS      "bfs sssp cc pr bc tc"
#   NROOTS       4 (the first NROOTS Graph500 roots stored in sS.ggraph)
#   DELTA_S      GAPBS sssp -d for SCALE S (e.g. DELTA_18=0.002); default 0.005
#   MAXLOAD      wait before each batch until the 1-minute load is below it (3)
set -euo pipefail
if [ $# -ne 1 ]; then sed -n '2,28p' "$0"; exit 2; fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
work=$1
GG=${GG:-$repo/target/release/gossamer-graph}
GAPBS=${GAPBS:?stock GAPBS build directory}
GAPBS_FLOAT=${GAPBS_FLOAT:?float-weight GAPBS build directory}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-5}
FIRST_ROUND=${FIRST_ROUND:-1}
SCALES=${SCALES:-"18 20"}
KERNELS=${KERNELS:-"bfs sssp cc pr bc tc"}
NROOTS=${NROOTS:-4}
MAXLOAD=${MAXLOAD:-3}
export OMP_NUM_THREADS=$THREADS
cd "$work"
[ -f times.csv ] || echo "scale,kernel,tool,round,root,time_s,rss_kib,traversed_edges" >times.csv
[ -f load.csv ] || echo "utc,scale,kernel,round,load1,load5,load15" >load.csv

load1() { cut -d' ' -f1 /proc/loadavg; }
wait_quiet() {
    while awk -v l="$(load1)" -v m="$MAXLOAD" 'BEGIN {exit !(l >= m)}'; do
        echo "load $(load1) >= $MAXLOAD, waiting" >&2
        sleep 20
    done
}
# ours KERNEL ARGS...: prints "time rss traversed" (traversed empty if none)
ours() {
    local k=$1; shift
    /usr/bin/time -f %M -o rss.tmp "$GG" "$k" --threads "$THREADS" --skip-validation --json "$@" >ours.json
    python3 - <<'PY'
import json
r = json.load(open("ours.json"))
if "roots" in r:
    t, e = r["roots"][0]["time_s"], r["roots"][0]["traversed_edges"]
else:
    t, e = r["kernel_time_s"], ""
print(t, open("rss.tmp").read().split()[-1], e)
PY
}
# gapbs BINARY ARGS...: prints "trial_time rss"
gapbs() {
    /usr/bin/time -f %M -o rss.tmp "$@" >gapbs.out
    echo "$(awk '/^Trial Time:/ {print $3}' gapbs.out) $(tail -1 rss.tmp)"
}
row() { echo "$1,$2,$3,$4,$5,$6,$7,$8" >>times.csv; }

for round in $(seq "$FIRST_ROUND" $((FIRST_ROUND + ROUNDS - 1))); do
    for s in $SCALES; do
        roots=$(head -n "$NROOTS" "s$s.roots" | tr '\n' ' ')
        dvar=DELTA_$s
        delta=${!dvar:-0.005}
        for k in $KERNELS; do
            wait_quiet
            echo "$(date -u +%H:%M:%S),$s,$k,$round,$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ',')" >>load.csv
            case $k in
            bfs | sssp)
                for r in $roots; do
                    read -r t m e < <(ours "$k" --graph "s$s.ggraph" --root "$r")
                    row "$s" "$k" ours "$round" "$r" "$t" "$m" "$e"
                    if [ "$k" = bfs ]; then
                        read -r gt gm < <(gapbs "$GAPBS/bfs" -f "s$s.sg" -r "$r" -n 1)
                    else
                        read -r gt gm < <(gapbs "$GAPBS_FLOAT/sssp" -f "s$s.mtx" -s -r "$r" -n 1 -d "$delta")
                    fi
                    row "$s" "$k" gapbs "$round" "$r" "$gt" "$gm" "$e"
                done
                ;;
            cc)
                read -r t m e < <(ours cc --graph "s$s.ggraph")
                row "$s" cc ours "$round" "" "$t" "$m" ""
                read -r gt gm < <(gapbs "$GAPBS/cc" -f "s$s.sg" -n 1)
                row "$s" cc gapbs "$round" "" "$gt" "$gm" ""
                ;;
            pr)
                read -r t m e < <(ours pagerank --graph "s$s.ggraph")
                row "$s" pr ours "$round" "" "$t" "$m" ""
                read -r gt gm < <(gapbs "$GAPBS/pr" -f "s$s.sg" -i 20 -t 1e-4 -n 1)
                row "$s" pr gapbs "$round" "" "$gt" "$gm" ""
                ;;
            bc)
                read -r t m e < <(ours bc --graph "s$s.ggraph" --roots "$NROOTS")
                row "$s" bc ours "$round" "" "$t" "$m" ""
                sum=0 peak=0
                for r in $roots; do
                    read -r gt gm < <(gapbs "$GAPBS/bc" -f "s$s.sg" -r "$r" -i 1 -n 1)
                    sum=$(python3 -c "print($sum + $gt)")
                    [ "$gm" -gt "$peak" ] && peak=$gm
                done
                row "$s" bc gapbs "$round" "" "$sum" "$peak" ""
                ;;
            tc)
                read -r t m e < <(ours tc --graph "s$s.ggraph")
                row "$s" tc ours "$round" "" "$t" "$m" ""
                read -r gt gm < <(gapbs "$GAPBS/tc" -f "s$s.sg" -n 1)
                row "$s" tc gapbs "$round" "" "$gt" "$gm" ""
                ;;
            esac
            tail -n 1 times.csv >&2
        done
    done
done
