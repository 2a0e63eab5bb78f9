#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# With every /dev/raw-gadget fd closed, raw_gadget unloads cleanly (and is
# loaded again for whatever runs next).  An open file holds a module
# reference, so the module's refcnt is what says whether one is left:
# fuser also lists the O_PATH descriptor with which udev sets a new
# node's permissions (seen on the debug kernel, right after fuzz.sh
# loaded the module again), which pins nothing.  The check is shown
# able to fail with a file of its own held open.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
ktap_set_plan 3
refcnt() { cat /sys/module/raw_gadget/refcnt; }
exec 3<>/dev/raw-gadget
held=$(refcnt)
exec 3>&-
ktap_test_result "an open /dev/raw-gadget holds the module (refcnt $held with ours open)" \
	test "$held" -ge 1
ktap_test_result "no open /dev/raw-gadget is left (refcnt $(refcnt); fuser: $(
	fuser /dev/raw-gadget 2>&1 | xargs))" test "$(refcnt)" -eq 0
ktap_test_result "modprobe -r raw_gadget dummy_hcd, then load again" \
	sh -c 'modprobe -r raw_gadget && ! grep -q "^raw_gadget " /proc/modules &&
		modprobe -r dummy_hcd && modprobe raw_gadget'
ktap_finished
