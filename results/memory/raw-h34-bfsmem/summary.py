import csv, statistics as st, sys
def med(xs): 
    xs=sorted(xs); return st.median(xs), xs[0], xs[-1]
for f in sys.argv[1:]:
    rows=list(csv.DictReader(open(f)))
    keys=sorted(set((r['label'], r.get('kernel',''), r['shape']) for r in rows))
    print("#", f, "rounds", len(set(r['round'] for r in rows)))
    for k in keys:
        rs=[r for r in rows if (r['label'], r.get('kernel',''), r['shape'])==k]
        rss=med([int(r['peak_rss_kib']) for r in rs])
        if 'teps' in rs[0]:
            t=med([float(r['teps'])/1e9 for r in rs]); extra="GTEPS %.2f [%.2f-%.2f]" % t
        else:
            t=med([float(r['kernel_s']) for r in rs]); extra="kernel s %.4f [%.4f-%.4f]" % t
        print(k, "rss %d [%d-%d]" % rss, extra, "n=%d" % len(rs))
