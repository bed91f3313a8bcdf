#!/bin/sh
# Agreements (all-reduce rounds) and entries scanned per SSSP search over the
# deltas of delta_rule.sh: load-independent counts beside its times. TEPS is
# sssp's teps example built from this tree:
#   cargo build --release -p sssp --example teps
# Usage: delta_rounds.sh TEPS GRAPHDIR > out.tsv   (graph delta rounds Mscanned median-time)
set -eu
TEPS=$1 DIR=$2
deltas() {
    case $1 in
    s18|s20) echo 0.00025 0.0005 0.001 0.002 0.004 0.01 ;;
    gd|gu) echo 19 39 77 154 309 772 ;;
    gdu) echo 0.25 0.5 1 2 4 10 ;;
    esac
}
for g in s18 s20 gd gu gdu; do
    for d in $(deltas $g); do
        out=$("$TEPS" --graph "$DIR/$g.ggraph" --threads 2 --roots 8 --kernels sssp --kind block \
            --delta "$d" 2>&1)
        rounds=$(echo "$out" | sed -n 's/.*median \([0-9.]*\) all-reduce rounds, \([0-9.]*\)M entries.*/\1 \2/p')
        time=$(echo "$out" | sed -n 's/.*median time \([0-9.]*\) s.*/\1/p')
        printf '%s\t%s\t%s\t%s\n' "$g" "$d" "$(echo $rounds | tr ' ' '\t')" "$time"
    done
done
