#!/bin/sh
# A graph file on R ranks x T threads: each rank's estimate (printed by
# `--force` with the test hook GOSSAMER_GRAPH_AVAILABLE_BYTES=1000, which
# changes nothing else) beside its measured peak resident set (the JSON
# report's peak_rss_kib_per_rank), and the seconds to a built graph
# (opening + construction). Builds alternate in every round.
# usage: results/memory/graph_file.sh ROUNDS GRAPH.ggraph "1x2 2x1 4x1" BIN...
# prints csv: bin,shape,round,rank,estimate_MiB,peak_KiB,open_s,construction_s
set -eu
rounds=$1 graph=$2 shapes=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "bin,shape,round,rank,estimate_MiB,peak_KiB,open_s,construction_s"
for r in $(seq "$rounds"); do
  for shape in $shapes; do
    ranks=${shape%x*} threads=${shape#*x}
    for bin in "$@"; do
      GOSSAMER_GRAPH_AVAILABLE_BYTES=1000 "$bin" --ranks "$ranks" sssp --graph "$graph" \
        --threads "$threads" --roots 2 --json --force >"$tmp/out" 2>"$tmp/err"
      python3 - "$bin" "$shape" "$r" "$tmp/out" "$tmp/err" <<'PY'
import json, re, sys
bin, shape, rnd, out, err = sys.argv[1:]
v = json.load(open(out))
est = {}
unit = {"KiB": 1 / 1024, "MiB": 1, "GiB": 1024, "TiB": 1024 * 1024}
for m in re.finditer(r"the estimate \(([0-9.]+) ([KMGT]iB)\)(?: for rank ([0-9]+))?", open(err).read()):
    est[int(m.group(3) or 0)] = f"{float(m.group(1)) * unit[m.group(2)]:.1f}"
for rank, peak in enumerate(v["peak_rss_kib_per_rank"]):
    print(f"{bin},{shape},{rnd},{rank},{est.get(rank, '')},{peak},"
          f"{v.get('load_time_s', v.get('generation_time_s')):.3f},{v['construction_time_s']:.3f}")
PY
    done
  done
done
