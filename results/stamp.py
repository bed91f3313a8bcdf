#!/usr/bin/env python3
"""The line every figure in results/ carries: when it was made, by which
command, on which machine, from which build of gossamer-graph.

results/figures.sh writes it beside the data of each benchmark it runs
(`made.txt` in that folder) before the benchmark starts; the plotting
scripts read it back and print it on the figure, so a figure re-plotted
later still says when its data were measured. Without a `made.txt` (a
script run by hand) the line is made up at plotting time.

    python3 results/stamp.py write DIR "COMMAND" [BUILD]   # beside the data
    python3 results/stamp.py show DIR                       # print the line

Python 3 standard library (matplotlib only in `stamp`, which is given a figure).
"""
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def machine():
    """This machine in one phrase: vCPUs, CPU model, memory, kernel."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = " " + line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        mem = f", {mem:.0f} GiB"
    except (ValueError, OSError):
        mem = ""
    return f"{os.cpu_count()} vCPU{model}{mem}, {platform.system()} {platform.release()}"


def build():
    """The commit the working tree is at (with "+changes" if it has any)."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write(folder, command, build_id=None):
    """Writes `made.txt` in `folder`: date (UTC), command, machine, build."""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    try:
        load = " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        load = "unknown"
    text = (f"made: {now}\ncommand: {command}\nmachine: {machine()}\n"
            f"load: {load} (1, 5, 15 min, at the start)\n"
            f"build: gossamer-graph at {build_id or build()}\n")
    Path(folder, "made.txt").write_text(text)
    return text


def read(folder, command=None):
    """The fields of `folder`'s made.txt, or of now when it has none."""
    path = Path(folder, "made.txt")
    if path.exists():
        fields = dict(line.split(": ", 1) for line in path.read_text().splitlines() if ": " in line)
    else:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        fields = {"made": now + " (plotted; no made.txt beside the data)",
                  "command": command or " ".join(sys.argv), "machine": machine(),
                  "build": f"gossamer-graph at {build()}"}
    return fields


def line(folder, command=None):
    """One line for a figure: `made DATE by COMMAND on MACHINE, BUILD`."""
    f = read(folder, command)
    load = f"; load {f['load'].split(' (')[0]} at the start" if "load" in f else ""
    return f"made {f['made']} by `{f['command']}` on {f['machine']}{load}; {f['build']}"


def stamp(fig, folder, command=None):
    """Prints `line` along the bottom of the matplotlib figure `fig`; call
    after `tight_layout(rect=(0, 0.05, 1, 1))` so it has room."""
    fig.text(0.005, 0.005, line(folder, command), fontsize=6.5, color="0.35",
             ha="left", va="bottom", wrap=True)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "write":
        print(write(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None), end="")
    elif len(sys.argv) == 3 and sys.argv[1] == "show":
        print(line(sys.argv[2]))
    else:
        sys.exit(__doc__)
