#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# uacce_register()'s error paths under slab fault injection (failslab with
# /proc/thread-self/fail-nth).  softacc.0 is bound again and again, the
# N-th slab allocation of the binding task failing, for N = 1, 2, ...
# until a bind meets no failure.  Each failed bind must unwind cleanly:
# the runner fails this test on a KASAN, refcount or WARNING report in
# its window, and kmemleak judges the run's leaks.  Here: uacce's dev_dbg
# lines show that both failure paths (cdev_add, device_add) ran, and
# after the walk the device binds and passes a data check.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh
# shellcheck source=../lib/kmsg.sh
. ../lib/kmsg.sh

sa_prelude
ktap_print_header
ktap_set_plan 4
fs=/sys/kernel/debug/failslab
ddc=/sys/kernel/debug/dynamic_debug/control
if [ ! -w /proc/thread-self/fail-nth ] || [ ! -d "$fs" ] || [ ! -w "$ddc" ]; then
	ktap_exit_fail_msg "no fail-nth, failslab or dynamic debug (CONFIG_FAULT_INJECTION, FAILSLAB, FAULT_INJECTION_DEBUG_FS, DYNAMIC_DEBUG)"
fi
# shellcheck disable=SC2119 # no module parameters
sa_load || ktap_exit_fail_msg "cannot load softacc"
old_wait=$(cat "$fs/ignore-gfp-wait")
old_verbose=$(cat "$fs/verbose")
cleanup() {
	echo "$old_wait" >"$fs/ignore-gfp-wait"
	echo "$old_verbose" >"$fs/verbose"
	echo 'module uacce -p' >"$ddc"
	modprobe -r softacc uacce 2>/dev/null
}
trap cleanup EXIT
echo 'module uacce +p' >"$ddc"
echo 0 >"$fs/ignore-gfp-wait"	# GFP_KERNEL allocations fail too
echo 0 >"$fs/verbose"		# no stack dump per injected failure
echo softacc.0 >"$SA_DRV/unbind" || ktap_exit_fail_msg "cannot unbind softacc.0"
mark=$(kmsg_mark)

# bind_nth N: bind softacc.0 with the N-th slab allocation of this task
# failing; prints what is left of N afterwards (0: the failure happened)
bind_nth() {
	(
		echo "$1" >/proc/thread-self/fail-nth &&
			echo softacc.0 >"$SA_DRV/bind"
		read -r left </proc/thread-self/fail-nth
		echo "$left"
	) 2>/dev/null
}
said() { kmsg_since "$mark" | grep -qE "softacc\.0: $1: -[0-9]+\$"; }
n=0 failed=0 left=0 first_dev=
while [ "$left" = 0 ] && [ $n -lt 3000 ]; do
	n=$((n + 1))
	left=$(bind_nth $n)
	if [ -e "$SA_DRV/softacc.0" ]; then
		[ "$left" != 0 ] || echo softacc.0 >"$SA_DRV/unbind"
	else
		failed=$((failed + 1))
		[ -n "$first_dev" ] || ! said device_add || first_dev=$n
	fi
done
# The number of slab allocations before cdev_add's varies by one or two
# from bind to bind (allocator pools refill now and then), so the walk
# can step over the one allocation cdev_add makes: the last before
# device_add's first.  Aim at it again, up to 60 binds.
tries=0
if ! said cdev_add && [ -n "$first_dev" ]; then
	echo softacc.0 >"$SA_DRV/unbind"
	while ! said cdev_add && [ $tries -lt 60 ]; do
		tries=$((tries + 1))
		bind_nth $((first_dev - 1 - tries % 3)) >/dev/null
		[ ! -e "$SA_DRV/softacc.0" ] || echo softacc.0 >"$SA_DRV/unbind"
	done
	echo softacc.0 >"$SA_DRV/bind"
fi
log=$(kmsg_since "$mark")
ktap_print_msg "$n binds, $failed of them failed, then $tries aimed at cdev_add; uacce said: $(grep -oE 'softacc\.0: (cdev_add|device_add): -[0-9]+' <<<"$log" | sort | uniq -c | xargs)"
ktap_test_result "the walk ends: a bind with no injected failure (after $n)" \
	test "$left" != 0
ktap_test_result "uacce_register: the cdev_add failure path ran" \
	grep -qE 'softacc\.0: cdev_add: -[0-9]+$' <<<"$log"
ktap_test_result "uacce_register: the device_add failure path ran" \
	grep -qE 'softacc\.0: device_add: -[0-9]+$' <<<"$log"
works() { wait_for 10 sa_ready && uacce_test data "$(sa_node 0)" 64; }
ktap_test_result "after the walk: softacc.0 bound, 64 jobs checked" works
ktap_finished
