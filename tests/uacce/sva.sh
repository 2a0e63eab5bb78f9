#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Test 12: SVA negotiation falls back.  softacc request_sva=1 asks uacce
# for UACCE_DEV_SVA; a platform parent has no IOMMU, so enabling IOPF
# fails with -ENODEV, the flag is dropped (flags reads 0), and the device
# works in non-SVA mode.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/kmsg.sh
. ../lib/kmsg.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

sa_prelude
ktap_print_header
trap 'modprobe -r softacc 2>/dev/null' EXIT
modprobe -r softacc 2>/dev/null
marker=$(kmsg_mark)
sa_load request_sva=1 || ktap_exit_fail_msg "cannot load softacc request_sva=1"
dev=$(sa_node 0)
ktap_set_plan 3
ktap_test_result "SVA requested: flags reads 0" grep -qx 0 "/sys/class/uacce/${dev##*/}/flags"
log=$(kmsg_since "$marker")
ktap_print_msg "$log"
ktap_test_result "the log says: failed to enable IOPF feature! ret = -ENODEV" \
	grep -q 'failed to enable IOPF feature! ret = -ENODEV' <<<"$log"
ktap_test_result "open, map and 50 jobs work in the fallback mode" uacce_test data "$dev" 50
ktap_finished
