# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash disable=SC2034 # KSFT_* are for the tests
#
# TAP 13 reporting for shell tests, with kselftest's names and exit codes:
#
#   ktap_print_header            "TAP version 13"
#   ktap_begin [root]            the header; with root, a skip of
#                                everything when not run as root
#   ktap_set_plan N              "1..N"
#   ktap_test_pass DESC          "ok N DESC"
#   ktap_test_fail DESC          "not ok N DESC"
#   ktap_test_skip DESC REASON   "ok N DESC # SKIP REASON"
#   ktap_test_result DESC CMD..  pass or fail on CMD's exit status
#   ktap_print_msg MSG...        "# MSG"
#   ktap_exit_fail_msg MSG       "Bail out! MSG", exit 1
#   ktap_skip_all REASON         plan 0, "# SKIP", exit 4
#   ktap_finished                "# Totals: ...", exit 0 / 1 / 4
#
# Exit codes: 0 pass, 1 fail, 4 skip (every test skipped).  A human line
# "TEST: <desc> [ OK ]" accompanies each result as a diagnostic.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

KTAP_N=0
KTAP_PASS=0
KTAP_FAIL=0
KTAP_SKIP=0
KTAP_PLAN=

ktap_print_header() {
	echo "TAP version 13"
}

ktap_begin() {
	ktap_print_header
	[ "${1:-}" != root ] || [ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
}

ktap_set_plan() {
	KTAP_PLAN=$1
	echo "1..$1"
}

ktap_print_msg() {
	local line
	printf '%s\n' "$*" | while IFS= read -r line; do
		echo "# $line"
	done
}

_ktap_human() { # _ktap_human DESC VERDICT
	printf '# TEST: %-60s [%s]\n' "$1" "$2"
}

ktap_test_pass() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_PASS=$((KTAP_PASS + 1))
	_ktap_human "$1" " OK "
	echo "ok $KTAP_N $1"
}

ktap_test_fail() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAIL=$((KTAP_FAIL + 1))
	_ktap_human "$1" FAIL
	echo "not ok $KTAP_N $1"
}

ktap_test_skip() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_SKIP=$((KTAP_SKIP + 1))
	_ktap_human "$1" SKIP
	echo "ok $KTAP_N $1 # SKIP ${2:-no reason given}"
}

ktap_test_result() { # ktap_test_result DESC CMD...
	local desc=$1
	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

ktap_print_totals() {
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL xfail:0 xpass:0 skip:$KTAP_SKIP error:0"
}

ktap_exit_fail_msg() {
	echo "Bail out! $*"
	ktap_print_totals
	exit "$KSFT_FAIL"
}

ktap_skip_all() {
	echo "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

ktap_finished() {
	ktap_print_totals
	if [ -n "$KTAP_PLAN" ] && [ "$KTAP_N" -ne "$KTAP_PLAN" ]; then
		echo "# planned $KTAP_PLAN tests but ran $KTAP_N"
		exit "$KSFT_FAIL"
	fi
	if [ "$KTAP_FAIL" -gt 0 ]; then
		exit "$KSFT_FAIL"
	fi
	if [ "$KTAP_N" -gt 0 ] && [ "$KTAP_SKIP" -eq "$KTAP_N" ]; then
		exit "$KSFT_SKIP"
	fi
	exit "$KSFT_PASS"
}
