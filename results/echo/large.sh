#!/usr/bin/env bash
# Large requests (issue 10 item 5): the echo example at 2 ranks x 1 worker
# against the MPI baseline (gg_echo), over shm and tcp, at 64 B .. 64 KiB.
# "before" = the same binary with --slot-size 1024 (the old rack default: a
# request over ~1 KiB went in slot-sized pieces, one round trip each);
# "after" = the rack default (gossamer::rack_slot_size, 64 KiB here).
# With BEFORE=path/to/echo, "before" is that binary (an older build) at its
# rack default instead. OUT names the csv (default large.csv).
# Every repeat runs the three systems in a rotated order. Writes the csv;
# summarize with `python3 results/echo/large.py [CSV] [BEFORE-LABEL]`.
# Usage: [BEFORE=...] [OUT=...] bash results/echo/large.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release -q -p gossamer --example echo
make -s -C mpi-baselines >/dev/null
E=$CARGO_TARGET_DIR/release/examples/echo
M=mpi-baselines/build/gg_echo
S=${SECONDS_PER_RUN:-1.5}
R=${REPEATS:-5}
W=16
out=results/echo/${OUT:-large.csv}
echo "transport,size,system,repeat,mreq_s,p50_us,p99_us" > "$out"
run() { # transport size system repeat
  local t=$1 s=$2 sys=$3 r=$4 line mops p50 p99
  case $sys in
    before|after)
      local extra=() bin=$E
      if [ "$sys" = before ]; then
        if [ -n "${BEFORE:-}" ]; then bin=$BEFORE; else extra=(--slot-size 1024); fi
      fi
      line=$("$bin" --ranks 2 --threads 1 --transport "$t" --size "$s" --window $W --seconds "$S" "${extra[@]}" | grep '^echo ')
      mops=$(sed -E 's/.* mops=([^ ]+).*/\1/' <<<"$line")
      p50=$(sed -E 's/.* p50_us=([^ ]+).*/\1/' <<<"$line")
      p99=$(sed -E 's/.* p99_us=([^ ]+).*/\1/' <<<"$line")
      ;;
    mpi)
      local btl=vader
      [ "$t" = tcp ] && btl=tcp
      line=$(mpirun -np 2 --oversubscribe --mca btl self,$btl --mca mpi_yield_when_idle 1 \
        "$M" --size "$s" --window $W --seconds "$S" --exclude-self)
      mops=$(awk '/^throughput_Mreq_s:/{print $2}' <<<"$line")
      p50=$(awk '/^latency_p50_us:/{print $2}' <<<"$line")
      p99=$(awk '/^latency_p99_us:/{print $2}' <<<"$line")
      ;;
  esac
  echo "$t,$s,$sys,$r,$mops,$p50,$p99" | tee -a "$out" >&2
}
systems=(before after mpi)
for r in $(seq 0 $((R - 1))); do
  for t in shm tcp; do
    for s in 64 1024 2048 4096 65536; do
      for k in 0 1 2; do run "$t" "$s" "${systems[$(((r + k) % 3))]}" "$r"; done
    done
  done
done
