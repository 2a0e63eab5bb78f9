#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# irq_inject under kernel lockdown: a write through a descriptor opened
# before `integrity` lockdown is refused with EPERM by the module's own
# check (debugfs refuses new opens by itself).  Lockdown cannot be undone,
# so the runner runs this after every other suite ("final" in settings).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/irq_inject.sh
. ../lib/irq_inject.sh

LOCKDOWN=/sys/kernel/security/lockdown
ktap_begin root
# another suite may have unloaded it (packaging does)
[ -e "$INJECT" ] || { modprobe irq_inject && [ -e "$INJECT" ]; } ||
	ktap_exit_fail_msg "irq_inject is not loaded and cannot be loaded"
[ -w "$LOCKDOWN" ] || ktap_exit_fail_msg "no $LOCKDOWN (securityfs not mounted?)"
grep -q '\[none\]' "$LOCKDOWN" || ktap_exit_fail_msg "already locked down: $(cat "$LOCKDOWN")"
ktap_set_plan 3

vcfg=$(irq_by_action 'virtio[0-9]+-config')
before=$(irq_count "$vcfg")
got=$(python3 - "$INJECT" "$LOCKDOWN" "$vcfg" <<'PY'
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
with open(sys.argv[2], "w") as f:
    f.write("integrity")
try:
    os.write(fd, sys.argv[3].encode())
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])
PY
)
after=$(irq_count "$vcfg")
ktap_print_msg "lockdown: $(cat "$LOCKDOWN"); write: $got; delta $((after - before))"
ktap_test_result "lockdown=integrity is in force" grep -q '\[integrity\]' "$LOCKDOWN"
ktap_test_result "write on an fd opened before lockdown: EPERM" test "$got" = EPERM
ktap_test_result "nothing injected under lockdown" test "$before" -eq "$after"
ktap_finished
