#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Test 11: device isolation (the 6.12 isolate attributes, offered on both
# kernels).  FAIL jobs are device errors; isolate_strategy N isolates at N
# errors within an hour; an isolated device refuses threshold writes
# (EPERM) and new queues (EIO, our documented choice) until the debugfs
# reset.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

sa_prelude
ktap_print_header
sa_load nr_queues=4 || ktap_exit_fail_msg "cannot load softacc"
dev=$(sa_node 0)
s=/sys/class/uacce/${dev##*/}
reset=/sys/kernel/debug/softacc/${dev##*/}/reset
ktap_set_plan 10

ktap_test_result "isolate_strategy: 65536 is refused (EINVAL)" \
	sh -c "! echo 65536 >$s/isolate_strategy 2>/dev/null"
ktap_test_result "isolate_strategy: 2 is accepted and reads back" \
	sh -c "echo 2 >$s/isolate_strategy && grep -qx 2 $s/isolate_strategy"
ktap_test_result "one FAIL job completes with -EIO; not isolated yet" \
	sh -c "uacce_test fail $dev 1 && grep -qx 0 $s/isolate"
ktap_test_result "a second FAIL job isolates the device: isolate reads 1" \
	sh -c "uacce_test fail $dev 1 && grep -qx 1 $s/isolate"
ktap_test_result "isolate_strategy cannot be written while isolated (EPERM)" \
	sh -c "! echo 3 >$s/isolate_strategy 2>/dev/null && grep -qx 2 $s/isolate_strategy"
out=$(uacce_test open "$dev")
ktap_test_result "a new queue on the isolated device is refused with EIO ($out)" \
	test "$out" = "Input/output error"
ktap_test_result "debugfs reset clears the isolation" \
	sh -c "echo 1 >$reset && grep -qx 0 $s/isolate"
ktap_test_result "the device runs jobs again" uacce_test data "$dev" 20
ktap_test_result "isolate_strategy 0: five FAIL jobs never isolate" \
	sh -c "echo 0 >$s/isolate_strategy && uacce_test fail $dev 5 && grep -qx 0 $s/isolate"
ktap_test_result "available_instances is back to 4" test "$(sa_instances "$dev")" = 4
ktap_finished
