#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The kernel's own tools/testing/selftests/net/bareudp.sh, extracted by
# run-vm from this kernel series' linux-source package, run unchanged
# against our module.  Its exit code 4 (a failed setup, e.g. no bareudp)
# is a failure here, and exactly 10 "[ OK ]" checks are required.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
series=$(uname -r | cut -d. -f1-2)
script=$(dirname "${MW57_OUT:-/mnt/out/x}")/selftests/$series/bareudp.sh
[ -s "$script" ] || ktap_exit_fail_msg "no extracted selftest at $script"
for m in bareudp mpls_router mpls_iptunnel; do
	modprobe "$m" || ktap_exit_fail_msg "cannot load $m"
done

ktap_set_plan 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# (in its directory: 7.x's sources ./lib.sh)
(cd "$(dirname "$script")" && bash ./bareudp.sh) >"$out" 2>&1
rc=$?
ktap_print_msg "$(cat "$out")"
ktap_test_result "bareudp.sh from linux-source-$series exits 0 (got $rc; 4 = setup failed)" \
	test "$rc" -eq 0
ktap_test_result "exactly 10 checks report [ OK ] ($(grep -c '\[ OK \]' "$out"))" \
	test "$(grep -c '\[ OK \]' "$out")" -eq 10
ktap_test_result "no check reports [FAIL]" sh -c "! grep -q '\[FAIL\]' '$out'"
ktap_finished
