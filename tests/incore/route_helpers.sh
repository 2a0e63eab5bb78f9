#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The tunnel route-lookup helpers (5.7's ip_route_output_tunnel() and
# ip6_dst_lookup_tunnel(), today's udp_tunnel_dst_lookup() and
# udp_tunnel6_dst_lookup()): a tunnel's route lookup must see its UDP
# ports and its DS field, so that policy rules on them steer the tunnel
# packets.  Two paths between the namespaces, for each underlay family:
#
#   $A lo 10.250.0.1 fd00:fa::1 -- a0 10.1.0.1 fd00:1::1 <-> b0 ... .2 -- $B lo
#                               \- a1 10.2.0.1 fd00:2::1 <-> b1 ... .2 -/  .2
#
# The main table sends the peer's loopback over a0, table 100 over a1.
# Each tunnel (geneve, and bareudp through lwtunnel "encap" routes) runs
# over each underlay; for each, with no rule, then with one "ipproto 17
# <selector> lookup 100" rule at a time, 10 pings through the tunnel must
# all leave on the path the rule says.  bareudp is tested as ours (DKMS)
# and, where the kernel has one (the debug kernel), as the kernel's own:
# on the patched 6.1 that is the in-tree bareudp converted by patch 0002,
# which must pass its ports and DS field to the completed helpers.
#
# Then the key's flow flags, IPv4 only: a tc BPF program (tunkey) on a
# collect_md geneve and on each bareudp sets the tunnel key with a source
# address that is no address of $A; bpf_skb_set_tunnel_key() marks the
# key FLOWI_FLAG_ANYSRC, so the tunnel packet must leave with that
# source.  A lookup that drops the flags (6.1's udp_tunnel_dst_lookup()
# before patch 0002) refuses the foreign source and sends nothing.
# shellcheck disable=SC2016 # ns_both's commands expand in the netns shell
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/wait.sh
. ../lib/wait.sh
# shellcheck source=../lib/modswap.sh
. ../lib/modswap.sh
# shellcheck source=../lib/netns.sh
. ../lib/netns.sh

ktap_begin root

# (exported: the commands of ns_both read them)
export GPORT=6081 BPORT=6635 BMIN=50000 TOS=0x10
A=rh-a-$$ B=rh-b-$$
# the BPF program's pin (a bpf file system of our own: "ip netns exec"
# mounts a new /sys, without the one under /sys/fs/bpf)
bpffs=$(mktemp -d /tmp/rh-bpf.XXXXXX)
FOREIGN=10.77.0.1
cleanup() {
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	umount "$bpffs" 2>/dev/null
	rmdir "$bpffs"
	# leave ours loaded for the suites that follow
	mod_live bareudp "$ours" || mod_swap bareudp "$ours"
}

ours=$(mod_path ours bareudp)
kernel=$(mod_path kernel bareudp)
[ -n "$ours" ] || ktap_exit_fail_msg "our bareudp is not installed"
ktap_print_msg "bareudp: ours $ours, the kernel's ${kernel:-none}"
trap cleanup EXIT

# 5 checks per tunnel and family, and a flow flags check per tunnel:
# geneve, ours, the kernel's bareudp
tunnels=2
[ -z "$kernel" ] || tunnels=3
ktap_set_plan $((tunnels * (2 * 5 + 1)))

modprobe geneve || ktap_exit_fail_msg "cannot load geneve"
if ! { mount -t bpf bpf "$bpffs" && tunkey "$bpffs/key" 10.250.0.2 "$FOREIGN"; }; then
	ktap_exit_fail_msg "cannot load the tunnel key program"
fi
if ! { ip netns add "$A" && ip netns add "$B" &&
	ip link add a0 netns "$A" type veth peer name b0 netns "$B" &&
	ip link add a1 netns "$A" type veth peer name b1 netns "$B"; }; then
	ktap_exit_fail_msg "cannot create the namespaces"
fi
ns_both '
	sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	ip link set lo up
	for i in 0 1; do
		ip link set $p$i up
		ip addr add 10.$((i + 1)).0.$me/24 dev $p$i
		ip addr add fd00:$((i + 1))::$me/64 dev $p$i nodad
	done
	ip addr add 10.250.0.$me/32 dev lo
	ip addr add fd00:f$p::$me/128 dev lo nodad
	ip route add 10.250.0.$peer/32 via 10.1.0.$peer src 10.250.0.$me
	ip route add 10.250.0.$peer/32 via 10.2.0.$peer src 10.250.0.$me table 100
	ip -6 route add fd00:f$o::$peer/128 via fd00:1::$peer src fd00:f$p::$me
	ip -6 route add fd00:f$o::$peer/128 via fd00:2::$peer src fd00:f$p::$me table 100
	ip link add gnv4 type geneve id 4 remote 10.250.0.$peer dstport $GPORT tos $TOS
	ip link add gnv6 type geneve id 6 remote fd00:f$o::$peer dstport $GPORT tos $TOS
	ip link set gnv4 up
	ip link set gnv6 up
	ip addr add 10.57.4.$me/24 dev gnv4
	ip addr add 10.57.6.$me/24 dev gnv6' ||
	ktap_exit_fail_msg "cannot configure the namespaces"
wait_for 10 a ping -c 1 -W 1 -I 10.250.0.1 10.250.0.2 >/dev/null ||
	ktap_exit_fail_msg "the IPv4 underlay does not answer"
wait_for 10 a ping -6 -c 1 -W 1 -I fd00:fa::1 fd00:fb::2 >/dev/null ||
	ktap_exit_fail_msg "the IPv6 underlay does not answer"

# rule SELECTOR...: replace both namespaces' rule 100, both families
# (ipproto 17: the guest has no /etc/protocols to resolve "udp"), in one
# namespace entry each: "ip netns exec" makes a mount namespace and
# mounts a sysfs for every command it runs.
rule() {
	SEL="$*" ns_both '
		for f in -4 -6; do
			ip $f rule del pref 100 2>/dev/null || :
			[ -z "$SEL" ] || ip $f rule add pref 100 ipproto 17 $SEL lookup 100
		done' || ktap_exit_fail_msg "cannot add the rule '$*'"
}

# steered NAME DST PATH: 10 pings to DST must all be answered and their
# tunnel packets all leave $A on PATH (a0: main table, a1: table 100);
# the counters and the pings in one namespace entry
steered() {
	local name=$1 dst=$2 want=$3 other c d o
	[ "$want" = a0 ] && other=a1 || other=a0
	# counters of $want and $other, 1 if every ping was answered, counters
	mapfile -t c < <(a sh -c '
		s=/sys/class/net t=statistics/tx_packets
		cat $s/$1/$t $s/$2/$t
		ping -q -c 10 -i 0.05 -W 2 "$3" >/dev/null && echo 1 || echo 0
		cat $s/$1/$t $s/$2/$t' sh "$want" "$other" "$dst")
	[ ${#c[@]} = 5 ] || ktap_exit_fail_msg "cannot read the counters of $want and $other"
	d=$((c[3] - c[0])) o=$((c[4] - c[1]))
	ktap_test_result "$name: on $want ($d packets, $other $o, all answered: ${c[2]})" \
		test "${c[2]}" = 1 -a "$d" -ge 10 -a "$o" -lt 10
}

# checks NAME DST PORT SPORTS: the five checks of one tunnel whose
# packets go to UDP port PORT from source ports in the range SPORTS
checks() {
	local name=$1 dst=$2 port=$3 sports=$4
	# first contact resolves neighbours; wait until the tunnel answers
	wait_for 20 a ping -c 1 -W 1 "$dst" >/dev/null
	rule
	steered "$name, no rule" "$dst" a0
	rule dport "$port"
	steered "$name, rule dport $port" "$dst" a1
	rule dport $((port + 1))
	steered "$name, rule dport $((port + 1))" "$dst" a0
	rule sport "$sports"
	steered "$name, rule sport $sports" "$dst" a1
	rule tos "$TOS"
	steered "$name, rule tos $TOS" "$dst" a1
	rule
}

# flowflags NAME DEV PORT: a datagram routed to DEV in $A gets tunkey's
# key; its tunnel packet to UDP port PORT must reach b0 from $FOREIGN
flowflags() {
	local name=$1 dev=$2 port=$3 out
	a sh -e -c '
		ip route add 10.60.0.2/32 dev "$1" src 10.250.0.1
		tc qdisc add dev "$1" clsact
		tc filter add dev "$1" egress bpf da object-pinned "$2"' sh "$dev" "$bpffs/key" ||
		ktap_exit_fail_msg "cannot attach the tunnel key program to $dev"
	out=$(ns_capture "$B" b0 "udp dst port $port and src host $FOREIGN" \
		a bash -c 'echo >/dev/udp/10.60.0.2/9')
	ktap_print_msg "$name: ${out:-no packet from $FOREIGN}"
	ktap_test_result "$name: key flow flags: the tunnel packet left from $FOREIGN" \
		test -n "$out"
	a sh -c 'ip route del 10.60.0.2/32; tc qdisc del dev "$1" clsact' sh "$dev"
}

# geneve hashes the flow into 1..65534 (the kernel refuses a port range
# that ends at 65535)
checks "geneve over IPv4" 10.57.4.2 $GPORT 1-65534
checks "geneve over IPv6" 10.57.6.2 $GPORT 1-65534
# (one collect_md geneve per port, and gnv4 holds $GPORT)
if ! a sh -e -c "ip link add gnvx type geneve external dstport $((GPORT + 1))
	ip link set gnvx up"; then
	ktap_exit_fail_msg "cannot create a collect_md geneve"
fi
flowflags "geneve" gnvx $((GPORT + 1))

# bareudp KIND PATH: bareudp from PATH over both underlays
bareudp() {
	mod_swap bareudp "$2" || ktap_exit_fail_msg "cannot load $2"
	# (the IPv6 encap calls its DS field "tc"; "tos" after it would be
	# the route's own TOS selector)
	ns_both '
		ip link add bu0 type bareudp dstport $BPORT ethertype ipv4 srcportmin $BMIN
		ip link set bu0 up
		ip addr add 10.58.4.$me/32 dev lo
		ip addr add 10.58.6.$me/32 dev lo
		ip route add 10.58.4.$peer/32 encap ip id 0 dst 10.250.0.$peer tos $TOS \
			dev bu0 src 10.58.4.$me
		ip route add 10.58.6.$peer/32 encap ip6 id 0 dst fd00:f$o::$peer tc $TOS \
			dev bu0 src 10.58.6.$me' ||
		ktap_exit_fail_msg "cannot create $1 bareudp"
	checks "$1 bareudp over IPv4" 10.58.4.2 $BPORT "$BMIN-65534"
	checks "$1 bareudp over IPv6" 10.58.6.2 $BPORT "$BMIN-65534"
	flowflags "$1 bareudp" bu0 $BPORT
	ns_both 'ip link del bu0
		ip addr del 10.58.4.$me/32 dev lo
		ip addr del 10.58.6.$me/32 dev lo'
}

bareudp ours "$ours"
[ -z "$kernel" ] || bareudp "the kernel's" "$kernel"

ktap_finished
