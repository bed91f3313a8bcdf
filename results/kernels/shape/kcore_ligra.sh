#!/usr/bin/env bash
# k-core beside Ligra's KCore (issue 24, item 4). Ligra is built by hand
# beside the project, never committed:
#
#   git clone https://github.com/jshun/ligra && cd ligra/apps && OPENMP=1 make KCore
#   cd ../utils && make SNAPtoAdj
#
#   kcore_ligra.sh GG LIGRA_DIR WORKDIR SCALE [ROUNDS]
#
# Writes WORKDIR/sS.ggraph (ours) and WORKDIR/sS.adj (Ligra's adjacency
# format, symmetrized, self-loops and repeated edges dropped by SNAPtoAdj -s)
# from the same Graph500 edges, then runs both on 2 threads ROUNDS times,
# alternating. Prints one line per run: tool, seconds, largest core.
set -euo pipefail
if [ $# -lt 4 ]; then sed -n '2,14p' "$0"; exit 2; fi
gg=$1 ligra=$2 work=$3 s=$4 rounds=${5:-3}
mkdir -p "$work"
cd "$work"
[ -f "s$s.ggraph" ] || "$gg" generate --scale "$s" --threads 2 -o "s$s.ggraph" >/dev/null
if [ ! -f "s$s.adj" ]; then
    "$gg" generate --scale "$s" --threads 2 --edges-out "e$s.bin" >/dev/null
    python3 - "$s" <<'PY'
import sys
import numpy as np
s = sys.argv[1]
e = np.fromfile(f"e{s}.bin", dtype="<u8").reshape(-1, 2)
with open(f"s{s}.snap", "w") as f:
    np.savetxt(f, e, fmt="%d", delimiter="\t")
PY
    "$ligra/utils/SNAPtoAdj" -s "s$s.snap" "s$s.adj"
    rm -f "e$s.bin" "s$s.snap"
fi
export OMP_NUM_THREADS=2
for r in $(seq 1 "$rounds"); do
    "$gg" kcore --graph "s$s.ggraph" --threads 2 --json 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print("ours", d["kernel_time_s"], d["max_core"])'
    # Ligra prints "largestCore was K" and "Running time : T" per round.
    "$ligra/apps/KCore" -s -rounds 1 "s$s.adj" |
        awk '/largestCore/ {k=$3} /Running time/ {t=$4} END {print "ligra", t, k}'
done
