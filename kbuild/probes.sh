#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
#   kbuild/probes.sh KDIR
#
# Print the outcome of every feature probe (kbuild/probes.mk) for the
# kernel build tree KDIR, one NAME=y|n a line: the set that decides which
# code the compat header builds.  Debian's header packages split a tree in
# two (KDIR's Makefile includes the -common tree, where the headers are);
# a full tree is its own source tree.
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 KDIR" >&2; exit 2; }
kdir=$1
src=$(sed -n 's:^include \(/.*\)/Makefile$:\1:p' "$kdir/Makefile" 2>/dev/null | head -n1)
src=${src:-$kdir}
[ -d "$src/include/linux" ] || { echo "probes: no kernel headers in $src" >&2; exit 1; }
make -s -f "$(dirname "$0")/probes-print.mk" srctree="$src"
