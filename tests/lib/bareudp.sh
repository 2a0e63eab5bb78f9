# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# The two-namespace topology the bareudp tests share, sourced after
# ../lib/ktap.sh:
#
#   netns $A: a0 10.0.0.1/24 fd00::1/64, lo 192.168.1.1 192.168.11.1 fd01::1
#   netns $B: b0 10.0.0.2/24 fd00::2/64, lo 192.168.2.1 192.168.12.1 fd01::2
#   (the IPv6 addresses only when BU_IPV6 is not 0)
#
# joined by the veth a0 <-> b0, rp_filter off.  Each test adds its own
# tunnel devices and routes.  bu_setup installs the cleanup trap; tests
# register background processes with bu_bg and extra cleanup with
# bu_on_exit.

# shellcheck source=../lib/wait.sh
. ../lib/wait.sh
# shellcheck source=../lib/netns.sh
. ../lib/netns.sh

A=bu-a-$$ B=bu-b-$$
bu_tmp=$(mktemp -d /tmp/bu-test.XXXXXX)
bu_pids=()
bu_exit_cmds=()

bu_bg() { bu_pids+=("$1"); }		# bu_bg PID: killed at exit
bu_on_exit() { bu_exit_cmds+=("$*"); }	# bu_on_exit CMD...: run at exit

bu_cleanup() {
	local p c
	for p in "${bu_pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	for c in "${bu_exit_cmds[@]}"; do eval "$c"; done
	rm -rf "$bu_tmp"
}

# bu_modules MODULE...: load them or fail the test
bu_modules() {
	local m
	for m in "$@"; do
		modprobe "$m" || ktap_exit_fail_msg "cannot load $m"
	done
}

# bu_setup: load bareudp, build the topology, wait until the IPv6 underlay
# answers.  Exits the test (fail) when it cannot.  With BU_IPV6=0 (a guest
# booted with ipv6.disable=1) the topology is IPv4 only.
bu_setup() {
	local x me i
	trap bu_cleanup EXIT
	bu_modules bareudp
	if ! ip netns add "$A" || ! ip netns add "$B" ||
		! ip link add a0 netns "$A" type veth peer name b0 netns "$B"; then
		ktap_exit_fail_msg "cannot create the namespaces"
	fi
	for x in A B; do
		if [ $x = A ]; then me=1 i=a0; else me=2 i=b0; fi
		ip netns exec "${!x}" sh -e -c "
			sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
			ip link set lo up
			ip link set $i up
			ip addr add 10.0.0.$me/24 dev $i
			ip addr add 192.168.$me.1/32 dev lo
			ip addr add 192.168.1$me.1/32 dev lo" ||
			ktap_exit_fail_msg "cannot configure netns $x"
		[ "${BU_IPV6:-1}" = 1 ] || continue
		ip netns exec "${!x}" sh -e -c "
			ip addr add fd00::$me/64 dev $i nodad
			ip addr add fd01::$me/128 dev lo nodad" ||
			ktap_exit_fail_msg "cannot configure IPv6 in netns $x"
	done
	[ "${BU_IPV6:-1}" = 0 ] || wait_for 10 a ping -6 -c 1 -W 1 fd00::2 >/dev/null ||
		ktap_exit_fail_msg "the IPv6 underlay does not answer"
}
