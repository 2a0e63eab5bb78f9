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
# off on the underlay (software GSO needs the right inner protocol) for
# each payload and underlay, aggregated again by B's outer UDP GRO.
# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
ns_both '
	ip link add bu0 type bareudp dstport 6635 ethertype ipv4 srcportmin 49152 multiproto
	ip link set bu0 mtu 1400 up
	ip route add 192.168.$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu0 src 192.168.$me.1
	ip -6 route add fd01::$peer/128 encap ip id 0 dst 10.0.0.$peer dev bu0 src fd01::$me
	ip route add 192.168.1$peer.1/32 encap ip6 id 0 dst fd00::$peer dev bu0 src 192.168.1$me.1' ||
	ktap_exit_fail_msg "tunnel setup failed"
ktap_set_plan 17

ktap_test_result "IPv4 over IPv4: ping 192.168.2.1" a ping -c 2 -W 5 192.168.2.1
ktap_test_result "IPv6 over IPv4 (multiproto): ping fd01::2" a ping -6 -c 2 -W 5 fd01::2
ktap_test_result "IPv4 over IPv6: ping 192.168.12.1" a ping -c 2 -W 5 192.168.12.1

# outer header as seen on B's underlay
out=$(ns_capture "$B" b0 "udp dst port 6635 and ip" a ping -c 1 -W 1 192.168.2.1)
ktap_print_msg "$out"
ktap_test_result "outer IPv4 TTL is the route's 64, not 0 (ttl unset in the key)" \
	grep -q 'ttl 64' <<<"$out"
sport=$(sed -n 's/.* 10\.0\.0\.1\.\([0-9]*\) > 10\.0\.0\.2\.6635.*/\1/p' <<<"$out" | head -n1)
ktap_test_result "outer source port from srcportmin 49152 (got ${sport:-none})" \
	test "${sport:-0}" -ge 49152
out=$(ns_capture "$B" b0 "udp dst port 6635 and ip6" a ping -c 1 -W 1 192.168.12.1)
ktap_print_msg "$out"
ktap_test_result "outer IPv6 hop limit is the route's 64, not 0" grep -q 'hlim 64' <<<"$out"

rx=$(ns_stat "$B" bu0 rx_packets)
tx=$(ns_stat "$A" bu0 tx_packets)
ktap_test_result "counters: A tx_packets $tx > 0, B rx_packets $rx > 0" \
	test "$tx" -gt 0 -a "$rx" -gt 0

# TCP with GSO packets segmented in software on the underlay; GRO on B's
# veth (NAPI) lets the outer UDP GRO of bareudp aggregate them again (veth
# skips NAPI GRO for packets from a peer with TSO on)
b ethtool -K b0 gro on >/dev/null 2>&1
a ethtool -K a0 tso off >/dev/null 2>&1
a ethtool -K a0 tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off >/dev/null 2>&1
b ethtool -K b0 tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off >/dev/null 2>&1
tcp_transfer() { # tcp_transfer SOCAT_ADDR: 8 MB through the tunnel, byte count checked
	b socat -u TCP6-LISTEN:7000,reuseaddr,ipv6only=0 - >"$bu_tmp/rx" 2>/dev/null &
	local s=$!
	wait_for 10 sh -c "ip netns exec $B ss -Htln | grep -q ':7000 '" || return 1
	head -c 8000000 /dev/zero | a timeout 60 socat -u - "$1:7000"
	wait "$s"
	[ "$(stat -c %s "$bu_tmp/rx")" -eq 8000000 ]
}
ktap_test_result "underlay a0: tx-udp_tnl-segmentation off (software GSO below)" \
	sh -c "ip netns exec $A ethtool -k a0 | grep -q '^tx-udp_tnl-segmentation: off'"
# gso_gro WHAT ADDR: 8 MB by TCP to socat address ADDR, which WHAT names.
# Software GSO needs the payload's own inner protocol: without it (or with
# the device's ethertype, IPv4, for an IPv6 payload) segmentation fails
# and the underlay drops the whole GSO packet (tx_dropped); TCP then gets
# its 8 MB through only by retransmitting, so the drops are checked.  B's
# outer UDP GRO must have aggregated the segments again: fewer packets
# than the 1400-byte MTU allows (an average above 1400 bytes; 8 MB in
# 1400-byte packets would be 5700 or more).
gso_gro() {
	local p0 y0 d0 d1 p y
	p0=$(ns_stat "$B" bu0 rx_packets) y0=$(ns_stat "$B" bu0 rx_bytes)
	d0=$(ns_stat "$A" a0 tx_dropped)
	ktap_test_result "TCP, $1, underlay UDP-tunnel GSO off: 8 MB intact" \
		tcp_transfer "$2"
	d1=$(ns_stat "$A" a0 tx_dropped)
	ktap_test_result "$1, underlay GSO off: the underlay dropped nothing (tx_dropped $d0 -> $d1)" \
		test "$d1" -eq "$d0"
	p=$(($(ns_stat "$B" bu0 rx_packets) - p0))
	y=$(($(ns_stat "$B" bu0 rx_bytes) - y0))
	ktap_test_result "$1: outer UDP GRO on B's bu0 aggregated ($p packets, $y bytes, average $((y / (p > 0 ? p : 1))) > 1400)" \
		test "$p" -gt 0 -a "$y" -ge 8000000 -a $((y / (p > 0 ? p : 1))) -gt 1400
}
gso_gro "IPv4 payload over IPv4" TCP4:192.168.2.1
gso_gro "IPv6 payload (multiproto) over IPv4" "TCP6:[fd01::2]"
gso_gro "IPv4 payload over IPv6" TCP4:192.168.12.1
ktap_finished
