#!/bin/sh
# labels of base and $1 on every grid, shapes and partitions; md5 per line
B=$1
for g in road/g1024_4096-s road/g1024_4096-d road/g2048_2048-s road/g2048_2048-d graphs/s20; do
 for sh in 1x2 2x1 2x2 3x1; do for p in block cyclic; do
  r=${sh%x*}; t=${sh#*x}; extra=""; [ $r != 1 ] && extra="--ranks $r"
  for b in base $B; do
   ./gg-$b $extra cc --graph /work/bench/$g.ggraph --threads $t --partition $p --skip-validation --dump-labels /tmp/h34-ccwide/l.bin > /dev/null || echo FAIL
   echo "$g $sh $p $b $(md5sum < /tmp/h34-ccwide/l.bin | cut -c1-32)"
  done
 done; done
done
rm -f /tmp/h34-ccwide/l.bin
