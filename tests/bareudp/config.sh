#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# bareudp's configuration ABI, in a private netns: iproute2's view (ip -d,
# ip -j), every attribute with its byte order (raw netlink through nl.py),
# the extack messages of every refusal, EBUSY for a duplicate port, no
# changelink, the Open vSwitch pattern (SRCPORT_MIN 49153 then re-read PORT
# and ETHERTYPE as big-endian), the socket opened on "up" on the port, and
# a port clash surfacing at "up".
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/wait.sh
. ../lib/wait.sh

ktap_begin root
modprobe bareudp || ktap_exit_fail_msg "cannot load bareudp"
ns=bu-cfg-$$
ip netns add "$ns" || ktap_exit_fail_msg "cannot create netns"
lis=
cleanup() {
	[ -n "$lis" ] && kill "$lis" 2>/dev/null
	wait 2>/dev/null
	ip netns del "$ns"
}
trap cleanup EXIT
n() { ip netns exec "$ns" "$@"; }
nl() { ip netns exec "$ns" ./nl.py "$@"; }
expect() { # expect DESC WANT CMD...: CMD's output equals WANT
	local desc=$1 want=$2 got
	shift 2
	got=$("$@" 2>&1)
	[ "$got" = "$want" ] || ktap_print_msg "got: $got"
	ktap_test_result "$desc" test "$got" = "$want"
}

ktap_set_plan 16

n ip link add bu0 type bareudp dstport 6635 ethertype mpls_uc
ktap_test_result "ip -d link: dstport 6635 ethertype mpls_uc srcportmin 0 nomultiproto" \
	sh -c "ip netns exec $ns ip -d link show bu0 | grep -q 'bareudp dstport 6635 ethertype mpls_uc srcportmin 0 nomultiproto'"
n ip link add bu1 type bareudp dstport 6636 ethertype ipv4 srcportmin 49152 multiproto
expect "ip -j -d link: info_data of an ipv4 multiproto device" \
	'{"dstport":6636,"ethertype":"ip","srcportmin":49152,"multiproto":true}' \
	sh -c "ip netns exec $ns ip -j -d link show bu1 | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)[0][\"linkinfo\"][\"info_data\"], separators=(\",\", \":\")))'"
expect "netlink: PORT and ETHERTYPE big-endian, SRCPORT_MIN host order, flag" \
	"port=6636 ethertype=0x0800 srcportmin=49152 multiproto=1" nl get bu1
ktap_test_result "device: ARPHRD_NONE, POINTOPOINT,NOARP, mtu 1500, noqueue" \
	sh -c "ip netns exec $ns ip -d link show bu0 | grep -q 'POINTOPOINT,MULTICAST,NOARP.*mtu 1500 qdisc noop' &&
		[ \$(ip netns exec $ns cat /sys/class/net/bu0/type) = 65534 ]"

expect "no IFLA_INFO_DATA: EINVAL with extack" \
	"ERR EINVAL Not enough attributes provided to perform the operation" nl add bux nodata
expect "no PORT: EINVAL, \"port not specified\"" \
	"ERR EINVAL port not specified" nl add bux ethertype=0x0800
expect "no ETHERTYPE: EINVAL, \"ethertype not specified\"" \
	"ERR EINVAL ethertype not specified" nl add bux port=7000
expect "multiproto with ethertype ipv6: EINVAL with extack" \
	"ERR EINVAL Cannot set multiproto mode for this ethertype (only IPv4 and unicast MPLS are supported)" \
	nl add bux port=7000 ethertype=0x86dd multiproto
expect "duplicate port: EBUSY with extack" \
	"ERR EBUSY Another bareudp device using the same port already exists" \
	nl add bux port=6635 ethertype=0x0800
ktap_test_result "no changelink: ip link set ... type bareudp fails" \
	sh -c "! ip netns exec $ns ip link set bu0 type bareudp dstport 7001 ethertype ipv4 2>/dev/null"

# Open vSwitch: create with SRCPORT_MIN 49153, then re-read as be16
expect "OVS pattern: create mpls_uc multiproto with srcportmin 49153" OK \
	nl add ovs0 port=6637 ethertype=0x8847 srcportmin=49153 multiproto
expect "OVS pattern: PORT and ETHERTYPE read back as sent" \
	"port=6637 ethertype=0x8847 srcportmin=49153 multiproto=1" nl get ovs0
expect "port 0 is accepted (as upstream)" OK nl add bup0 port=0 ethertype=0x0800

# the socket: opened on up, on the configured port
n ip link set bu0 up
ktap_test_result "up: a UDP socket listens on port 6635" \
	sh -c "ip netns exec $ns ss -Hunl | grep -q ':6635 '"
n ip link set bu0 down
ktap_test_result "down: the socket is gone" \
	sh -c "! ip netns exec $ns ss -Hunl | grep -q ':6635 '"
n socat -u UDP6-RECV:6636,reuseaddr - >/dev/null 2>&1 &
lis=$!
listening() { ip netns exec "$ns" ss -Hunl | grep -q ":$1 "; }
taken() {
	wait_for 10 listening 6636 &&
		ip netns exec "$ns" ip link set bu1 up 2>&1 | grep -q 'Address already in use'
}
ktap_test_result "port taken by another socket: ip link set up fails (EADDRINUSE)" taken
ktap_finished
