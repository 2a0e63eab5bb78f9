#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# bareudp in a kernel booted with ipv6.disable=1: the module loads (IPv6
# is decided at run time, not by symbol dependencies), IPv4 tunnels carry
# IPv4 and TCP traffic, a route asking for an IPv6 underlay is counted as
# a transmit error instead of crashing, and the module unloads.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
grep -qw 'ipv6.disable=1' /proc/cmdline ||
	ktap_exit_fail_msg "this suite must run in a boot with ipv6.disable=1"
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
ktap_set_plan 7
ktap_test_result "IPv6 is disabled (no /proc/sys/net/ipv6)" test ! -e /proc/sys/net/ipv6
BU_IPV6=0
bu_setup
bu_on_exit modprobe bareudp
# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
ktap_test_result "create bareudp devices (ipv4 multiproto, mpls_uc)" ns_both '
	ip link add bu0 type bareudp dstport 6635 ethertype ipv4 multiproto
	ip link set bu0 up
	ip link add bum type bareudp dstport 6636 ethertype mpls_uc
	ip route add 192.168.$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu0 src 192.168.$me.1
	ip route add 192.168.1$peer.1/32 encap ip6 id 0 dst fd00::$peer dev bu0 src 192.168.1$me.1'
ktap_test_result "IPv4 over IPv4: ping 192.168.2.1" a ping -c 2 -W 5 192.168.2.1

tcp() {
	b socat -u TCP4-LISTEN:7000,reuseaddr - >"$bu_tmp/rx" 2>/dev/null &
	local s=$!
	wait_for 10 sh -c "ip netns exec $B ss -Htln | grep -q ':7000 '" || return 1
	head -c 2000000 /dev/zero | a timeout 60 socat -u - TCP4:192.168.2.1:7000
	wait "$s"
	[ "$(stat -c %s "$bu_tmp/rx")" -eq 2000000 ]
}
ktap_test_result "TCP over the tunnel: 2 MB intact" tcp
e0=$(ns_stat "$A" bu0 tx_errors)
a ping -c 2 -W 1 192.168.12.1 >/dev/null 2>&1
e1=$(ns_stat "$A" bu0 tx_errors)
ktap_test_result "a route asking for an IPv6 underlay: tx_errors $e0 -> $e1, no crash" \
	test "$e1" -ge $((e0 + 2))
ktap_test_result "unload bareudp with its devices present" modprobe -r bareudp
ktap_test_result "load it again" modprobe bareudp
ktap_finished
