import csv,sys,statistics as st
rows=[r for f in sys.argv[1:] for r in csv.reader(open(f))]
d={}
for s,rnd,v,k,m,fa in rows:
    d.setdefault((s,k,v),[]).append((float(m),float(fa)))
for (s,k,v),x in sorted(d.items()):
    m=[a for a,_ in x]; f=[b for _,b in x]
    if k in('bfs','sssp'):
        u=1e9 if k=='bfs' else 1e6
        ms=f"{st.median(m)/u:.3g} [{min(m)/u:.3g}-{max(m)/u:.3g}] {'G' if k=='bfs' else 'M'}TEPS"
    else:
        ms=f"{st.median(m):.4f} [{min(m):.4f}-{max(m):.4f}] s"
    print(s,k,v,ms,f"| fa {st.median(f):.3f} [{min(f):.3f}-{max(f):.3f}]",len(x))
