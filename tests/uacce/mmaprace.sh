#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# mmap against remove: in each round a process maps and unmaps a queue's
# DUS region in a loop while softacc.0 is unbound, keeping the mapping
# made as the queue died.  ->mmap fills the page tables before the core
# links the VMA into the file's mapping tree, so a zap that does not wait
# for the racing mmap misses it; after the unbind that mapping must give
# SIGBUS (uacce_test mmaprace).  The rounds say how often the kept mapping
# came from the race.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

rounds=12
sa_prelude
ktap_print_header
tmp=$(mktemp -d /tmp/uacce-mmaprace.XXXXXX)
racer=
cleanup() {
	exec 3>&- 2>/dev/null
	[ -n "$racer" ] && kill "$racer" 2>/dev/null
	wait 2>/dev/null
	echo softacc.0 >"$SA_DRV/bind" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
# shellcheck disable=SC2119 # no module parameters
sa_load || ktap_exit_fail_msg "cannot load softacc"
ktap_set_plan "$rounds"

rebind() { echo softacc.0 >"$SA_DRV/bind" && wait_for 10 sa_ready; }
# round N: one racer against one unbind; the racer's exit status is the result
round() {
	local rc=0
	rm -f "$tmp/go" && mkfifo "$tmp/go"
	uacce_test mmaprace "$(sa_node 0)" <"$tmp/go" >"$tmp/out" 2>&1 &
	racer=$!
	exec 3>"$tmp/go"
	if wait_for 30 grep -q '^# ready' "$tmp/out" &&
		echo softacc.0 >"$SA_DRV/unbind"; then
		echo go >&3
	else
		kill "$racer"
	fi
	exec 3>&-
	wait "$racer" || rc=$?
	racer=
	ktap_print_msg "round $1: $(grep -v '^#' "$tmp/out")"
	rebind || ktap_exit_fail_msg "cannot bind softacc.0 again"
	return "$rc"
}
for i in $(seq 1 "$rounds"); do
	ktap_test_result "round $i: a mapping made while softacc.0 goes away is revoked" round "$i"
done
ktap_finished
