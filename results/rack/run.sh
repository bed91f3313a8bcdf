#!/bin/sh
# Rack shapes side by side on one host: 1 rank x 2 threads, 2 ranks x 1
# thread, 4 ranks x 1 thread (oversubscribed on 2 cores), SSSP and BFS from
# the first ROOTS Graph500 roots, validated; rounds alternate the shapes and
# the binaries (to compare a build before and after a change).
# usage: [SHAPES="1x2 2x1"] [TRANSPORT=tcp] results/rack/run.sh ROUNDS ROOTS "SCALE..." BINARY...
# prints one line per run: binary scale kernel shape round generation_s
#   construction_s harmonic_mean_TEPS largest_process_MiB (/usr/bin/time)
#   peak_MiB_per_rank (from the JSON report, comma-separated; - if absent)
set -eu
rounds=$1 roots=$2 scales=$3; shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-10s %5s %5s %5s %5s %8s %8s %12s %9s %s\n' binary scale kernel shape round gen_s constr_s hmean_TEPS max_MiB peak_MiB_per_rank
for s in $scales; do
  for r in $(seq 1 "$rounds"); do
    for shape in ${SHAPES:-1x2 2x1 4x1}; do
      ranks=${shape%x*} threads=${shape#*x}
      for k in sssp bfs; do
        for bin in "$@"; do
          /usr/bin/time -f '%M' -o "$tmp/t" "$bin" --ranks "$ranks" --transport "${TRANSPORT:-shm}" "$k" \
            --scale "$s" --threads "$threads" --roots "$roots" --json >"$tmp/j" 2>/dev/null
          python3 - "$tmp/j" "$(cat "$tmp/t")" "$(basename "$bin")" "$s" "$k" "$shape" "$r" <<'PY'
import json, sys
path, maxkib, name, s, k, shape, r = sys.argv[1:]
d = json.load(open(path))
peaks = ",".join(str(round(p / 1024)) for p in d.get("peak_rss_kib_per_rank", [])) or "-"
print("%-10s %5s %5s %5s %5s %8.3f %8.3f %12.4g %9d %s" % (name, s, k, shape, r,
      d["generation_time_s"], d["construction_time_s"], d["harmonic_mean_teps"],
      round(int(maxkib) / 1024), peaks))
PY
        done
      done
    done
  done
done
