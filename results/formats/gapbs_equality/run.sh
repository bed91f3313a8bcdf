#!/usr/bin/env bash
# Same answers as GAPBS on the same files, and kernel times side by side
# (issue 14, item 4). See ../gapbs_equality.md for what it shows.
#
#   run.sh SNAP_EDGE_LIST WORKDIR
#
# SNAP_EDGE_LIST: facebook_combined.txt from
#   https://snap.stanford.edu/data/facebook_combined.txt.gz (gunzipped;
#   sha256 f41c026e...c2ef296, 88234 lines `u v`, 0-based).
# WORKDIR: where the graph files, dumps and logs go (created; nothing is
#   written into the repository).
#
# Environment:
#   GG        our binary (default: target/release/gossamer-graph of this checkout)
#   GAPBS     a GAPBS build patched as the .md says (float WeightT, results
#             written to $GAPBS_DUMP): bfs sssp cc pr pr_spmv (required)
#   THREADS   threads for both (default 2; GAPBS gets OMP_NUM_THREADS)
#   ROUNDS    timing rounds (default 5)
#   SCALE     the generated graph's SCALE (default 16)
set -euo pipefail

if [ $# -ne 2 ]; then
    sed -n '2,20p' "$0"
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
snap=$(realpath "$1")
work=$2
GG=${GG:-$repo/target/release/gossamer-graph}
GAPBS=${GAPBS:?set GAPBS to the patched GAPBS build directory}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-5}
SCALE=${SCALE:-16}
export OMP_NUM_THREADS=$THREADS
compare="python3 $here/compare.py"

mkdir -p "$work"
cd "$work"
exec > >(tee -a run.log) 2>&1

echo "== machine"
date -u
nproc
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|MHz|L2|L3' || true
uptime
"$GG" --version
(cd "$repo" && git rev-parse --short HEAD)
(cd "$GAPBS" && g++ --version | head -1)

echo "== inputs"
# GAPBS takes the format from the suffix: .el for the SNAP file as it is,
# and a .wel with every weight 1 for SSSP (its builder would otherwise
# give an .el random weights in 1..255).
ln -sf "$snap" fb.el
awk '!/^#/ {print $1, $2, 1}' fb.el >fb.wel
sha256sum "$snap"
echo "$(grep -vc '^#' fb.el) edges; $(awk '!/^#/ {print $1; print $2}' fb.el | sort -u | wc -l) distinct vertex ids"
"$GG" generate --scale "$SCALE" --threads "$THREADS" --edges-out k.edges --weights-out k.weights
python3 "$here/make_mtx.py" k.edges k.weights "$SCALE" k.mtx
sha256sum k.mtx
"$GG" convert fb.el --undirected -o fb.ggraph --threads "$THREADS"
"$GG" convert k.mtx -o k.ggraph --threads "$THREADS"

# Four roots per graph, GAPBS's (0-based) ids: seeded uniform picks among
# vertices with an edge to another vertex (as GAPBS picks its sources).
# BASE 1 means a Matrix Market file: 1-based, its first line a size line.
pick_roots() {
    python3 - "$1" "$2" <<'EOF'
import random, sys
path, base = sys.argv[1], int(sys.argv[2])
has_edge, size_line = set(), base == 1
with open(path) as f:
    for line in f:
        if line[0] in "#%":
            continue
        if size_line:
            size_line = False
            continue
        u, v = (int(w) - base for w in line.split()[:2])
        if u != v:
            has_edge.update((u, v))
print(" ".join(str(r) for r in random.Random(14).sample(sorted(has_edge), 4)))
EOF
}
fb_roots=$(pick_roots fb.el 0)
k_roots=$(pick_roots k.mtx 1)
echo "roots (GAPBS ids; ours on the .mtx are these + 1): fb: $fb_roots; k: $k_roots"

# graph name, our graph, GAPBS's file for bfs/cc/pr, for sssp, id base,
# our sssp flags, GAPBS sssp delta, roots
run_answers() {
    local g=$1 ours=$2 gfile=$3 gwfile=$4 base=$5 sflags=$6 delta=$7 roots=$8
    echo "== answers: $g"
    for r in $roots; do
        local our_r=$((r + base))
        "$GG" bfs --graph "$ours" --root "$our_r" --threads "$THREADS" --dump-levels "$g.bfs.$r.ours" >/dev/null
        GAPBS_DUMP="$g.bfs.$r.gapbs" "$GAPBS/bfs" -f "$gfile" -s -r "$r" -n 1 >/dev/null
        echo "$g bfs root $r: $($compare bfs "$g.bfs.$r.ours" "$g.bfs.$r.gapbs" "$base")"
        # shellcheck disable=SC2086
        "$GG" sssp --graph "$ours" --root "$our_r" --threads "$THREADS" $sflags --dump-dist "$g.sssp.$r.ours" >/dev/null
        GAPBS_DUMP="$g.sssp.$r.gapbs" "$GAPBS/sssp" -f "$gwfile" -s -r "$r" -n 1 -d "$delta" >/dev/null
        echo "$g sssp root $r: $($compare sssp "$g.sssp.$r.ours" "$g.sssp.$r.gapbs" "$base")"
    done
    "$GG" cc --graph "$ours" --threads "$THREADS" --dump-labels "$g.cc.ours" >/dev/null
    GAPBS_DUMP="$g.cc.gapbs" "$GAPBS/cc" -f "$gfile" -s -n 1 >/dev/null
    echo "$g cc: $($compare cc "$g.cc.ours" "$g.cc.gapbs" "$base")"
    # PageRank with the defaults of both (damping 0.85, 20 iterations,
    # tolerance 1e-4): against GAPBS's pr (Gauss-Seidel, the benchmark) and
    # pr_spmv (Jacobi, as ours with --jacobi); then both run to convergence.
    "$GG" pagerank --graph "$ours" --threads "$THREADS" --jacobi --dump-scores "$g.pr.ours" --json |
        grep -o '"iterations":[0-9]*,"residual":[^,]*'
    GAPBS_DUMP="$g.pr.gapbs" "$GAPBS/pr" -f "$gfile" -s -n 1 -l | grep -E '^ +[0-9]+ ' | tail -1
    GAPBS_DUMP="$g.prspmv.gapbs" "$GAPBS/pr_spmv" -f "$gfile" -s -n 1 -l | grep -E '^ +[0-9]+ ' | tail -1
    echo "$g pr vs pr: $($compare pr "$g.pr.ours" "$g.pr.gapbs" "$base")"
    echo "$g pr vs pr_spmv: $($compare pr "$g.pr.ours" "$g.prspmv.gapbs" "$base")"
    "$GG" pagerank --graph "$ours" --threads "$THREADS" --max-iterations 100 --tolerance 0 \
        --dump-scores "$g.pr100.ours" >/dev/null
    GAPBS_DUMP="$g.pr100.gapbs" "$GAPBS/pr" -f "$gfile" -s -n 1 -i 100 -t 0 >/dev/null
    echo "$g pr 100 iterations vs pr: $($compare pr "$g.pr100.ours" "$g.pr100.gapbs" "$base")"
}

run_answers fb fb.ggraph fb.el fb.wel 0 "--unit-weights --delta 1" 1 "$fb_roots"
run_answers k k.ggraph k.mtx k.mtx 1 "--delta 0.005" 0.005 "$k_roots"

# Kernel times: ours is the JSON's search time / kernel_time_s (graph
# reading and sharding excluded), GAPBS's its Trial Time (reading and
# building excluded). One process per search, alternating ours and GAPBS.
ours_time() { python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["roots"][0]["time_s"] if "roots" in r else r["kernel_time_s"])'; }
gapbs_time() { awk '/^Trial Time:/ {print $3}'; }
run_times() {
    local g=$1 ours=$2 gfile=$3 gwfile=$4 base=$5 sflags=$6 delta=$7 roots=$8 round=$9
    local common=(--graph "$ours" --threads "$THREADS" --skip-validation --json)
    for r in $roots; do
        local our_r=$((r + base))
        echo "$g,bfs,ours,$round,$r,$("$GG" bfs "${common[@]}" --root "$our_r" | ours_time)" >>times.csv
        echo "$g,bfs,gapbs,$round,$r,$("$GAPBS/bfs" -f "$gfile" -s -r "$r" -n 1 | gapbs_time)" >>times.csv
        # shellcheck disable=SC2086
        echo "$g,sssp,ours,$round,$r,$("$GG" sssp "${common[@]}" --root "$our_r" $sflags | ours_time)" >>times.csv
        echo "$g,sssp,gapbs,$round,$r,$("$GAPBS/sssp" -f "$gwfile" -s -r "$r" -n 1 -d "$delta" | gapbs_time)" >>times.csv
    done
    echo "$g,cc,ours,$round,,$("$GG" cc "${common[@]}" | ours_time)" >>times.csv
    echo "$g,cc,gapbs,$round,,$("$GAPBS/cc" -f "$gfile" -s -n 1 | gapbs_time)" >>times.csv
    echo "$g,pr,ours,$round,,$("$GG" pagerank "${common[@]}" | ours_time)" >>times.csv
    echo "$g,pr,gapbs,$round,,$("$GAPBS/pr" -f "$gfile" -s -n 1 | gapbs_time)" >>times.csv
    echo "$g,pr_spmv,gapbs,$round,,$("$GAPBS/pr_spmv" -f "$gfile" -s -n 1 | gapbs_time)" >>times.csv
}

echo "== times ($ROUNDS rounds, $THREADS threads)"
echo "graph,kernel,tool,round,root,time_s" >times.csv
for round in $(seq 1 "$ROUNDS"); do
    uptime
    run_times fb fb.ggraph fb.el fb.wel 0 "--unit-weights --delta 1" 1 "$fb_roots" "$round"
    run_times k k.ggraph k.mtx k.mtx 1 "--delta 0.005" 0.005 "$k_roots" "$round"
done
uptime
python3 "$here/summarize.py" times.csv
