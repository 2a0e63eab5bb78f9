#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# MPLS payloads through our bareudp (ethertype mpls_uc) between netns A and
# B.  The label is pushed on the tunnel device's egress together with the
# tunnel metadata (tc act_mpls + act_tunnel_key, as an OVS or tc user
# would) and popped on its ingress:
#
#   to 192.168.2.1   label 100, IPv4 underlay 10.0.0.x
#   to 192.168.12.1  label 101, IPv6 underlay fd00::x
#   to 192.168.22.1  label 300 as multicast MPLS (mpls_mc) to 239.1.1.1,
#                    B's b0 joined to the group (multiproto only)
#
# Replies come back as unicast MPLS.  Multiproto or not, A refuses to
# send IPv6.  Without multiproto, B drops (and counts) multicast MPLS and
# A refuses to send it.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
bu_modules act_mpls act_tunnel_key cls_flower

# mpls_dev NS MODE: (re)create bum in NS ("a" or "b") with MODE
# ("multiproto" or ""), its tc push/pop rules and the overlay routes
mpls_dev() {
	local me peer
	if [ "$1" = a ]; then me=1 peer=2; else me=2 peer=1; fi
	"$1" sh -e -c "
		ip link del bum 2>/dev/null || true
		ip link add bum type bareudp dstport 6635 ethertype mpls_uc $2
		ip link set bum up
		tc qdisc add dev bum clsact
		push() { # push DST LABEL PROTO TUNNEL_SRC TUNNEL_DST
			tc filter add dev bum egress protocol ip flower dst_ip \$1 \
				action mpls push protocol \$3 label \$2 \
				action tunnel_key set src_ip \$4 dst_ip \$5 id 0
			ip route replace \$1/32 dev bum src 192.168.$me.1
		}
		push 192.168.$peer.1 100 mpls_uc 10.0.0.$me 10.0.0.$peer
		push 192.168.1$peer.1 101 mpls_uc fd00::$me fd00::$peer
		push 192.168.2$peer.1 300 mpls_mc 10.0.0.$me 239.1.1.1
		for l in 100 101; do
			tc filter add dev bum ingress protocol mpls_uc flower mpls_label \$l \
				action mpls pop protocol ip
		done
		tc filter add dev bum ingress protocol mpls_mc flower mpls_label 300 \
			action mpls pop protocol ip"
}
setup() {
	b ip addr add 192.168.22.1/32 dev lo &&
		b ip addr add 239.1.1.1/32 dev b0 autojoin &&
		a ip route add 239.0.0.0/8 dev a0 &&
		mpls_dev a multiproto && mpls_dev b multiproto
}
setup || ktap_exit_fail_msg "tunnel setup failed"
ktap_set_plan 9

ktap_test_result "MPLS unicast over IPv4: ping 192.168.2.1" a ping -c 2 -W 5 192.168.2.1
out=$(ns_capture "$B" b0 "ip and udp dst port 6635" a ping -c 1 -W 1 192.168.2.1)
ktap_print_msg "$out"
ktap_test_result "on the IPv4 wire: label 100 right after UDP" grep -q 'MPLS (label 100' <<<"$out"
ktap_test_result "MPLS unicast over IPv6: ping 192.168.12.1" a ping -c 2 -W 5 192.168.12.1
out=$(ns_capture "$B" b0 "ip6 and udp dst port 6635" a ping -c 1 -W 1 192.168.12.1)
ktap_print_msg "$out"
ktap_test_result "on the IPv6 wire: label 101 right after UDP" grep -q 'MPLS (label 101' <<<"$out"
ktap_test_result "MPLS multicast (multiproto) to 239.1.1.1: ping 192.168.22.1" \
	a ping -c 2 -W 5 192.168.22.1

# Multiproto adds IPv6 to an IPv4 tunnel and multicast to a unicast MPLS
# one, nothing across: A's MPLS tunnel refuses IPv6 that carries tunnel
# metadata (5.7's check let it through; upstream's "bareudp: forbid
# mixing IP and MPLS in multiproto mode").  Refused: counted in
# tx_errors, and no packet of it sent (tx_packets unchanged: IPv6's own
# packets on bum, without metadata, are errors too).
a sh -e -c 'tc filter add dev bum egress protocol ipv6 flower dst_ip fd77::2 \
		action tunnel_key set src_ip 10.0.0.1 dst_ip 10.0.0.2 id 0
	ip -6 route add fd77::2/128 dev bum' || ktap_exit_fail_msg "cannot route IPv6 into bum"
e0=$(ns_stat "$A" bum tx_errors) p0=$(ns_stat "$A" bum tx_packets)
a ping -6 -c 2 -W 1 fd77::2 >/dev/null 2>&1
e1=$(ns_stat "$A" bum tx_errors) p1=$(ns_stat "$A" bum tx_packets)
ktap_test_result "A's multiproto MPLS tunnel refuses IPv6 (tx_errors $e0 -> $e1, tx_packets $p0 -> $p1)" \
	test "$e1" -ge $((e0 + 2)) -a "$p1" -eq "$p0"

mpls_dev b "" || ktap_exit_fail_msg "cannot recreate B's device"
d0=$(ns_stat "$B" bum rx_dropped)
ktap_test_result "B without multiproto: multicast MPLS does not get through" \
	sh -c "! ip netns exec $A ping -c 2 -W 2 192.168.22.1 >/dev/null"
d1=$(ns_stat "$B" bum rx_dropped)
ktap_test_result "B without multiproto counts the dropped packets (rx_dropped $d0 -> $d1)" \
	test "$d1" -gt "$d0"

mpls_dev a "" || ktap_exit_fail_msg "cannot recreate A's device"
e0=$(ns_stat "$A" bum tx_errors)
a ping -c 2 -W 1 192.168.22.1 >/dev/null 2>&1
e1=$(ns_stat "$A" bum tx_errors)
ktap_test_result "A without multiproto refuses to send multicast MPLS (tx_errors $e0 -> $e1)" \
	test "$e1" -ge $((e0 + 2))
ktap_finished
