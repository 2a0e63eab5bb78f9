#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
#   kbuild/debug-kernel.sh [--key]
#
# Print the directory holding the patched debug kernel (linux-image and
# linux-headers .debs, vmlinuz, kernelrelease), building it first when it
# is not cached.  The build: extract the packaged linux-source-6.1, apply
# patches/6.1/series and then the debug kernel's own fixes
# (kbuild/debug/*.patch, never shipped), force kbuild/debug/debug.config
# onto allnoconfig, `make bindeb-pkg` through ccache.  The cache key hashes
# the source package version, those patches, the fragment and this
# script; the compiler cache (kernel-ccache) and the result live under
# MW57_CACHE, never in the repository.  --key prints only the key.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${MW57_CACHE:-/var/cache/mw57}
tarball=/usr/src/linux-source-6.1.tar.xz
fragment=$top/kbuild/debug/debug.config
series_dir=$top/patches/6.1

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
mapfile -t patches < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e "s|^|$series_dir/|" \
	"$series_dir/series")
patches+=("$top"/kbuild/debug/*.patch)
key=$({
	echo "$srcver"
	for p in "${patches[@]}"; do echo "${p#"$top"/}"; cat "$p"; done
	cat "$fragment" "$0"
} | sha256sum | cut -c1-16)
[ "${1:-}" != --key ] || { echo "$key"; exit 0; }

dir=$cache/debug-kernel-$key
mkdir -p "$cache"
exec 9>"$cache/debug-kernel.lock"
flock 9
if [ -f "$dir/kernelrelease" ]; then
	echo "$dir"
	exit 0
fi

work=$cache/debug-build
log=$cache/debug-build.log
echo "debug-kernel: building $dir (linux-source-6.1 $srcver, ${#patches[@]} patches; log $log)" >&2
start=$(date +%s)
rm -rf "$work"
mkdir -p "$work"
tar -xJf "$tarball" -C "$work"
src=$work/linux-source-6.1
for p in "${patches[@]}"; do
	patch -d "$src" -p1 -s --no-backup-if-mismatch --fuzz=0 <"$p" ||
		{ echo "debug-kernel: ${p#"$top"/} does not apply" >&2; exit 1; }
done

# Reproducible inputs, so that ccache hits across builds.
export KBUILD_BUILD_TIMESTAMP="$srcver" KBUILD_BUILD_USER=mw57 KBUILD_BUILD_HOST=mw57
export KBUILD_BUILD_VERSION=1 CCACHE_DIR=$cache/kernel-ccache CCACHE_BASEDIR=$work
export CCACHE_NOHASHDIR=1
# gzip .debs: the TCG guest unpacks them, and xz is slow to decompress there
export KDEB_COMPRESS=gzip
ccache -M 8G >/dev/null
mk() { make -C "$src" -j"$(nproc)" CC="ccache gcc" "$@"; }

mk KCONFIG_ALLCONFIG="$fragment" allnoconfig >"$log" 2>&1
# every line of the fragment must have survived Kconfig's dependencies
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) grep -qxF "$line" "$src/.config" || { echo "debug-kernel: not in .config: $line" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set")
		! grep -q "^${line:2:-11}=" "$src/.config" || { echo "debug-kernel: set in .config: $line" >&2; bad=1; } ;;
	esac
done <"$fragment"
[ "$bad" = 0 ] || exit 1

if ! mk bindeb-pkg >>"$log" 2>&1; then
	tail -n 40 "$log" >&2
	echo "debug-kernel: build failed (log $log)" >&2
	exit 1
fi
# (a make of its own: under `make check` an inherited -w adds
# "Entering directory" lines to the output)
krel=$(MAKEFLAGS='' MAKELEVEL='' make -s --no-print-directory -C "$src" kernelrelease)
mkdir -p "$dir.tmp"
cp "$work"/linux-image-"$krel"_*.deb "$work"/linux-headers-"$krel"_*.deb "$dir.tmp/"
cp "$src/arch/x86/boot/bzImage" "$dir.tmp/vmlinuz-$krel"
cp "$src/.config" "$dir.tmp/config-$krel"
echo "$krel" >"$dir.tmp/kernelrelease"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
rm -rf "$work"
echo "debug-kernel: $krel built in $(($(date +%s) - start)) s; $(ccache -s | grep -iE 'hits|misses' | xargs)" >&2
echo "$dir"
