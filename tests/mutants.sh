#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
#   tests/mutants.sh [NAME...]      (make mutants [MUTANTS="NAME..."])
#
# Proof that the suites catch the bugs we say we designed out: each
# tests/mutants/NAME.patch puts one known bug back.  Its header says what
# and where from, and which tests on which kernel must catch it:
#
#   Mutant: <the change>
#   Bug: <the upstream fix or the issue it undoes>
#   Kernel: <one label of tests/run-vm.sh>
#   Tests: <SUITE/TEST>...
#
# For each mutant (all of them without arguments), one at a time: the
# committed tree in a scratch directory, the patch applied, and that
# tree's tests/run-vm.sh with those tests on that kernel.  A mutant is
# caught when a test fails (its DKMS build included), and survives when
# all pass.  Prints one table row per mutant, with the failed tests.  Not
# part of make check: minutes of guest time per mutant.  Exit status 0
# when every mutant was caught, 1 when one survived or could not run.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/tests/mutants
out=$top/build/mutants/$(date +%Y%m%d-%H%M%S)

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for p in "$dir"/*.patch; do
		n=${p##*/}
		names+=("${n%.patch}")
	done
fi
mkdir -p "$out"
# field FILE NAME: the header line "NAME: value" of a mutant
field() { sed -n "s/^$2: //p" "$1" | head -n 1; }

printf '%-34s %-8s %-9s %s\n' mutant kernel verdict "caught by" | tee "$out/table"
survivors=0
for n in "${names[@]}"; do
	p=$dir/$n.patch
	w=$out/$n
	mkdir -p "$w/tree"
	kernel=$(field "$p" Kernel 2>/dev/null)
	read -r -a tests <<<"$(field "$p" Tests 2>/dev/null)"
	verdict='' by=''
	if [ ! -f "$p" ] || [ -z "$kernel" ] || [ ${#tests[@]} -eq 0 ]; then
		verdict=ERROR by="no $p with Kernel: and Tests: lines"
	elif ! git -C "$top" archive HEAD | tar -x -C "$w/tree" ||
		! patch -d "$w/tree" -p1 --batch --forward <"$p" >"$w/apply.log" 2>&1; then
		# (patch, not git apply: inside the repository's build/, git
		# apply skips every path outside the current directory, and says
		# nothing)
		verdict=ERROR by="does not apply to HEAD: $(tail -n 1 "$w/apply.log")"
	else
		args=()
		for t in "${tests[@]}"; do args+=(--test "$t"); done
		"$w/tree/tests/run-vm.sh" --kernel "$kernel" "${args[@]}" --out "$w/run" \
			>"$w/run.log" 2>&1
		rc=$?
		# the summary's failure lines: "  FAIL  <area>: <test> (...)"
		by=$(sed -n 's/^ *FAIL  \([^(]*\).*/\1/p' "$w/run.log" | sed 's/ *$//' |
			paste -sd ';' -)
		if [ "$rc" -eq 0 ]; then
			verdict=SURVIVED by=-
		elif [ -n "$by" ]; then
			verdict=caught
		else
			verdict=ERROR by="run-vm exit $rc without a failed test: $w/run.log"
		fi
	fi
	[ "$verdict" = caught ] || survivors=$((survivors + 1))
	printf '%-34s %-8s %-9s %s\n' "$n" "$kernel" "$verdict" "$by" | tee -a "$out/table"
	rm -rf "$w/tree"
done
echo "mutants: ${#names[@]} run, $survivors not caught; logs in $out"
[ "$survivors" -eq 0 ]
