#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# A kernel upgrade gets the modules without user action.  Our packages
# are installed first, with every kernel's headers hidden (nothing to
# build, so the install stays cheap); then apt installs a kernel that
# was not there, image and headers: the debug kernel's .debs, a local
# rebuild of Debian's linux-source-6.1 with an ABI of its own
# (6.1.x-mw57debug), staged by run-vm in the run directory's new-kernel/.
# DKMS's kernel hook (/etc/kernel/postinst.d/dkms) must build and install
# both packages for it, and removing it must take its modules away
# (/etc/kernel/prerm.d/dkms).  Finally the harness's modules of the
# running kernel are put back.  The log of every command is kept in the
# run directory (upgrade.log).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/packaging.sh
. ../lib/packaging.sh
staged=$(dirname "${MW57_OUT:-/mnt/out/x}")/new-kernel
ours=
cleanup() {
	# (a kernel of this test's install only)
	[ -z "$ours" ] || pkg_log dpkg --purge "linux-image-$ours" "linux-headers-$ours"
	pkg_log dpkg --purge mw57-dev mw57-tools mw57-uacce-dkms mw57-dkms
	pkg_unhide_headers
	[ ! -d "$tmp/saved" ] || pkg_restore_harness
	rm -rf "$tmp"
}
trap cleanup EXIT

img=$(echo "$staged"/linux-image-*.deb)
hdr=$(echo "$staged"/linux-headers-*.deb)
if [ ! -f "$img" ] || [ ! -f "$hdr" ]; then
	ktap_exit_fail_msg "no kernel .debs in $staged (run-vm stages the debug kernel's for newkernel=debug)"
fi
new=$(dpkg-deb -f "$img" Package)
new=${new#linux-image-}
[ ! -e "/lib/modules/$new" ] || ktap_exit_fail_msg "kernel $new is installed already"

# (a test before this one that broke them makes every apt call here fail)
apt-get check >"$tmp/check" 2>&1 ||
	ktap_exit_fail_msg "apt's dependencies are broken before the test: $(tr '\n' ' ' <"$tmp/check")"
ktap_set_plan 5
ktap_print_msg "running $cur; the new kernel: $new ($(basename "$img"))"
pkg_clear_harness
pkg_hide_headers ""	# every one: nothing to build at install

apt_install() { # apt_install DEB...: offline, into the log
	pkg_log env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@"
}
install_ours() { # our .debs installed; no module of ours for any kernel
	local k
	apt_install "$debs"/mw57-dkms_*.deb "$debs"/mw57-uacce-dkms_*.deb \
		"$debs"/mw57-tools_*.deb "$debs"/mw57-dev_*.deb || return 1
	for k in /lib/modules/*; do none_for "${k##*/}" || return 1; done
}
ktap_test_result "apt install of our .debs with no kernel headers: configured, nothing built" \
	install_ours

install_new() { ours=$new; apt_install "$img" "$hdr" && built_for "$new"; }
ktap_test_result "apt install of kernel $new, image and headers: DKMS builds and installs $pkgs for it" \
	install_new

built_right() { # each module is for $new, of version $ver
	local m f
	for m in $mods; do
		f=$(echo "/lib/modules/$new/updates/dkms/$m.ko"*)
		if [ "$(modinfo -F vermagic "$f" | cut -d' ' -f1)" != "$new" ] ||
			[ "$(modinfo -F version "$f")" != "$ver" ]; then
			ktap_print_msg "$f: vermagic $(modinfo -F vermagic "$f"), version $(modinfo -F version "$f")"
			return 1
		fi
	done
}
ktap_test_result "each module of $new: vermagic $new, version $ver" built_right

installed() { # dkms status has each package installed for $new
	local p
	dkms status -k "$new" >"$tmp/status" 2>&1
	for p in $pkgs; do
		grep -qF "$p/$ver, $new, $(uname -m): installed" "$tmp/status" || {
			ktap_print_msg "dkms status -k $new: $(cat "$tmp/status")"
			return 1
		}
	done
}
ktap_test_result "dkms status: $pkgs installed for $new" installed

remove_new() { # the kernel purged: no module and no DKMS build of ours for it
	# (they must have been there)
	built_for "$new" || return 1
	pkg_log env DEBIAN_FRONTEND=noninteractive apt-get purge -y "linux-image-$new" \
		"linux-headers-$new" || return 1
	none_for "$new" && ! dkms status -k "$new" 2>/dev/null | grep -qF "$new"
}
ktap_test_result "apt purge of kernel $new: its modules and DKMS builds go with it" remove_new
[ "$KTAP_FAIL" -eq 0 ] || ktap_print_msg "$(tail -n 40 "$pkg_log_file")"
ktap_finished
