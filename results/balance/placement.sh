#!/bin/sh
# Where the trustee threads of a 1x2 run sit: starts an SSSP run on
# GRAPH with BIN in the background and prints, twice during the searches,
# each thread's allowed CPUs (taskset) and the CPU it last ran on.
#   placement.sh BIN GRAPH
bin=$1; graph=$2
cd /tmp || exit 1
"$bin" sssp --graph "$graph" --threads 2 --roots 16 --skip-validation --json >/dev/null 2>&1 &
pid=$!
for wait in 4 2; do
  sleep "$wait"
  for task in /proc/$pid/task/*; do
    tid=${task##*/}
    name=$(cat "$task/comm" 2>/dev/null)
    cpu=$(awk '{print $39}' "$task/stat" 2>/dev/null)
    allowed=$(taskset -pc "$tid" 2>/dev/null | sed 's/.*: //')
    echo "tid $tid $name allowed $allowed last-cpu $cpu"
  done
  echo --
done
wait $pid
