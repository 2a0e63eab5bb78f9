#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Install the host packages of kbuild/host-packages.list with apt, only when
# something is missing (idempotent; a warm machine does nothing).
set -euo pipefail

list=$(sed -e 's/#.*//' "$(dirname "$0")/host-packages.list" | xargs)
missing=()
for p in $list; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || { echo "deps: all installed"; exit 0; }
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
