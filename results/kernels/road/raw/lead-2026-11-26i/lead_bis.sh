#!/bin/sh
for r in 1 2 3 4; do
  python3 ccab.py lead-bis.csv $r g1024_4096-s --bins=gate:./gg-gate,R:./gg-revert,fix:./gg-fix,final:./gg-final --shapes=1x2 --gapbs=0 > /dev/null
done
