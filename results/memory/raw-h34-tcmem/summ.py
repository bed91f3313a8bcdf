import csv, statistics as st, sys
rows = [r for f in sys.argv[1:] for r in csv.reader(open(f))]
by = {}
for l, s, r, peak, k, c, t in rows:
    by.setdefault((s, l), []).append((int(peak), float(k), float(c) if c else None, t))
for (s, l), v in sorted(by.items()):
    p = [x[0] for x in v]; k = [x[1] for x in v]; c = [x[2] for x in v if x[2] is not None]
    f = lambda a, d=3: f"{st.median(a):.{d}f} [{min(a):.{d}f}-{max(a):.{d}f}]" if a else "-"
    print(f"S{s} {l:6} n={len(v)} peak {st.median(p):.0f} [{min(p)}-{max(p)}] kernel {f(k)} count {f(c)} tri {set(x[3] for x in v)}")
