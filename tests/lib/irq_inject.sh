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
import ctypes, errno, os, signal, sys
data = sys.argv[2].encode().decode("unicode_escape").encode("latin-1")
name = lambda n: errno.errorcode.get(n, str(n))
# SIGINT ends the write (EINTR), not this program: one write(2), no retry
signal.signal(signal.SIGINT, lambda *_: None)
try:
    fd = os.open(sys.argv[1], os.O_WRONLY)
except OSError as e:
    sys.exit(print("open:" + name(e.errno)))
libc = ctypes.CDLL(None, use_errno=True)
n = libc.write(fd, data, len(data))
print("OK" if n == len(data) else name(ctypes.get_errno()) if n < 0 else "short:%d" % n)
'

# raw_write FILE BYTES: one open(2) and one write(2) of BYTES (backslash
# escapes allowed) to FILE; prints OK, the write's errno name (EINTR after
# a SIGINT), or open:ERRNO when the open failed.
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

# irqinj_prelude: the TAP header, root (else a skip) and the module loaded
# (else a bail-out); for the tests that inject
irqinj_prelude() {
	ktap_begin root
	[ -e "$INJECT" ] || { modprobe irq_inject && [ -e "$INJECT" ]; } ||
		ktap_exit_fail_msg "irq_inject is not loaded and cannot be loaded"
}
