#!/usr/bin/env bash
# Cross-checks the MPI baselines against the Graph500 reference vectors.
#
#   tests/run_tests.sh [GRAPH_FILE...]
#
# Without arguments the graph files for SCALE 10 and 12 are built from the vectors with
# build/gg_vec2file. Given files are matched to a scale by their vertex count (1024 -> 10,
# 4096 -> 12). For -np 1 and -np 2 and each of the 4 vector roots, BFS levels must be identical
# to scaleS.rootR.level and SSSP distances equal to scaleS.rootR.dist within relative 1e-6; the
# Graph500 traversed-edge count must match the vectors' README, and the built-in validator must
# pass. Also: checksum64 known answers, converter output vs the Rust writer (when the
# gossamer-graph binary exists), a multi-chunk file (checksum split across ranks), and refusal
# of corrupt files. The last line is "N passed, M failed"; exit status 0 iff M = 0.
#
# Environment: GG_VECTORS (default: graph-core/vectors in the repository), GG_BIN (path of the
# gossamer-graph binary; default: PATH, then $CARGO_TARGET_DIR/{release,debug}),
# MPIRUN (default mpirun), MPIRUN_FLAGS (default: oversubscribe, shared-memory transport only).
set -u
here="$(cd "$(dirname "$0")/.." && pwd)"
B="$here/build"
V="${GG_VECTORS:-$(cd "$here/.." && pwd)/graph-core/vectors}"
MPIRUN="${MPIRUN:-mpirun}"
MPIRUN_FLAGS="${MPIRUN_FLAGS:---oversubscribe --mca btl self,vader --mca btl_vader_single_copy_mechanism none}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $*"; }
bad() { failed=$((failed + 1)); echo "FAIL - $*"; }
finish() {
    rm -rf "$tmp"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit $?
}
tmp="$(mktemp -d "${TMPDIR:-/tmp}/gg-mpi-tests.XXXXXX")"

for p in gg_graph gg_echo gg_vec2file gg_cmpvec gg_checksum; do
    if [ ! -x "$B/$p" ]; then
        bad "$B/$p is missing: run make -C $here first"
        finish
    fi
done
if ! command -v "$MPIRUN" >/dev/null; then
    bad "$MPIRUN not found: install openmpi-bin"
    finish
fi
if [ ! -r "$V/scale10.edges" ]; then
    bad "reference vectors not found in $V (set GG_VECTORS)"
    finish
fi

run() { # run NP ARGS... : gg_graph under mpirun, stdout+stderr to $tmp/out
    local np=$1
    shift
    # shellcheck disable=SC2086
    timeout 300 "$MPIRUN" -np "$np" $MPIRUN_FLAGS "$B/gg_graph" "$@" >"$tmp/out" 2>&1
}
single() { # single ARGS... : gg_graph as an MPI singleton (no mpirun: fast failure paths)
    timeout 300 "$B/gg_graph" "$@" >"$tmp/out" 2>&1
}

# 1. checksum64 against known answers from the Rust implementation
if "$B/gg_checksum" --self-test >"$tmp/out" 2>&1; then ok "checksum64 known answers"; else
    bad "checksum64 known answers: $(cat "$tmp/out")"; fi

# 2. graph files (from the vectors unless given)
declare -A file
for s in 10 12; do
    if "$B/gg_vec2file" --scale "$s" --edges "$V/scale$s.edges" --weights "$V/scale$s.weights" \
        --roots "$V/scale$s.roots" -o "$tmp/scale$s.gg" >"$tmp/out" 2>&1 &&
        "$B/gg_checksum" --graph "$tmp/scale$s.gg" >>"$tmp/out" 2>&1; then
        ok "converter writes a valid SCALE $s file"
        file[$s]="$tmp/scale$s.gg"
    else
        bad "converter SCALE $s: $(cat "$tmp/out")"
    fi
done
for f in "$@"; do
    nv="$("$B/gg_checksum" --graph "$f" 2>/dev/null | sed -n 's/^header ok: \([0-9]*\) vertices.*/\1/p')"
    case "$nv" in
    1024) file[10]="$f" && ok "using given file $f for SCALE 10" ;;
    4096) file[12]="$f" && ok "using given file $f for SCALE 12" ;;
    *) bad "given file $f is not a valid SCALE 10 or 12 graph file" ;;
    esac
done

# 3. converter vs the Rust generator (same bytes expected)
gg_bin="${GG_BIN:-}"
if [ -z "$gg_bin" ]; then
    gg_bin="$(command -v gossamer-graph || true)"
    for d in release debug; do
        [ -z "$gg_bin" ] && [ -x "${CARGO_TARGET_DIR:-/nonexistent}/$d/gossamer-graph" ] &&
            gg_bin="$CARGO_TARGET_DIR/$d/gossamer-graph"
    done
fi
if [ -n "$gg_bin" ] && [ -x "$gg_bin" ]; then
    for s in 10 12; do
        if timeout 300 "$gg_bin" generate --scale "$s" -o "$tmp/rust$s.gg" >"$tmp/out" 2>&1; then
            if cmp -s "$tmp/rust$s.gg" "$tmp/scale$s.gg"; then
                ok "gossamer-graph generate --scale $s is byte-identical to the converter's file"
            else
                bad "gossamer-graph generate --scale $s differs from the converter's file ($(cmp "$tmp/rust$s.gg" "$tmp/scale$s.gg" 2>&1 | head -1))"
            fi
        else
            bad "$gg_bin generate --scale $s failed: $(tail -3 "$tmp/out")"
        fi
    done
else
    echo "skip - gossamer-graph binary not found (set GG_BIN): converter not compared with the Rust generator"
fi

# 4. levels and distances for the 4 vector roots, -np 1 and -np 2
declare -A nedge=([10]=16239 [12]=65327)
for s in 10 12; do
    [ -n "${file[$s]:-}" ] || continue
    roots="$(ls "$V"/scale"$s".root*.level | sed 's/.*\.root\([0-9]*\)\.level/\1/' | sort -n)"
    rootlist="$(echo $roots | tr ' ' ',')"
    for np in 1 2; do
        rm -f "$tmp"/l.* "$tmp"/d.*
        if ! run "$np" both "${file[$s]}" --root "$rootlist" --validate --dump-levels "$tmp/l.{root}" --dump-dist "$tmp/d.{root}"; then
            bad "SCALE $s -np $np: gg_graph failed: $(tail -5 "$tmp/out")"
            continue
        fi
        if [ "$(grep -c 'validation: passed' "$tmp/out")" = 2 ]; then ok "SCALE $s -np $np: validator passes (BFS, SSSP)"; else
            bad "SCALE $s -np $np: validator: $(grep validation "$tmp/out" | tr '\n' ' ')"; fi
        for r in $roots; do
            name="SCALE $s root $r -np $np"
            if "$B/gg_cmpvec" level "$tmp/l.$r" "$V/scale$s.root$r.level" >"$tmp/cmp" 2>&1; then
                ok "$name: BFS levels identical"
            else bad "$name: BFS levels: $(head -3 "$tmp/cmp" | tr '\n' ' ')"; fi
            if "$B/gg_cmpvec" dist "$tmp/d.$r" "$V/scale$s.root$r.dist" 1e-6 >"$tmp/cmp" 2>&1; then
                ok "$name: SSSP distances equal ($(cat "$tmp/cmp"))"
            else bad "$name: SSSP distances: $(head -3 "$tmp/cmp" | tr '\n' ' ')"; fi
            ne="$(grep -c "_run: root=$r .*traversed_edges=${nedge[$s]} " "$tmp/out")"
            if [ "$ne" = 2 ]; then ok "$name: traversed edges = ${nedge[$s]} (BFS and SSSP)"; else
                bad "$name: traversed edges: $(grep "_run: root=$r " "$tmp/out" | tr '\n' ' ')"; fi
        done
    done
done

# 5. a 3 MiB file (SCALE 12 edges four times over, no Graph500 params): the data checksum is
#    split over the ranks' chunk ranges; duplicates leave levels and distances unchanged
if [ -n "${file[12]:-}" ]; then
    for _ in 1 2 3 4; do cat "$V/scale12.edges"; done >"$tmp/e4"
    for _ in 1 2 3 4; do cat "$V/scale12.weights"; done >"$tmp/w4"
    if "$B/gg_vec2file" --vertices 4096 --edges "$tmp/e4" --weights "$tmp/w4" --roots "$V/scale12.roots" \
        -o "$tmp/x4.gg" >"$tmp/out" 2>&1; then
        for np in 2 3; do
            if run "$np" both "$tmp/x4.gg" --root 858 --buffer-bytes 64 --dump-levels "$tmp/l" --dump-dist "$tmp/d" &&
                grep -q "traversed_edges=$((4 * 65327)) " "$tmp/out" &&
                "$B/gg_cmpvec" level "$tmp/l" "$V/scale12.root858.level" >/dev/null &&
                "$B/gg_cmpvec" dist "$tmp/d" "$V/scale12.root858.dist" >/dev/null; then
                ok "multi-chunk file, tiny buffers, -np $np: checksum accepted, results unchanged"
            else
                bad "multi-chunk file -np $np: $(tail -5 "$tmp/out")"
            fi
        done
    else
        bad "could not build the multi-chunk file: $(cat "$tmp/out")"
    fi
fi

# 6. bad files are refused with a clear message (and a non-zero exit)
if [ -n "${file[10]:-}" ]; then
    f="${file[10]}"
    head -c 500 "$f" >"$tmp/trunc_header.gg"
    head -c 10000 "$f" >"$tmp/trunc_data.gg"
    cp "$f" "$tmp/corrupt.gg" && chmod u+w "$tmp/corrupt.gg"
    printf '\x55' | dd of="$tmp/corrupt.gg" bs=1 seek=5000 conv=notrunc 2>/dev/null
    cp "$f" "$tmp/version.gg" && chmod u+w "$tmp/version.gg"
    printf '\x07' | dd of="$tmp/version.gg" bs=1 seek=8 conv=notrunc 2>/dev/null
    echo "hello" >"$tmp/text.gg"
    cp "$f" "$tmp/long.gg" && chmod u+w "$tmp/long.gg" && printf '123456789012' >>"$tmp/long.gg"
    for c in "trunc_header.gg:fewer than the 1024-byte header" \
        "trunc_data.gg:the graph file is truncated" \
        "corrupt.gg:edge data is corrupt" \
        "version.gg:written by format v7" \
        "text.gg:not a gossamer-graph file" \
        "long.gg:counts are inconsistent with the size" \
        "missing.gg:does not exist"; do
        name="${c%%:*}"
        want="${c#*:}"
        if single bfs "$tmp/$name" --nroots 1; then
            bad "$name accepted"
        elif grep -q "$want" "$tmp/out"; then
            ok "$name refused: $want"
        else bad "$name: unexpected message: $(head -2 "$tmp/out")"; fi
    done
    if run 2 bfs "$tmp/corrupt.gg" --nroots 1; then bad "corrupt.gg accepted by 2 ranks"; elif grep -q "edge data is corrupt" "$tmp/out"; then
        ok "corrupt.gg refused by 2 ranks (digests gathered across ranks)"; else bad "corrupt.gg -np 2: $(head -2 "$tmp/out")"; fi
    if single bfs "$tmp/corrupt.gg" --nroots 1 --no-checksum; then ok "--no-checksum skips the data checksum"; else
        bad "--no-checksum: $(tail -2 "$tmp/out")"; fi
    if single bfs "$f" --root 99999; then bad "root out of range accepted"; elif grep -q "is not a vertex" "$tmp/out"; then
        ok "root out of range refused"; else bad "root out of range: $(head -2 "$tmp/out")"; fi
fi
# 7. echo benchmark smoke test: every response matches its request, throughput reported
# shellcheck disable=SC2086
if timeout 120 "$MPIRUN" -np 2 $MPIRUN_FLAGS "$B/gg_echo" --seconds 0.3 --window 16 >"$tmp/out" 2>&1 &&
    grep -q '^bad_responses: 0$' "$tmp/out" && grep -Eq '^throughput_Mreq_s: [0-9.]*[1-9]' "$tmp/out"; then
    ok "gg_echo -np 2: all responses match, $(grep '^throughput_Mreq_s' "$tmp/out")"
else
    bad "gg_echo -np 2: $(tail -5 "$tmp/out" | tr '\n' ' ')"
fi
finish
