# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# ref_compare MODULE SUITE TEST...: run each test of tests/SUITE once with
# our MODULE (updates/dkms; or take the output tests/run.sh kept when the
# suite itself ran in this boot) and once with the kernel's own MODULE
# (loaded by path with insmod), compare the two result lists check by check, and
# report one TAP result per test.  Each side runs once.  Every difference
# must be listed in expected-differences by the check's name (an upstream
# bug we fix, or an extension upstream lacks); an undocumented difference
# fails, and so does a stale entry (its check is gone, or a "differs" entry
# whose check no longer differs).  Sourced after ../lib/ktap.sh.

# shellcheck source=../lib/modswap.sh
. ../lib/modswap.sh

ref_tmp=$(mktemp -d /tmp/mw57-ref.XXXXXX)
# raw outputs of this boot's earlier suites (tests/run.sh keeps them)
ref_saved=${MW57_OUT:-/nonexistent}/tap
ref_mod=
ref_ours_failed=0
ref_fs=$'\x1f'

ref_cleanup() {
	# leave our module loaded for the suites that follow
	[ -z "$ref_mod" ] || ref_load ours >/dev/null 2>&1
	rm -rf "$ref_tmp"
}
trap ref_cleanup EXIT

# ref_load ours|reference: unload MODULE and load the wanted one
ref_load() {
	if [ "$1" = ours ]; then
		mod_swap "$ref_mod" "$ref_ours"
	else
		mod_swap "$ref_mod" "$ref_ref"
	fi
}

# ref_results FILE: "N ok|fail" per top-level result of a test's TAP
ref_results() {
	awk '/^ok [0-9]+/ { print $2, ($0 ~ /# SKIP/ ? "skip" : "ok") }
	     /^not ok [0-9]+/ { print $3, "fail" }' "$1"
}

# ref_run KIND SUITE TEST: TEST's TAP with the KIND module in
# $ref_tmp/KIND.tap (ours: the suite's own run from this boot when there is
# one)
ref_run() {
	local kind=$1 suite=$2 t=$3 rc=0
	if [ "$kind" = ours ] && [ -s "$ref_saved/$suite/$t" ]; then
		cp "$ref_saved/$suite/$t" "$ref_tmp/ours.tap"
		rc="(the $suite suite's run)"
	elif ! ref_load "$kind"; then
		ktap_print_msg "$suite/$t: cannot load the $kind $ref_mod"
		return 1
	else
		(cd "../$suite" && timeout -k 10 900 "./$t" </dev/null) \
			>"$ref_tmp/$kind.tap" 2>&1 || rc=$?
	fi
	# a failure of ours fails the comparison
	[ "$kind" != ours ] || ! grep -q '^not ok' "$ref_tmp/ours.tap" || ref_ours_failed=1
	ktap_print_msg "$suite/$t with the $kind $ref_mod: exit $rc," \
		"$(ref_results "$ref_tmp/$kind.tap" | awk '{ c[$2]++ }
			END { printf "%d ok, %d fail, %d skip", c["ok"], c["fail"], c["skip"] }')"
}

# ref_rows: one line per check of the two runs, in order, fields split by
# $ref_fs (not a tab: read would merge empty fields): number, our
# result, the reference's (ok, fail, skip or missing), our name, the
# reference's name (without a SKIP directive)
ref_rows() {
	awk -v OFS="$ref_fs" '
		function add(side, st, off,   n, d) {
			n = $(off) + 0
			d = $0
			sub(/^(not )?ok [0-9]+ ?/, "", d)
			sub(/ # SKIP.*/, "", d)
			if (st == "ok" && $0 ~ /# SKIP/) st = "skip"
			res[side, n] = st; name[side, n] = d
			if (n > max) max = n
		}
		FNR == 1 { side++ }
		/^ok [0-9]+/ { add(side, "ok", 2) }
		/^not ok [0-9]+/ { add(side, "fail", 3) }
		END {
			for (n = 1; n <= max; n++) {
				o = ((1, n) in res) ? res[1, n] : "missing"
				r = ((2, n) in res) ? res[2, n] : "missing"
				print n, o, r, name[1, n], name[2, n]
			}
		}' "$ref_tmp/ours.tap" "$ref_tmp/reference.tap"
}

# ref_entries SUITE/TEST: the test's lines of expected-differences, as
# KIND CHECK WHY split by $ref_fs (a malformed line of any test too)
ref_entries() {
	awk -F ' [|] ' -v OFS="$ref_fs" -v t="$1" '
		/^#/ || NF == 0 { next }
		NF != 4 || ($2 != "differs" && $2 != "may differ") {
			print "malformed", $0, "expected-differences line " NR; next
		}
		$1 == t { print $2, $3, $4 }' expected-differences
}

# ref_compare MODULE SUITE TEST...: see the top of this file
ref_compare() {
	local suite=$2 t n st ref_st name ref_name i kind pat why
	local diffs undocumented stale matched
	local -a kinds pats whys seen differed
	ref_mod=$1
	shift 2
	ref_ours=$(mod_path ours "$ref_mod")
	ref_ref=$(mod_path kernel "$ref_mod")
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
		ref_rows >"$ref_tmp/rows" || true
		if ! grep -q . "$ref_tmp/rows"; then
			ktap_test_fail "$suite/$t: no result list to compare"
			continue
		fi
		kinds=() pats=() whys=() seen=() differed=()
		while IFS=$ref_fs read -r kind pat why; do
			kinds+=("$kind") pats+=("$pat") whys+=("$why")
			seen+=(0) differed+=(0)
		done < <(ref_entries "$suite/$t")
		diffs=0 undocumented=0 stale=0
		while IFS=$ref_fs read -r n st ref_st name ref_name; do
			matched=
			for i in "${!pats[@]}"; do
				[ "${kinds[i]}" != malformed ] || continue
				# shellcheck disable=SC2053 # the entry is a glob
				if [[ $name == ${pats[i]} || $ref_name == ${pats[i]} ]]; then
					matched=$i
					seen[i]=1
					break
				fi
			done
			[ "$st" != "$ref_st" ] || continue
			diffs=$((diffs + 1))
			if [ -z "$matched" ]; then
				undocumented=$((undocumented + 1))
				why=UNDOCUMENTED
			else
				differed[matched]=1
				why="${kinds[matched]}: ${whys[matched]}"
			fi
			ktap_print_msg "  #$n ${name:-$ref_name}: ours $st, reference $ref_st ($why)"
		done <"$ref_tmp/rows"
		for i in "${!pats[@]}"; do
			why=
			if [ "${kinds[i]}" = malformed ]; then
				why="cannot be read"
			elif [ "${seen[i]}" = 0 ]; then
				why="names no check of this test"
			elif [ "${kinds[i]}" = differs ] && [ "${differed[i]}" = 0 ]; then
				why="no longer differs"
			fi
			[ -n "$why" ] || continue
			stale=$((stale + 1))
			ktap_print_msg "  stale entry ($why): ${pats[i]}"
		done
		if [ "$ref_ours_failed" = 1 ]; then
			ktap_test_fail "$suite/$t: fails with our $ref_mod"
			continue
		fi
		ktap_test_result "$suite/$t: $diffs differences from the reference, $undocumented undocumented, $stale stale entries" \
			test "$undocumented" = 0 -a "$stale" = 0
	done
	ktap_finished
}
