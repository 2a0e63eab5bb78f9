# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash disable=SC2034 # used by the scripts that source it
#
# What in a kernel log is a failure: BUG, WARNING, KASAN, UBSAN, lockdep,
# hung task, "nobody cared", refcount and kmemleak reports, oopses and
# panics.  One pattern for tests/run.sh (the guest's log, test by test)
# and tests/summarize.sh (the console log).
MW57_SPLAT='BUG:|WARNING:|KASAN:|UBSAN:|refcount_t:|kmemleak:.*new suspected|'
MW57_SPLAT+='INFO: task .* blocked for more than|scheduling while atomic|'
MW57_SPLAT+='nobody cared|Oops|general protection fault|INFO: possible|'
MW57_SPLAT+='INFO: trying to register non-static key|Kernel panic'
