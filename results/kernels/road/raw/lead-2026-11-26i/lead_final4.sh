#!/bin/sh
for r in 1 2 3 4 5; do
  python3 ccab.py lead-final4.csv $r g1024_4096-s g1024_4096-d g2048_2048-s g2048_2048-d --bins=main:./gg-final2 --shapes=1x2,2x1 > /dev/null
done
