#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The tunnel key bareudp gives each received packet (its RX metadata dst),
# as tc flower on B's bu0 ingress sees it.  A sends two flows at once, so
# that their packets interleave:
#
#   to 192.168.2.1  over IPv4: outer 10.0.0.1 -> 10.0.0.2, tos 0x20, ttl 33
#   to 192.168.12.1 over IPv6: outer fd00::1 -> fd00::2, tclass 0x48, hlim 44
#
# On B's bu0 ingress, filter 2 matches the first flow's inner destination
# with every field of its key (addresses, UDP destination port, tos, ttl,
# key id), filter 3 the second's, and a catch-all counts the IPv4 packets
# that matched neither: a packet that carries a key of another packet, or
# a field of one, lands there.  600 packets, many more than a CPU's
# recycled metadata dsts (bareudp.c's BU_MD_RING), so each dst is
# rewritten several times.
#
# Then the same again, and the same filters look at a copy of each packet
# 0.5 s later, while the ring has gone round several times (and no dst
# could be recycled: the copies hold them).  A copy must keep its dst that
# long and meet a classifier afterwards; most devices drop the dst before
# their qdisc, a tunnel device keeps it.  So filter 1 mirrors each packet
# to a second bareudp device, bu9, whose egress hands it to ifb0 (netem
# delay 0.5 s); ifb sends it out of bu9 again, past bu9's egress filters
# (ifb skips them), into bu9's root qdisc with copies of the three filters
# (bu9 then drops it: a receive key cannot be sent).  A dst recycled while
# a copy still held it would show there with a later packet's key.
# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/bareudp.sh
. ../lib/bareudp.sh
bu_setup
bu_modules sch_ingress sch_prio sch_netem cls_flower cls_matchall act_gact \
	act_mirred ifb
N=300
ns_both '
	ip link add bu0 type bareudp dstport 6635 ethertype ipv4
	ip link set bu0 up
	ip route add 192.168.$peer.1/32 encap ip id 0 dst 10.0.0.$peer tos 0x20 ttl 33 \
		dev bu0 src 192.168.$me.1
	ip route add 192.168.1$peer.1/32 encap ip6 id 0 dst fd00::$peer tc 0x48 hoplimit 44 \
		dev bu0 src 192.168.1$me.1' ||
	ktap_exit_fail_msg "tunnel setup failed"
# key_filters DEV WHERE: the three filters, prio 2-4, on DEV at WHERE
key_filters() {
	b sh -e -c "
		tc filter add dev $1 $2 prio 2 protocol ip flower dst_ip 192.168.2.1 \
			enc_src_ip 10.0.0.1 enc_dst_ip 10.0.0.2 enc_dst_port 6635 \
			enc_tos 0x20 enc_ttl 33 enc_key_id 0 $3 action pass
		tc filter add dev $1 $2 prio 3 protocol ip flower dst_ip 192.168.12.1 \
			enc_src_ip fd00::1 enc_dst_ip fd00::2 enc_dst_port 6635 \
			enc_tos 0x48 enc_ttl 44 enc_key_id 0 $3 action pass
		tc filter add dev $1 $2 prio 4 protocol ip matchall $3 action pass"
}
b sh -e -c '
	ip link add bu9 type bareudp dstport 6699 ethertype ipv4
	ip link add ifb0 type ifb
	ip link set bu9 up
	ip link set ifb0 up
	tc qdisc add dev ifb0 root netem delay 500ms limit 10000
	tc qdisc add dev bu9 clsact
	tc filter add dev bu9 egress matchall action mirred egress redirect dev ifb0
	tc qdisc add dev bu9 root handle 1: prio
	tc qdisc add dev bu0 clsact' ||
	ktap_exit_fail_msg "tc setup failed"
key_filters bu0 ingress "" || ktap_exit_fail_msg "bu0's filters failed"
key_filters bu9 "parent 1:" "classid 1:1" || ktap_exit_fail_msg "bu9's filters failed"
ktap_set_plan 9

# hits DEV WHERE...: the packets the actions of DEV's filters 2, 3 and 4
# at WHERE (ingress, or parent 1:) counted, in that order
hits() {
	b tc -s -j filter show dev "$1" "${@:2}" | python3 -c '
import json, sys
n = {2: 0, 3: 0, 4: 0}
for f in json.load(sys.stdin):
    for a in f.get("options", {}).get("actions", []):
        n[f["pref"]] = n.get(f["pref"], 0) + a["stats"]["packets"]
print(n[2], n[3], n[4])'
}

# two_flows: N echoes to each destination at once, all answered.  Both
# pings run on CPU 0, so that B receives both flows on one CPU (veth
# delivers on the sender's) and they share one ring: rings that each saw
# one flow only would hide a wrong key among equal ones.
two_flows() {
	local p1 p2 s1 s2
	a taskset -c 0 ping -q -c $N -i 0.002 -w 60 192.168.2.1 >"$bu_tmp/p1" 2>&1 &
	p1=$!
	a taskset -c 0 ping -q -c $N -i 0.002 -w 60 192.168.12.1 >"$bu_tmp/p2" 2>&1 &
	p2=$!
	wait $p1
	s1=$?
	wait $p2
	s2=$?
	ktap_print_msg "$(grep -h transmitted "$bu_tmp/p1" "$bu_tmp/p2")"
	ktap_test_result "$1: both flows answered (ping exit $s1, $s2)" test $s1 = 0 -a $s2 = 0
}

# A flow sends N echoes and more when a reply comes late (ping -w: CI saw
# 301 sent for 300 answered), so B's counts are not N.  What is exact:
# each flow's N replies prove that N of its echoes reached bu0, and every
# packet bu0 received (rx_packets) is counted by one filter, that of its
# own key.
#
# counted: h1 h2 h3 of `hits bu0 ingress` and rx, the packets bu0 received
# since r0; true once the filters have counted them all (an echo sent last
# may be on its way when ping ends)
counted() {
	read -r h1 h2 h3 < <(hits bu0 ingress)
	rx=$(($(ns_stat "$B" bu0 rx_packets) - r0))
	[ $((h1 + h2 + h3)) -ge "$rx" ]
}

# Each skb is done with its dst long before the ring comes round again,
# so the dsts are recycled: each packet must carry its own key.
r0=$(ns_stat "$B" bu0 rx_packets)
two_flows "recycled dsts"
wait_for 10 counted
ktap_print_msg "bu0 received $rx; hits: IPv4 key $h1, IPv6 key $h2, neither $h3"
ktap_test_result "IPv4 underlay: at least the $N answered echoes carry their key (got $h1)" \
	test "$h1" -ge $N
ktap_test_result "IPv6 underlay: at least the $N answered echoes carry their key (got $h2)" \
	test "$h2" -ge $N
ktap_test_result "each of the $rx packets carries its own key, none another or a mixed one ($h1 + $h2, neither $h3)" \
	test "$h3" = 0 -a $((h1 + h2)) = "$rx"
f1=$h1 f2=$h2 prx=$rx

# Now a copy of each packet holds its dst for 0.5 s, while the ring goes
# round several times: no held dst may be recycled.
b tc filter add dev bu0 ingress prio 1 matchall \
	action mirred egress mirror dev bu9 continue ||
	ktap_exit_fail_msg "bu0's mirror filter failed"
two_flows "dsts held by copies"
wait_for 10 counted
n1=$((h1 - f1)) n2=$((h2 - f2))
ktap_print_msg "bu0 received $((rx - prx)) more; hits: IPv4 key $n1, IPv6 key $n2"
# a copy of each of them out of netem (its queue empty), then counted
copies() {
	read -r c1 c2 c3 < <(hits bu9 parent 1:)
	[ $((c1 + c2 + c3)) -ge $((rx - prx)) ]
}
wait_for 20 copies
ktap_print_msg "copies 0.5 s later: IPv4 key $c1, IPv6 key $c2, neither $c3"
ktap_test_result "0.5 s later: the $n1 (>= $N) IPv4-underlay copies still carry their key (got $c1)" \
	test "$c1" = "$n1" -a "$n1" -ge $N
ktap_test_result "0.5 s later: the $n2 (>= $N) IPv6-underlay copies still carry their key (got $c2)" \
	test "$c2" = "$n2" -a "$n2" -ge $N
ktap_test_result "0.5 s later: no copy with another key or a mixed one (got $c3)" test "$c3" = 0
ktap_test_result "and on bu0 at once: each of the $rx packets its own key ($h1 + $h2, neither $h3)" \
	test "$h3" = 0 -a $((h1 + h2)) = "$rx"
ktap_finished
