#!/usr/bin/env python3
# usage: smaps.py OUT BIN ARGS... ; samples VmRSS every ~2ms; at each new max RSS (+4MB) snapshots smaps (anon mappings >1MB Rss)
import subprocess, sys, time, re
out = sys.argv[1]
p = subprocess.Popen(sys.argv[2:], stdout=open(out + '.out', 'w'), stderr=subprocess.STDOUT)
t0 = time.time(); best = 0; snap = None; curve = []; last=-1
def smaps(pid):
    rows = []; cur = None
    for l in open(f'/proc/{pid}/smaps'):
        if re.match(r'^[0-9a-f]+-[0-9a-f]+ ', l):
            parts = l.split()
            cur = [parts[0], parts[5] if len(parts) > 5 else '[anon]', 0]
            a, b = parts[0].split('-'); cur.append((int(b,16)-int(a,16))//1024)
            rows.append(cur)
        elif l.startswith('Rss:'):
            cur[2] = int(l.split()[1])
    return rows
while p.poll() is None:
    try:
        r = 0
        for l in open(f'/proc/{p.pid}/status'):
            if l.startswith('VmRSS'): r = int(l.split()[1])
        if abs(r-last) > 2048: curve.append(f'{(time.time()-t0)*1000:.0f} {r}'); last = r
        if r > best + 4096:
            s = smaps(p.pid); best = r; snap = (time.time()-t0, r, s)
    except Exception as e: pass
    time.sleep(0.002)
with open(out, 'w') as f:
    f.write('\n'.join(curve) + '\n')
    t, r, s = snap
    f.write(f'# snapshot at {t*1000:.0f} ms, VmRSS {r} KiB\n')
    for m in sorted(s, key=lambda m: -m[2]):
        if m[2] > 1024: f.write(f'{m[2]:>9} {m[3]:>9} {m[1]} {m[0]}\n')
