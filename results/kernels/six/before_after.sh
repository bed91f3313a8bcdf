#!/usr/bin/env bash
# "BFS/SSSP no slower than before" (issue 11): the `teps` example of the
# commit before the kernels moved onto graph-kernel's blocks (OLD, built from
# 2b6cd9b = 78fc313 plus a --digest flag) against this branch's (NEW),
# alternated, the order flipped every round, as results/kernels/blocks.md did.
#
#   before_after.sh OLD_TEPS NEW_TEPS OUT.csv   (ROUNDS default 5; waits while
#   the 1-minute load is MAXLOAD or above, default 3; RUNS: SCALE:ROOTS pairs,
#   default "18:16 20:8"; EXTRA: more teps flags, e.g. "--kernels bfs")
set -euo pipefail
if [ $# -ne 3 ]; then sed -n '2,9p' "$0"; exit 2; fi
old=$1 new=$2 out=$3
ROUNDS=${ROUNDS:-5}
MAXLOAD=${MAXLOAD:-3}
RUNS=${RUNS:-"18:16 20:8"}
EXTRA=${EXTRA:-}
[ -f "$out" ] || echo "round,binary,load1,scale,kernel,threads,roots,harmonic_mean_teps,median_time_s" >"$out"
one() {  # label binary scale roots round
    while awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$MAXLOAD" 'BEGIN {exit !(l >= m)}'; do sleep 10; done
    local l; l=$(cut -d' ' -f1 /proc/loadavg)
    rm -f ba.tmp
    "$2" --scale "$3" --threads 2 --roots "$4" --no-validate --delta 0.005 $EXTRA --csv ba.tmp >/dev/null
    tail -n +2 ba.tmp | sed "s/^/$5,$1,$l,/" >>"$out"
}
for round in $(seq 1 "$ROUNDS"); do
    for sr in $RUNS; do
        s=${sr%:*} r=${sr#*:}
        if [ $((round % 2)) -eq 1 ]; then
            one old "$old" "$s" "$r" "$round"; one new "$new" "$s" "$r" "$round"
        else
            one new "$new" "$s" "$r" "$round"; one old "$old" "$s" "$r" "$round"
        fi
    done
done
