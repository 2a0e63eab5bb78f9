#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Tests 1-6 of the spec against softacc's defaults (4 queues, 16-page DUS):
# sysfs, instance accounting, mmap rules, the ioctl state machine, the
# data path against a userspace reference, bad descriptors (uacce_test).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

sa_prelude
sa_load nr_queues=4 || { ktap_print_header; ktap_exit_fail_msg "cannot load softacc"; }
exec uacce_test basic "$(sa_node 0)" 4
