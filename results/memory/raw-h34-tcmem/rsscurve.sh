#!/bin/bash
# usage: rsscurve.sh BIN ARGS... ; samples VmRSS every ~2ms
"$@" > /tmp/h34-tcmem/curve.out 2>&1 &
p=$!
t0=$(date +%s%N)
while kill -0 $p 2>/dev/null; do
  r=$(grep -E 'VmRSS|VmHWM' /proc/$p/status 2>/dev/null | awk '{printf "%s ", $2}')
  echo "$(( ($(date +%s%N)-t0)/1000000 )) $r"
  sleep 0.002
done
