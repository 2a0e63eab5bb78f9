#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# CRC32C and memcpy through a softacc queue against the same work done in
# the calling process, job sizes 64 B to 64 KiB (uacce_bench; softacc with
# a 256 KiB DUS).  Output: TAP diagnostics and $MW57_OUT/bench-uacce.txt.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

ktap_begin root
command -v uacce_bench >/dev/null || ktap_exit_fail_msg "uacce_bench not built"
sa_load dus_pages=64 || ktap_exit_fail_msg "cannot load softacc dus_pages=64"
trap 'modprobe -r softacc uacce 2>/dev/null' EXIT
ktap_set_plan 1
out=${MW57_OUT:-/tmp}/bench-uacce.txt
if uacce_bench "$(sa_node 0)" "${BENCH_ROUNDS:-5}" >"$out" 2>&1; then
	ktap_print_msg "$(cat "$out")"
	ktap_test_pass "benchmark ran"
else
	ktap_print_msg "$(cat "$out")"
	ktap_test_fail "benchmark failed"
fi
ktap_finished
