import csv, statistics as st, collections, sys
files = sys.argv[1:] if len(sys.argv) > 1 else ["road-base.csv:block", "road-striped.csv:striped"]
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for spec in files:
    fn, label = spec.split(":")
    last = None; call = -1
    for r in csv.DictReader(open("/tmp/h32-part/" + fn)):
        key = (r["program"], r["shape"], r["graph"], r["kernel"], r["setting"])
        if key != last:
            call += 1; last = key
        lab = "gapbs" if r["program"] == "gapbs" else label
        sh = "gapbs" if lab == "gapbs" else r["shape"]
        rows[(r["graph"], r["kernel"], r["setting"])][(lab, sh, fn, call)].append(float(r["seconds"]))
labels = [s.split(":")[1] for s in files]
def fmt(m): return f"{st.median(m):.4f} [{min(m):.4f}-{max(m):.4f}]"
print("| grid | kernel | GAPBS | " + " | ".join(f"{l} 1x2 | {l} 2x1" for l in labels) + f" | {labels[1]}/{labels[0]} 1x2 | 2x1 |")
print("| --- " * (5 + 2*len(labels)) + "|")
for k in sorted(rows):
    per = collections.defaultdict(list)
    for (lab, sh, fn, c), v in rows[k].items():
        per[(lab, sh)].append(st.median(v))
    g = per[("gapbs", "gapbs")]
    cells = [fmt(g) if g else ""]
    for l in labels:
        for sh in ["1x2", "2x1"]:
            cells.append(fmt(per[(l, sh)]) if per[(l, sh)] else "")
    ratios = [f"{st.median(per[(labels[1], sh)]) / st.median(per[(labels[0], sh)]):.2f}" if per[(labels[1], sh)] and per[(labels[0], sh)] else "" for sh in ["1x2", "2x1"]]
    kern = k[1] + ("" if k[2] == "default" else f" Δ {k[2]}") + (" derived Δ" if k[1] == "sssp" and k[2] == "default" else "")
    print(f"| {k[0].replace('g','',1)} | {kern} | " + " | ".join(cells + ratios) + " |")
