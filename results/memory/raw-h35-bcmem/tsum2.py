import re,sys
txt=open(sys.argv[1]).read()
kind=sys.argv[2] if len(sys.argv)>2 else 'ALLOC'
blocks=re.split(r'\n(?=ALLOC |LIVE )',txt)
for b in blocks:
    if not b.startswith(kind+' '): continue
    lines=b.split('\n'); head=lines[0]
    fr=[]
    for i,l in enumerate(lines):
        m=re.match(r'\s+at /work/wt/h35-bcmem/(\S+)',l)
        if m and not any(x in m.group(1) for x in ('alloctrace','oom.rs','graph-core/src/alloc.rs')):
            fr.append(m.group(1).rsplit(':',1)[0])
    print(head, ' <- '.join(fr[:3]))
