#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Robustness: malformed datagrams at the tunnel port (empty, 1 byte,
# truncated IPv4 and IPv6 headers, an IPv6 payload without multiproto,
# random bytes) are dropped and counted, the tunnel keeps working, and the
# module unloads while traffic is flowing.  Splats and taint are checked
# for the whole run by tests/run.sh.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_print_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
modprobe bareudp || ktap_exit_fail_msg "cannot load bareudp"
A=bu-ra-$$ B=bu-rb-$$
flood=
cleanup() {
	[ -n "$flood" ] && kill "$flood" 2>/dev/null
	wait 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	modprobe bareudp
}
trap cleanup EXIT
a() { ip netns exec "$A" "$@"; }
b() { ip netns exec "$B" "$@"; }

setup() {
	ip netns add "$A" && ip netns add "$B" &&
		ip link add a0 netns "$A" type veth peer name b0 netns "$B" || return 1
	local x me peer i
	for x in A B; do
		if [ $x = A ]; then me=1 peer=2 i=a0; else me=2 peer=1 i=b0; fi
		ip netns exec "${!x}" sh -e -c "
			sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
			ip link set lo up; ip link set $i up
			ip addr add 10.0.0.$me/24 dev $i
			ip addr add 192.168.$me.1/32 dev lo
			ip link add bu0 type bareudp dstport 6635 ethertype ipv4
			ip link set bu0 up
			ip route add 192.168.$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu0 src 192.168.$me.1"
	done
}
setup || ktap_exit_fail_msg "namespace setup failed"
ktap_set_plan 4

drops() { # rx_dropped + rx_errors of B's bareudp
	local d e
	d=$(b cat /sys/class/net/bu0/statistics/rx_dropped)
	e=$(b cat /sys/class/net/bu0/statistics/rx_errors)
	echo $((d + e))
}
d0=$(drops)
a python3 - <<'PY'
import os, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
bad = [b"", b"\x45", b"\x45\x00\x00", b"\x60\x00\x00\x00\x00\x08",
       b"\x60" + bytes(39), b"\x00" * 20, b"\xff" * 64]
bad += [os.urandom(n) for n in (1, 7, 19, 20, 40, 1000) for _ in range(10)]
for p in bad:
    s.sendto(p, ("10.0.0.2", 6635))
PY
d1=$(drops)
ktap_print_msg "rx_dropped + rx_errors on B: $d0 -> $d1"
ktap_test_result "malformed datagrams are dropped and counted" test "$d1" -gt "$d0"
ktap_test_result "the tunnel still carries traffic afterwards" a ping -c 2 -W 5 192.168.2.1

a ping -f -W 1 192.168.2.1 >/dev/null 2>&1 &
flood=$!
ktap_test_result "delete the devices while a ping flood runs through them" \
	sh -c "ip netns exec $A ip link del bu0 && ip netns exec $B ip link del bu0"
kill "$flood" 2>/dev/null
wait "$flood" 2>/dev/null
flood=
ktap_test_result "bareudp unloads afterwards" modprobe -r bareudp
ktap_finished
