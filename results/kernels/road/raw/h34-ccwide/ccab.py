#!/usr/bin/env python3
"""One round of cc on road grids: base and new binaries (1x2, 2x1) and GAPBS,
order reversed on even rounds. Appends CSV rows: round,program,shape,graph,seconds.
    ccab.py OUT.csv ROUND GRID... [--bins base=./gg-base,new=./gg-new] [--shapes 1x2,2x1]"""
import json, os, re, subprocess, sys
out, rnd, grids = sys.argv[1], int(sys.argv[2]), [g for g in sys.argv[3:] if not g.startswith("--")]
opts = dict(x[2:].split("=", 1) for x in sys.argv[3:] if x.startswith("--"))
bins = [b.split(":") for b in opts.get("bins", "base:./gg-base,new:./gg-new").split(",")]
shapes = opts.get("shapes", "1x2,2x1").split(",")
gapbs = opts.get("gapbs", "1") == "1"
D = "/work/bench/road"
def ours(b, g, shape):
    r, t = shape.split("x")
    cmd = [b] + (["--ranks", r] if r != "1" else []) + ["cc", "--graph", f"{D}/{g}.ggraph", "--threads", t, "--skip-validation", "--json"]
    o = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(o[o.index("{"):])["kernel_time_s"]
def gap(g):
    o = subprocess.run(["/work/anchors/gapbs/cc", "-f", f"{D}/{g}.sg", "-n", "1"], capture_output=True, text=True, check=True, env=dict(os.environ, OMP_NUM_THREADS="2")).stdout
    return float(re.findall(r"Trial Time:\s+([0-9.]+)", o)[0])
new = not os.path.exists(out)
with open(out, "a") as f:
    if new: f.write("round,program,shape,graph,seconds\n")
    for g in grids:
        todo = [(l, b, s) for s in shapes for (l, b) in bins]
        if gapbs: todo.insert(len(todo)//2, ("gapbs", None, "2 threads"))
        if rnd % 2 == 0: todo.reverse()
        for l, b, s in todo:
            t = gap(g) if b is None else ours(b, g, s)
            f.write(f"{rnd},{l},{s},{g},{t}\n"); f.flush()
            print(rnd, l, s, g, "%.4f" % t, flush=True)
