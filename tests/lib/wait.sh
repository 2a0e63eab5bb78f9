# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# Bounded polling for the guest tests (instead of sleeps).

# wait_for SECONDS CMD...: run CMD every 0.1 s until it succeeds; fails
# after SECONDS.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}
