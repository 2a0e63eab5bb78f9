#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Print the directory of the cached guest image, building it first when no
# image for the current inputs exists.  The cache key is a hash of every
# file that goes into the image; the image is never modified afterwards
# (runs boot a throwaway qcow2 overlay).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${MW57_CACHE:-/var/cache/mw57}
key=$(cat "$here/packages.list" "$here/mkimage.sh" "$here/guest/mw57-boot" |
	sha256sum | cut -c1-16)
dir=$cache/image-$key

mkdir -p "$cache"
exec 9>"$cache/image.lock"
flock 9
if [ ! -f "$dir/kernels" ]; then
	echo "image: building $dir (cold; about 10 minutes)" >&2
	"$here/mkimage.sh" "$dir" >&2
fi
echo "$dir"
