#!/bin/sh
# One round of the across-ranks sitting (docs/balance.md, 2026-11-27):
# SSSP (32 roots) then BFS (64 roots), 2 ranks x 1 thread over shm, the
# Graph500 graph (even) and its degree-sorted relabelling (sorted), off and
# between-searches alternated (order reversed on odd rounds). Run one round
# per quiet.py call, cwd under /tmp:
#   cd /tmp/h35-rankbal && /work/notes/quiet.py /path/to/ranks_round.sh R [BIN]
# with /tmp/h35-rankbal/s20-sorted.ggraph made by graph-core's
# relabel_by_degree example; rows go to /tmp/h35-rankbal/ranks-{sssp,bfs}.csv.
r=$1; bin=${2:-/tmp/h35-rankbal/gg-new}
B=$(cd "$(dirname "$0")" && pwd)/bench.py
cd /tmp/h35-rankbal || exit 1
G="--graph even=/work/bench/graphs/s20.ggraph --graph sorted=/tmp/h35-rankbal/s20-sorted.ggraph"
S="--shapes 2x1 --transport shm --settings blocks:off,blocks:between-searches --round-offset $r"
python3 "$B" ranks-sssp.csv --bin "$bin" $G --kernels sssp --roots 32 $S || exit 1
python3 "$B" ranks-bfs.csv --bin "$bin" $G --kernels bfs --roots 64 $S
