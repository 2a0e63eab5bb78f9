#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Robustness: rg_fuzz (random ioctls from 4 threads on shared fds, closes
# and signals during blocking calls) for 30 s on dummy_hcd num=2, then
# raw_gadget must unload with no fd left.  Splats and taint are checked
# for the whole run by tests/run.sh.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

rg_prog_start rg_fuzz num=2
rg_fuzz "${RG_FUZZ_SECONDS:-30}" 4
rc=$?
# after the fuzzer: no fd left, and the module goes away cleanly
if [ $rc -eq 0 ]; then
	wait_for 10 sh -c '! fuser -s /dev/raw-gadget' &&
		modprobe -r raw_gadget && modprobe raw_gadget || rc=1
	echo "# unload after the fuzzer: $([ $rc -eq 0 ] && echo ok || echo FAILED)"
fi
exit $rc
