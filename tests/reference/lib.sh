# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# ref_compare MODULE SUITE TEST...: run each test of tests/SUITE once with
# our MODULE (updates/dkms; or take the output tests/run.sh kept when the
# suite itself ran in this boot) and once with the kernel's own MODULE
# (loaded by path with insmod), compare the two result lists check by check, and
# report one TAP result per test.  Every difference must be listed in
# expected-differences ("SUITE/TEST #N: reason"): an upstream bug we fix,
# or an extension upstream lacks.  An undocumented difference fails (ours
# to fix, or to document) when it shows again in a second run of both; a
# documented one that no longer differs is reported.  Sourced after
# ../lib/ktap.sh.

ref_tmp=$(mktemp -d /tmp/mw57-ref.XXXXXX)
# raw outputs of this boot's earlier suites (tests/run.sh keeps them)
ref_saved=${MW57_OUT:-/nonexistent}/tap
ref_mod=
ref_ours_failed=0

ref_cleanup() {
	# leave our module loaded for the suites that follow
	[ -z "$ref_mod" ] || ref_load ours >/dev/null 2>&1
	rm -rf "$ref_tmp"
}
trap ref_cleanup EXIT

# ref_load ours|reference: unload MODULE, load the wanted one, and check by
# srcversion that it is the one in /sys/module
ref_load() {
	local path deps want
	if [ "$1" = ours ]; then path=$ref_ours; else path=$ref_ref; fi
	if [ -d "/sys/module/$ref_mod" ]; then
		modprobe -r "$ref_mod" 2>/dev/null || rmmod "$ref_mod" || return 1
	fi
	if [ "$1" = ours ]; then
		modprobe "$ref_mod" || return 1
	else
		deps=$(modinfo -F depends "$path" | tr ',' ' ')
		# shellcheck disable=SC2086 # a list of module names
		[ -z "$deps" ] || modprobe -a $deps || return 1
		insmod "$path" || return 1
	fi
	# (the debug kernel sets MODULE_SRCVERSION_ALL: in-tree modules have one)
	want=$(modinfo -F srcversion "$path")
	[ -n "$want" ] && [ "$(cat "/sys/module/$ref_mod/srcversion")" = "$want" ]
}

# ref_results FILE: "N ok|fail" per top-level result of a test's TAP
ref_results() {
	awk '/^ok [0-9]+/ { print $2, ($0 ~ /# SKIP/ ? "skip" : "ok") }
	     /^not ok [0-9]+/ { print $3, "fail" }' "$1"
}

# ref_run KIND SUITE TEST [again]: TEST's TAP with the KIND module in
# $ref_tmp/KIND.tap (ours: the suite's own run from this boot when there is
# one, unless "again")
ref_run() {
	local kind=$1 suite=$2 t=$3 rc=0
	if [ "$kind" = ours ] && [ -z "${4:-}" ] && [ -s "$ref_saved/$suite/$t" ]; then
		cp "$ref_saved/$suite/$t" "$ref_tmp/ours.tap"
		rc="(the $suite suite's run)"
	elif ! ref_load "$kind"; then
		ktap_print_msg "$suite/$t: cannot load the $kind $ref_mod"
		return 1
	else
		(cd "../$suite" && timeout -k 10 900 "./$t" </dev/null) \
			>"$ref_tmp/$kind.tap" 2>&1 || rc=$?
	fi
	# a failure of ours in any run fails the comparison
	[ "$kind" != ours ] || ! grep -q '^not ok' "$ref_tmp/ours.tap" || ref_ours_failed=1
	ktap_print_msg "$suite/$t with the $kind $ref_mod: exit $rc," \
		"$(ref_results "$ref_tmp/$kind.tap" | awk '{ c[$2]++ }
			END { printf "%d ok, %d fail, %d skip", c["ok"], c["fail"], c["skip"] }')"
}

# ref_join OUT: "N ours reference" per check of the last two runs, in OUT;
# plain files, no <(...): a failure here must not read as "no difference"
ref_join() {
	ref_results "$ref_tmp/ours.tap" | sort -k1,1 >"$ref_tmp/ours.res"
	ref_results "$ref_tmp/reference.tap" | sort -k1,1 >"$ref_tmp/ref.res"
	[ -s "$ref_tmp/ours.res" ] &&
		join -a1 -a2 -e missing -o 0,1.2,2.2 "$ref_tmp/ours.res" \
			"$ref_tmp/ref.res" >"$ref_tmp/joined.u" &&
		sort -n "$ref_tmp/joined.u" >"$1"
}

# ref_why SUITE/TEST N: the documented reason for a difference in check N
ref_why() {
	# (sed, not xargs: the reasons contain apostrophes)
	grep -m1 -F "$1 #$2:" expected-differences | cut -d: -f2- | sed 's/^ *//'
}

# ref_compare MODULE SUITE TEST...: see the top of this file.  A difference
# nobody documented is checked once more: both modules run the test again
# (ours too, even when the suite's run was reused), and only a check that
# differs again counts as undocumented; one that does not is reported as a
# one-off (a timing flake in one run, not a difference in behaviour).
ref_compare() {
	local suite=$2 t n st ref_st desc diffs undocumented why again
	ref_mod=$1
	shift 2
	ref_ours=$(find "/lib/modules/$(uname -r)/updates" -name "$ref_mod.ko*" | head -n1)
	ref_ref=$(find "/lib/modules/$(uname -r)/kernel" -name "$ref_mod.ko*" | head -n1)
	[ -n "$ref_ours" ] || ktap_exit_fail_msg "our $ref_mod is not installed"
	[ -n "$ref_ref" ] || ktap_exit_fail_msg "this kernel has no reference $ref_mod"
	ktap_print_msg "ours: $ref_ours"
	ktap_print_msg "reference: $ref_ref"
	ktap_set_plan $#
	for t in "$@"; do
		ref_ours_failed=0
		if ! ref_run ours "$suite" "$t" || ! ref_run reference "$suite" "$t"; then
			ktap_test_fail "$suite/$t: cannot load a $ref_mod"
			continue
		fi
		if ! ref_join "$ref_tmp/joined"; then
			ktap_test_fail "$suite/$t: no result list to compare"
			continue
		fi
		# undocumented differences: once more with both
		again=
		while read -r n st ref_st; do
			[ "$st" = "$ref_st" ] || [ -n "$(ref_why "$suite/$t" "$n")" ] ||
				again+=" #$n"
		done <"$ref_tmp/joined"
		if [ -n "$again" ]; then
			ktap_print_msg "undocumented differences in$again: both run $t again"
			if ! ref_run ours "$suite" "$t" again ||
				! ref_run reference "$suite" "$t" ||
				! ref_join "$ref_tmp/joined.again"; then
				ktap_test_fail "$suite/$t: the second run failed"
				continue
			fi
		fi
		diffs=0 undocumented=0
		while read -r n st ref_st; do
			[ "$st" != "$ref_st" ] || continue
			diffs=$((diffs + 1))
			desc=$(grep -m1 -E "^(not )?ok $n " "$ref_tmp/ours.tap" |
				sed -E 's/^(not )?ok [0-9]+ //')
			why=$(ref_why "$suite/$t" "$n")
			if [ -n "$why" ]; then
				why="documented: $why"
			elif [[ " $again " != *" #$n "* ]] ||
				awk -v n="$n" '$1 == n && $2 != $3 { f = 1 } END { exit !f }' \
					"$ref_tmp/joined.again"; then
				undocumented=$((undocumented + 1))
				why=UNDOCUMENTED
			else
				diffs=$((diffs - 1))
				why="once only: the same in the second run, a one-off"
			fi
			ktap_print_msg "  #$n $desc: ours $st, reference $ref_st ($why)"
		done <"$ref_tmp/joined"
		grep -oE "^$suite/$t #[0-9]+" expected-differences | sed 's/.*#//' >"$ref_tmp/documented"
		while read -r n; do
			read -r _ st ref_st <<<"$(awk -v n="$n" '$1 == n' "$ref_tmp/joined")"
			[ "${st:-}" != "${ref_st:-}" ] ||
				ktap_print_msg "  #$n is documented as a difference but both give '${st:-nothing}'"
		done <"$ref_tmp/documented"
		if [ "$ref_ours_failed" = 1 ]; then
			ktap_test_fail "$suite/$t: fails with our $ref_mod"
			continue
		fi
		ktap_test_result "$suite/$t: $diffs differences from the reference, $undocumented undocumented" \
			test "$undocumented" = 0
	done
	ktap_finished
}
