#!/usr/bin/env python3
"""Block against striped from built files: kernel median, first answer, peak RSS.
built.py OUT.csv ROUND  (order of the binaries reversed on even rounds)"""
import json, re, subprocess, sys
out, rnd = sys.argv[1], int(sys.argv[2])
bins = [("block", "/tmp/h32-part/gg-base"), ("striped", "/tmp/h32-part/gg-striped")]
if rnd % 2 == 0:
    bins.reverse()
with open(out, "a") as f:
    for g in ["s20", "s22"]:
        for kernel in ["bfs", "sssp"]:
            for shape in ["1x2", "2x1"]:
                for label, b in bins:
                    ranks, threads = shape.split("x")
                    cmd = ["/usr/bin/time", "-f", "RSS %M", b] + (["--ranks", ranks] if ranks != "1" else []) + [
                        kernel, "--graph", f"/work/bench/graphs/{g}.gbuilt", "--threads", threads,
                        "--roots", "8", "--skip-validation", "--json"]
                    p = subprocess.run(cmd, capture_output=True, text=True)
                    if p.returncode:
                        sys.exit(p.stderr)
                    d = json.loads(p.stdout[p.stdout.index("{"):])
                    rss = max([int(re.findall(r"RSS (\d+)", p.stderr)[-1])] + (d.get("peak_rss_kib_per_rank") or []))
                    ph = {x["name"]: x["seconds"] for x in d["wall_time"]["phases"]}
                    f.write(f"{rnd},{label},{g},{kernel},{shape},{d['partition']},{d['median_time_s']},{d['harmonic_mean_teps']},"
                            f"{d['wall_time']['first_answer_s']},{ph.get('construction','')},{d['wall_time']['total_s']},{rss}\n")
                    f.flush()
