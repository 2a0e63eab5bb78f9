#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# deb-cleanbuild.sh DEBDIR RELEASE...
#
# Build the source package in DEBDIR (make deb's mw57_<ver>.dsc) in a
# clean chroot of each Debian RELEASE: mmdebstrap's buildd variant
# (build-essential and apt only), `apt-get build-dep` of the .dsc, then
# dpkg-buildpackage.  Proves that debian/control declares every build
# dependency.  The chroot lives only while mmdebstrap runs (target
# /dev/null); the build log lands in DEBDIR/cleanbuild-RELEASE.log.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 DEBDIR RELEASE..." >&2; exit 2; }
dir=$(cd "$1" && pwd)
shift
# shellcheck source=archive.sh
. "$(dirname "$0")/archive.sh"
dsc=$(echo "$dir"/mw57_*.dsc)
[ -f "$dsc" ] || { echo "deb-cleanbuild: no mw57_*.dsc in $dir (make deb)" >&2; exit 1; }
tarball=$(echo "$dir"/mw57_*.tar.*)
for rel in "$@"; do
	log=$dir/cleanbuild-$rel.log
	echo "deb-cleanbuild: $rel: $(basename "$dsc") in a buildd chroot, log $log"
	# shellcheck disable=SC2016 # $1 is the chroot, for mmdebstrap's hooks
	if mmdebstrap --variant=buildd --quiet \
		--customize-hook='mkdir "$1/build"' \
		--customize-hook="copy-in $dsc $tarball /build" \
		--customize-hook='chroot "$1" sh -ec "cd /build
			apt-get build-dep -y ./'"$(basename "$dsc")"'
			dpkg-source -x '"$(basename "$dsc")"' src
			cd src
			dpkg-buildpackage -us -uc
			ls ../*.deb"' \
		"$rel" /dev/null "$archive_mirror" >"$log" 2>&1; then
		echo "deb-cleanbuild: $rel: ok ($(grep -c '\.deb$' "$log") packages)"
	else
		echo "deb-cleanbuild: $rel: FAILED, the end of $log:" >&2
		tail -n 20 "$log" >&2
		exit 1
	fi
done
