# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# The one reader of tests/<suite>/settings (the host side: the guest runs
# the manifest made from them).  A settings file holds KEY=VALUE lines
# (VALUE optionally in double quotes) and comments; it is read, never run:
#
#   tests=      the tests, in order
#   final=      tests that must run after every other suite (lockdown)
#   timeout=    seconds per test (default 45)
#   smoke=      the tests that check a kernel whose code path is already
#               covered (see tests/run-vm.sh)
#   kernels=    the only kernels the suite runs on (labels)
#   coverage=   "kernel": the suite checks the kernel itself, so it runs
#               on every kernel, covered code path or not
#   guest=      a name: on a kernel that runs every test, the suite runs
#               in a second guest of that name beside the main one (its
#               own boot and DKMS build, to spread a long kernel over
#               both job slots); a boot suite boots on that guest's disk
#   follow=     TEST=SUITE...: TEST runs in SUITE's guest
#   boot=       kernel command line arguments: the suite runs in the
#               guest's extra boot, whose command line has the arguments
#               of every such suite it runs
#   debs=yes    the suite installs our Debian packages
#   newkernel=debug  the suite installs a kernel the image lacks: the
#               debug kernel's .debs, staged in the run directory's
#               new-kernel/
#   bench=yes   a benchmark: runs only when named

# setting SUITE KEY: print KEY's value (the default when unset); fails
# on a suite without settings or a line that is not KEY=VALUE
setting() {
	local file=${MW57_TESTS:?}/$1/settings line key val
	local -A dflt=([timeout]=45)
	[ -f "$file" ] || { echo "settings: no suite $1" >&2; return 1; }
	val=${dflt[$2]:-}
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in '' | '#'*) continue ;; esac
		[[ $line =~ ^([a-z]+)=(\"([^\"]*)\"|([^\"[:space:]]*))$ ]] ||
			{ echo "settings: $file: cannot read: $line" >&2; return 1; }
		key=${BASH_REMATCH[1]}
		[ "$key" = "$2" ] && val=${BASH_REMATCH[3]}${BASH_REMATCH[4]}
	done <"$file"
	printf '%s\n' "$val"
}
