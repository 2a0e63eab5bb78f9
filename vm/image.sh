#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Print the directory of the cached guest image, building it first when no
# image for the current inputs exists.  The cache key is a hash of every
# file that goes into the image and of the versions of the kernel packages
# the archive offers now (apt's candidates; kbuild/deps.sh refreshed the
# lists), so that a new kernel ABI in Debian builds a new image instead of
# testing a stale kernel.  The image is never modified afterwards (runs
# boot a throwaway qcow2 overlay).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MW57_CACHE:-/var/cache/mw57}
kernels=$(sed -e 's/#.*//' "$here/packages.list" | grep -oE '^linux-(image|headers)-[^ ]+' |
	xargs apt-cache policy | sed -n -e 's/^\([^ ].*\):$/\1/p' -e 's/^ *Candidate: //p' | xargs)
case $kernels in *"(none)"* | "") echo "image: no kernel candidates in apt (make deps)" >&2; exit 1 ;; esac
key=$({ cat "$here/packages.list" "$here/mkimage.sh" "$here/guest/mw57-boot"; echo "$kernels"; } |
	sha256sum | cut -c1-16)
dir=$cache/image-$key

mkdir -p "$cache"
exec 9>"$cache/image.lock"
flock -n 9 || { echo "image: waiting for $cache/image.lock (another run builds an image)" >&2; flock 9; }
if [ ! -f "$dir/kernels" ]; then
	echo "image: building $dir (cold; about 10 minutes)" >&2
	"$here/mkimage.sh" "$dir" >&2
fi
echo "$dir"
