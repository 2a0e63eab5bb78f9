#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The tunnel route-lookup helpers (5.7's ip6_dst_lookup_tunnel, today's
# udp_tunnel6_dst_lookup): geneve over an IPv6 underlay passes traffic, and
# its route lookup sees the UDP ports, so a policy rule on the destination
# port steers the tunnel.  Two paths between the namespaces:
#
#   $A lo fd00:fa::1 --- a0 fd00:1::1 <-> b0 fd00:1::2 --- $B lo fd00:fb::2
#                    \-- a1 fd00:2::1 <-> b1 fd00:2::2 --/
#
# The main table sends fd00:fb::2 over a0; "ipproto 17 dport 6081 lookup
# 100" sends geneve's packets over a1.  On the patched 6.1 this is the
# converted geneve on the completed helper API; on Debian's kernels the
# same behaviour is the reference.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/wait.sh
. ../lib/wait.sh

ktap_begin root

A=rh-a-$$ B=rh-b-$$
cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
}
trap cleanup EXIT

a() { ip netns exec "$A" "$@"; }
b() { ip netns exec "$B" "$@"; }
# txp NS DEV: packets sent by DEV
txp() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_packets"; }

ktap_set_plan 5

modprobe geneve || ktap_exit_fail_msg "cannot load geneve"
if ! { ip netns add "$A" && ip netns add "$B" &&
	ip link add a0 netns "$A" type veth peer name b0 netns "$B" &&
	ip link add a1 netns "$A" type veth peer name b1 netns "$B"; }; then
	ktap_exit_fail_msg "cannot create the namespaces"
fi
for x in A B; do
	if [ $x = A ]; then me=1 peer=2 p=a o=b; else me=2 peer=1 p=b o=a; fi
	ip netns exec "${!x}" sh -e -c "
		ip link set lo up
		ip link set ${p}0 up
		ip link set ${p}1 up
		ip addr add fd00:1::$me/64 dev ${p}0 nodad
		ip addr add fd00:2::$me/64 dev ${p}1 nodad
		ip addr add fd00:f$p::$me/128 dev lo nodad
		ip -6 route add fd00:f$o::$peer/128 via fd00:1::$peer src fd00:f$p::$me
		ip -6 route add fd00:f$o::$peer/128 via fd00:2::$peer src fd00:f$p::$me table 100
		ip link add gnv0 type geneve id 57 remote fd00:f$o::$peer dstport 6081
		ip link set gnv0 up
		ip addr add 10.57.0.$me/24 dev gnv0" ||
		ktap_exit_fail_msg "cannot configure netns $x"
done
wait_for 10 a ping -6 -c 1 -W 1 -I fd00:fa::1 fd00:fb::2 >/dev/null ||
	ktap_exit_fail_msg "the IPv6 underlay does not answer"

# ping_over N: N pings through geneve; sets d0/d1 to the packets a0/a1
# sent meanwhile and ok to 1 when every ping was answered
ping_over() {
	local a0 a1
	a0=$(txp "$A" a0) a1=$(txp "$A" a1)
	ok=1
	a ping -q -c "$1" -i 0.05 -W 2 10.57.0.2 >/dev/null || ok=0
	d0=$(($(txp "$A" a0) - a0)) d1=$(($(txp "$A" a1) - a1))
}

# first contact resolves neighbours; wait until the tunnel answers
wait_for 20 a ping -c 1 -W 1 10.57.0.2 >/dev/null
ping_over 20
ktap_print_msg "without a rule: a0 +$d0, a1 +$d1 packets"
ktap_test_result "geneve over IPv6 passes traffic (main table: a0)" \
	test "$ok" = 1 -a "$d0" -ge 20 -a "$d1" -lt 20

# rule SELECTOR...: replace both namespaces' rule 100 (ipproto 17:
# the guest has no /etc/protocols to resolve "udp")
rule() {
	local x
	for x in A B; do
		ip netns exec "${!x}" ip -6 rule del pref 100 2>/dev/null
		ip netns exec "${!x}" ip -6 rule add pref 100 ipproto 17 "$@" lookup 100 ||
			ktap_exit_fail_msg "cannot add the rule '$*'"
	done
}

rule dport 6081
ping_over 20
ktap_print_msg "with 'ipproto 17 dport 6081 lookup 100': a0 +$d0, a1 +$d1 packets"
ktap_test_result "a destination-port policy rule steers geneve (a1)" \
	test "$ok" = 1 -a "$d1" -ge 20 -a "$d0" -lt 20

# a rule on another port must not match the tunnel
rule dport 6082
ping_over 20
ktap_print_msg "with 'dport 6082 lookup 100': a0 +$d0, a1 +$d1 packets"
ktap_test_result "a rule on another port leaves geneve on the main table" \
	test "$ok" = 1 -a "$d0" -ge 20 -a "$d1" -lt 20

# the source port: geneve hashes the flow into 1..65534; the kernel
# refuses a port range that starts at 0 or ends at 65535
rule sport 1-65534
ping_over 20
ktap_print_msg "with 'sport 1-65534 lookup 100': a0 +$d0, a1 +$d1 packets"
ktap_test_result "a source-port policy rule steers geneve (a1)" \
	test "$ok" = 1 -a "$d1" -ge 20 -a "$d0" -lt 20

# bareudp (ours) on this kernel: built by DKMS through the compat probes
m=$(modinfo -n bareudp 2>/dev/null)
ktap_test_result "our bareudp is built for this kernel (${m:-none})" \
	sh -c "case '$m' in */updates/dkms/*) exit 0;; *) exit 1;; esac"

ktap_finished
