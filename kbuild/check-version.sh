#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The version has one source, kbuild/version.h: dkms-install.sh writes it
# into each dkms.conf, so no file under dkms/ may set PACKAGE_VERSION.
# Fail when debian/changelog's upstream version differs, when a module
# does not take MODULE_VERSION from it or has no README, or when the DKMS
# packages (dkms/*.conf) do not list every module folder exactly once,
# each by its own name.
set -euo pipefail
cd "$(dirname "$0")/.."

ver=$(kbuild/version.sh)
rc=0
fail() { echo "check-version: $*"; rc=1; }
[ -n "$ver" ] || { echo "check-version: no MW57_VERSION in kbuild/version.h"; exit 1; }
deb=$(dpkg-parsechangelog -S Version)
[ "${deb%-*}" = "$ver" ] || fail "debian/changelog $deb != version.h $ver"
set_in=$(grep -l '^PACKAGE_VERSION=' dkms/* || true)
[ -z "$set_in" ] || fail "PACKAGE_VERSION set in ${set_in//$'\n'/ } (it comes from version.h)"

listed=
for c in dkms/*.conf; do
	p=$(basename "$c" .conf)
	[ "$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$c")" = "$p" ] || fail "$c: PACKAGE_NAME is not $p"
	names=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"$/\1/p' "$c" | xargs)
	dirs=$(sed -n 's|^BUILT_MODULE_LOCATION\[[0-9]*\]="modules/\(.*\)/"$|\1|p' "$c" | xargs)
	[ "$names" = "$dirs" ] || fail "$c: modules [$names] built in [$dirs]"
	listed="$listed $names"
done
listed=$(echo "$listed" | xargs -n1 | sort | xargs)
present=$(for k in modules/*/Kbuild; do basename "$(dirname "$k")"; done | sort | xargs)
[ "$listed" = "$present" ] || fail "dkms/*.conf list [$listed], modules/ has [$present]"
for m in $present; do
	grep -qs 'MODULE_VERSION(MW57_VERSION);' modules/"$m"/*.c || fail "$m lacks MODULE_VERSION(MW57_VERSION)"
	[ -f "modules/$m/README.md" ] || fail "modules/$m/README.md missing"
done
[ $rc -ne 0 ] || echo "check-version: $ver everywhere ($present)"
exit $rc
