#!/bin/sh
for r in 1 2 3 4; do
  if [ $((r % 2)) = 1 ]; then order="final2 gate2"; else order="gate2 final2"; fi
  ./kron2x1.sh "$order" $r >> lead-g2-kron.csv
  python3 ccab.py lead-g2-wide.csv $r g1024_4096-s g1024_4096-d --bins=final2:./gg-final2,gate2:./gg-gate2 --shapes=2x1 --gapbs=0 > /dev/null
done
