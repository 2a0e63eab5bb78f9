#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Tests 8 and 9: the driver goes away while a process holds queues (jobs
# queued, both regions mapped, a poller blocked), once by rmmod softacc
# with a second device node (mknod in tmpfs) also in use, once by sysfs
# unbind then bind.  The holder (uacce_test hold) checks SIGBUS on both
# regions of every queue, ENXIO from ioctl and mmap, the poller woken,
# close working.  uacce stays pinned until the last file is closed.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

sa_prelude
ktap_print_header
tmp=$(mktemp -d /tmp/uacce-revoke.XXXXXX)
holder=
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	wait 2>/dev/null
	echo softacc.0 >"$SA_DRV/bind" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
sa_load nr_queues=4 || ktap_exit_fail_msg "cannot load softacc"
ktap_set_plan 8

# hold NODE...: start the holder on NODEs, wait until it is ready
hold() {
	rm -f "$tmp/go" && mkfifo "$tmp/go"
	uacce_test hold "$@" <"$tmp/go" >"$tmp/out" 2>&1 &
	holder=$!
	exec 3>"$tmp/go"
	wait_for 30 grep -q '^# ready' "$tmp/out"
}
# release DESC: let the holder check the revoked queues
release() {
	local rc=0
	echo go >&3
	exec 3>&-
	wait "$holder" || rc=$?
	holder=
	ktap_print_msg "$(cat "$tmp/out")"
	ktap_test_result "$1" test "$rc" -eq 0
}

dev=$(sa_node 0)
IFS=: read -r ma mi <"/sys/class/uacce/${dev##*/}/dev"
mknod "$tmp/alias" c "$ma" "$mi" || ktap_exit_fail_msg "cannot mknod a second node"
hold "$dev" "$tmp/alias" || ktap_exit_fail_msg "the holder did not get ready: $(cat "$tmp/out")"
ktap_test_result "rmmod softacc with two held queues (two nodes) succeeds" rmmod softacc
# delete_module(2) itself: rmmod refuses a module in use on its own (from
# /sys/module/*/refcnt) before any system call
in_use() {
	local got
	got=$(python3 -c 'import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.syscall(176, sys.argv[1].encode(), os.O_NONBLOCK)  # SYS_delete_module
print("OK" if r == 0 else errno.errorcode[ctypes.get_errno()])' uacce)
	ktap_print_msg "delete_module(uacce, O_NONBLOCK): $got"
	[ "$got" = EAGAIN ] && [ -d /sys/module/uacce ]
}
ktap_test_result "uacce cannot go while their files are open: delete_module gives EWOULDBLOCK" \
	in_use
release "revoked queues of both nodes: SIGBUS on MMIO and DUS, ENXIO, poll woken, close works"
ktap_test_result "rmmod uacce succeeds once the last file is closed" rmmod uacce

sa_load nr_queues=4 || ktap_exit_fail_msg "cannot load softacc again"
dev=$(sa_node 0)
hold "$dev" || ktap_exit_fail_msg "the holder did not get ready: $(cat "$tmp/out")"
ktap_test_result "unbind softacc.0 with a held queue succeeds (revoke)" \
	sh -c "echo softacc.0 >$SA_DRV/unbind && ! test -e /sys/bus/platform/devices/softacc.0/uacce"
release "revoked queue after unbind: SIGBUS, ENXIO, poll woken, close works"
rebind() { echo softacc.0 >"$SA_DRV/bind" && wait_for 10 sa_ready; }
ktap_test_result "bind softacc.0 again: a node appears" rebind
rc=0
out=$(uacce_test data "$(sa_node 0)" 50 2>&1) || rc=$?
ktap_test_result "the rebound device ($(sa_node 0)) runs 50 jobs correctly ($out)" test "$rc" -eq 0
ktap_finished
