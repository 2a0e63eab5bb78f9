#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# systemd-networkd creates our device from an unchanged [BareUDP] .netdev
# and brings it up from a .network.  networkd runs in netns A with its own
# mount namespace (its configuration directory and /run/systemd private),
# so it sees only A's links and the guest's own are left alone:
#
#   bu0  DestinationPort=6640 EtherType=ipv4, Address=192.168.51.1/32:
#        traffic to B's bareudp (made with iproute2) passes both ways
#   bu1..bu3  EtherType= ipv6, mpls-uc, mpls-mc: the ethertype the
#        kernel reports
#   bu4  MinSourcePort=49152, where this systemd has the key (trixie's
#        does); bookworm's 252 has not: there bu4 has no such line and
#        must report srcportmin 0
# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
networkd=/lib/systemd/systemd-networkd
[ -x "$networkd" ] || ktap_exit_fail_msg "no $networkd (vm/packages.list installs systemd)"
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
ktap_set_plan 8

conf=$bu_tmp/network
mkdir "$conf"
netdev() {	# netdev NAME [BareUDP] lines...
	local name=$1
	shift
	printf '[NetDev]\nName=%s\nKind=bareudp\n\n[BareUDP]\n' "$name" >"$conf/$name.netdev"
	printf '%s\n' "$@" >>"$conf/$name.netdev"
	printf '[Match]\nName=%s\n\n[Network]\n' "$name" >"$conf/$name.network"
}
netdev bu0 DestinationPort=6640 EtherType=ipv4
echo Address=192.168.51.1/32 >>"$conf/bu0.network"
netdev bu1 DestinationPort=6641 EtherType=ipv6
netdev bu2 DestinationPort=6642 EtherType=mpls-uc
netdev bu3 DestinationPort=6643 EtherType=mpls-mc
minsport=0
if grep -aq 'BareUDP\.MinSourcePort' "$networkd" /lib/systemd/libsystemd-shared-*.so \
	/usr/lib/systemd/libsystemd-shared-*.so 2>/dev/null; then
	minsport=1
	netdev bu4 DestinationPort=6644 EtherType=ipv4 MinSourcePort=49152
else
	netdev bu4 DestinationPort=6644 EtherType=ipv4
fi
ktap_print_msg "$("$networkd" --version | head -1); MinSourcePort= known: $minsport"

# /sys read-only, as in a container: udev does not see a netns's links,
# and networkd waits for udev only where /sys is writable
a unshare -m sh -c '
	mkdir -p /etc/systemd/network /run/systemd &&
	mount --bind "$1" /etc/systemd/network &&
	mount -t tmpfs tmpfs /run/systemd &&
	mount --bind -o ro /sys /sys &&
	exec "$2"' sh "$conf" "$networkd" >"$bu_tmp/networkd.log" 2>&1 &
bu_bg $!

created() { [ -n "$(a ip -br link show dev bu4 2>/dev/null)" ]; }
if ! wait_for 30 created; then
	ktap_print_msg "$(cat "$bu_tmp/networkd.log")"
	ktap_exit_fail_msg "networkd made no bareudp devices"
fi
# link_is DEV PATTERN: DEV's bareudp attributes (nl.py get) match PATTERN
link_is() { a python3 nl.py get "$1" | grep -q "$2"; }
has_addr() { a ip -br addr show dev bu0 | grep -q '192\.168\.51\.1/32'; }
if wait_for 30 has_addr; then
	ktap_test_pass "networkd brings bu0 up with its address"
else
	ktap_test_fail "networkd brings bu0 up with its address"
	ktap_print_msg "$(tail -n 20 "$bu_tmp/networkd.log")"
fi
ktap_print_msg "$(a ip -br addr show dev bu0)"
ktap_test_result "bu0: port 6640, ethertype ipv4 (0x0800)" \
	link_is bu0 '^port=6640 ethertype=0x0800 '
ktap_test_result "bu1: EtherType=ipv6 gives 0x86dd" \
	link_is bu1 '^port=6641 ethertype=0x86dd '
ktap_test_result "bu2: EtherType=mpls-uc gives 0x8847" \
	link_is bu2 '^port=6642 ethertype=0x8847 '
ktap_test_result "bu3: EtherType=mpls-mc gives 0x8848" \
	link_is bu3 '^port=6643 ethertype=0x8848 '
if [ "$minsport" = 1 ]; then
	ktap_test_result "bu4: MinSourcePort=49152 gives srcportmin 49152" \
		link_is bu4 ' srcportmin=49152 '
else
	ktap_test_result "bu4: this systemd has no MinSourcePort=: srcportmin stays 0" \
		link_is bu4 ' srcportmin=0 '
fi

# B: a bareudp made with iproute2; both ends route through their tunnels
b sh -e -c '
	ip link add bu0 type bareudp dstport 6640 ethertype ipv4
	ip link set bu0 up
	ip addr add 192.168.51.2/32 dev bu0
	ip route add 192.168.51.1/32 encap ip id 0 dst 10.0.0.1 dev bu0 src 192.168.51.2' ||
	ktap_exit_fail_msg "cannot set up B's tunnel"
a ip route add 192.168.51.2/32 encap ip id 0 dst 10.0.0.2 dev bu0 src 192.168.51.1 ||
	ktap_exit_fail_msg "cannot add A's tunnel route"
tx0=$(ns_stat "$A" bu0 tx_packets)
ktap_test_result "traffic passes through the networkd-made bu0" \
	a ping -c 3 -W 5 192.168.51.2
tx1=$(ns_stat "$A" bu0 tx_packets)
ktap_test_result "... and through bu0 itself (tx_packets $tx0 -> $tx1)" \
	test "$tx1" -ge $((tx0 + 3))
ktap_finished
