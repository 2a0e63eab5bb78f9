#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Wire interop with the in-tree code: our bareudp (ethertype ipv4) in netns
# A and an ipip tunnel with fou encapsulation (ipproto 4, port 6635: the
# same IPv4-in-UDP wire format) in netns B.  Traffic both ways: A's pings
# go out through bareudp and are decapsulated by fou, B's replies come back
# through fou and are decapsulated by bareudp.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_print_header
[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
for m in bareudp fou ipip; do
	modprobe "$m" || ktap_exit_fail_msg "cannot load $m"
done
A=bu-ia-$$ B=bu-ib-$$
cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
}
trap cleanup EXIT
a() { ip netns exec "$A" "$@"; }
b() { ip netns exec "$B" "$@"; }

setup() {
	ip netns add "$A" && ip netns add "$B" &&
		ip link add a0 netns "$A" type veth peer name b0 netns "$B" &&
		a sh -e -c '
			sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
			ip link set lo up; ip link set a0 up
			ip addr add 10.0.0.1/24 dev a0
			ip addr add 192.168.1.1/32 dev lo
			ip link add bu0 type bareudp dstport 6635 ethertype ipv4
			ip link set bu0 up
			ip route add 192.168.2.1/32 encap ip id 0 dst 10.0.0.2 ttl 64 dev bu0 src 192.168.1.1' &&
		b sh -e -c '
			sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
			ip link set lo up; ip link set b0 up
			ip addr add 10.0.0.2/24 dev b0
			ip addr add 192.168.2.1/32 dev lo
			ip fou add port 6635 ipproto 4
			ip link add ipip0 type ipip remote 10.0.0.1 local 10.0.0.2 ttl 64 \
				encap fou encap-sport auto encap-dport 6635
			ip link set ipip0 up
			ip route add 192.168.1.1/32 dev ipip0 src 192.168.2.1'
}
setup || ktap_exit_fail_msg "namespace setup failed"
ktap_set_plan 3

ktap_test_result "bareudp -> fou/ipip and back: ping 192.168.2.1 from A" \
	a ping -c 3 -W 5 192.168.2.1
ktap_test_result "fou/ipip -> bareudp and back: ping 192.168.1.1 from B" \
	b ping -c 3 -W 5 192.168.1.1
rx=$(a cat /sys/class/net/bu0/statistics/rx_packets)
ktap_test_result "A's bareudp decapsulated fou's packets (rx_packets $rx >= 6)" \
	test "$rx" -ge 6
ktap_finished
