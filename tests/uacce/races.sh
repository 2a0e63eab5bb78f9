#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Test 13: for 20 s, workers loop open / mmap / START_Q / submit / check /
# close on two devices while softacc.0 is unbound and bound again in a
# loop and every sysfs attribute is read.  Errors of a vanishing device are
# expected; wrong results, hangs and splats (checked by the runner) are
# not.  Afterwards both devices work and every instance is back.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

SECS=${RACE_SECS:-20}
sa_prelude
ktap_print_header
tmp=$(mktemp -d /tmp/uacce-races.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	echo softacc.0 >"$SA_DRV/bind" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
sa_load nr_devs=2 nr_queues=4 || ktap_exit_fail_msg "cannot load softacc nr_devs=2"
d0=$(sa_node 0) d1=$(sa_node 1)
ktap_set_plan 4

i=0
for d in "$d0" "$d0" "$d1"; do
	uacce_test churn "$d" "$SECS" >"$tmp/churn$i" 2>&1 &
	pids+=($!)
	i=$((i + 1))
done
# cycle for as long as the workers run (their SECS), not for a time of
# its own: a loaded debug guest manages 5 cycles in 20 s, an idle one
# many more; the check below needs only proof of several cycles
workers() { local p; for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
cycles=0
while workers; do
	echo softacc.0 >"$SA_DRV/unbind" 2>/dev/null
	cat /sys/class/uacce/*/* >/dev/null 2>&1
	echo softacc.0 >"$SA_DRV/bind" 2>/dev/null
	cat /sys/class/uacce/*/* >/dev/null 2>&1
	cycles=$((cycles + 1))
done
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
pids=()
ktap_print_msg "$(cat "$tmp"/churn*)"
ktap_test_result "unbind/bind cycles ran beside the workers ($cycles, at least 2)" \
	test "$cycles" -ge 2
ktap_test_result "every worker finished without a wrong result" test "$rc" -eq 0
d0=$(sa_node 0)
ktap_test_result "afterwards both devices run 50 jobs correctly" \
	sh -c "uacce_test data $d0 50 && uacce_test data $d1 50"
ktap_test_result "every instance is back (4 and 4)" \
	test "$(sa_instances "$d0") $(sa_instances "$d1")" = "4 4"
ktap_finished
