#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# MTU of our bareudp: the limits it advertises and enforces (68 .. 65535
# minus the UDP header), an MTU given at creation, the device MTU enforced
# on DF traffic, path MTU learning (a DF packet that does not fit the
# underlay once encapsulated updates the inner route's PMTU), and large
# payloads through an outer path that needs fragmentation.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
ktap_set_plan 9

a ip link add bux type bareudp dstport 6641 ethertype ipv4 ||
	ktap_exit_fail_msg "cannot create a device"
j=$(a ip -d -j link show bux)
ktap_print_msg "$j"
jget() { python3 -c "import json,sys; print(json.load(sys.stdin)[0]['$1'])" <<<"$j"; }
ktap_test_result "a new device: mtu 1500, min_mtu 68, max_mtu 65527" \
	test "$(jget mtu) $(jget min_mtu) $(jget max_mtu)" = "1500 68 65527"
ktap_test_result "mtu 65527 accepted, 65528 and 67 refused" \
	sh -c "ip netns exec $A ip link set bux mtu 65527 &&
		! ip netns exec $A ip link set bux mtu 65528 2>/dev/null &&
		! ip netns exec $A ip link set bux mtu 67 2>/dev/null"
a ip link del bux
ktap_test_result "mtu given at creation (ip link add ... mtu 1400) is kept" \
	sh -c "ip netns exec $A ip link add bux mtu 1400 type bareudp dstport 6641 ethertype ipv4 &&
		ip netns exec $A ip link show bux | grep -q 'mtu 1400 '"
a ip link del bux

# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
ns_both '
	ip link add bu0 type bareudp dstport 6640 ethertype ipv4
	ip link set bu0 mtu 1400 up
	ip route add 192.168.$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu0 src 192.168.$me.1
	ip link add bu1 type bareudp dstport 6642 ethertype ipv4
	ip link set bu1 up
	ip route add 192.168.1$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu1 src 192.168.1$me.1
	ip addr add 192.168.2$me.1/32 dev lo
	ip route add 192.168.2$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu1 \
		src 192.168.2$me.1 mtu lock 1500' ||
	ktap_exit_fail_msg "tunnel setup failed"

ktap_test_result "bu0 mtu 1400: a 1400-byte DF ping gets through" \
	a ping -M "do" -s 1372 -c 2 -W 5 192.168.2.1
a ping -M "do" -s 1373 -c 1 -W 2 192.168.2.1 >"$bu_tmp/big" 2>&1
ktap_print_msg "$(cat "$bu_tmp/big")"
ktap_test_result "bu0 mtu 1400: a 1401-byte DF ping is refused locally (mtu=1400)" \
	grep -q 'mtu=1400\|[Mm]essage too long' "$bu_tmp/big"

# 1500-byte DF inner + 28 bytes of outer IPv4/UDP do not fit the 1500 underlay
a ping -M "do" -s 1472 -c 3 -W 2 192.168.12.1 >"$bu_tmp/pmtu" 2>&1
ktap_print_msg "$(cat "$bu_tmp/pmtu")"
route=$(a ip route get 192.168.12.1)
ktap_print_msg "$route"
ktap_test_result "PMTU: the inner route learnt mtu 1472 (1500 - 28)" grep -q 'mtu 1472' <<<"$route"
ktap_test_result "PMTU: the next 1473-byte DF ping is refused locally" \
	sh -c "! ip netns exec $A ping -M do -s 1445 -c 1 -W 2 192.168.12.1 >/dev/null 2>&1"
ktap_test_result "PMTU: a 1472-byte DF ping fits and gets through" \
	a ping -M "do" -s 1444 -c 2 -W 5 192.168.12.1

# mtu locked at 1500: inner fragments of 1500 leave as fragmented outer
# packets (the tunnel key has no DF)
ktap_test_result "bu1, route mtu locked at 1500: 4000-byte pings get through (outer fragments)" \
	a ping -s 4000 -c 2 -W 5 192.168.22.1
ktap_finished
