#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The version has one source, kbuild/version.h.  Fail when dkms.conf's
# PACKAGE_VERSION differs, when a module does not take MODULE_VERSION from
# it, or when modules/Kbuild and dkms.conf list different modules.
set -euo pipefail
cd "$(dirname "$0")/.."

ver=$(kbuild/version.sh)
pkgver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
rc=0
[ -n "$ver" ] || { echo "check-version: no MW57_VERSION in kbuild/version.h"; exit 1; }
[ "$ver" = "$pkgver" ] || { echo "check-version: dkms.conf $pkgver != version.h $ver"; rc=1; }

dkms_mods=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"/\1/p' dkms.conf | sort | xargs)
kbuild_mods=$(sed -n 's|^obj-m += \(.*\)/$|\1|p' modules/Kbuild | sort | xargs)
[ "$dkms_mods" = "$kbuild_mods" ] ||
	{ echo "check-version: dkms.conf [$dkms_mods] != modules/Kbuild [$kbuild_mods]"; rc=1; }
for m in $kbuild_mods; do
	grep -q 'MODULE_VERSION(MW57_VERSION);' modules/"$m"/*.c ||
		{ echo "check-version: $m lacks MODULE_VERSION(MW57_VERSION)"; rc=1; }
	[ -f "modules/$m/README.md" ] || { echo "check-version: modules/$m/README.md missing"; rc=1; }
done
[ $rc -ne 0 ] || echo "check-version: $ver everywhere ($kbuild_mods)"
exit $rc
