#!/bin/bash
cd /tmp/h32-part
for r in 1 2 3; do
  echo "$(date +%T) ggraph3 round $r"
  /work/notes/quiet.py python3 /tmp/h32-part/ggraph3.py ggraph3.csv $r || echo FAIL
done
echo "$(date +%T) done"
