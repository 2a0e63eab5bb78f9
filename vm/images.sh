# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# The one reader of vm/images.list, sourced by vm/image.sh and
# tests/run-vm.sh:
#
#   images_line RELEASE        the release's line (RELEASE | SUITES | KERNELS)
#   images_release_of LABEL    the release whose image carries kernel LABEL

images_list=$(dirname "${BASH_SOURCE[0]}")/images.list

images_line() {
	sed -e 's/#.*//' "$images_list" | awk -F '|' -v r="$1" '{ n = $1; gsub(/ /, "", n) } n == r'
}

images_release_of() {
	sed -e 's/#.*//' "$images_list" | awk -F '|' -v l="$1" '{
		n = split($3, k, " ")
		for (i = 1; i <= n; i++)
			if (index(k[i], l "=") == 1) { gsub(/ /, "", $1); print $1 }
	}'
}
