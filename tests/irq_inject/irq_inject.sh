#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# irq_inject on real guest interrupts (QEMU q35, -smp 2, virtio devices):
#
#   virtioN-config  PCI-MSI(X) edge   best target: its handler always
#                                     returns IRQ_HANDLED
#   i8042 (1), rtc0 (8)  IO-APIC edge
#   acpi (9)        IO-APIC fasteoi   level-triggered: EINVAL
#   an irq with a descriptor but no action, and one without descriptor:
#                                     EINVAL
#
# Every injection must show up in /proc/interrupts exactly once, every
# refusal must inject nothing.  Needs root and the loaded module.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/irq_inject.sh
. ../lib/irq_inject.sh

irqinj_prelude
command -v irq-inject >/dev/null || ktap_exit_fail_msg "irq-inject not on PATH"

pids=()
tmp=$(mktemp -d /tmp/irqinj.XXXXXX)
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
	grep -q '^irq_inject ' /proc/modules || modprobe irq_inject
}
trap cleanup EXIT

ktap_set_plan 24

vcfg=$(irq_by_action 'virtio[0-9]+-config')
vname=$(tr ',' '\n' <"/sys/kernel/irq/$vcfg/actions" | grep -xE 'virtio[0-9]+-config' | head -n1)
ktap_print_msg "virtio config irq: $vcfg ($vname)"

# -- interface -----------------------------------------------------------
ktap_test_result "debugfs: inject is 0200, stats is 0400" \
	test "$(stat -c %a "$INJECT") $(stat -c %a "$STATS")" = "200 400"

# -- virtio config: 1 and 1000, found by name -----------------------------
check_burst() { # check_burst NAME COUNT
	local irq=$1 n=$2 before after out s0
	[[ $irq =~ ^[0-9]+$ ]] || irq=$(irq_by_action "$1") || return 1
	s0=$(stats_field "$irq" succeeded)
	before=$(irq_count "$irq")
	out=$(irq-inject -n "$n" "$1") || { echo "# $out"; return 1; }
	after=$(irq_count "$irq")
	ktap_print_msg "$out; stats succeeded $s0 -> $(stats_field "$irq" succeeded)"
	[ $((after - before)) -eq "$n" ] &&
		[ $(($(stats_field "$irq" succeeded) - s0)) -eq "$n" ] &&
		[ "$(stats_field "$irq" last_errno)" -eq 0 ] &&
		[[ $out == *"injected $n, /proc/interrupts +$n" ]]
}
ktap_test_result "virtio config by name: 1 injection, delta 1" check_burst "$vname" 1
ktap_test_result "virtio config by name: 1000 injections, delta 1000" check_burst "$vname" 1000
ktap_test_result "virtio config by number: 3 injections, delta 3" check_burst "$vcfg" 3

# -- IO-APIC edge targets -------------------------------------------------
for name in i8042 rtc0; do
	ktap_test_result "IO-APIC edge $name: 1 injection, delta 1" check_burst "$name" 1
done

# -- refusals inject nothing ------------------------------------------------
refused() { # refused IRQ INPUT ERRNO
	local before after got
	before=$(irq_count "$1")
	got=$(raw_write "$INJECT" "$2")
	after=$(irq_count "$1")
	if [ "$got" != "$3" ] || [ "$before" -ne "$after" ]; then
		ktap_print_msg "input '$2': $got (want $3), delta $((after - before))"
		return 1
	fi
}
acpi=$(irq_by_action acpi)
ktap_test_result "level acpi irq $acpi: EINVAL, nothing injected" refused "$acpi" "$acpi" EINVAL
explains() { # explains PATTERN CMD...: CMD fails and says PATTERN
	local pat=$1 out
	shift
	out=$("$@" 2>&1) && return 1
	ktap_print_msg "$out"
	grep -qiE "$pat" <<<"$out"
}
ktap_test_result "level acpi irq: irq-inject explains level-triggered" \
	explains level-triggered irq-inject acpi

unreq=
for d in /sys/kernel/irq/*; do
	[ -s "$d/actions" ] && [ -n "$(tr -d '\n' <"$d/actions")" ] && continue
	unreq=$(basename "$d")
	break
done
if [ -n "$unreq" ]; then
	ktap_test_result "unrequested irq $unreq: EINVAL" refused "$vcfg" "$unreq" EINVAL
else
	ktap_test_fail "unrequested irq: none found in /sys/kernel/irq"
fi
ktap_test_result "irq without descriptor (1000000): EINVAL" refused "$vcfg" 1000000 EINVAL
ktap_test_result "timer irq 0: EPERM, nothing injected" refused 0 0 EPERM

malformed=("" "\n" "-1" "+$vcfg" " $vcfg" "$vcfg " "${vcfg}x" "$vcfg 0" "$vcfg -1"
	"$vcfg 10001" "$vcfg 4294967296" "99999999999999999999" "$vcfg 1 1" "$vcfg  1"
	"$vcfg\n\n" "0x$vcfg" "$vcfg\t1" "$vcfg\x001")
bad=0
for in in "${malformed[@]}"; do
	refused "$vcfg" "$in" EINVAL || bad=$((bad + 1))
done
ktap_test_result "malformed input (${#malformed[@]} forms): EINVAL, nothing injected" test "$bad" -eq 0
ktap_test_result "oversized input (33 bytes): EINVAL" refused "$vcfg" "$(printf '%033d' 1)" EINVAL
at_bound() { # 10000 injections in one write: every one delivered
	local got
	got=$(raw_write "$INJECT" "$vcfg 10000")
	[ "$got" = OK ] && return
	ktap_print_msg "$vcfg 10000: $got; stats: $(grep -E "^(irq|$vcfg) " "$STATS" | tr '\n' ';')"
	return 1
}
ktap_test_result "COUNT at the bound (10000) accepted by the parser" at_bound

# -- privileges ------------------------------------------------------------
nocap() {
	local before after got
	before=$(irq_count "$vcfg")
	got=$(setpriv --inh-caps=-sys_admin --bounding-set=-sys_admin -- \
		python3 -c "$RAW_WRITE_PY" "$INJECT" "$vcfg")
	after=$(irq_count "$vcfg")
	ktap_print_msg "root without CAP_SYS_ADMIN: $got (open:ERRNO would be an open-time refusal), delta $((after - before))"
	[ "$got" = EPERM ] && [ "$before" -eq "$after" ]
}
ktap_test_result "root without CAP_SYS_ADMIN: EPERM at write, nothing injected" nocap
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
unprivileged() {
	local before after got
	before=$(irq_count "$vcfg")
	got=$(as_nobody python3 -c "$RAW_WRITE_PY" "$INJECT" "$vcfg")
	after=$(irq_count "$vcfg")
	ktap_print_msg "unprivileged: $got, delta $((after - before))"
	[ "$got" = open:EACCES ] && [ "$before" -eq "$after" ]
}
# (debugfs is mode 0700: the path lookup fails before the file's own mode)
ktap_test_result "unprivileged user: EACCES at open, nothing injected" unprivileged
ktap_test_result "irq-inject explains the refusal to a non-root user" \
	explains 'refused: injecting interrupts needs root with CAP_SYS_ADMIN' \
	as_nobody "$(command -v irq-inject)" "$vcfg"

# -- bursts held long: run_max ---------------------------------------------
# With run_max=100 a burst of 10000 pauses 150 ms after every 100
# injections (at least 14.85 s): a burst known to be running cannot end
# while the steps below look at it.  SIGINT ends it with EINTR.
RUN_MAX=/sys/module/irq_inject/parameters/run_max
long_burst() { # long_burst OUT: a held burst into $vcfg, started; sets lb_pid
	local req0
	req0=$(($(stats_field "$vcfg" requested) + 10000))
	# python itself in the background (not raw_write's subshell): $! gets the SIGINT
	python3 -c "$RAW_WRITE_PY" "$INJECT" "$vcfg 10000" >"$1" &
	lb_pid=$!
	pids+=("$lb_pid")
	wait_for 20 burst_running "$req0"
}
burst_running() { [ "$(stats_field "$vcfg" requested)" -ge "$1" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
echo 100 >"$RUN_MAX" || ktap_exit_fail_msg "cannot set run_max"

# the run: 250 injections into rtc0 (its handler returns IRQ_NONE for
# them) never go more than 100 without a 150 ms pause (a stall of the
# guest may end a run earlier: at most 100, not exactly 100)
paced() {
	local rtc out longest
	rtc=$(irq_by_action rtc0) || return 1
	out=$(raw_write "$INJECT" "$rtc 250")
	longest=$(stats_field "$rtc" longest_run)
	ktap_print_msg "rtc0 (irq $rtc) 250: $out, longest run $longest"
	[ "$out" = OK ] && [ "$longest" -ge 1 ] && [ "$longest" -le 100 ]
}
ktap_test_result "run_max=100: 250 injections, no run longer than 100 without a pause" paced
ktap_test_result "run_max refuses 0 and 50001" \
	sh -c "! echo 0 >$RUN_MAX 2>/dev/null && ! echo 50001 >$RUN_MAX 2>/dev/null && grep -qx 100 $RUN_MAX"

# a second writer waits for the running burst (one burst at a time)
serialised() {
	local s0 p2 r1 r2
	long_burst "$tmp/w1" || { ktap_print_msg "burst did not start"; return 1; }
	s0=$(stats_field "$vcfg" requested)
	raw_write "$INJECT" "$vcfg 1" >"$tmp/w2" &
	p2=$!
	pids+=("$p2")
	# still waiting after 2 s (a bounded poll, not a sleep)
	if wait_for 2 gone "$p2"; then
		ktap_print_msg "the second writer finished during the burst: $(cat "$tmp/w2")"
		kill -INT "$lb_pid"
		wait "$lb_pid"
		return 1
	fi
	kill -INT "$lb_pid"
	wait "$lb_pid" "$p2"
	r1=$(cat "$tmp/w1") r2=$(cat "$tmp/w2")
	ktap_print_msg "burst: $r1 (SIGINT), second writer: $r2, requested $s0 -> $(stats_field "$vcfg" requested)"
	[ "$r1 $r2" = "EINTR OK" ] && [ "$(stats_field "$vcfg" requested)" -eq $((s0 + 1)) ]
}
ktap_test_result "a second writer waits for the running burst, then injects" serialised

# rmmod during a burst: refused (the writer's open file pins the module),
# the burst goes on until SIGINT (EINTR), then the module unloads
succeeded_above() { [ "$(stats_field "$vcfg" succeeded)" -gt "$1" ]; }
unload_during_burst() {
	local out rc=0 s0 went_on=no r3
	long_burst "$tmp/w3" || { ktap_print_msg "burst did not start"; return 1; }
	out=$(rmmod irq_inject 2>&1) || rc=$?
	s0=$(stats_field "$vcfg" succeeded)
	wait_for 5 succeeded_above "$s0" && went_on=yes
	kill -INT "$lb_pid"
	wait "$lb_pid"
	r3=$(cat "$tmp/w3")
	ktap_print_msg "rmmod during the burst: rc=$rc, $out; the burst went on: $went_on; after SIGINT: $r3"
	[ "$rc" -ne 0 ] && [[ $out == *"is in use"* ]] && [ "$went_on" = yes ] && [ "$r3" = EINTR ] &&
		rmmod irq_inject && modprobe irq_inject && [ -e "$INJECT" ]
}
ktap_test_result "rmmod during a burst: refused as in use, the burst goes on, then unload and reload" \
	unload_during_burst
ktap_test_result "after reload: virtio config 10 injections, delta 10" check_burst "$vname" 10

listing() {
	local lst
	lst=$(irq-inject --list) || return 1
	ktap_print_msg "$lst"
	grep -qE "^ *$vcfg +edge .* yes +.*$vname" <<<"$lst" &&
		grep -qE "^ *$acpi +[a-z]+ .* no +acpi" <<<"$lst"
}
ktap_test_result "irq-inject --list: $vname injectable, acpi not" listing
no_nobody_cared() { ! dmesg | grep -q 'nobody cared'; }
ktap_test_result "no 'nobody cared' in the kernel log" no_nobody_cared

ktap_finished
