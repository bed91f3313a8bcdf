#!/bin/sh
# BFS validated, compressed rows, 16 roots, 1 x 2: the validation phase's and the
# "kernel set-up and gathering" phase's seconds (whole run), s20/s22 built, base and new alternated
for s in 20 22; do for r in 1 2 3; do for b in gg-base gg-new; do
  ./$b bfs --graph /work/bench/graphs/s$s.gbuilt --threads 2 --roots 16 --rows compressed --json 2>/dev/null | python3 -c "
import json,sys
d=json.loads(sys.stdin.read()); p={x['name']: x['seconds'] for x in d['wall_time']['phases']}
print('s$s $b round $r validation %.3f set-up+gathering %.3f' % (p['validation'], p['kernel set-up and gathering']))"
done; done; done
