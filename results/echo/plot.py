"""Plots results/echo/echo.csv into echo.png (three panels), with the
line of results/echo/made.txt (when, command, machine, build) along its
bottom. Python 3 with matplotlib (pip install matplotlib)."""
import csv, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(here))
import stamp  # noqa: E402
rows = list(csv.DictReader(open(os.path.join(here, "echo.csv"))))
fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
for t in ("shm", "tcp"):
    r = [x for x in rows if x["experiment"] == "ranks" and x["transport"] in (t, "local")]
    ax[0].plot([int(x["ranks"]) for x in r], [float(x["mops"]) for x in r], "o-", label=t)
    s = [x for x in rows if x["experiment"] == "size" and x["transport"] == t]
    ax[1].plot([int(x["size"]) for x in s], [float(x["mops"]) for x in s], "o-", label=t)
    w = [x for x in rows if x["experiment"] == "window" and x["transport"] == t]
    ax[2].plot([float(x["mops"]) for x in w], [float(x["p999_us"]) for x in w], "o-", label=t)
    for x in w:
        ax[2].annotate(x["window"], (float(x["mops"]), float(x["p999_us"])), fontsize=7)
ax[0].set(xlabel="ranks (1 worker each; 1 = in-process, 2 workers)", ylabel="Mrequests/s", title="throughput vs ranks (32 B)")
ax[1].set(xlabel="request payload bytes", ylabel="Mrequests/s", title="throughput vs size (2 ranks, window 16)", xscale="log")
ax[2].set(xlabel="Mrequests/s", ylabel="p99.9 latency (us)", title="p99.9 latency vs load (labels: window)", yscale="log")
for a in ax:
    a.legend()
    a.grid(alpha=0.3)
fig.tight_layout(rect=(0, 0.05, 1, 1))
stamp.stamp(fig, here, "results/echo/run.sh")
fig.savefig(os.path.join(here, "echo.png"), dpi=110)

# The table of results/echo/README.md, from the same rows.
print("| experiment | ranks | threads/rank | transport | size B | window | Mreq/s | p50 us | p99 us | p99.9 us |")
print("|---|---|---|---|---|---|---|---|---|---|")
for x in rows:
    print("| %s | %s | %s | %s | %s | %s | %.3f | %.2f | %.2f | %.2f |" % (
        x["experiment"], x["ranks"], x["threads"], x["transport"], x["size"], x["window"],
        float(x["mops"]), float(x["p50_us"]), float(x["p99_us"]), float(x["p999_us"])))
