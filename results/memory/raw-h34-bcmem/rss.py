#!/usr/bin/env python3
# usage: rss.py OUT BIN ARGS... ; samples VmRSS every ~1ms, prints changes
import subprocess, sys, time
out = sys.argv[1]
p = subprocess.Popen(sys.argv[2:], stdout=open(out + '.out', 'w'), stderr=subprocess.STDOUT)
t0 = time.time(); last = -1; rows = []
while p.poll() is None:
    try:
        for l in open(f'/proc/{p.pid}/status'):
            if l.startswith('VmRSS'):
                r = int(l.split()[1])
                if abs(r - last) > 2048:
                    rows.append(f'{(time.time()-t0)*1000:.0f} {r}'); last = r
    except Exception: pass
    time.sleep(0.0005)
open(out, 'w').write('\n'.join(rows) + '\n')
