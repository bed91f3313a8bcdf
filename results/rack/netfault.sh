#!/bin/bash
# Faults mid-run between two simulated hosts (the set-up of netcond.sh):
# SSSP at SCALE 14 from 64 roots, --transport tcp, 1 thread per rank; once
# rank 0's host has received 1 MiB (the construction runs), one fault:
#   down2       rank 0's end of the veth link down for 2 s, then up
#   down60      the link down for 60 s (or until both ranks ended)
#   reset-data  Toxiproxy reset_peer on the data link's proxy
#   reset-ctl   Toxiproxy reset_peer on the control link's proxy
# usage: results/rack/netfault.sh ROUNDS BINARY [FAULT...]
# needs root, iproute2, curl and Toxiproxy's server (TOXIPROXY_SERVER, else
# toxiproxy-server on PATH).
# prints one line per run: fault round, seconds from the fault to each
# rank's end, their exit codes, whether rank 0's answers equal one
# process's (same / none / WRONG), then each rank's last line of stderr
set -eu
rounds=$1 bin=$(realpath "$2"); shift 2
faults=${*:-down2 down60 reset-data reset-ctl}
toxi=${TOXIPROXY_SERVER:-$(command -v toxiproxy-server || true)}
[ -x "$toxi" ] || { echo "no Toxiproxy server (set TOXIPROXY_SERVER)" >&2; exit 1; }

. "$(dirname "$0")/twohosts.sh" ggnf

api() { ip netns exec "$A" curl -sf -X "$1" "http://127.0.0.1:8474$2" ${3:+-d "$3"} >/dev/null; }
ip netns exec "$A" "$toxi" -host 127.0.0.1 -port 8474 >"$tmp/toxi.log" 2>&1 &
toxi_pid=$!
for _ in $(seq 100); do api GET /version && break; sleep 0.1; done
api POST /proxies "{\"name\":\"ctl\",\"listen\":\"$IPA:47100\",\"upstream\":\"127.0.0.1:47000\"}"
api POST /proxies "{\"name\":\"data\",\"listen\":\"$IPA:47101\",\"upstream\":\"127.0.0.1:47001\"}"

args=(--transport tcp sssp --scale 14 --roots 64 --threads 1 --json --dump-dist "$tmp/got")
"$bin" sssp --scale 14 --roots 64 --threads 2 --json --dump-dist "$tmp/want" >"$tmp/want.json"
now() { date +%s.%N; }
rx() { ip netns exec "$A" cat /sys/class/net/gga/statistics/rx_bytes; }
watcher=
tok=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%-10s %5s %7s %7s %5s %5s %s\n' fault round r0_s r1_s code0 code1 answers
for r in $(seq 1 "$rounds"); do
    for f in $faults; do
        for p in ctl data; do api DELETE "/proxies/$p/toxics/reset" || true; done
        case $f in
        reset-*)
            env0=(GOSSAMER_COORDINATOR=127.0.0.1:47000 GOSSAMER_DATA_LISTEN=127.0.0.1:47001
                GOSSAMER_DATA_ADVERTISE=$IPA:47101)
            env1=(GOSSAMER_COORDINATOR=$IPA:47100) ;;
        *)
            env0=(GOSSAMER_COORDINATOR=$IPA:47000)
            env1=(GOSSAMER_COORDINATOR=$IPA:47000) ;;
        esac
        rm -f "$tmp/got"
        base=$(rx)
        ip netns exec "$A" env GOSSAMER_RANK=0 GOSSAMER_SIZE=2 GOSSAMER_TOKEN="$tok" \
            "${env0[@]}" "$bin" "${args[@]}" >"$tmp/j" 2>"$tmp/e0" &
        p0=$!
        ip netns exec "$B" env GOSSAMER_RANK=1 GOSSAMER_SIZE=2 GOSSAMER_TOKEN="$tok" \
            "${env1[@]}" "$bin" "${args[@]}" >/dev/null 2>"$tmp/e1" &
        p1=$!
        while [ $(($(rx) - base)) -lt 1048576 ]; do sleep 0.02; done
        t0=$(now)
        case $f in
        down2) ip -n "$A" link set gga down; sleep 2; ip -n "$A" link set gga up ;;
        down60)
            ip -n "$A" link set gga down
            (for _ in $(seq 600); do kill -0 $p0 2>/dev/null || kill -0 $p1 2>/dev/null || break
                sleep 0.1; done; ip -n "$A" link set gga up) &
            watcher=$! ;;
        reset-data | reset-ctl)
            api POST "/proxies/${f#reset-}/toxics" \
                '{"name":"reset","type":"reset_peer","stream":"downstream","attributes":{"timeout":0}}' ;;
        esac
        c0=0 c1=0
        wait $p0 || c0=$?
        t1=$(now)
        wait $p1 || c1=$?
        t2=$(now)
        [ -n "$watcher" ] && wait "$watcher" # down60's link comes back up
        watcher=
        if [ -s "$tmp/j" ]; then
            python3 - "$tmp/j" "$tmp/want.json" <<'PY' && cmp -s "$tmp/got" "$tmp/want" && ans=same || ans=WRONG
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda d: [(r["root"], r["traversed_edges"], r["reached"], r["validated"]) for r in d["roots"]]
sys.exit(key(a) != key(b))
PY
        else
            ans=none
            [ -e "$tmp/got" ] && { cmp -s "$tmp/got" "$tmp/want" && ans="none (first root's dump right)" || ans="none, WRONG dump"; }
        fi
        printf '%-10s %5s %7.2f %7.2f %5s %5s %s\n' "$f" "$r" \
            "$(python3 -c "print($t1 - $t0)")" "$(python3 -c "print($t2 - $t0)")" "$c0" "$c1" "$ans"
        for k in 0 1; do
            [ -s "$tmp/e$k" ] && echo "    rank $k: $(tail -n 1 "$tmp/e$k")"
        done
    done
done
