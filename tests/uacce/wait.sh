#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Test 10: with remove_policy=wait, unbinding the driver waits until every
# queue is closed (HiSilicon's policy), then completes; a process that
# unbinds while holding a queue itself can be interrupted, which revokes.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

sa_prelude
ktap_print_header
unbinder=
cleanup() {
	exec 4>&- 2>/dev/null
	[ -n "$unbinder" ] && wait "$unbinder" 2>/dev/null
	echo revoke >/sys/module/softacc/parameters/remove_policy 2>/dev/null
	echo softacc.0 >"$SA_DRV/bind" 2>/dev/null
}
trap cleanup EXIT
sa_load nr_queues=4 || ktap_exit_fail_msg "cannot load softacc"
ktap_set_plan 7

ktap_test_result "remove_policy accepts wait (and refuses junk)" \
	sh -c "echo wait >/sys/module/softacc/parameters/remove_policy &&
		! echo junk >/sys/module/softacc/parameters/remove_policy 2>/dev/null &&
		grep -qx wait /sys/module/softacc/parameters/remove_policy"
dev=$(sa_node 0)
exec 4<>"$dev"		# one open queue
# the unbinder must not inherit the queue's fd
sh -c "echo softacc.0 >$SA_DRV/unbind" 4>&- &
unbinder=$!
gone() { ! kill -0 "$unbinder" 2>/dev/null; }
# it must still be waiting after 3 s (a bounded poll, not a sleep)
still_waiting() { ! wait_for 3 gone; }
ktap_test_result "unbind blocks while a queue is open (still waiting after 3 s)" still_waiting
refuses() { # the open fails with ENODEV (softacc's get_queue while removing)
	local out
	out=$(uacce_test open "$dev" 4>&-) && return 1
	ktap_print_msg "a new queue: $out"
	[ "$out" = "No such device" ]
}
ktap_test_result "the blocked device refuses new queues: ENODEV" refuses
exec 4>&-
ktap_test_result "closing the queue lets unbind complete" wait_for 30 gone
rc=0
wait "$unbinder" || rc=$?
unbinder=
ktap_test_result "unbind succeeded and the device is unbound (rc $rc)" \
	sh -c "[ $rc -eq 0 ] && ! test -e /sys/bus/platform/devices/softacc.0/driver"

rebind() { echo softacc.0 >"$SA_DRV/bind" && wait_for 10 sa_ready; }
rebind || ktap_exit_fail_msg "cannot bind again"
dev=$(sa_node 0)
# holds a queue and unbinds: waits for itself until a signal
bash -c "exec 5<>$dev; echo softacc.0 >$SA_DRV/unbind" &
unbinder=$!
ktap_test_result "a process unbinding while holding a queue blocks" still_waiting
kill -TERM "$unbinder"
unbound() { wait_for 20 gone && ! test -e /sys/bus/platform/devices/softacc.0/driver; }
ktap_test_result "SIGTERM ends its wait: the queue is revoked, the device unbound" unbound
wait "$unbinder" 2>/dev/null
unbinder=
ktap_finished
