#!/bin/bash
cd /tmp/h32-part
for r in 1 2 3; do
  echo "$(date +%T) ggraph round $r"
  /work/notes/quiet.py python3 /tmp/h32-part/ggraph.py ggraph.csv $r || echo FAIL
done
echo "$(date +%T) done"
