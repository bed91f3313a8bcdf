#!/usr/bin/env python3
"""A/B of whole runs: each setting's JSON wall-time phases, TEPS and balance
figures, rounds alternated (order reversed every other round).
wall.py OUT.csv ROUNDS 'NAME|ENV|CMD...' ..."""
import csv, json, os, subprocess, sys
out, rounds, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rows = []
for r in range(rounds):
    order = specs if r % 2 == 0 else specs[::-1]
    for spec in order:
        name, env, cmd = spec.split("|")
        e = dict(os.environ)
        for kv in env.split():
            k, v = kv.split("=")
            e[k] = v
        p = subprocess.run(cmd.split(), capture_output=True, text=True, env=e)
        d = json.loads(p.stdout)
        ph = {x["name"]: x["seconds"] for x in d["wall_time"]["phases"]}
        b = d.get("balance") or {}
        row = dict(round=r, setting=name, teps=d["harmonic_mean_teps"], median_s=d["median_time_s"],
                   wall_s=d["wall_time"]["total_s"], construction_s=ph.get("construction", 0),
                   kernel_s=ph.get("kernel time", 0), setup_gather_s=ph.get("kernel set-up and gathering", 0),
                   moving_s=ph.get("balancing (moving blocks)", 0), moves=b.get("rebuilds", ""),
                   blocks=b.get("blocks_moved", ""), bytes_moved=b.get("bytes_moved", ""),
                   bytes_copied=b.get("bytes_copied", ""), setup_after_s=b.get("setup_after_rebuild_s", ""),
                   imb_first=b.get("imbalance_before", ""), imb_last=b.get("imbalance_after", ""))
        rows.append(row)
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
new = not os.path.exists(out)
with open(out, "a", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
    if new:
        w.writeheader()
    w.writerows(rows)
