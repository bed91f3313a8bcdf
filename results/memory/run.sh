#!/bin/sh
# Estimate (`gossamer-graph plan`) against the measured peak resident set
# (/usr/bin/time %M) of every command that builds a graph, one process,
# 2 threads, validation on.
# usage: results/memory/run.sh [BINARY] SCALE...   (default: target/release/gossamer-graph)
# prints: command scale estimate_KiB actual_KiB estimate/actual seconds
set -eu
bin=target/release/gossamer-graph
case ${1:-} in */*) bin=$1; shift ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-9s %5s %12s %12s %8s %8s\n' command scale estimate_KiB actual_KiB ratio seconds
for s in "$@"; do
  for cmd in ${CMDS:-sssp bfs graph500 cc pagerank bc tc generate}; do
    case $cmd in
      generate) args="generate --scale $s --threads 2 -o $tmp/g.ggraph" ;;
      sssp|bfs) args="$cmd --scale $s --threads 2 --roots 2" ;;
      *) args="$cmd --scale $s --threads 2" ;;
    esac
    est=$("$bin" plan --command "$cmd" --scale "$s" --threads 2 --memory 1TiB --bytes | awk '/^peak/ {print $2}')
    if ! /usr/bin/time -f '%M %e' -o "$tmp/t" "$bin" $args >/dev/null 2>"$tmp/err"; then
      echo "$cmd $s FAILED: $(tail -2 "$tmp/err")"
      continue
    fi
    read -r kib secs < "$tmp/t"
    est_kib=$((est / 1024))
    ratio=$(awk -v e="$est_kib" -v a="$kib" 'BEGIN { printf "%.3f", e / a }')
    printf '%-9s %5s %12s %12s %8s %8s\n' "$cmd" "$s" "$est_kib" "$kib" "$ratio" "$secs"
    rm -f "$tmp/g.ggraph"
  done
done
