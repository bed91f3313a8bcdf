#!/usr/bin/env bash
# Echo benchmark matrix (gossamer/examples/echo.rs) on this host; writes echo.csv.
# Usage: bash results/echo/run.sh   (from the repository root; E=BINARY uses
# that build of the example instead of building it)
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
if [ -z "${E:-}" ]; then
    cargo build --release -q -p gossamer --example echo
    E=$CARGO_TARGET_DIR/release/examples/echo
fi
S=${SECONDS_PER_RUN:-2}
out=results/echo/echo.csv
echo "experiment,ranks,threads,transport,size,window,ops,mops,p50_us,p99_us,p999_us" > "$out"
row() { # experiment, then echo args
  local exp=$1; shift
  local line
  line=$("$E" --seconds "$S" "$@" | grep '^echo ')
  echo "$line" >&2
  echo "$exp,$(echo "$line" | sed -E 's/^echo //; s/[a-z0-9_]+=//g; s/ /,/g')" >> "$out"
}
# throughput vs ranks (1 worker per rank; 1 rank = in-process, 2 workers for a peer)
row ranks --threads 2
for t in shm tcp; do for r in 2 4; do row ranks --ranks $r --transport $t --threads 1; done; done
# throughput vs request size, 2 ranks
for t in shm tcp; do for s in 32 128 512 1024 2048 4096; do row size --ranks 2 --transport $t --size $s; done; done
# latency vs outstanding requests, 2 ranks
for t in shm tcp; do for w in 1 2 4 8 16 32 64; do row window --ranks 2 --transport $t --window $w; done; done
