#!/bin/sh
# peak RSS of tc from s20.gbuilt, 1 x 2, compressed rows, with one busy loop competing for the 2 cores
sh -c 'while :; do :; done' & h=$!
for b in gg-new-v1 gg-new3 gg-new gg-new-v1 gg-new3 gg-new; do
  /usr/bin/time -f "$b peak %M KiB wall %e" ./$b tc --graph /work/bench/graphs/s20.gbuilt --threads 2 --skip-validation --rows compressed 2>&1 | grep -E "peak|^load"
done
kill $h
