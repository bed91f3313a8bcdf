#!/bin/sh
# ab.sh OUT.csv SCALE KERNEL LABEL... : one call of each label, in the order given, appended to OUT.csv
# labels: base-comp base-plain new-comp new-plain gapbs gapbs-v
# ours:  /usr/bin/time -f %M ./gg-X K --graph /work/bench/graphs/sS.gbuilt --threads 2 --json [--rows compressed]   (validated: the default)
# GAPBS: OMP_NUM_THREADS=2 /usr/bin/time -f %M /work/anchors/gapbs/bc -f sS.sg -i 4 -n 1 [-v]; tc -f sS.sg -n 1 [-v]
out=$1; S=$2; K=$3; shift 3
G=/work/bench/graphs
for L in "$@"; do
  case $L in
    base-*|new-*) bin=./gg-${L%%-*}; rows=${L#*-}
      /usr/bin/time -f "PEAK %M %e" $bin $K --graph $G/s$S.gbuilt --threads 2 --json --rows $([ $rows = comp ] && echo compressed || echo plain) >o.json 2>o.err
      rc=$?
      peak=$(grep PEAK o.err | awk '{print $2","$3}')
      extra=$(python3 -c "
import json
d=json.load(open('o.json'))
ph={p['name']:p['seconds'] for p in d['wall_time']['phases']}
res=d.get('triangles', d.get('max_difference'))
print('%s,%.3f,%.3f,%.3f,%s' % (d['validated'], d['kernel_time_s'], ph.get('reading the list for validation',0), ph.get('validation',0), res))
" 2>/dev/null || echo "err,,,,")
      ;;
    gapbs*) v=""; [ $L = gapbs-v ] && v=-v
      if [ $K = bc ]; then a="-i 4 -n 1"; else a="-n 1"; fi
      OMP_NUM_THREADS=2 /usr/bin/time -f "PEAK %M %e" /work/anchors/gapbs/$K -f $G/s$S.sg $a $v >o.txt 2>o.err
      rc=$?
      peak=$(grep PEAK o.err | awk '{print $2","$3}')
      tt=$(grep "Trial Time" o.txt | awk '{print $3}' | head -1)
      vt=$(grep "Verification Time" o.txt | awk '{print $3}' | head -1)
      vr=$(grep "Verification:" o.txt | awk '{print $2}' | head -1)
      extra="$v,$tt,0,$vt,$vr"
      ;;
  esac
  echo "$S,$K,$L,$rc,$peak,$extra" | tee -a $out
done
