#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# summarize.sh RUNDIR LABEL...
#
# Read RUNDIR/<label>/results.tap (the guest's second serial port) for each
# kernel label, print a table per kernel and, as the last line,
# "N passed, N failed, N skipped".  Results are counted at the leaves: a
# test whose output carries its own TAP results counts those, any other
# line counts itself.  A kernel whose stream lacks the sentinel
# "# vmtest: done" (panic, hang, timeout) or whose plan does not match
# counts as a failure.  Before the totals, each failed test is listed
# again with its failed checks and the diagnostics just before them, so
# that the tail of a CI log says why.  Exit 1 on any failure, and on any skip unless
# MW57_ALLOW_SKIP=1: everything the suites need is in the guest.
set -u

[ $# -ge 2 ] || { echo "usage: $0 RUNDIR LABEL..." >&2; exit 2; }
run=$1
shift
tp=0 tf=0 ts=0
details=$(mktemp)
trap 'rm -f "$details"' EXIT

for label in "$@"; do
	tap=$run/$label/results.tap
	[ -f "$tap" ] || : >"$tap"
	echo "kernel $label:"
	table=$(tr -d '\r' <"$tap" | awk -v label="$label" '
		function flush(top_ok) {
			if (np + nf + ns > 0) {
				P += np; F += nf; S += ns
				if (!top_ok && nf == 0) F++
			} else if (top_ok == 1) P++
			else if (top_ok == 2) S++
			else F++
			np = nf = ns = 0
		}
		# why a test failed: its failed checks with up to three lines
		# before each, or (none failed: a crash, a timeout, a failed
		# setup) its last five lines; at most 20 lines a test
		function detail(name,   i, j, n, shown) {
			print "DETAIL   " label ": " name
			for (i = 0; i < nb && n < 20; i++)
				if (body[i] ~ /^# not ok [0-9]+ /)
					for (j = (i > 3 ? i - 3 : 0); j <= i && n < 20; j++)
						if (!(j in shown)) { print "DETAIL       " body[j]; shown[j] = 1; n++ }
			if (n == 0)
				for (i = (nb > 5 ? nb - 5 : 0); i < nb; i++)
					print "DETAIL       " body[i]
		}
		!/^(ok|not ok) [0-9]+ / { body[nb++] = $0 }
		/^1\.\.[0-9]+/ && !plan { plan = substr($1, 4) + 0; next }
		/^# vmtest: done/ { done = 1; next }
		/^# (ok|not ok) [0-9]+ / {
			if ($0 ~ /# SKIP/) { ns++; print "    skip: " substr($0, 3) }
			else if ($2 == "ok") np++
			else nf++
			next
		}
		/^(ok|not ok) [0-9]+ / {
			top++
			st = ($1 == "ok") ? (($0 ~ /# SKIP/) ? 2 : 1) : 0
			name = substr($0, index($0, label ": ") + length(label) + 2)
			printf "  %-5s %s\n", (st == 1 ? "ok" : st == 2 ? "SKIP" : "FAIL"), name
			if (st == 0)
				detail(name)
			nb = 0
			flush(st)
		}
		END {
			if (!done) {
				F++
				print "  FAIL  guest did not finish (timeout, panic or hang)"
			} else if (top != plan) {
				F++
				printf "  FAIL  plan was %d results, got %d\n", plan, top
			}
			print "COUNTS", P + 0, F + 0, S + 0
		}')
	grep -v -E '^(COUNTS|DETAIL) ' <<<"$table"
	# an unfinished guest: say why when the console knows
	if ! grep -q '^# vmtest: done' "$tap" 2>/dev/null; then
		why=$(grep -a -m1 -E 'Kernel panic|BUG:|WARNING:' "$run/$label/console.log" 2>/dev/null |
			sed 's/^\[ *[0-9.]*\] //')
		[ -n "$why" ] && echo "        console: $why"
		[ -f "$run/$label/qemu.rc" ] && [ "$(cat "$run/$label/qemu.rc")" = 124 ] &&
			echo "        qemu was stopped by the VM timeout"
	fi
	# why each failed test failed, gathered for the end of the output
	sed -n 's/^DETAIL //p' <<<"$table" >>"$details"
	read -r _ p f s < <(grep '^COUNTS ' <<<"$table")
	echo "kernel $label: $p passed, $f failed, $s skipped"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
done
if [ -s "$details" ]; then
	echo "failures (last lines of each failed test's output):"
	cat "$details"
fi
echo "logs: $run"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ] || exit 1
[ "$ts" -eq 0 ] || [ "${MW57_ALLOW_SKIP:-0}" = 1 ] || exit 1
exit 0
