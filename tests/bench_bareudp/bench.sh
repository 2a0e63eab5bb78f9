#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# bareudp against its in-tree peers on a four-namespace veth chain, equal
# inner MTU (1400 on the client and server links and on every tunnel):
#
#   C c0 10.1.0.1 -- r1c R1 r1u 10.2.0.1 -- r2u R2 r2s -- s0 10.3.0.1 S
#
#   plain    R1 and R2 route between the client and server subnets
#   bareudp  our bareudp (ethertype ipv4) on R1 and R2; tc flower on the
#            client/server-facing veth ingress sets the tunnel key and
#            redirects to the tunnel, decapsulated packets are routed
#   geneve   geneve external innerprotoinherit with the same tc rules
#   bu-route our bareudp driven by routes instead (lwtunnel "encap ip"),
#            the way ipip over fou is configured
#   fou      ipip over fou (port 6635, same wire format), routed
#   ipip-md  the same wire format, received by an "ipip external" device
#            (collect_md: a metadata dst per packet, as bareudp's receive),
#            sent by a fixed ipip/fou device (an ipip route's tunnel key
#            cannot ask for fou); see ipip_md()
#
# Workloads from C to S: iperf3 TCP single stream, iperf3 UDP with 64-byte
# payloads (packets received per second), and a request/response rate
# (flood ping: one echo in flight).  Each variant has its own chain, all
# set up at the start and checked to carry its pings through its tunnel
# devices (their counters, both ways); a round measures each workload on
# every variant back to back, each round starting one variant later.  The
# table prints medians, the ratios of bareudp and bu-route to geneve, fou,
# ipip-md and plain, then each ratio's range over the rounds.  Absolute
# numbers mean little under TCG.
# Output: TAP diagnostics and $MW57_OUT/bench-bareudp.txt.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/wait.sh
. ../lib/wait.sh
# shellcheck source=../lib/netns.sh
. ../lib/netns.sh

# kernel command line (tests/run-vm.sh --append): mw57.bench_rounds=N,
# mw57.bench_secs=N
ROUNDS=5 SECS=5
read -r -a cmdline </proc/cmdline
for arg in "${cmdline[@]}"; do
	case $arg in
	mw57.bench_rounds=*) ROUNDS=${arg#*=} ;;
	mw57.bench_secs=*) SECS=${arg#*=} ;;
	esac
done
VARIANTS="plain bareudp geneve bu-route fou ipip-md"
C='' R1='' R2='' S=''
# use VARIANT: the four namespaces of VARIANT's chain become C, R1, R2, S
# (every variant has its own chain, all set up once)
use() { C=bb-c-$1-$$ R1=bb-r1-$1-$$ R2=bb-r2-$1-$$ S=bb-s-$1-$$; }

ktap_begin root
tmp=$(mktemp -d /tmp/bu-bench.XXXXXX)
cleanup() {
	local n
	for n in $(ip netns list | awk '{ print $1 }' | grep -- "^bb-.*-$$\$"); do
		ip netns del "$n"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
for m in bareudp geneve fou ipip act_tunnel_key act_mirred cls_flower; do
	modprobe "$m" || ktap_exit_fail_msg "cannot load $m"
done

nsx() { local n=$1; shift; ip netns exec "$n" "$@"; }

setup_base() {
	local n
	for n in "$C" "$R1" "$R2" "$S"; do
		ip netns add "$n" && nsx "$n" ip link set lo up || return 1
		nsx "$n" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 net.ipv4.ip_forward=1 || return 1
	done
	ip link add c0 netns "$C" type veth peer name r1c netns "$R1" &&
	ip link add r1u netns "$R1" type veth peer name r2u netns "$R2" &&
	ip link add r2s netns "$R2" type veth peer name s0 netns "$S" &&
	nsx "$C" sh -e -c 'ip link set c0 mtu 1400 up; ip addr add 10.1.0.1/24 dev c0
		ip route add default via 10.1.0.2' &&
	nsx "$R1" sh -e -c 'ip link set r1c mtu 1400 up; ip addr add 10.1.0.2/24 dev r1c
		ip link set r1u up; ip addr add 10.2.0.1/24 dev r1u' &&
	nsx "$R2" sh -e -c 'ip link set r2s mtu 1400 up; ip addr add 10.3.0.2/24 dev r2s
		ip link set r2u up; ip addr add 10.2.0.2/24 dev r2u' &&
	nsx "$S" sh -e -c 'ip link set s0 mtu 1400 up; ip addr add 10.3.0.1/24 dev s0
		ip route add default via 10.3.0.2'
}

# tc_tunnel NS IN_DEV TUN_DEV SRC DST PREFIX: packets for PREFIX arriving on
# IN_DEV get the tunnel key SRC -> DST and go out TUN_DEV
tc_tunnel() {
	nsx "$1" sh -e -c "
		tc qdisc add dev $2 clsact
		tc filter add dev $2 ingress protocol ip flower dst_ip $6 \
			action tunnel_key set src_ip $4 dst_ip $5 id 0 \
			action mirred egress redirect dev $3"
}

setup() { # setup VARIANT
	use "$1"
	setup_base || return 1
	case $1 in
	plain)
		nsx "$R1" ip route add 10.3.0.0/24 via 10.2.0.2 &&
			nsx "$R2" ip route add 10.1.0.0/24 via 10.2.0.1 ;;
	bu-route)
		nsx "$R1" sh -e -c '
			ip link add tun0 type bareudp dstport 6635 ethertype ipv4
			ip link set tun0 mtu 1400 up
			ip route add 10.3.0.0/24 encap ip id 0 dst 10.2.0.2 dev tun0' &&
		nsx "$R2" sh -e -c '
			ip link add tun0 type bareudp dstport 6635 ethertype ipv4
			ip link set tun0 mtu 1400 up
			ip route add 10.1.0.0/24 encap ip id 0 dst 10.2.0.1 dev tun0' ;;
	bareudp | geneve)
		local n
		for n in "$R1" "$R2"; do
			if [ "$1" = bareudp ]; then
				nsx "$n" ip link add tun0 type bareudp dstport 6635 ethertype ipv4
			else
				nsx "$n" ip link add tun0 type geneve external innerprotoinherit
			fi || return 1
			nsx "$n" ip link set tun0 mtu 1400 up || return 1
		done
		tc_tunnel "$R1" r1c tun0 10.2.0.1 10.2.0.2 10.3.0.0/24 &&
			tc_tunnel "$R2" r2s tun0 10.2.0.2 10.2.0.1 10.1.0.0/24 ;;
	fou)
		nsx "$R1" sh -e -c '
			ip fou add port 6635 ipproto 4
			ip link add tun0 type ipip remote 10.2.0.2 local 10.2.0.1 \
				encap fou encap-sport auto encap-dport 6635
			ip link set tun0 mtu 1400 up
			ip route add 10.3.0.0/24 dev tun0' &&
		nsx "$R2" sh -e -c '
			ip fou add port 6635 ipproto 4
			ip link add tun0 type ipip remote 10.2.0.1 local 10.2.0.2 \
				encap fou encap-sport auto encap-dport 6635
			ip link set tun0 mtu 1400 up
			ip route add 10.1.0.0/24 dev tun0' ;;
	ipip-md)
		ipip_md "$R1" 1 10.2.0.1 10.2.0.2 10.3.0.0/24 &&
			ipip_md "$R2" 2 10.2.0.12 10.2.0.11 10.1.0.0/24 ;;
	esac || return 1
	wait_for 10 nsx "$C" ping -c 1 -W 1 10.3.0.1 >/dev/null
}

# ipip_md NS N LOCAL REMOTE PREFIX: NS (R1 or R2, N 1 or 2) gets a second
# underlay address 10.2.0.1N, tunx (ipip external) to receive and tun0 to
# send PREFIX from LOCAL to REMOTE.  R1 sends from 10.2.0.1 to 10.2.0.2 and
# R2 from 10.2.0.12 to 10.2.0.11, so neither fixed tunnel matches what the
# other side sends, and each side receives on its collect_md device.
ipip_md() {
	nsx "$1" sh -e -c "
		ip addr add 10.2.0.1$2/24 dev r${2}u
		ip fou add port 6635 ipproto 4
		ip link add tunx type ipip external
		ip link set tunx mtu 1400 up
		ip link add tun0 type ipip remote $4 local $3 \
			encap fou encap-sport auto encap-dport 6635
		ip link set tun0 mtu 1400 up
		ip route add $5 dev tun0"
}

# counts TX1 RX1 TX2 RX2: R1's TX1 tx_packets, R2's RX2 rx_packets, R2's
# TX2 tx_packets, R1's RX1 rx_packets (C -> S, then S -> C)
counts() {
	echo "$(ns_stat "$R1" "$1" tx_packets) $(ns_stat "$R2" "$4" rx_packets)" \
		"$(ns_stat "$R2" "$3" tx_packets) $(ns_stat "$R1" "$2" rx_packets)"
}

# verify VARIANT: 100 echo requests and replies C <-> S cross the
# variant's tunnel devices (plain: the underlay veths): each sending
# device's tx_packets and each receiving device's rx_packets grow by 100 or
# more, so a route that bypasses a tunnel fails here instead of being
# measured as that tunnel
verify() {
	local d n0 n1 ok=0
	local -a a b dev
	use "$1"
	case $1 in
	plain) dev=(r1u r1u r2u r2u) ;;
	ipip-md) dev=(tun0 tunx tun0 tunx) ;;
	*) dev=(tun0 tun0 tun0 tun0) ;;
	esac
	n0=$(counts "${dev[@]}")
	nsx "$C" ping -q -c 100 -i 0.002 -W 2 10.3.0.1 >/dev/null || return 1
	n1=$(counts "${dev[@]}")
	read -r -a a <<<"$n0"
	read -r -a b <<<"$n1"
	for d in 0 1 2 3; do
		[ $((b[d] - a[d])) -ge 100 ] || ok=1
	done
	ktap_print_msg "$1: R1 ${dev[0]} tx, R2 ${dev[3]} rx, R2 ${dev[2]} tx," \
		"R1 ${dev[1]} rx packets: $n0 -> $n1"
	return $ok
}

iperf() { # iperf ARGS...: one iperf3 run C -> S, JSON on stdout
	nsx "$S" iperf3 -s -1 -B 10.3.0.1 >/dev/null 2>&1 &
	local srv=$!
	wait_for 10 sh -c "ip netns exec $S ss -Htln | grep -q ':5201 '" || return 1
	nsx "$C" timeout $((SECS + 30)) iperf3 -c 10.3.0.1 -t "$SECS" -J "$@"
	local rc=$?
	wait "$srv"
	return $rc
}

measure() { # measure VARIANT WORKLOAD: append a "variant workload value" line
	use "$1"
	case $2 in
	tcp)
		iperf >"$tmp/tcp.json" &&
			python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(sys.argv[2], "tcp", d["end"]["sum_received"]["bits_per_second"] / 1e6)' \
				"$tmp/tcp.json" "$1" ;;
	udp64)
		iperf -u -l 64 -b 0 >"$tmp/udp.json" &&
			python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["end"]["sum"]
print(sys.argv[2], "udp64", (s["packets"] - s["lost_packets"]) / s["seconds"] / 1e3)' \
				"$tmp/udp.json" "$1" ;;
	rr)
		nsx "$C" ping -f -q -c 3000 -W 1 10.3.0.1 >"$tmp/rr" &&
			sed -n 's/.* \([0-9]*\) received.*time \([0-9]*\)ms.*/\1 \2/p' "$tmp/rr" |
			awk -v v="$1" '{ print v, "rr", $1 / $2 }' ;;
	esac >>"$tmp/samples"
}

# profile VARIANT WORKLOAD: the kernel's top symbols by self time while
# WORKLOAD (tcp or udp64) runs through VARIANT.  perf samples SECS seconds
# from 2 s into a longer run (setup and iperf3's start stay out); idle
# samples are dropped and the rest renormalised to 100 %.
profile() {
	local wl
	use "$1"
	if [ "$2" = tcp ]; then
		iperf -t $((SECS + 6)) >/dev/null &
	else
		iperf -u -l 64 -b 0 -t $((SECS + 6)) >/dev/null &
	fi
	wl=$!
	# a client that never connects would give an idle profile
	if ! wait_for 20 sh -c "ip netns exec $C ss -Htun | grep -q ':5201'"; then
		kill "$wl" 2>/dev/null
		wait "$wl"
		return 1
	fi
	sleep 2	# a warm-up before sampling, not a wait for a condition
	perf record -q -a -e cpu-clock -F 999 -o "$tmp/perf.data" \
		-- sleep "$SECS" >/dev/null 2>&1
	wait "$wl"
	echo "== $1 $2 (% of non-idle samples)"
	perf report -i "$tmp/perf.data" --stdio --no-children --sort sym \
		2>/dev/null | grep -E '^ +[0-9.]+%' |
		grep -v -E 'safe_halt|default_idle|cpuidle|do_idle|mwait' |
		awk '{ p[NR] = $1 + 0; $1 = ""; l[NR] = $0; t += p[NR] }
		     END { for (i = 1; i <= NR && i <= 40; i++)
			printf "%6.2f%% %s\n", 100 * p[i] / t, l[i] }'
}

ktap_set_plan 1
for v in $VARIANTS; do
	setup "$v" || ktap_exit_fail_msg "setup of $v failed"
	verify "$v" || ktap_exit_fail_msg "$v: its pings did not cross its tunnel"
done
: >"$tmp/samples"
# The host is shared and its speed drifts over minutes: the samples of one
# workload are taken back to back, variant after variant, so a slow spell
# hits them alike; and each round starts one variant later (round 2:
# bareudp ... fou plain), so over the rounds every variant takes every
# place in the order and a drift favours none.
read -r -a order <<<"$VARIANTS"
for r in $(seq "$ROUNDS"); do
	for w in tcp udp64 rr; do
		for v in "${order[@]}"; do
			measure "$v" "$w" || ktap_exit_fail_msg "round $r: $v: $w failed"
		done
	done
	ktap_print_msg "round $r done (${order[*]})"
	order=("${order[@]:1}" "${order[0]}")
done

python3 - "$tmp/samples" >"$tmp/table" <<'PY'
import collections, statistics, sys
s = collections.defaultdict(list)
for line in open(sys.argv[1]):
    v, w, x = line.split()
    s[(v, w)].append(float(x))
m = {k: statistics.median(x) for k, x in s.items()}
units = {"tcp": "Mbit/s", "udp64": "kpkt/s", "rr": "trans/ms"}
variants = ("plain", "bareudp", "geneve", "bu-route", "fou", "ipip-md")
# (ours, peer, {workload: target}): the same configuration on both sides
small = {"tcp": 1.0, "udp64": 1.0, "rr": 1.0}
pairs = (("bareudp", "geneve", {"tcp": 1.0, "udp64": 1.0}),
         ("bu-route", "fou", small),
         ("bareudp", "fou", small),
         ("bu-route", "ipip-md", small),
         ("bareudp", "ipip-md", small),
         ("bareudp", "plain", {"tcp": 0.85}),
         ("bu-route", "plain", {"tcp": 0.85}))
print(f"{'workload':9}" + "".join(f"{v:>10}" for v in variants))
for w in ("tcp", "udp64", "rr"):
    print(f"{w:9}" + "".join(f"{m[(v, w)]:10.2f}" for v in variants))
print()
print(f"{'ratio':18}" + "".join(f"{w:>12}" for w in ("tcp", "udp64", "rr")))
for ours, peer, tg in pairs:
    cells = []
    for w in ("tcp", "udp64", "rr"):
        r = m[(ours, w)] / m[(peer, w)]
        t = tg.get(w)
        cells.append(f"{r:6.2f}" + ("      " if t is None else (" ok   " if r >= t else " LOW  ")))
    print(f"{ours + '/' + peer:18}" + "".join(f"{c:>12}" for c in cells))
# The noise: the same ratio within each round (a workload's samples of a
# round are taken one after another, not at once), lowest to highest, and
# how many rounds meet the target.  A miss inside this range cannot be
# told from noise.
print()
print(f"{'per round':18}" + "".join(f"{w:>16}" for w in ("tcp", "udp64", "rr")))
for ours, peer, tg in pairs:
    cells = []
    for w in ("tcp", "udp64", "rr"):
        r = [a / b for a, b in zip(s[(ours, w)], s[(peer, w)])]
        t = tg.get(w)
        met = "" if t is None else f" {sum(x >= t for x in r)}/{len(r)}"
        cells.append(f"{min(r):.2f}-{max(r):.2f}{met}")
    print(f"{ours + '/' + peer:18}" + "".join(f"{c:>16}" for c in cells))
print("units: " + ", ".join(f"{w} {u}" for w, u in units.items()))
print("targets: bareudp/geneve >= 1.0 on tcp and udp64; bareudp (either) /fou and /ipip-md"
      " >= 1.0 on tcp, udp64 and rr, in the median and in 4 of 5 rounds; bareudp/plain >= 0.85 on tcp")
PY
ktap_print_msg "rounds $ROUNDS x ${SECS} s per sample, medians:"
ktap_print_msg "$(cat "$tmp/table")"
cp "$tmp/table" "${MW57_OUT:-/tmp}/bench-bareudp.txt"
cp "$tmp/samples" "${MW57_OUT:-/tmp}/bench-bareudp.samples"
# where the time goes, to explain a ratio (not part of the medians)
if command -v perf >/dev/null; then
	for w in udp64 tcp; do
		for v in bareudp geneve bu-route fou ipip-md plain; do
			profile "$v" "$w" || ktap_exit_fail_msg "profile of $v $w failed"
		done
	done >"${MW57_OUT:-/tmp}/bench-bareudp-profile.txt"
	ktap_print_msg "profiles: bench-bareudp-profile.txt"
fi
ktap_test_pass "benchmark ran: $(wc -l <"$tmp/samples") samples"
ktap_finished
