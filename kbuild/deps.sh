#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Install the host packages of kbuild/host-packages.list with apt: what is
# missing, and the kernel header packages whenever the archive has moved
# to a new ABI (Debian's security updates rename the kernels; the host's
# headers must be those of the kernels the guest image gets, see
# vm/image.sh).  The package lists are refreshed once per run.
set -euo pipefail

list=$(sed -e 's/#.*//' "$(dirname "$0")/host-packages.list" | xargs)
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
missing=()
for p in $list; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	elif [[ $p == linux-headers-* ]] &&
		[ "$(dpkg-query -W -f='${Version}' "$p")" != \
			"$(apt-cache policy "$p" | sed -n 's/^ *Candidate: //p')" ]; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -gt 0 ] || { echo "deps: all installed and current"; exit 0; }
echo "deps: installing ${missing[*]}"
apt-get install -y -q --no-install-recommends "${missing[@]}"
