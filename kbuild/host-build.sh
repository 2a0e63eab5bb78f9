#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# host-build.sh [--root DIR] KVER OUTDIR [make args...]
#
# Build the bundle against /lib/modules/KVER/build, exactly as DKMS
# would: stage the `make dkms-install` trees (one per DKMS package) into
# OUTDIR and run `make modules` in each.  With --root, KVER's tree, OUTDIR and the build
# are inside the chroot DIR (kbuild/matrix.sh: a release's own toolchain).
# Prints one line: ok, or FAILED with the first error (or warning: any
# compiler or sparse warning fails the build) and the log's path, then
# the log's last lines.
# Nothing is loaded anywhere.
set -euo pipefail

root=
if [ "${1:-}" = --root ]; then
	root=$2
	shift 2
fi
[ $# -ge 2 ] || { echo "usage: $0 [--root DIR] KVER OUTDIR [make args...]" >&2; exit 2; }
kver=$1 out=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
kdir=/lib/modules/$kver/build
run=()
# (a private /proc for the chroot: objtool reads it; gone with the build)
[ -z "$root" ] || run=(unshare --mount --pid --fork --mount-proc="$root/proc" chroot "$root")

printf '%-28s %s ... ' "$kver" "$*"
[ -d "$root$kdir" ] || { echo "FAILED: no header tree $root$kdir"; exit 1; }
rm -rf -- "$root$out"
mkdir -p "$root$out"
make -s -C "$top" dkms-install DESTDIR="$root$out/stage"
log=$root$out/build.log
: >"$log"
n=0
for src in "$root$out"/stage/usr/src/*/; do
	src=${src%/}
	if ! "${run[@]}" make -C "${src#"$root"}" KDIR="$kdir" modules "$@" >>"$log" 2>&1; then
		echo "FAILED: ${src##*/}: $(grep -m1 -E '(error|Error)' "$log" || tail -n1 "$log") (log $log)"
		tail -n 20 "$log" | sed 's/^/  | /'
		exit 1
	fi
	n=$((n + $(find "$src/modules" -name '*.ko' | wc -l)))
done
# (7.x: a checker that kbuild finds unusable is skipped with a make warning)
if grep -q -E '(warning|error):|is not available or not up to date' "$log"; then
	echo "FAILED: $(grep -m1 -E '(warning|error):|is not available' "$log") (log $log)"
	grep -E '(warning|error):|is not available' "$log" | head -n 20 | sed 's/^/  | /'
	exit 1
fi
echo "ok ($n modules)"
