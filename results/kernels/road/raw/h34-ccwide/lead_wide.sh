#!/bin/sh
for r in 1 2 3 4; do
  python3 ccab.py lead-wide2x1.csv $r g1024_4096-s g1024_4096-d --bins=c1:./gg-c1,c2:./gg-c2,gate:./gg-gate --shapes=2x1 --gapbs=0 > /dev/null
done
