#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# summarize.sh RUNDIR LABEL...
#
# Read RUNDIR/<label>/results.tap (the guest's second serial port) for each
# guest label, print its results, a suite x kernel table, the ten slowest
# tests, the failures again (each with its failed checks and the
# diagnostics just before them, so that the tail of a CI log says why),
# write RUNDIR/results.xml (JUnit), and end with the line
# "N passed, N failed, N skipped".
#
# Results are counted at the leaves: a test whose output carries its own
# TAP results counts those, any other line counts itself.  It fails
# closed: a guest that did not finish (no "# vmtest: done": panic, hang,
# timeout), a plan that does not match, a nested plan that does not match
# its results (a test that stopped early), a "Bail out!", a guest whose
# preparation failed or that left no results, a kernel splat in a guest's
# console log, a guest kernel other than the host's headers
# (RUNDIR/<label>/versions), a suite asked for that ran nowhere
# (RUNDIR/not-run), a parse that fails, and a total of zero all count as
# failures.  Exit 1 on any failure, and on any skip unless
# MW57_ALLOW_SKIP=1: everything the suites need is in the guest.
set -u

[ $# -ge 2 ] || { echo "usage: $0 RUNDIR LABEL..." >&2; exit 2; }
# shellcheck source=lib/splat.sh
. "$(dirname "$0")/lib/splat.sh"
run=$1
shift
tp=0 tf=0 ts=0
# each guest's kernel and counts, for kbuild/support-table.sh (anew on a rerun)
: >"$run/kernels.tsv"
details=$(mktemp)
records=$(mktemp)
notes=$(mktemp)
trap 'rm -f "$details" "$records" "$notes"' EXIT

# parse LABEL: the guest's results as lines for the caller:
#   LINE  text for the terminal
#   REC   label<tab>name<tab>ok|FAIL|SKIP<tab>passed<tab>failed<tab>skipped<tab>seconds<tab>why
#   DETAIL  a line of the failure details
#   COUNTS passed failed skipped
parse() {
	tr -d '\r' <"$run/$1/results.tap" | awk -v label="$1" '
		function flush(st, name,   why, d) {
			why = ""
			# the runner directive ("# exit=1", "# TIMEOUT ...") is a reason
			if ((d = index(name, " # ")) > 0) {
				why = substr(name, d + 3)
				name = substr(name, 1, d - 1)
				if (st == 2) why = ""
			}
			if (nplan != "" && nplan != np + nf + ns) {
				why = (why != "" ? why ", " : "") "nested plan " nplan ", " (np + nf + ns) " results"
				nf++
			}
			if (bail) { why = (why != "" ? why ", " : "") "Bail out!"; nf++ }
			if (np + nf + ns > 0) {
				# a failed test whose checks all passed still fails
				if (st == 0 && nf == 0) nf++
			} else if (st == 1) np = 1
			else if (st == 2) ns = 1
			else nf = 1
			if (nf > 0) st = 0
			P += np; F += nf; S += ns
			printf "REC\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", label, name,
				(st == 1 ? "ok" : st == 2 ? "SKIP" : "FAIL"), np, nf, ns, took + 0, why
			printf "LINE   %-5s %s%s\n", (st == 1 ? "ok" : st == 2 ? "SKIP" : "FAIL"), name,
				(why != "" ? " (" why ")" : "")
			if (st == 0)
				detail(name, why)
			np = nf = ns = 0; nplan = ""; bail = 0; nb = 0; took = 0
		}
		# why a test failed: its failed checks with up to three lines
		# before each, or (none failed: a crash, a timeout, a failed
		# setup) its last five lines; at most 20 lines a test
		function detail(name, why,   i, j, n, shown) {
			print "DETAIL   " label ": " name (why != "" ? " (" why ")" : "")
			for (i = 0; i < nb && n < 20; i++)
				if (body[i] ~ /^# (not ok [0-9]+ |Bail out!)/)
					for (j = (i > 3 ? i - 3 : 0); j <= i && n < 20; j++)
						if (!(j in shown)) { print "DETAIL       " body[j]; shown[j] = 1; n++ }
			if (n == 0)
				for (i = (nb > 5 ? nb - 5 : 0); i < nb; i++)
					print "DETAIL       " body[i]
		}
		!/^(ok|not ok) [0-9]+ / { body[nb++] = $0 }
		/^1\.\.[0-9]+/ && !plan { plan = substr($1, 4) + 0; next }
		/^# vmtest: done/ { done = 1; next }
		/^# took [0-9]+ s/ { took = $3; next }
		/^# 1\.\.[0-9]+/ { nplan += substr($2, 4) + 0; next }
		/^# Bail out!/ { bail = 1; next }
		/^# (ok|not ok) [0-9]+ / {
			if ($0 ~ /# SKIP/) { ns++; print "LINE     skip: " substr($0, 3) }
			else if ($2 == "ok") np++
			else nf++
			next
		}
		/^(ok|not ok) [0-9]+ / {
			top++
			st = ($1 == "ok") ? (($0 ~ /# SKIP/) ? 2 : 1) : 0
			name = substr($0, index($0, label ": ") + length(label) + 2)
			flush(st, name)
		}
		END {
			why = ""
			if (!done)
				why = "guest did not finish (timeout, panic or hang)"
			else if (top != plan)
				why = sprintf("plan was %d results, got %d", plan, top)
			if (why != "") {
				F++
				print "LINE   FAIL  " why
				print "DETAIL   " label ": " why
				printf "REC\t%s\tvmtest: the guest\tFAIL\t0\t1\t0\t0\t%s\n", label, why
			}
			print "COUNTS", P + 0, F + 0, S + 0
		}'
}

# stall_note LABEL CONSOLE: what a guest's console says about a boot that
# stalled before its harness printed anything (tests/run-vm.sh sent it an
# NMI: every task's state and stack follow the panic line) or panicked:
# its last lines before the NMI or up to the panic, then the tasks that
# were not sleeping interruptibly
stall_note() {
	local c=$run/$1/$2
	[ -s "$c" ] || { echo "  $1: $2 is empty" >>"$notes"; return; }
	{
		echo "  $1: $2, the last lines before the NMI (or up to the panic):"
		awk '/NMI received|NMI handler/ { exit } { print } /Kernel panic/ { exit }' "$c" |
			tail -n 8 | sed 's/^/      /'
		echo "  $1: tasks running or blocked then (state R or D):"
		awk '/^\[ *[0-9.]+\] task:/ { on = ($0 ~ / state:[RD] /); n = 0 }
			on && n++ < 14 { print; f = 1 }
			END { if (!f) print "(none: every task slept or idled)" }' "$c" |
			head -n 40 | sed 's/^/      /'
	} >>"$notes"
}

for label in "$@"; do
	echo "kernel $label:"
	if [ -f "$run/$label/stalled-once" ]; then
		stall=$(cat "$run/$label/stalled-once")
		if [ "$stall" = 0 ]; then
			echo "  note  the first boot ended before its harness printed; booted again"
		else
			echo "  note  the first boot stalled: no TAP after $stall s; booted again"
		fi
		stall_note "$label" console.stalled.log
	fi
	p=0 f=0 s=0
	why=
	if [ -f "$run/$label/prepare-failed" ]; then
		why="not run: $(cat "$run/$label/prepare-failed")"
	elif [ ! -s "$run/$label/results.tap" ]; then
		why="no results (the guest did not start or printed nothing, see $run/$label/console.log)"
		[ ! -f "$run/$label/stalled" ] || why+="; both boots stalled or ended"
		stall_note "$label" console.log
	elif ! out=$(parse "$label") || ! grep -q '^COUNTS ' <<<"$out"; then
		why="cannot read results.tap"
	fi
	if [ -n "$why" ]; then
		echo "  FAIL  $why"
		echo "  $label: $why" >>"$details"
		printf '%s\tvmtest: the guest\tFAIL\t0\t1\t0\t0\t%s\n' "$label" "$why" >>"$records"
		f=1
	else
		sed -n 's/^LINE //p' <<<"$out"
		grep '^REC' <<<"$out" | cut -f2- >>"$records"
		sed -n 's/^DETAIL //p' <<<"$out" >>"$details"
		read -r _ p f s < <(grep '^COUNTS ' <<<"$out")
		# the console too: what the kernel said before the runner
		# started, after it ended, or when the guest died
		if splats=$(grep -a -E "$MW57_SPLAT" "$run/$label/console.log" 2>/dev/null); then
			echo "  FAIL  the console log has a kernel splat"
			{ echo "  $label: the console log has a kernel splat:"
				head -n 10 <<<"$splats" | sed 's/^/      /'; } >>"$details"
			printf '%s\tvmtest: console log\tFAIL\t0\t1\t0\t0\tkernel splat\n' "$label" >>"$records"
			f=$((f + 1))
		fi
		# an unfinished guest: say why when the console knows
		if ! grep -q '^# vmtest: done' "$run/$label/results.tap"; then
			why=$(grep -a -m1 -E 'Kernel panic|BUG:|WARNING:' "$run/$label/console.log" 2>/dev/null |
				sed 's/^\[ *[0-9.]*\] //')
			[ -z "$why" ] || echo "        console: $why"
			[ "$(cat "$run/$label/qemu.rc" 2>/dev/null)" != 124 ] ||
				echo "        qemu was stopped by the VM timeout"
			if [ -f "$run/$label/hung" ]; then
				echo "        silent for $(cat "$run/$label/hung") s: the host sent an NMI"
				stall_note "$label" console.log
			fi
		fi
	fi
	# a main boot: the host's headers and the guest's kernel must agree
	if [ -f "$run/$label/versions" ]; then
		read -r hv gv <"$run/$label/versions"
		if [ "$hv" = "$gv" ]; then
			echo "  ok    host headers $hv = guest kernel $gv"
		else
			echo "  FAIL  host headers $hv, guest kernel $gv (make deps; the image follows the archive)"
			echo "  $label: host headers $hv, guest kernel $gv" >>"$details"
			f=$((f + 1))
		fi
	fi
	echo "kernel $label: $p passed, $f failed, $s skipped"
	printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$(cat "$run/${label%%[@+]*}/kver" 2>/dev/null)" \
		"$p" "$f" "$s" >>"$run/kernels.tsv"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
done

# what was asked for and not planned (tests/run-vm.sh)
if [ -s "$run/not-run" ]; then
	while IFS= read -r why; do
		echo "FAIL  $why"
		echo "  $why" >>"$details"
		tf=$((tf + 1))
	done <"$run/not-run"
fi

# suite x kernel: passed/failed/skipped and seconds
if [ -s "$records" ]; then
	echo "suites (passed/failed/skipped, seconds):"
	awk -F '\t' '
		{
			split($2, a, ": ")
			suite = (a[2] != "" && $2 !~ /^(dkms|module|kernel):/) ? a[1] : "(harness)"
			k = $1; sub(/[+@].*/, "", k)
			if (!(k in seenk)) { seenk[k] = 1; ks[nk++] = k }
			if (!(suite in seens)) { seens[suite] = 1; ss[ns++] = suite }
			p[suite, k] += $4; f[suite, k] += $5; s[suite, k] += $6; t[suite, k] += $7
			has[suite, k] = 1
		}
		END {
			printf "  %-16s", ""
			for (j = 0; j < nk; j++) printf " %-18s", ks[j]
			printf "\n"
			for (i = 0; i < ns; i++) {
				printf "  %-16s", ss[i]
				for (j = 0; j < nk; j++)
					if (has[ss[i], ks[j]])
						printf " %-18s", sprintf("%d/%d/%d %ds", p[ss[i], ks[j]],
							f[ss[i], ks[j]], s[ss[i], ks[j]], t[ss[i], ks[j]])
					else printf " %-18s", "-"
				printf "\n"
			}
		}' "$records"
	echo "slowest tests:"
	sort -t $'\t' -k7,7nr "$records" | head -n 10 |
		awk -F '\t' '{ printf "  %5d s  [%s] %s\n", $7, $1, $2 }'
fi

# when each guest ran, from the runner's start (guests before tests)
if compgen -G "$run/*/time" >/dev/null; then
	echo "timeline (seconds from the start of tests/run-vm.sh: start, end, guest):"
	for f in "$run"/*/time; do
		read -r at took <"$f"
		printf '  %6d %6d  %s\n' "$at" "$((at + took))" "$(basename "$(dirname "$f")")"
	done | sort -n
fi

# JUnit XML for CI systems, next to the TAP
xml() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }
{
	echo '<?xml version="1.0" encoding="UTF-8"?>'
	echo "<testsuites name=\"mw57\" tests=\"$((tp + tf + ts))\" failures=\"$tf\" skipped=\"$ts\">"
	for label in "$@"; do
		echo "  <testsuite name=\"$(xml <<<"$label")\">"
		awk -F '\t' -v l="$label" '$1 == l' "$records" |
			while IFS=$'\t' read -r _ name st _ _ _ secs why; do
				printf '    <testcase classname="%s" name="%s" time="%s">' \
					"$(xml <<<"$label")" "$(xml <<<"$name")" "$secs"
				case $st in
				FAIL) printf '<failure message="%s"/>' "$(xml <<<"${why:-failed}")" ;;
				SKIP) printf '<skipped/>' ;;
				esac
				echo '</testcase>'
			done
		echo "  </testsuite>"
	done
	echo "</testsuites>"
} >"$run/results.xml"

if [ "$((tp + tf + ts))" -eq 0 ]; then
	echo "  no results at all" >>"$details"
	tf=$((tf + 1))
fi
if [ -s "$details" ]; then
	echo "failures (last lines of each failed test's output):"
	cat "$details"
fi
if [ -s "$notes" ]; then
	echo "stalled guests (their console up to the host's NMI or the panic):"
	cat "$notes"
fi
echo "logs: $run (JUnit: results.xml)"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ] || exit 1
[ "$ts" -eq 0 ] || [ "${MW57_ALLOW_SKIP:-0}" = 1 ] || exit 1
exit 0
