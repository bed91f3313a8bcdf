#!/usr/bin/env python3
import csv, sys, collections, statistics as st
d = collections.defaultdict(list)
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        d[(r["graph"], r["shape"], r["program"])].append(float(r.get("seconds") or r.get("metric")))
for k in sorted(d):
    v = sorted(d[k]); print(*k, "n=%d %.4f [%.4f-%.4f]" % (len(v), st.median(v), v[0], v[-1]))
