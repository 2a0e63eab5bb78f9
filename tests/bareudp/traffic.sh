#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Traffic through our bareudp between two netns joined by a veth, the
# tunnel metadata coming from lwtunnel routes ("encap ip"/"encap ip6",
# which leave ttl 0 like tc tunnel_key without ttl):
#
#   A: a0 10.0.0.1 fd00::1   bu0 (ipv4 multiproto, srcportmin 49152)
#      overlay 192.168.1.1 fd01::1 192.168.11.1 on lo
#   B: b0 10.0.0.2 fd00::2   bu0, overlay 192.168.2.1 fd01::2 192.168.12.1
#
# IPv4 and IPv6 payloads over an IPv4 underlay, IPv4 over an IPv6
# underlay, the outer TTL/hop limit (route default, not 0), source ports
# from srcportmin, per-CPU counters, and TCP with UDP-tunnel segmentation
# off on the underlay (software GSO needs the right inner protocol).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/wait.sh
. ../lib/wait.sh

ktap_print_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
modprobe bareudp || ktap_exit_fail_msg "cannot load bareudp"
A=bu-a-$$ B=bu-b-$$
tmp=$(mktemp -d /tmp/bu-traffic.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$tmp"
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
			ip link set lo up
			ip link set $i up
			ip addr add 10.0.0.$me/24 dev $i
			ip addr add fd00::$me/64 dev $i nodad
			ip addr add 192.168.$me.1/32 dev lo
			ip addr add 192.168.1$me.1/32 dev lo
			ip addr add fd01::$me/128 dev lo nodad
			ip link add bu0 type bareudp dstport 6635 ethertype ipv4 srcportmin 49152 multiproto
			ip link set bu0 mtu 1400 up
			ip route add 192.168.$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu0 src 192.168.$me.1
			ip -6 route add fd01::$peer/128 encap ip id 0 dst 10.0.0.$peer dev bu0 src fd01::$me
			ip route add 192.168.1$peer.1/32 encap ip6 id 0 dst fd00::$peer dev bu0 src 192.168.1$me.1
		" || return 1
	done
	# IPv6 DAD is off; wait until the v6 underlay answers
	wait_for 10 a ping -6 -c 1 -W 1 fd00::2 >/dev/null
}

setup || ktap_exit_fail_msg "namespace setup failed"
ktap_set_plan 10

ktap_test_result "IPv4 over IPv4: ping 192.168.2.1" a ping -c 2 -W 5 192.168.2.1
ktap_test_result "IPv6 over IPv4 (multiproto): ping fd01::2" a ping -6 -c 2 -W 5 fd01::2
ktap_test_result "IPv4 over IPv6: ping 192.168.12.1" a ping -c 2 -W 5 192.168.12.1

# outer header as seen on B's underlay
capture() { # capture FILTER DST: one decoded packet matching FILTER
	b timeout 30 tcpdump -l -n -v -c 1 -i b0 "$1" >"$tmp/cap" 2>/dev/null &
	local t=$! i
	# ping until tcpdump (slow to start under TCG) has seen one
	for i in $(seq 100); do
		kill -0 "$t" 2>/dev/null || break
		a ping -c 1 -W 1 "$2" >/dev/null
	done
	wait "$t"
	cat "$tmp/cap"
}
out=$(capture "udp dst port 6635 and ip" 192.168.2.1)
ktap_print_msg "$out"
ktap_test_result "outer IPv4 TTL is the route's 64, not 0 (ttl unset in the key)" \
	grep -q 'ttl 64' <<<"$out"
sport=$(sed -n 's/.* 10\.0\.0\.1\.\([0-9]*\) > 10\.0\.0\.2\.6635.*/\1/p' <<<"$out" | head -n1)
ktap_test_result "outer source port from srcportmin 49152 (got ${sport:-none})" \
	test "${sport:-0}" -ge 49152
out=$(capture "udp dst port 6635 and ip6" 192.168.12.1)
ktap_print_msg "$out"
ktap_test_result "outer IPv6 hop limit is the route's 64, not 0" grep -q 'hlim 64' <<<"$out"

rx=$(b cat /sys/class/net/bu0/statistics/rx_packets)
tx=$(a cat /sys/class/net/bu0/statistics/tx_packets)
ktap_test_result "counters: A tx_packets $tx > 0, B rx_packets $rx > 0" \
	test "$tx" -gt 0 -a "$rx" -gt 0

# TCP with GSO packets segmented in software on the underlay
a ethtool -K a0 tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off >/dev/null 2>&1
b ethtool -K b0 tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off >/dev/null 2>&1
tcp_transfer() { # tcp_transfer SOCAT_ADDR: 8 MB through the tunnel, byte count checked
	b socat -u TCP6-LISTEN:7000,reuseaddr,ipv6only=0 - >"$tmp/rx" 2>/dev/null &
	local s=$!
	wait_for 10 sh -c "ip netns exec $B ss -Htln | grep -q ':7000 '" || return 1
	head -c 8000000 /dev/zero | a timeout 60 socat -u - "$1:7000"
	wait "$s"
	[ "$(stat -c %s "$tmp/rx")" -eq 8000000 ]
}
ktap_test_result "underlay a0: tx-udp_tnl-segmentation off (software GSO below)" \
	sh -c "ip netns exec $A ethtool -k a0 | grep -q '^tx-udp_tnl-segmentation: off'"
ktap_test_result "TCP (IPv4 payload) over IPv4, underlay UDP-tunnel GSO off: 8 MB intact" \
	tcp_transfer TCP4:192.168.2.1
ktap_test_result "TCP (IPv6 payload, multiproto) over IPv4, underlay GSO off: 8 MB intact" \
	tcp_transfer "TCP6:[fd01::2]"
ktap_finished
