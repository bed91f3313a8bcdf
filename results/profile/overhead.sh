#!/bin/sh
# Overhead of the profiler's counters: SSSP and BFS TEPS of two builds of
# gossamer-graph, alternated run by run (the box is shared and noisy), one
# line per run. Usage:
#   results/profile/overhead.sh BASE_BINARY NEW_BINARY [SCALE] [PAIRS] [EXTRA_NEW_FLAGS]
# e.g. results/profile/overhead.sh /tmp/gg-main target/release/gossamer-graph 18 10
# EXTRA_NEW_FLAGS go to the new binary only (e.g. "--trace /tmp/t.json").
# Prints: kernel scale build run harmonic_mean_teps median_time_s min_time_s load1
# (times of one search, over the run's searches; load1 from /proc/loadavg after the run)
set -eu
base=$1
new=$2
scale=${3:-18}
pairs=${4:-10}
extra=${5:-}
threads=2
roots=16
echo "kernel scale build run harmonic_mean_teps median_time_s min_time_s load1"
i=1
while [ "$i" -le "$pairs" ]; do
    for kernel in sssp bfs; do
        for build in base new; do
            if [ "$build" = base ]; then bin=$base; flags=; else bin=$new; flags=$extra; fi
            # shellcheck disable=SC2086
            out=$("$bin" "$kernel" --scale "$scale" --threads "$threads" --roots "$roots" \
                --skip-validation --json $flags 2>/dev/null)
            teps=$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["harmonic_mean_teps"], d["median_time_s"], min(r["time_s"] for r in d["roots"]))')
            load=$(cut -d' ' -f1 /proc/loadavg)
            echo "$kernel $scale $build $i $teps $load"
        done
    done
    i=$((i + 1))
done
