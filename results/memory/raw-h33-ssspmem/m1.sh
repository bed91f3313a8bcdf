#!/bin/sh
G=/work/bench/graphs
S=$1
GOSSAMER_GRAPH_MEMTRACE=1 /usr/bin/time -f "ours-base S$S maxrss %M KiB wall %e" ./gg-base sssp --graph $G/s$S.gbuilt --threads 2 --roots 1 --skip-validation 2>&1 | grep -iv "^ *$" | tail -60
OMP_NUM_THREADS=2 /usr/bin/time -f "gapbs S$S maxrss %M KiB wall %e" /work/anchors/gapbs/sssp -f $G/s$S.wsg -n 1 -d 0.0005 2>&1 | tail -8
