# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash disable=SC2034 # the variables are for the tests
#
# Helpers shared by the irq_inject tests (sourced).

IRQINJ_DIR=/sys/kernel/debug/irq_inject
INJECT=$IRQINJ_DIR/inject
STATS=$IRQINJ_DIR/stats

# irq_count IRQ: what /proc/interrupts shows for IRQ (sum over CPUs).
irq_count() {
	tr ',' '\n' <"/sys/kernel/irq/$1/per_cpu_count" | awk '{ s += $1 } END { print s + 0 }'
}

# irq_by_action REGEX: the first irq one of whose actions matches REGEX.
irq_by_action() {
	local d
	for d in /sys/kernel/irq/*; do
		if tr ',' '\n' <"$d/actions" | grep -qxE "$1"; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

# The program behind raw_write, also run under setpriv by the tests.
RAW_WRITE_PY='
import errno, os, sys
data = sys.argv[2].encode().decode("unicode_escape").encode("latin-1")
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    print("OK")
except OSError as e:
    print(errno.errorcode.get(e.errno, str(e.errno)))
'

# raw_write FILE BYTES: one open(2) and write(2) of BYTES (backslash
# escapes allowed) to FILE; prints OK or the errno name.
raw_write() {
	python3 -c "$RAW_WRITE_PY" "$1" "$2"
}

# stats_field IRQ COLUMN: requested, succeeded or last_errno for IRQ.
stats_field() {
	awk -v irq="$1" -v col="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
		$1 == irq { print $idx[col]; found = 1 }
		END { if (!found) print 0 }' "$STATS"
}

# shellcheck source=../lib/wait.sh
. ../lib/wait.sh
