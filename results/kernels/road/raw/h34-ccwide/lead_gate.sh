#!/bin/sh
# lead: commit 1 only (c1), commits 1+2 (c2), commit 2 gated to forests publishing pairs (gate)
for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then order="c1 c2 gate"; else order="gate c2 c1"; fi
  ./kron2x1.sh "$order" $r >> lead-kron2x1.csv
  python3 ccab.py lead-wide2x1.csv $r g1024_4096-s g1024_4096-d --bins=c1:./gg-c1,c2:./gg-c2,gate:./gg-gate --shapes=2x1 --gapbs=0 > /dev/null
done
