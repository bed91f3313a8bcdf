#!/usr/bin/env bash
# Are the answers bit-identical between two builds? For each kernel, graph
# file and shape, both binaries dump their answer (bfs levels and sssp
# distances from one root, cc labels, pagerank and bc scores; tc's count from
# --json) and the dumps are compared byte for byte.
#
#   same_answers.sh OLD_BIN NEW_BIN GRAPH.ggraph ROOT [SHAPES, default "1x2 2x1"]
set -euo pipefail
if [ $# -lt 4 ]; then sed -n '2,8p' "$0"; exit 2; fi
old=$1 new=$2 graph=$3 root=$4 shapes=${5:-"1x2 2x1"}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
for shape in $shapes; do
    ranks=${shape%x*} threads=${shape#*x}
    pre=(); [ "$ranks" = 1 ] || pre=(--ranks "$ranks")
    for k in bfs:--dump-levels sssp:--dump-dist cc:--dump-labels pagerank:--dump-scores bc:--dump-scores tc:; do
        kernel=${k%%:*} flag=${k#*:}
        extra=(); [ "$kernel" = bfs ] || [ "$kernel" = sssp ] && extra=(--root "$root")
        for side in old new; do
            bin=${!side}
            if [ -n "$flag" ]; then
                "$bin" "${pre[@]}" "$kernel" --graph "$graph" --threads "$threads" "${extra[@]}" \
                    "$flag" "$tmp/$side" --json >/dev/null 2>"$tmp/err"
            else
                "$bin" "${pre[@]}" "$kernel" --graph "$graph" --threads "$threads" --json 2>"$tmp/err" |
                    python3 -c 'import json,sys; print(json.load(sys.stdin)["triangles"])' >"$tmp/$side"
            fi
        done
        if cmp -s "$tmp/old" "$tmp/new"; then r=identical; else r=DIFFERENT; status=1; fi
        echo "$shape $kernel $r ($(stat -c %s "$tmp/new") bytes)"
    done
done
exit $status
