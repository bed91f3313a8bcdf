#!/bin/sh
for r in 1 2 3 4 5 6; do
  python3 ccab.py lead-final5.csv $r g1024_4096-s g1024_4096-d --bins=main:./gg-final2 --shapes=1x2,2x1 > /dev/null
done
