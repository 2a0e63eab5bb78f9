#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# ECN through our bareudp (RFC 6040 as in ip_tunnel_ecn_encap and
# IP_ECN_decapsulate), IPv4 payloads, tunnel metadata from lwtunnel routes
# without tos:
#
#   encap: inner ECT(0) -> outer ECT(0) on IPv4 and IPv6 underlays;
#          inner CE -> outer ECT(0) (CE is not copied out)
#   encap with a VLAN ethertype (0x8100): the inner IP header behind the
#          Ethernet header and the tag is pulled and read: inner ECT(1) ->
#          outer ECT(1)
#   decap: outer CE (set by tc pedit on B's underlay) + inner ECT(0) ->
#          inner CE, also with the inner header in a second IPv4 fragment
#          (not in the linear data); outer CE + inner not-ECT -> dropped,
#          counted in rx_frame_errors, logged with the outer source and TOS
# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
bu_modules act_pedit act_csum cls_u32 act_tunnel_key cls_matchall
ns_both '
	ip link add bu0 type bareudp dstport 6640 ethertype ipv4
	ip link set bu0 up
	ip route add 192.168.$peer.1/32 encap ip id 0 dst 10.0.0.$peer dev bu0 src 192.168.$me.1
	ip route add 192.168.1$peer.1/32 encap ip6 id 0 dst fd00::$peer dev bu0 src 192.168.1$me.1' ||
	ktap_exit_fail_msg "tunnel setup failed"
a sh -e -c '
	ip link add bu1 type bareudp dstport 6641 ethertype 0x8100
	ip link set bu1 up
	tc qdisc add dev bu1 clsact
	tc filter add dev bu1 egress matchall \
		action tunnel_key set src_ip 10.0.0.1 dst_ip 10.0.0.2 id 0' ||
	ktap_exit_fail_msg "VLAN tunnel setup failed"
ktap_set_plan 9

out=$(ns_capture "$B" b0 "ip and udp dst port 6640" a ping -Q 2 -c 1 -W 1 192.168.2.1)
ktap_print_msg "$out"
ktap_test_result "encap over IPv4: inner ECT(0) gives outer ECT(0)" \
	grep -q 'tos 0x2,ECT(0)' <<<"$out"
out=$(ns_capture "$B" b0 "ip6 and udp dst port 6640" a ping -Q 2 -c 1 -W 1 192.168.12.1)
ktap_print_msg "$out"
ktap_test_result "encap over IPv6: inner ECT(0) gives outer traffic class ECT(0)" \
	grep -Eq 'class 0x0?2' <<<"$out"
out=$(ns_capture "$B" b0 "ip and udp dst port 6640" a ping -Q 3 -c 1 -W 1 192.168.2.1)
ktap_print_msg "$out"
ktap_test_result "encap: inner CE gives outer ECT(0), not CE" grep -q 'tos 0x2,ECT(0)' <<<"$out"

# one frame, as a bridge would hand it over: Ethernet header, 802.1Q tag
# (VID 5), then IPv4 with ECT(1) (TOS 0x01) and 8 bytes of UDP; the
# destination MAC's second byte is 0, which the outer TOS would show if
# the header read were not the inner IP one
vlan_frame() {
	a python3 -c '
import socket
ip = bytes.fromhex("4501001c00004000401100000a0000010a000002") + bytes(8)
frame = bytes.fromhex("020000000001020000000002" "8100" "0005" "0800") + ip
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("bu1", 0x8100))
s.send(frame)'
}
out=$(ns_capture "$B" b0 "ip and udp dst port 6641" vlan_frame)
ktap_print_msg "$out"
ktap_test_result "encap, VLAN ethertype: inner ECT(1) behind the tag gives outer ECT(1)" \
	grep -q 'tos 0x1,ECT(1)' <<<"$out"

# from here on, B's underlay marks every tunnel packet CE
b tc qdisc add dev b0 clsact
b tc filter add dev b0 ingress protocol ip u32 match ip protocol 17 0xff \
	match ip dport 6640 0xffff action pedit ex munge ip tos set 3 retain 3 pipe \
	action csum ip >/dev/null || ktap_exit_fail_msg "cannot add the CE marking filter"
out=$(ns_capture "$B" bu0 "icmp" a ping -Q 2 -c 1 -W 1 192.168.2.1)
ktap_print_msg "$out"
ktap_test_result "decap: outer CE + inner ECT(0) gives inner CE" grep -q 'tos 0x3,CE' <<<"$out"

# One tunnel packet in two IPv4 fragments from a raw socket in A, both
# outer headers CE: the first carries the outer UDP header only, the
# second the inner IPv4 header (ECT(0)) and 1400 bytes of UDP to port 9.
# B reassembles it with the whole payload in a fragment list, outside the
# linear data: the receive path must read the inner version and pull the
# inner header before the ECN decap (bareudp.md §3.3 bugs 7 and 9).
frag_send() {
	a python3 -c '
import socket, struct
def ip(src, dst, tos, frag, payload):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), 77, frag, 64,
                    17, 0, socket.inet_aton(src), socket.inet_aton(dst))
    c = sum(struct.unpack("!10H", h))
    c = (c & 0xffff) + (c >> 16)
    c = (c & 0xffff) + (c >> 16)
    return h[:10] + struct.pack("!H", ~c & 0xffff) + h[12:] + payload
def udp(sport, dport, data):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
inner = ip("192.168.1.1", "192.168.2.1", 2, 0, udp(9999, 9, bytes(1400)))
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
s.sendto(ip("10.0.0.1", "10.0.0.2", 3, 0x2000, udp(54321, 6640, inner)[:8]),
         ("10.0.0.2", 0))
s.sendto(ip("10.0.0.1", "10.0.0.2", 3, 1, inner), ("10.0.0.2", 0))'
}
out=$(ns_capture "$B" bu0 "udp dst port 9" frag_send)
ktap_print_msg "$out"
ktap_test_result "decap, inner header in the second fragment: delivered, inner ECT(0) gives inner CE" \
	grep -q 'tos 0x3,CE' <<<"$out"

f0=$(ns_stat "$B" bu0 rx_frame_errors)
mark="mw57: ecn.sh $$: CE over not-ECT"
echo "$mark" >/dev/kmsg
ktap_test_result "decap: outer CE + inner not-ECT is dropped" \
	sh -c "! ip netns exec $A ping -Q 0 -c 2 -W 2 192.168.2.1 >/dev/null"
f1=$(ns_stat "$B" bu0 rx_frame_errors)
ktap_test_result "decap: the drops are counted (rx_frame_errors $f0 -> $f1)" \
	test "$f1" -ge $((f0 + 2))
# only lines logged after the mark (upstream's have no device name)
ecn_logged() {
	dmesg | sed -n "/$mark/,\$p" | grep -q 'non-ECT from 10\.0\.0\.1 with TOS=0x3$'
}
ktap_test_result "decap: the drop is logged with the outer source and TOS" \
	wait_for 5 ecn_logged
ktap_finished
