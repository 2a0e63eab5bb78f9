#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# checker-valid.sh CHECK [FLAGS...]: print 1 when the checker CHECK (sparse)
# checks a trivial C file cleanly with FLAGS.  The 7.x kernel Makefile runs
# scripts/checker-valid.sh before a C=1/C=2 build and skips the checker
# unless it prints 1; Debian's 7.x header packages leave that script out,
# so kbuild/matrix.sh installs this one into a chroot's header tree.
if printf 'static int mw57_x;\nint *mw57_p(void);\nint *mw57_p(void) { return &mw57_x; }\n' |
	"$@" - >/dev/null 2>&1; then
	echo 1
fi
