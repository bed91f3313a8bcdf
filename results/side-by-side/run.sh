#!/usr/bin/env bash
# Side by side in one run: the official Graph500 reference (MPI, 1 and 2 ranks)
# and `gossamer-graph graph500` (2 threads), alternating, on the same machine.
# Both print the reference's statistics block, so one parser reads both.
#
#   REF=/path/to/graph500_reference_bfs_sssp results/side-by-side/run.sh "16 18 20" 3
#
# REF is a build of github.com/graph500/graph500 (branch newreference, commit
# f89d643; `make -C src graph500_reference_bfs_sssp` with -fcommon added to
# CFLAGS for GCC >= 10). It is built beside this project, never inside it.
# The reference runs with SKIP_VALIDATION=1 (its validation is not timed);
# ours validates every search. Output: results/side-by-side/runs.csv.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
scales="${1:-16 18 20}"
reps="${2:-3}"
REF="${REF:?set REF to the reference binary}"
GG="${GG:-$here/../../target/release/gossamer-graph}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
csv="$here/runs.csv"
echo "system,ranks,threads,scale,rep,graph_generation_s,construction_s,bfs_hmean_teps,sssp_hmean_teps,load1" >"$csv"
pick() { awk -v k="$1" -F: '$1 == k { gsub(/[ !]/, "", $2); print $2 }'; }
record() { # system ranks threads scale rep <statistics block on stdin>
    local out; out="$(cat)"
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$1" "$2" "$3" "$4" "$5" \
        "$(pick graph_generation <<<"$out")" "$(pick construction_time <<<"$out")" \
        "$(pick 'bfs  harmonic_mean_TEPS' <<<"$out")" "$(pick 'sssp harmonic_mean_TEPS' <<<"$out")" \
        "$(cut -d' ' -f1 /proc/loadavg)" | tee -a "$csv"
}
for s in $scales; do
    for r in $(seq 1 "$reps"); do
        SKIP_VALIDATION=1 mpirun -np 1 --oversubscribe "$REF" "$s" 16 2>/dev/null | record reference 1 1 "$s" "$r"
        SKIP_VALIDATION=1 mpirun -np 2 --oversubscribe "$REF" "$s" 16 2>/dev/null | record reference 2 1 "$s" "$r"
        "$GG" graph500 --scale "$s" --threads 2 2>/dev/null | record gossamer-graph 1 2 "$s" "$r"
    done
done
