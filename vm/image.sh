#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# image.sh [RELEASE]: print the directory of the cached guest image of a
# release of vm/images.list (default bookworm), building it first when no
# image for the current inputs exists.  The cache key is a hash of every
# file that goes into the image and of the kernel ABIs the archive offers
# now (kbuild/archive.sh resolves each metapackage), so that a new kernel
# ABI in Debian builds a new image instead of testing a stale kernel.  The
# image is never modified afterwards (runs boot a throwaway qcow2 overlay).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
release=${1:-bookworm}
cache=${MW57_CACHE:-/var/cache/mw57}
# shellcheck source=../kbuild/archive.sh
. "$here/../kbuild/archive.sh"
# shellcheck source=images.sh
. "$here/images.sh"

line=$(images_line "$release")
[ -n "$line" ] || { echo "image: no release $release in vm/images.list" >&2; exit 2; }
suites=$(echo "$line" | cut -d'|' -f2)
# shellcheck disable=SC2086 # a list of words
archive_update "$release" $suites ||
	{ echo "image: apt-get update for $release failed ($archive_dir/apt-$release/update.log)" >&2; exit 1; }
kernels=()
for k in $(echo "$line" | cut -d'|' -f3); do
	abi=$(archive_abi_of "$release" "${k#*=}") || abi=
	[ -n "$abi" ] || { echo "image: $release: ${k#*=} names no kernel in the archive" >&2; exit 1; }
	# LABEL=ABI[/SUITE]: the suite the metapackage came from, for apt
	kernels+=("${k%%=*}=$abi$([[ ${k#*=} != */* ]] || echo "/${k##*/}")")
done
key=$({ cat "$here/packages.list" "$here/mkimage.sh" "$here/guest/mw57-boot"; echo "$line"
	echo "${kernels[*]}"; } | sha256sum | cut -c1-16)
dir=$cache/image-$release-$key

mkdir -p "$cache"
exec 9>"$cache/image.lock"
flock -n 9 || { echo "image: waiting for $cache/image.lock (another run builds an image)" >&2; flock 9; }
if [ ! -f "$dir/kernels" ]; then
	echo "image: building $dir (cold; about 10 minutes)" >&2
	# shellcheck disable=SC2086 # a list of words
	"$here/mkimage.sh" "$dir" "$release" "$suites" "${kernels[@]}" >&2
fi
echo "$dir"
