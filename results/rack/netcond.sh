#!/bin/bash
# Network conditions between two simulated hosts: two network namespaces
# joined by a veth pair, one rank in each (`--transport tcp`, 1 thread per
# rank), SSSP and BFS from the first ROOTS Graph500 roots, every search
# validated and its answers (roots, traversed edges, reached vertices, the
# first root's dump) compared with one process's.
#
# usage: results/rack/netcond.sh ROUNDS SCALE ROOTS BINARY [CONDITION...]
# conditions (default: all, alternating within each round):
#   clean     the bare veth link
#   loss1     1% of the packets dropped on arrival, each way (nftables)
#   loss5     5% likewise
#   rate100   100 Mbit/s each way (tc tbf)
#   proxy     both links through Toxiproxy, no toxic (what the proxy costs)
#   latency20 through Toxiproxy, 20 ms +- 5 ms added each way
# Toxiproxy runs on rank 0's host; rank 0 listens on that host's loopback
# only and advertises the proxy's address (GOSSAMER_DATA_ADVERTISE), so the
# proxied runs cannot bypass it.
# needs root, iproute2 and nftables; proxy and latency20 need Toxiproxy's
# server (TOXIPROXY_SERVER, else toxiproxy-server on PATH) and curl.
# prints one line per run: condition kernel round seconds hmean_TEPS same
#   (same: yes when the answers equal one process's)
set -eu
rounds=$1 scale=$2 roots=$3 bin=$4; shift 4
conds=${*:-clean loss1 loss5 rate100 proxy latency20}
bin=$(realpath "$bin")
toxi=${TOXIPROXY_SERVER:-$(command -v toxiproxy-server || true)}

. "$(dirname "$0")/twohosts.sh" ggnc

# Conditions on and off.
plain() {
    for p in "$A gga" "$B ggb"; do
        set -- $p
        ip netns exec "$1" nft delete table inet ggnc 2>/dev/null || true
        tc -n "$1" qdisc del dev "$2" root 2>/dev/null || true
    done
}
loss() { # percent
    for p in "$A gga" "$B ggb"; do
        set -- $p
        ip netns exec "$1" nft -f - <<EOF
table inet ggnc {
    chain input {
        type filter hook input priority 0;
        iifname "$2" numgen random mod 100 < $LOSS drop
    }
}
EOF
    done
}
rate() {
    tc -n "$A" qdisc add dev gga root tbf rate 100mbit burst 128kb latency 50ms
    tc -n "$B" qdisc add dev ggb root tbf rate 100mbit burst 128kb latency 50ms
}
api() { # method path [json]
    ip netns exec "$A" curl -sf -X "$1" "http://127.0.0.1:8474$2" ${3:+-d "$3"} >/dev/null
}
proxy_up() {
    if [ -z "$toxi_pid" ]; then
        [ -x "$toxi" ] || { echo "no Toxiproxy server (set TOXIPROXY_SERVER)" >&2; exit 1; }
        ip netns exec "$A" "$toxi" -host 127.0.0.1 -port 8474 >"$tmp/toxi.log" 2>&1 &
        toxi_pid=$!
        for _ in $(seq 100); do api GET /version && break; sleep 0.1; done
        api POST /proxies "{\"name\":\"ctl\",\"listen\":\"$IPA:47100\",\"upstream\":\"127.0.0.1:47000\"}"
        api POST /proxies "{\"name\":\"data\",\"listen\":\"$IPA:47101\",\"upstream\":\"127.0.0.1:47001\"}"
    fi
    for p in ctl data; do
        for s in up down; do api DELETE "/proxies/$p/toxics/lat_$s" 2>/dev/null || true; done
    done
}
latency() {
    for p in ctl data; do
        for s in up down; do
            api POST "/proxies/$p/toxics" "{\"name\":\"lat_$s\",\"type\":\"latency\",\"stream\":\"${s}stream\",\"attributes\":{\"latency\":20,\"jitter\":5}}"
        done
    done
}

dumpflag() { [ "$1" = sssp ] && echo --dump-dist || echo --dump-levels; }
summary() { # report dump -> "roots... sha" (what must equal)
    python3 - "$1" "$2" <<'PY'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
assert all(r["validated"] for r in d["roots"]), "not validated"
roots = [(r["root"], r["traversed_edges"], r["reached"]) for r in d["roots"]]
print(roots, hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest())
PY
}

for k in sssp bfs; do
    "$bin" "$k" --scale "$scale" --roots "$roots" --threads 2 --json \
        "$(dumpflag "$k")" "$tmp/ref.$k" >"$tmp/ref.$k.json"
    summary "$tmp/ref.$k.json" "$tmp/ref.$k" >"$tmp/want.$k"
done

tok=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%-10s %5s %5s %8s %12s %s\n' condition kernel round seconds hmean_TEPS same
for r in $(seq 1 "$rounds"); do
    for c in $conds; do
        plain
        via=()
        case $c in
        clean) ;;
        loss1) LOSS=1 loss ;;
        loss5) LOSS=5 loss ;;
        rate100) rate ;;
        proxy) proxy_up ;;
        latency20) proxy_up; latency ;;
        *) echo "unknown condition $c" >&2; exit 2 ;;
        esac
        case $c in
        proxy | latency20)
            env0=(GOSSAMER_COORDINATOR=127.0.0.1:47000 GOSSAMER_DATA_LISTEN=127.0.0.1:47001
                GOSSAMER_DATA_ADVERTISE=$IPA:47101)
            env1=(GOSSAMER_COORDINATOR=$IPA:47100) ;;
        *)
            env0=(GOSSAMER_COORDINATOR=$IPA:47000)
            env1=(GOSSAMER_COORDINATOR=$IPA:47000) ;;
        esac
        for k in sssp bfs; do
            args=(--transport tcp "$k" --scale "$scale" --roots "$roots" --threads 1 --json
                "$(dumpflag "$k")" "$tmp/got")
            rm -f "$tmp/got"
            t0=$(date +%s.%N)
            ip netns exec "$A" env GOSSAMER_RANK=0 GOSSAMER_SIZE=2 GOSSAMER_TOKEN="$tok" \
                GOSSAMER_JOIN_TIMEOUT=60 "${env0[@]}" "$bin" "${args[@]}" >"$tmp/j" 2>"$tmp/e0" &
            p0=$!
            ip netns exec "$B" env GOSSAMER_RANK=1 GOSSAMER_SIZE=2 GOSSAMER_TOKEN="$tok" \
                GOSSAMER_JOIN_TIMEOUT=60 "${env1[@]}" "$bin" "${args[@]}" >/dev/null 2>"$tmp/e1" &
            p1=$!
            ok=yes
            wait $p0 || ok=no
            wait $p1 || ok=no
            t1=$(date +%s.%N)
            secs=$(python3 -c "print('%.2f' % ($t1 - $t0))")
            if [ $ok = yes ] && summary "$tmp/j" "$tmp/got" >"$tmp/have" 2>/dev/null; then
                teps=$(python3 -c "import json; print('%.4g' % json.load(open('$tmp/j'))['harmonic_mean_teps'])")
                cmp -s "$tmp/have" "$tmp/want.$k" && same=yes || same=NO
            else
                teps=- same=FAILED
                sed 's/^/  rank 0: /' "$tmp/e0" >&2
                sed 's/^/  rank 1: /' "$tmp/e1" >&2
            fi
            printf '%-10s %5s %5s %8s %12s %s\n' "$c" "$k" "$r" "$secs" "$teps" "$same"
        done
    done
done
plain
