#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Robustness: malformed datagrams at the tunnel port are dropped and
# counted once each, per category (empty; truncated IPv4 headers; IPv6
# payloads without multiproto; IP versions 0 and 15), random bytes break
# nothing, and the tunnel keeps working;
# create/delete loops leave nothing behind; deleting the devices, deleting
# a namespace and unloading the module all while a ping flood runs through
# the tunnel; after the unload, creating a device loads the module again.
# Splats and taint are checked for the whole run by tests/run.sh.
# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
bu_on_exit modprobe bareudp
tunnel() {
	ns_both '
		ip link add bu0 type bareudp dstport 6635 ethertype ipv4
		ip link set bu0 up
		ip route add 192.168.$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu0 src 192.168.$me.1'
}
tunnel || ktap_exit_fail_msg "tunnel setup failed"
ktap_set_plan 14

# send DATAGRAMS: a Python list of bytes objects, each sent from A to
# B's tunnel port
send() {
	a python3 -c "import os, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in $1:
    s.sendto(p, ('10.0.0.2', 6635))"
}
# counted WHAT N DATAGRAMS COUNTER: B's bu0 counts each of the N
# DATAGRAMS once in COUNTER (the receive path runs in softirq: wait for
# the count, then check it is not more)
reached() { [ "$(ns_stat "$B" bu0 "$1")" -ge "$2" ]; } # reached COUNTER N
counted() {
	local c0 c1
	c0=$(ns_stat "$B" bu0 "$4")
	send "$3" || ktap_exit_fail_msg "cannot send $1"
	wait_for 10 reached "$4" $((c0 + $2))
	c1=$(ns_stat "$B" bu0 "$4")
	ktap_test_result "$1: $4 +$2 (got +$((c1 - c0)))" test $((c1 - c0)) -eq "$2"
}
counted "an empty datagram" 1 '[b""]' rx_dropped
counted "truncated IPv4 headers (1 and 3 bytes)" 2 '[b"\x45", b"\x45\x00\x00"]' \
	rx_length_errors
counted "IPv6 payloads without multiproto" 2 \
	'[b"\x60\x00\x00\x00\x00\x08", b"\x60" + bytes(39)]' rx_dropped
counted "IP versions 0 and 15" 2 '[bytes(20), b"\xff" * 64]' rx_dropped
# random bytes: whatever they parse as, nothing may break
send '[os.urandom(n) for n in (1, 7, 19, 20, 40, 1000) for _ in range(10)]' ||
	ktap_exit_fail_msg "cannot send random datagrams"
ktap_test_result "the tunnel still carries traffic afterwards" a ping -c 2 -W 5 192.168.2.1

refs() { awk '$1 == "bareudp" { print $3 }' /proc/modules; }
r0=$(refs)
loop() {
	local i
	for i in $(seq 50); do
		a ip link add bux type bareudp dstport $((7000 + i)) ethertype mpls_uc multiproto &&
			a ip link set bux up && a ip link del bux || return 1
	done
	! a ip link show bux 2>/dev/null && [ "$(refs)" = "$r0" ]
}
ktap_test_result "50 create/up/delete cycles: no device left, module refcount $r0 unchanged" loop

flood() { a ping -f -W 1 192.168.2.1 >/dev/null 2>&1 & flood=$!; bu_bg "$flood"; }
flood
ktap_test_result "delete the devices while a ping flood runs through them" \
	sh -c "ip netns exec $A ip link del bu0 && ip netns exec $B ip link del bu0"

tunnel || ktap_exit_fail_msg "tunnel setup failed (again)"
ktap_test_result "recreated tunnel carries traffic" a ping -c 2 -W 5 192.168.2.1
ktap_test_result "delete netns B (its bareudp with it) while the flood runs" ip netns del "$B"
ktap_test_result "A's tunnel device survives B's namespace" a ip link show bu0

# devices living in one netns with their socket in another: deleting the
# socket's netns deletes the device; deleting the netns it lives in
# deletes it too, and its port is free again where its socket was
X=bu-x-$$
bu_on_exit ip netns del "$X" 2>/dev/null
if ! { ip netns add "$X" && ip -n "$X" link add bu8 type bareudp dstport 6650 ethertype ipv4 &&
	ip -n "$X" link set bu8 netns "$A"; }; then
	ktap_exit_fail_msg "cannot move a device to A"
fi
ip netns del "$X"
gone() { ! ip netns exec "$1" ip link show "$2" >/dev/null 2>&1; }
ktap_test_result "delete the netns of a device's socket: the device in A goes" \
	wait_for 20 gone "$A" bu8
port_free() { a ip link add bu7 type bareudp dstport 6651 ethertype ipv4 2>/dev/null; }
if ! { ip netns add "$X" && a ip link add bu9 type bareudp dstport 6651 ethertype ipv4 &&
	a ip link set bu9 netns "$X"; }; then
	ktap_exit_fail_msg "cannot move a device from A"
fi
ip netns del "$X"
ktap_test_result "delete the netns a device lives in: it goes, its port is free in A" \
	wait_for 20 port_free

ktap_test_result "unload bareudp while A's device exists and the flood runs" \
	sh -c "modprobe -r bareudp && ! ip netns exec $A ip link show bu0 2>/dev/null"
# rtnetlink loads the module of an unknown link kind by its alias
# (rtnl-link-bareudp, upstream fix #1)
[ ! -d /sys/module/bareudp ] || ktap_exit_fail_msg "bareudp is still loaded: cannot check its autoload"
ktap_test_result "autoload: ip link add type bareudp loads the module" \
	sh -c "ip netns exec $A ip link add bu0 type bareudp dstport 6635 ethertype ipv4 &&
		[ -d /sys/module/bareudp ]"
ktap_finished
