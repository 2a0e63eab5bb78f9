#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Test 7: close with a full SQ of long jobs, SIGKILL mid-batch; stop_queue
# waits for the job in flight, every instance comes back, no splat (the
# runner checks the log).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/uacce.sh
. ../lib/uacce.sh

sa_prelude
sa_load nr_queues=4 || { ktap_print_header; ktap_exit_fail_msg "cannot load softacc"; }
exec uacce_test closework "$(sa_node 0)"
