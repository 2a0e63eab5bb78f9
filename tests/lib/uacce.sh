# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# Helpers of the uacce suite, sourced after ../lib/ktap.sh.

# shellcheck source=../lib/wait.sh
. ../lib/wait.sh

# shellcheck disable=SC2034 # used by the tests
SA_DRV=/sys/bus/platform/drivers/softacc

# sa_node N: the uacce device node of platform device softacc.N, if bound
sa_node() {
	local d
	for d in /sys/bus/platform/devices/softacc."${1:-0}"/uacce/*; do
		[ -e "$d" ] && echo "/dev/${d##*/}" && return 0
	done
	return 1
}

# sa_load [PARAM=VALUE...]: (re)load softacc with PARAMs and wait for
# /dev/softacc-* of device 0
sa_load() {
	modprobe -r softacc 2>/dev/null
	modprobe softacc "$@" || return 1
	wait_for 10 sa_ready
}

# sa_ready: device 0 is bound and its node exists
sa_ready() {
	test -c "$(sa_node 0)"
}

# sa_instances DEV: available_instances of DEV (a /dev path)
sa_instances() {
	cat "/sys/class/uacce/${1##*/}/available_instances"
}

# sa_prelude: root, uacce_test built; else a TAP bail-out
sa_prelude() {
	[ "$(id -u)" -eq 0 ] || { ktap_print_header; ktap_skip_all "needs root"; }
	command -v uacce_test >/dev/null ||
		{ ktap_print_header; ktap_exit_fail_msg "uacce_test not built"; }
}
