#!/bin/sh
# SSSP per-root time over deltas around the default rule (issue 25 item 3):
# Graph500 SCALE 18 and 20, a 2048 x 2048 road-like grid (directed and
# undirected, lengths 1..1000) and the same grid with unit lengths.
# Rounds alternate over graphs and deltas; each line: graph delta round
# median-time-of-8-roots. Usage: delta_rule.sh BIN GRAPHDIR ROUNDS > out.tsv
# where GRAPHDIR holds s18.ggraph, s20.ggraph and the grids made by
#   BIN generate --kind grid --rows 2048 --cols 2048 --directed -o gd.ggraph
#   BIN generate --kind grid --rows 2048 --cols 2048 -o gu.ggraph
#   BIN generate --kind grid --rows 2048 --cols 2048 --directed --weights 1 -o gdu.ggraph
set -eu
BIN=$1 DIR=$2 ROUNDS=${3:-3}
deltas() {
    case $1 in
    s18|s20) echo 0.00025 0.0005 0.001 0.002 0.004 0.01 ;;
    gd|gu) echo 19 39 77 154 309 772 ;;
    gdu) echo 0.25 0.5 1 2 4 10 ;;
    esac
}
for r in $(seq "$ROUNDS"); do
    for g in s18 s20 gd gu gdu; do
        for d in $(deltas $g); do
            t=$("$BIN" sssp --graph "$DIR/$g.ggraph" --threads 2 --roots 8 --delta "$d" \
                --skip-validation --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["median_time_s"])')
            printf '%s\t%s\t%s\t%s\n' "$g" "$d" "$r" "$t"
        done
    done
done
