#!/bin/sh
# usage: m2.sh BIN S [extra args]
B=$1; S=$2; shift 2
/usr/bin/time -f "peak %M KiB wall %e" ./$B tc --graph /work/bench/graphs/s$S.gbuilt --threads 2 --skip-validation --json "$@" 2>&1 | tr ',' '\n' | grep -E '"triangles|kernel_time|peak|count_time|simple_edges|records' | tr '\n' ' '; echo
