#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The last test of the suite: softacc and uacce unload cleanly, leaving no
# class, no device node and no debugfs directory behind.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

sa_prelude
ktap_print_header
ktap_set_plan 2
modprobe softacc || ktap_exit_fail_msg "cannot load softacc"
ktap_test_result "modprobe -r softacc uacce" modprobe -r softacc uacce
ktap_test_result "nothing left: module, /sys/class/uacce, /dev/softacc-*, debugfs" \
	sh -c "! grep -qE '^(softacc|uacce) ' /proc/modules && ! test -e /sys/class/uacce &&
		! ls /dev/softacc-* 2>/dev/null && ! test -e /sys/kernel/debug/softacc"
ktap_finished
