#!/usr/bin/env bash
# Regenerates every figure the README reaches, from one build, each with a
# made.txt beside its data (date, command, machine, build) that its plot
# prints along its bottom edge (results/stamp.py):
#
#   side-by-side  results/side-by-side/teps.png   (README, "Results")
#   mpi           results/mpi/compare_{bfs,sssp,echo}.png (README; compare.md)
#   rack          results/rack/peak_rss_per_rank.png (results/rack/README.md)
#   echo          results/echo/echo.png (results/echo/README.md)
#
# usage, from the repository root (all steps when none is named):
#   REF=/path/to/graph500_reference_bfs_sssp bash results/figures.sh [side-by-side] [mpi] [rack] [echo]
#
# Sized to finish in a few minutes each on a 2-vCPU box (about 25 minutes
# in all); the sizes are the variables below. Needs: python3 with
# matplotlib (`pip install matplotlib`), and for side-by-side and mpi Open
# MPI (`apt-get install openmpi-bin libopenmpi-dev`). REF is the official
# reference, built beside this project as results/side-by-side/run.sh says.
# GG and ECHO name the binaries (default: this tree's release builds, built
# here); BUILD names their commit on the figures (default: HEAD).
set -euo pipefail
cd "$(dirname "$0")/.."
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(side-by-side mpi rack echo)
if [ -z "${GG:-}" ]; then
    cargo build --release -q -p gossamer-graph
    GG=$PWD/target/release/gossamer-graph
fi
if [ -z "${ECHO:-}" ]; then
    cargo build --release -q -p gossamer --example echo
    ECHO=$PWD/target/release/examples/echo
fi
BUILD=${BUILD:-$(git rev-parse --short HEAD)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SIDE_SCALES=${SIDE_SCALES:-"16 18 20"} SIDE_REPS=${SIDE_REPS:-2}
MPI_SCALES=${MPI_SCALES:-"16 18"} MPI_REPS=${MPI_REPS:-2}
RACK_SCALES=${RACK_SCALES:-"20 22"} RACK_ROUNDS=${RACK_ROUNDS:-2} RACK_ROOTS=${RACK_ROOTS:-8}
made() { python3 results/stamp.py write "$1" "$2" "$BUILD"; }
for step in "${steps[@]}"; do
    echo "== $step ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
    case $step in
    side-by-side)
        : "${REF:?set REF to the Graph500 reference binary (see results/side-by-side/run.sh)}"
        made results/side-by-side "results/side-by-side/run.sh \"$SIDE_SCALES\" $SIDE_REPS"
        REF=$REF GG=$GG bash results/side-by-side/run.sh "$SIDE_SCALES" "$SIDE_REPS"
        python3 results/side-by-side/summarize.py ;;
    mpi)
        make -s -C mpi-baselines
        # shellcheck disable=SC2086
        cmd="results/mpi/compare.py --scales $MPI_SCALES --ranks 1 2 --repeats $MPI_REPS"
        made results/mpi "$cmd"
        # shellcheck disable=SC2086
        python3 $cmd --gossamer "$GG" --echo-bin "$ECHO" ;;
    rack)
        made results/rack "results/rack/run.sh $RACK_ROUNDS $RACK_ROOTS \"$RACK_SCALES\" gossamer-graph"
        sh results/rack/run.sh "$RACK_ROUNDS" "$RACK_ROOTS" "$RACK_SCALES" "$GG" | tee results/rack/raw-figures.txt
        python3 results/rack/summarize.py results/rack/raw-figures.txt \
            --plot results/rack/peak_rss_per_rank.png > results/rack/figures.md ;;
    echo)
        made results/echo "results/echo/run.sh"
        E=$ECHO bash results/echo/run.sh
        python3 results/echo/plot.py > results/echo/table.md ;;
    *)
        echo "unknown step $step (side-by-side, mpi, rack, echo)" >&2
        exit 2 ;;
    esac
done
echo "== done ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"
