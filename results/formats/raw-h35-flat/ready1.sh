#!/bin/bash
# T = $TH (default 1), time to first answer: today's general path (sS.gbuilt, no sidecar),
# today's ready rows (sSr.gbuilt -> the same file, with sSr.gbuilt.w1.ready
# by `ready --threads 1`), the design's T = K/2 path emulated (k2-S.gbuilt,
# ids dealt into 2 degree runs, its w1 sidecar written and read with
# GG_LOCAL_ORDER=1: flat id = file id, rows lent, 2 runs in local order),
# and GAPBS on 1 thread from .sg/.wsg (process wall, -n 1, SSSP -d 0.0005),
# alternated, order rotated each round. One CSV row per call:
#   scale,round,variant,kernel,first_answer_s,wall_s,peak_rss_kib
set -euo pipefail
S=$1 ROUNDS=${2:-3} TH=${TH:-1}
G=/work/bench/graphs ROOT=$(head -1 $G/r$S) GAPBS=/work/anchors/gapbs
V=(gen1 rdy1 loc1 gapbs)
t() { /usr/bin/time -f "%e %M" -o tm.txt "$@"; }
for r in $(seq "$ROUNDS"); do
  rot=$(( (r - 1) % 4 )); vs=("${V[@]:rot}" "${V[@]:0:rot}")
  for k in bfs sssp cc pagerank; do
    for v in "${vs[@]}"; do
      extra=(); [ $k = bfs ] || [ $k = sssp ] && extra=(--roots 1)
      unset GG_LOCAL_ORDER
      case $v in
        gen1) f=s$S.gbuilt;;
        rdy1) f=s${S}r.gbuilt;;
        loc1) f=k2-$S.gbuilt; [ "$TH" = 1 ] && export GG_LOCAL_ORDER=1;;
        gapbs)
          g=$k; ge=(); gf=$G/s$S.sg
          [ $k = pagerank ] && g=pr
          [ $k = sssp ] && { gf=$G/s$S.wsg; ge=(-d 0.0005); }
          [ $k = bfs ] || [ $k = sssp ] && ge+=(-r "$ROOT")
          OMP_NUM_THREADS=$TH t $GAPBS/$g -f $gf -n 1 "${ge[@]}" > /dev/null
          read -r wall rss < tm.txt
          echo "$S,$r,gapbs,$k,$wall,$wall,$rss"; continue;;
      esac
      t ./gg-sw $k --graph $f --threads $TH --skip-validation --json "${extra[@]}" > r.json 2> r.err
      fa=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wall_time"]["first_answer_s"])' r.json)
      read -r wall rss < tm.txt
      echo "$S,$r,$v,$k,$fa,$wall,$rss"
    done
  done
done
unset GG_LOCAL_ORDER
