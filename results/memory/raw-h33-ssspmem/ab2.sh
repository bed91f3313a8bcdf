#!/bin/bash
# Peak RSS (/usr/bin/time %M, KiB) of SSSP from a built file, 1 x 2, one root, no validation:
# main's binary (base), this branch plain (plain) and --rows compressed (comp), GAPBS; order rotated each round.
G=/work/bench/graphs
one() { # label S
  case $1 in
    base) c="./gg-base sssp --graph $G/s$2.gbuilt --threads 2 --roots 1 --skip-validation";;
    plain) c="./gg-new sssp --graph $G/s$2.gbuilt --threads 2 --roots 1 --skip-validation --rows plain";;
    comp) c="./gg-new sssp --graph $G/s$2.gbuilt --threads 2 --roots 1 --skip-validation --rows compressed";;
    gapbs) c="env OMP_NUM_THREADS=2 /work/anchors/gapbs/sssp -f $G/s$2.wsg -n 1 -d 0.0005";;
  esac
  /usr/bin/time -f "$1 S$2 round $3 maxrss %M wall %e" $c 2>&1 >/tmp/h33-ssspmem/out.txt | tail -1
  grep -E "median time|Average Time" /tmp/h33-ssspmem/out.txt | sed "s/^/   $1 S$2 round $3 /"
}
for S in ${SCALES:-20 22}; do
  for r in 1 2 3; do
    case $r in 1) o="base plain comp gapbs";; 2) o="gapbs comp plain base";; 3) o="plain comp base gapbs";; esac
    for l in $o; do one $l $S $r; done
  done
done
