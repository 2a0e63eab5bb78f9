#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# With every /dev/raw-gadget fd closed, raw_gadget unloads cleanly (and is
# loaded again for whatever runs next).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
ktap_set_plan 2
ktap_test_result "no process holds /dev/raw-gadget" \
	sh -c '! fuser /dev/raw-gadget 2>/dev/null'
ktap_test_result "modprobe -r raw_gadget dummy_hcd, then load again" \
	sh -c 'modprobe -r raw_gadget && ! grep -q "^raw_gadget " /proc/modules &&
		modprobe -r dummy_hcd && modprobe raw_gadget'
ktap_finished
