#!/bin/sh
# per-phase peaks (GOSSAMER_GRAPH_MEMTRACE=1), compressed rows, 1 x 2, validated
G=/work/bench/graphs
for s in 20 22; do for b in gg-base gg-new; do
  echo "== bfs s$s $b"; GOSSAMER_GRAPH_MEMTRACE=1 ./$b bfs --graph $G/s$s.gbuilt --threads 2 --roots 2 --rows compressed 2>&1 | grep memtrace | sort -u
  for k in cc pagerank; do echo "== $k s$s $b"; GOSSAMER_GRAPH_MEMTRACE=1 ./$b $k --graph $G/s$s.gbuilt --threads 2 --rows compressed 2>&1 | grep memtrace; done
done; done
