# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# The kernel log of a window of time, found by a marker written into it:
# a marker, not a line count or `dmesg -C` (the runner attributes every log
# line to the test that was running, so no test may clear the log).

# kmsg_mark: write a unique marker line into the kernel log, print it
kmsg_mark() {
	local m=mw57-mark-$$-$RANDOM$RANDOM
	echo "$m" >/dev/kmsg || return 1
	echo "$m"
}

# kmsg_since MARK: the kernel log from MARK on
kmsg_since() {
	dmesg | sed -n "/$1/,\$p"
}

# kmsg_grep MARK PATTERN: the kernel log from MARK on has a line with PATTERN
kmsg_grep() {
	kmsg_since "$1" | grep -q -- "$2"
}
