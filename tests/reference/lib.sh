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
# to fix, or to document); a documented one that no longer differs is
# reported.  Sourced after ../lib/ktap.sh.

ref_tmp=$(mktemp -d /tmp/mw57-ref.XXXXXX)
# raw outputs of this boot's earlier suites (tests/run.sh keeps them)
ref_saved=${MW57_OUT:-/nonexistent}/tap
ref_mod=

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

ref_compare() {
	local suite=$2 t kind n st ref_st desc diffs undocumented why rc
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
		for kind in ours reference; do
			rc=0
			if [ $kind = ours ] && [ -s "$ref_saved/$suite/$t" ]; then
				# the suite ran it with ours in this boot already
				cp "$ref_saved/$suite/$t" "$ref_tmp/ours.tap"
				rc="(the $suite suite's run)"
			elif ! ref_load $kind; then
				ktap_test_fail "$suite/$t: cannot load the $kind $ref_mod"
				continue 2
			else
				(cd "../$suite" && timeout -k 10 900 "./$t" </dev/null) \
					>"$ref_tmp/$kind.tap" 2>&1 || rc=$?
			fi
			ktap_print_msg "$suite/$t with the $kind $ref_mod: exit $rc," \
				"$(ref_results "$ref_tmp/$kind.tap" | awk '{ c[$2]++ }
					END { printf "%d ok, %d fail, %d skip", c["ok"], c["fail"], c["skip"] }')"
		done
		diffs=0 undocumented=0
		# plain files, no <(...): a failure here must not read as "no
		# difference"
		ref_results "$ref_tmp/ours.tap" | sort -k1,1 >"$ref_tmp/ours.res"
		ref_results "$ref_tmp/reference.tap" | sort -k1,1 >"$ref_tmp/ref.res"
		if ! [ -s "$ref_tmp/ours.res" ] || ! join -a1 -a2 -e missing \
			-o 0,1.2,2.2 "$ref_tmp/ours.res" "$ref_tmp/ref.res" \
			>"$ref_tmp/joined.u" || ! sort -n "$ref_tmp/joined.u" >"$ref_tmp/joined"; then
			ktap_test_fail "$suite/$t: no result list to compare"
			continue
		fi
		while read -r n st ref_st; do
			[ "$st" != "$ref_st" ] || continue
			diffs=$((diffs + 1))
			desc=$(grep -m1 -E "^(not )?ok $n " "$ref_tmp/ours.tap" |
				sed -E 's/^(not )?ok [0-9]+ //')
			# (sed, not xargs: the reasons contain apostrophes)
			why=$(grep -m1 -F "$suite/$t #$n:" expected-differences |
				cut -d: -f2- | sed 's/^ *//')
			if [ -n "$why" ]; then
				ktap_print_msg "  #$n $desc: ours $st, reference $ref_st (documented: $why)"
			else
				undocumented=$((undocumented + 1))
				ktap_print_msg "  #$n $desc: ours $st, reference $ref_st (UNDOCUMENTED)"
			fi
		done <"$ref_tmp/joined"
		grep -oE "^$suite/$t #[0-9]+" expected-differences | sed 's/.*#//' >"$ref_tmp/documented"
		while read -r n; do
			read -r _ st ref_st <<<"$(awk -v n="$n" '$1 == n' "$ref_tmp/joined")"
			[ "${st:-}" != "${ref_st:-}" ] ||
				ktap_print_msg "  #$n is documented as a difference but both give '${st:-nothing}'"
		done <"$ref_tmp/documented"
		grep -q '^not ok' "$ref_tmp/ours.tap" &&
			{ ktap_test_fail "$suite/$t: fails with our $ref_mod"; continue; }
		ktap_test_result "$suite/$t: $diffs differences from the reference, $undocumented undocumented" \
			test "$undocumented" = 0
	done
	ktap_finished
}
