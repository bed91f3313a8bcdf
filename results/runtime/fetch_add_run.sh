#!/bin/sh
# Runs the fetch_add matrix of results/runtime/fetch_add.md (about 70 s of measurement).
# Usage: sh results/runtime/fetch_add_run.sh > fetch_add_raw.txt 2>&1
set -e
: "${CARGO_TARGET_DIR:=target}"
cargo build --release -p gossamer --example fetch_add
bin="$CARGO_TARGET_DIR/release/examples/fetch_add"
for dist in "" "--zipf"; do
  for objects in 1 16 1024 1000000; do
    echo "# objects=$objects threads=2 ${dist:-uniform}"
    "$bin" --objects "$objects" --threads 2 --seconds 2 $dist
  done
done
