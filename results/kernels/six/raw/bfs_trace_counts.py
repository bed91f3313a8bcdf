import collections,sys
"""Counts in `teps` stderr logs with BFS_TRACE=1 (bfs_level_trace.diff):
roots whose first bottom-up level released the trustee waiting at the
barrier more than 1 ms after the other arrived, and such late releases
over all levels. Usage: python3 bfs_trace_counts.py LOG...
Lines: R scale i root kernel_us bu_levels /
L scale i trustee level dir n_f m_f t_start t_step t_barrier t_end [t_after_step] (us)."""
for f in sys.argv[1:]:
    L=collections.defaultdict(dict); R={}
    for line in open(f):
        p=line.split()
        if p[0]=='R': R[int(p[2])]=float(p[4])
        if p[0]=='L':
            i,me,l=int(p[2]),int(p[3]),int(p[4])
            L[(i,l)][me]=(p[5],*map(float,p[8:13]))
    slow=0; late_levels=0; levels=0
    for i in sorted(R):
        first=True
        for l in range(40):
            d=L.get((i,l))
            if not d or len(d)<2: continue
            last=max(d,key=lambda m:d[m][2]); other=1-last
            levels+=1
            late=d[other][3]-d[last][2] > 1000
            late_levels+=late
            if first and d[0][0]=='BU':
                slow+=late; first=False
    ts=sorted(R.values())
    print(f"{f}: roots {len(R)}, first-BU release >1ms late: {slow}, late barrier releases (all levels): {late_levels}/{levels}, median root time {ts[len(ts)//2]/1e3:.1f} ms")
