#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
#   kbuild/probes.sh [--root CHROOT] KDIR
#
# Print the outcome of every feature probe (kbuild/probes.mk) for the
# kernel build tree KDIR (inside CHROOT: a tree of kbuild/matrix.sh's
# chroots), one NAME=y|n a line: the set that decides which
# code the compat header builds.  Debian's header packages split a tree in
# two (KDIR's Makefile includes the -common tree, where the headers are);
# a full tree is its own source tree.
set -euo pipefail

root=
if [ "${1:-}" = --root ]; then
	root=$2
	shift 2
fi
[ $# -eq 1 ] || { echo "usage: $0 [--root CHROOT] KDIR" >&2; exit 2; }
kdir=$root$1
src=$(sed -n 's:^include \(/.*\)/Makefile$:\1:p' "$kdir/Makefile" 2>/dev/null | head -n1)
src=${src:+$root$src}
src=${src:-$kdir}
[ -d "$src/include/linux" ] || { echo "probes: no kernel headers in $src" >&2; exit 1; }
# (a make of its own: no flags or directory lines of a calling make)
MAKEFLAGS='' MAKELEVEL='' make -s --no-print-directory -f "$(dirname "$0")/probes-print.mk" \
	srctree="$src" | grep -E '^[A-Z0-9_]+=[yn]$'
[ "${PIPESTATUS[0]}" -eq 0 ]
