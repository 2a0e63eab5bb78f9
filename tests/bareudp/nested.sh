#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Nested tunnels: two bareudp devices in $A, each carrying the other's
# tunnel packets.  A datagram to 10.70.0.1 goes into bu0 (UDP 6635, to
# 10.71.0.1), whose packet goes into bu1 (UDP 6636, to B); a datagram to
# 10.73.0.1 goes into bu1 (to 10.74.0.1), whose packet goes into bu0.
# Each must reach B with both encapsulations, checked byte by byte.  A
# bareudp that takes its device's Tx lock (no LLTX, upstream's "bareudp:
# set NETIF_F_LLTX flag") holds bu0's while it takes bu1's, and bu1's
# while it takes bu0's: lockdep reports a circular locking dependency on
# the debug kernel, which tests/run.sh charges to this test.
# shellcheck disable=SC2016 # the commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
if ! a sh -e -c '
	ip link add bu0 type bareudp dstport 6635 ethertype ipv4
	ip link add bu1 type bareudp dstport 6636 ethertype ipv4
	ip link set bu0 up
	ip link set bu1 up
	ip route add 10.70.0.1/32 encap ip id 0 dst 10.71.0.1 dev bu0 src 192.168.1.1
	ip route add 10.71.0.1/32 encap ip id 0 dst 10.0.0.2 dev bu1 src 192.168.1.1
	ip route add 10.73.0.1/32 encap ip id 0 dst 10.74.0.1 dev bu1 src 192.168.1.1
	ip route add 10.74.0.1/32 encap ip id 0 dst 10.0.0.2 dev bu0 src 192.168.1.1'; then
	ktap_exit_fail_msg "cannot create the nested tunnels"
fi
ktap_set_plan 2

# nested NAME DST OUTER INNER MID: a datagram from A to DST (port 9)
# reaches b0 as UDP to port OUTER whose payload is IPv4 to MID, UDP to
# port INNER, whose payload is IPv4 to DST (the offsets count from the
# outer UDP header: inner IPv4 at 8, its UDP at 28, the innermost IPv4
# at 36)
hex() { # hex A.B.C.D: the address as one 32-bit number
	local o
	IFS=. read -ra o <<<"$1"
	printf '0x%02x%02x%02x%02x' "${o[@]}"
}
nested() {
	local out
	out=$(ns_capture "$B" b0 "udp dst port $3 and udp[8] = 0x45 and udp[24:4] = $(hex "$5") and
		udp[30:2] = $4 and udp[36] = 0x45 and udp[52:4] = $(hex "$2")" \
		a bash -c "echo >/dev/udp/$2/9")
	ktap_print_msg "$1: ${out:-no such packet}"
	ktap_test_result "$1: the datagram to $2 reaches B in UDP $4 inside UDP $3" test -n "$out"
}
nested "bu0 over bu1" 10.70.0.1 6636 6635 10.71.0.1
nested "bu1 over bu0" 10.73.0.1 6635 6636 10.74.0.1
ktap_finished
