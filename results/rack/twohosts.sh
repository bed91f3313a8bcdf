# Sourced by netcond.sh and netfault.sh: two network namespaces joined by a
# veth pair, A at $IPA and B at $IPB on a /24 of their own, a scratch
# directory $tmp, and a cleanup on exit that stops Toxiproxy ($toxi_pid, if
# the caller started it) and removes both namespaces.
#   . twohosts.sh PREFIX   (namespace names PREFIX<pid>a and PREFIX<pid>b)
id=$$
A=$1${id}a B=$1${id}b
net=10.$((200 + id % 50)).$(((id >> 6) % 250))
IPA=$net.1 IPB=$net.2
tmp=$(mktemp -d)
toxi_pid=
cleanup() {
    [ -n "$toxi_pid" ] && kill "$toxi_pid" 2>/dev/null && wait "$toxi_pid" 2>/dev/null
    ip netns del "$A" 2>/dev/null || true
    ip netns del "$B" 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$A"
ip netns add "$B"
ip link add gga netns "$A" type veth peer name ggb netns "$B"
ip -n "$A" addr add "$IPA/24" dev gga
ip -n "$B" addr add "$IPB/24" dev ggb
for n in "$A" "$B"; do ip -n "$n" link set lo up; done
ip -n "$A" link set gga up
ip -n "$B" link set ggb up
