#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Wire interop with the in-tree code (RFC 7510 wire format, nothing in
# front of the payload but UDP): our bareudp in netns A, fou in netns B.
#
#   IPv4: bareudp ethertype ipv4, port 6640  <->  ipip over fou (ipproto 4)
#   MPLS: bareudp ethertype mpls_uc, port 6635 <-> mplsip over fou
#         (ipproto 137), endpoints 10.0.1.x; labels pushed/popped by tc act_mpls on both
#         tunnel devices (egress push + tunnel metadata, ingress pop)
#
# Traffic both ways: A's pings go out through bareudp and are decapsulated
# by fou, B's replies come back through fou and are decapsulated by
# bareudp, and the other way round.
# shellcheck disable=SC2016 # the netns commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
bu_modules fou ipip act_mpls act_tunnel_key cls_flower

setup() {
	# the mplsip tunnel needs its own endpoint pair (ipip0 has 10.0.0.x)
	a ip addr add 10.0.1.1/24 dev a0 && b ip addr add 10.0.1.2/24 dev b0 &&
	a sh -e -c '
		ip link add bu0 type bareudp dstport 6640 ethertype ipv4
		ip link set bu0 up
		ip route add 192.168.2.1/32 encap ip id 0 dst 10.0.0.2 dev bu0 src 192.168.1.1
		ip link add bum type bareudp dstport 6635 ethertype mpls_uc
		ip link set bum up
		ip route add 192.168.12.1/32 dev bum src 192.168.11.1
		tc qdisc add dev bum clsact
		tc filter add dev bum egress protocol ip flower \
			action mpls push protocol mpls_uc label 100 \
			action tunnel_key set src_ip 10.0.1.1 dst_ip 10.0.1.2 id 0
		tc filter add dev bum ingress protocol mpls_uc flower mpls_label 200 \
			action mpls pop protocol ip' &&
	b sh -e -c '
		ip fou add port 6640 ipproto 4
		ip link add ipip0 type ipip remote 10.0.0.1 local 10.0.0.2 ttl 64 \
			encap fou encap-sport auto encap-dport 6640
		ip link set ipip0 up
		ip route add 192.168.1.1/32 dev ipip0 src 192.168.2.1
		ip fou add port 6635 ipproto 137
		ip link add mplsip0 type ipip mode mplsip remote 10.0.1.1 local 10.0.1.2 \
			ttl 64 encap fou encap-sport auto encap-dport 6635
		ip link set mplsip0 up
		ip route add 192.168.11.1/32 dev mplsip0 src 192.168.12.1
		tc qdisc add dev mplsip0 clsact
		tc filter add dev mplsip0 egress protocol ip flower \
			action mpls push protocol mpls_uc label 200
		tc filter add dev mplsip0 ingress protocol mpls_uc flower mpls_label 100 \
			action mpls pop protocol ip'
}
setup || ktap_exit_fail_msg "tunnel setup failed"
ktap_set_plan 6

ktap_test_result "IPv4: bareudp -> fou/ipip and back: ping 192.168.2.1 from A" \
	a ping -c 3 -W 5 192.168.2.1
ktap_test_result "IPv4: fou/ipip -> bareudp and back: ping 192.168.1.1 from B" \
	b ping -c 3 -W 5 192.168.1.1
rx=$(ns_stat "$A" bu0 rx_packets)
ktap_test_result "IPv4: A's bareudp decapsulated fou's packets (rx_packets $rx >= 6)" \
	test "$rx" -ge 6

ktap_test_result "MPLS: bareudp -> fou/mplsip and back: ping 192.168.12.1 from A" \
	a ping -c 3 -W 5 192.168.12.1
ktap_test_result "MPLS: fou/mplsip -> bareudp and back: ping 192.168.11.1 from B" \
	b ping -c 3 -W 5 192.168.11.1
out=$(ns_capture "$B" b0 "udp dst port 6635" a ping -c 1 -W 1 192.168.12.1)
ktap_print_msg "$out"
ktap_test_result "MPLS: on the wire a label 100 stack entry right after UDP" \
	grep -q 'MPLS (label 100' <<<"$out"
ktap_finished
