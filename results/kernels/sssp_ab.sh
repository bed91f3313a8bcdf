#!/bin/bash
# Alternates builds of gossamer-graph on SSSP (validated, --json): one line
# per run: scale, shape, round, binary, harmonic-mean TEPS, peak KiB per rank,
# /usr/bin/time max KiB, wall s. Used by sssp_bounds.md.
# usage: results/kernels/sssp_ab.sh ROUNDS ROOTS "CONFIGS" BIN...   CONFIGS like "20:1x2 22:1x2 22:2x1"
R=$1; ROOTS=$2; CFGS=$3; shift 3
for r in $(seq 1 $R); do
  for c in $CFGS; do
    S=${c%%:*}; shape=${c##*:}; ranks=${shape%%x*}; thr=${shape##*x}
    for bin in "$@"; do
      if [ $ranks = 1 ]; then pre=""; else pre="--ranks $ranks"; fi
      out=$(/usr/bin/time -f "RSS %M WALL %e" $bin $pre sssp --scale $S --roots $ROOTS --threads $thr --json 2>&1)
      echo "$out" | python3 -c "
import json,sys,re
t=sys.stdin.read()
j=t[t.index('{'):t.rindex('}')+1]
d=json.loads(j)
rss=re.search(r'RSS (\d+)',t).group(1); wall=re.search(r'WALL ([0-9.]+)',t).group(1)
hm=d.get('harmonic_mean_teps') or d.get('teps_harmonic_mean')
print('$S,$shape,$r,$bin',hm,d.get('peak_rss_kib_per_rank'),rss,wall,sep=',')
" 2>&1 | tail -1
    done
  done
done
