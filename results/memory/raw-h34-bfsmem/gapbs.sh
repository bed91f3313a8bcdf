#!/bin/sh
# GAPBS bfs, cc, pr on the .sg files: peak RSS KiB and the average time
G=/work/bench/graphs
for s in $*; do for k in bfs cc pr; do
  OMP_NUM_THREADS=2 /usr/bin/time -f "RSS %M" /work/anchors/gapbs/$k -f $G/s$s.sg -n 16 > /tmp/h34-bfsmem/gap.out 2> /tmp/h34-bfsmem/gap.err
  echo "gapbs $k s$s $(grep -o 'RSS [0-9]*' /tmp/h34-bfsmem/gap.err) $(grep 'Average Time' /tmp/h34-bfsmem/gap.out)"
done; done
