#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# dkms-install.sh DESTDIR [PACKAGE...]
#
# Write the DKMS source tree of each mw57 DKMS package (dkms/<name>.conf,
# every one by default) to DESTDIR/usr/src/<name>-<version>: its
# dkms.conf (dkms/common, PACKAGE_VERSION from kbuild/version.h, then
# dkms/<name>.conf), the build files every package shares, and the
# modules the package lists (vm/, tests/ and the rest stay out).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DESTDIR [PACKAGE...]" >&2; exit 2; }
dest=$1
shift
cd "$(dirname "$0")/.."
ver=$(kbuild/version.sh)
[ -n "$ver" ] || { echo "dkms-install: no version in kbuild/version.h" >&2; exit 1; }
pkgs=("$@")
if [ $# -eq 0 ]; then
	for c in dkms/*.conf; do
		pkgs+=("$(basename "$c" .conf)")
	done
fi
shared=(Makefile LICENSE kbuild/Kbuild.include kbuild/probes.mk kbuild/version.h
	kbuild/include modules/Kbuild include/uapi)

for p in "${pkgs[@]}"; do
	conf=dkms/$p.conf
	[ -f "$conf" ] || { echo "dkms-install: no $conf" >&2; exit 1; }
	files=("${shared[@]}")
	while read -r m; do
		files+=("$m/Kbuild")
		for f in "$m"/*.[ch]; do
			case $f in *.mod.c) ;; *) files+=("$f") ;; esac
		done
	done < <(sed -n 's|^BUILT_MODULE_LOCATION\[[0-9]*\]="\(.*\)/"$|\1|p' "$conf")
	d=$dest/usr/src/$p-$ver
	rm -rf "$d"
	mkdir -p "$d"
	cp -a --parents "${files[@]}" "$d/"
	{
		cat dkms/common
		printf '\nPACKAGE_VERSION="%s"\n' "$ver"
		sed '1{/SPDX-License-Identifier/d}' "$conf"
	} >"$d/dkms.conf"
done
