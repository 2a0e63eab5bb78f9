#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Outer path-MTU discovery through a router, IPv4 and IPv6 underlays:
#
#   A a1 (mtu 9000) -- r0 R r1 (mtu 1400) -- b1 B
#
# A's tunnel routes carry the DONT_FRAGMENT flag (as OVS sets it), so a
# 1500-byte inner packet leaves A as a 1528/1548-byte outer one, which R
# cannot forward: R answers "fragmentation needed" / "packet too big".
# That error names our UDP port; the UDP core hands it to the tunnel
# socket only when the socket has an encap_err_lookup hook (else it
# counts it in IcmpInErrors / Icmp6InErrors and drops it), and learns
# the underlay's PMTU (1400) for B.  6.12's core learns it from any UDP
# error; 6.1 learns an IPv6 one only through the socket.  The next inner
# packet of 1500 bytes lowers the inner route's PMTU to 1400 minus the
# outer headers, and a packet of that size gets through.
# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
R=bu-r-$$
r() { ip netns exec "$R" "$@"; }
bu_on_exit ip netns del "$R"

# replace the direct veth by A -- R -- B
if ! { ip netns add "$R" && a ip link del a0 &&
	ip link add a1 netns "$A" mtu 9000 type veth peer name r0 netns "$R" mtu 9000 &&
	ip link add r1 netns "$R" mtu 1400 type veth peer name b1 netns "$B" mtu 1400; }; then
	ktap_exit_fail_msg "cannot build the routed underlay"
fi
r sh -e -c '
	sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	ip link set lo up
	ip link set r0 up
	ip link set r1 up
	ip addr add 10.1.0.2/24 dev r0
	ip addr add fd10::2/64 dev r0 nodad
	ip addr add 10.2.0.1/24 dev r1
	ip addr add fd20::1/64 dev r1 nodad' ||
	ktap_exit_fail_msg "cannot configure R"
ns_both 'i=b1; [ $me = 2 ] || i=a1
	ip link set $i up
	ip addr add 10.$me.0.$me/24 dev $i
	ip addr add fd${me}0::$me/64 dev $i nodad
	ip route add default via 10.$me.0.$peer
	ip -6 route add default via fd${me}0::$peer' ||
	ktap_exit_fail_msg "cannot configure A and B on the routed underlay"
wait_for 10 a ping -6 -c 1 -W 1 fd20::2 >/dev/null ||
	ktap_exit_fail_msg "the routed IPv6 underlay does not answer"

ns_both 'ip link add bu0 type bareudp dstport 6640 ethertype ipv4
	ip link set bu0 up' || ktap_exit_fail_msg "cannot create the tunnels"
ok=$(a python3 nl.py dfroute 192.168.2.1/32 bu0 10.2.0.2 192.168.1.1)$(
	a python3 nl.py dfroute 192.168.12.1/32 bu0 fd20::2 192.168.11.1)
[ "$ok" = OKOK ] || ktap_exit_fail_msg "cannot add A's DF tunnel routes: $ok"
b sh -e -c '
	ip route add 192.168.1.1/32 encap ip id 0 dst 10.1.0.1 dev bu0 src 192.168.2.1
	ip route add 192.168.11.1/32 encap ip6 id 0 dst fd10::1 dev bu0 src 192.168.12.1' ||
	ktap_exit_fail_msg "cannot add B's tunnel routes"
ktap_set_plan 10

# counter NS NAME: one nstat counter (absolute, history untouched)
counter() {
	ip netns exec "$1" nstat -asz "$2" | awk -v c="$2" '$1 == c { print $2 }'
}

# pmtu_case FAMILY INNER_DST OUTER_DST OUTER_HLEN ICMP_PREFIX OUT_COUNTER
pmtu_case() {
	local fam=$1 dst=$2 odst=$3 hlen=$4 icmp=$5 out=$6 sent err0 err1 route
	local want=$((1400 - hlen))

	a ping -c 1 -W 5 "$dst" >/dev/null ||
		ktap_print_msg "$fam: small packets do not pass yet"
	err0=$(counter "$A" "${icmp}InErrors")
	a ping -M "do" -s 1472 -c 1 -W 2 "$dst" >/dev/null 2>&1
	sent=$(counter "$R" "$out")
	err1=$(counter "$A" "${icmp}InErrors")
	route=$(a ip route get "$odst")
	ktap_print_msg "$fam: R sent $out=$sent; A: ${icmp}InErrors $err0 -> $err1; ${route//$'\n'/ }"
	ktap_test_result "$fam underlay: R reports the 1400-byte hop ($out)" \
		test "${sent:-0}" -ge 1
	ktap_test_result "$fam underlay: A's tunnel socket takes the error (${icmp}InErrors unchanged)" \
		test "${err1:-x}" = "${err0:-y}"
	ktap_test_result "$fam underlay: A learnt the path MTU 1400 to $odst" \
		grep -q 'mtu 1400' <<<"$route"
	a ping -M "do" -s 1472 -c 1 -W 2 "$dst" >/dev/null 2>&1
	route=$(a ip route get "$dst")
	ktap_print_msg "$fam: inner route after a second 1500-byte packet: ${route//$'\n'/ }"
	ktap_test_result "$fam underlay: the inner route learnt mtu $want" \
		grep -q "mtu $want" <<<"$route"
	ktap_test_result "$fam underlay: a $want-byte DF packet gets through" \
		a ping -M "do" -s $((want - 28)) -c 2 -W 5 "$dst"
}
pmtu_case IPv4 192.168.2.1 10.2.0.2 28 Icmp IcmpOutDestUnreachs
pmtu_case IPv6 192.168.12.1 fd20::2 48 Icmp6 Icmp6OutPktTooBigs
ktap_finished
