# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# Two network namespaces, named by the caller in $A and $B, and helpers
# that take any namespace (ns_capture, ns_stat).

a() { ip netns exec "$A" "$@"; }
b() { ip netns exec "$B" "$@"; }

# ns_both CMD: the shell command CMD (sh -e) in $A, then in $B, with
# me=1 peer=2 p=a o=b set in $A and me=2 peer=1 p=b o=a in $B (the
# addresses and device letters of each side); exported variables reach it
ns_both() {
	a env me=1 peer=2 p=a o=b sh -e -c "$1" &&
		b env me=2 peer=1 p=b o=a sh -e -c "$1"
}

# ns_capture NS IFACE FILTER CMD...: run CMD (a traffic generator, one
# packet per call) until tcpdump -v in NS has seen one packet arriving on
# IFACE that matches FILTER (tcpdump is slow to start under TCG; at most
# 100 calls and 30 s); print that packet, nothing when none came.
# Arriving only: the peer's reply to the same port also matches a port
# filter, and is all tcpdump sees when it misses the request.
ns_capture() {
	local ns=$1 ifc=$2 filter=$3 cap t
	shift 3
	cap=$(mktemp) || return 1
	ip netns exec "$ns" timeout 30 tcpdump -l -n -v -c 1 -Q in -i "$ifc" "$filter" \
		>"$cap" 2>/dev/null &
	t=$!
	for _ in $(seq 100); do
		kill -0 "$t" 2>/dev/null || break
		"$@" >/dev/null 2>&1
	done
	wait "$t"
	cat "$cap"
	rm -f "$cap"
}

# ns_stat NS DEV COUNTER: one statistics counter of DEV in NS
ns_stat() {
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
}
