#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Open vSwitch's egress tunnel lookup.  For sFlow and IPFIX, ovs-vswitchd
# asks the datapath for a tunnel port's egress metadata (the userspace
# action's egress_tun_port), and the datapath asks the port's driver
# (ndo_fill_metadata_dst).  ovs.py does what ovs-vswitchd does, over
# generic netlink.  With bu0 up, the answer for each family carries the
# route's source address and the tunnel's UDP port; with bu0 down there
# is no socket, and the answer is no metadata for either family (upstream
# dereferenced the missing socket for IPv6, CVE-2026-45846, and answers
# IPv4 without it: modules/bareudp/README.md).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
bu_modules openvswitch
if ! a ip link add bu0 type bareudp dstport 6635 ethertype ipv4 ||
	! a ip link set bu0 up; then
	ktap_exit_fail_msg "cannot create bu0"
fi
ktap_set_plan 4

# egress STATE WANT4 WANT6: the datapath's answers for the peer's IPv4
# and IPv6 addresses, with bu0 in STATE
egress() {
	local out
	out=$(a python3 ovs.py bu0 10.0.0.2 fd00::2 2>&1)
	ktap_print_msg "bu0 $1: ${out//$'\n'/; }"
	ktap_test_result "bu0 $1, IPv4: $2" grep -qxF "10.0.0.2: $2" <<<"$out"
	ktap_test_result "bu0 $1, IPv6: $3" grep -qxF "fd00::2: $3" <<<"$out"
}
egress up "src=10.0.0.1 tp_dst=6635" "src=fd00::1 tp_dst=6635"
a ip link set bu0 down || ktap_exit_fail_msg "cannot set bu0 down"
egress down none none

ktap_finished
