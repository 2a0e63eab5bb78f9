#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# host-build.sh KVER OUTDIR [make args...]
#
# Build the bundle on the host against /lib/modules/KVER/build, exactly as
# DKMS would: stage the `make dkms-install` file list into OUTDIR and run
# `make modules` there.  Any compiler or sparse warning fails the build.
# Nothing is loaded anywhere.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 KVER OUTDIR [make args...]" >&2; exit 2; }
kver=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=/lib/modules/$kver/build
[ -d "$kdir" ] || { echo "host-build: no header tree $kdir" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
make -s -C "$top" dkms-install DESTDIR="$out/stage"
src=$(echo "$out"/stage/usr/src/mw57-*)
log=$out/build.log

printf '%-28s %s ... ' "$kver" "$*"
if ! make -C "$src" KDIR="$kdir" modules "$@" >"$log" 2>&1; then
	echo FAILED
	tail -n 40 "$log"
	exit 1
fi
if grep -E '(warning|error):' "$log"; then
	echo "FAILED (warnings, see $log)"
	exit 1
fi
echo "ok ($(find "$src/modules" -name '*.ko' | wc -l) modules)"
