#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# mw57-dkms, mw57-uacce-dkms, mw57-tools and mw57-dev installed the way users
# install them: apt install of the .debs builds the modules for every
# installed kernel with headers (the other kernel's headers are hidden
# meanwhile, so the install builds once and must skip it), modprobe loads
# them from updates/dkms, the udev rule gives /dev/raw-gadget to the
# group rawgadget, which starts empty (an empty file in /etc/udev/rules.d
# masks the rule), and a member runs the packaged rg-keyboard,
# reinstalling the other kernel's headers triggers DKMS
# autoinstall for it (with CONFIG_UACCE=m there: mw57 is built, not
# mw57-uacce), removing it removes its modules, and a purge leaves no
# module, DKMS tree or packaged file behind.  Finally the removed kernel
# is installed again (apt works only with its dependencies whole) and the
# harness's modules of the running kernel are put back, for the suites
# that follow.
# Four package builds in all (both for the running kernel, mw57 again
# for it by a configure step, mw57 for the other); the log of every
# command is kept in the run directory (packaging.log).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

ktap_begin root
# shellcheck source=../lib/packaging.sh
. ../lib/packaging.sh
kbd=
hidden=/lib/modules/$other/build.mw57-hidden
hidden_cur=/lib/modules/$cur/build.mw57-hidden
fake=6.99.0-mw57broken
# cached_deb PACKAGE: the image's copy of PACKAGE's .deb (vm/mkimage.sh
# keeps the kernels' there), or nothing
cached_deb() {
	local f
	for f in /var/cache/mw57-debs/"$1"_*.deb; do [ -f "$f" ] && echo "$f"; done | tail -n 1
}
removed=
# restore_kernel: the kernel removed above installed again from the
# image's copy of its .deb, for the suites that follow: apt refuses to
# install anything while its headers lack the image they depend on
restore_kernel() {
	local deb
	[ -n "$removed" ] || return 0
	deb=$(cached_deb "$removed")
	[ -n "$deb" ] && pkg_log env INITRD=No DEBIAN_FRONTEND=noninteractive dpkg -i "$deb" &&
		pkg_log apt-get check || return 1
	removed=
}
cleanup() {
	restore_kernel
	[ -n "$kbd" ] && kill "$kbd" 2>/dev/null
	wait 2>/dev/null
	[ -L "$hidden" ] && mv "$hidden" "/lib/modules/$other/build"
	[ -L "$hidden_cur" ] && mv "$hidden_cur" "/lib/modules/$cur/build"
	rm -rf "/lib/modules/$fake"
	[ -d "$tmp/config" ] && restore_config
	rm -f /etc/udev/rules.d/60-mw57-raw-gadget.rules
	userdel mw57in 2>/dev/null
	userdel mw57out 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_set_plan 19
ktap_print_msg "running $cur, other kernel $other, packages $(cd "$debs" && echo *.deb)"

# leave a clean system: nothing of the harness's DKMS install
pkg_clear_harness

mv "/lib/modules/$other/build" "$hidden" || ktap_exit_fail_msg "cannot hide the headers of $other"
ktap_test_result "apt install ./mw57-dkms ./mw57-uacce-dkms ./mw57-tools ./mw57-dev (offline)" \
	pkg_log env DEBIAN_FRONTEND=noninteractive apt-get install -y \
	"$debs"/mw57-dkms_*.deb "$debs"/mw57-uacce-dkms_*.deb "$debs"/mw57-tools_*.deb \
	"$debs"/mw57-dev_*.deb
ktap_test_result "DKMS built and installed the modules for $cur, skipped $other (no headers)" \
	sh -c "$(declare -f built_for none_for); mods='$mods'; built_for $cur && none_for $other"

# The DKMS packages' own configure step (debian/mw57-dkms.postinst), run
# as dpkg runs it on a first install (no old version: with one, DKMS's
# part removes the installed modules to build them anew), with $other's
# headers still hidden.  Without any headers it says what to install and
# succeeds.
postinst() { # postinst PACKAGE: its configure step, exit code in $rc, output in $tmp/postinst
	pkg_log echo "$1.postinst configure"
	"/var/lib/dpkg/info/$1.postinst" configure >"$tmp/postinst" 2>&1
	rc=$?
	cat "$tmp/postinst" >>"$pkg_log_file"
}
mv "/lib/modules/$cur/build" "$hidden_cur"
postinst mw57-dkms
mv "$hidden_cur" "/lib/modules/$cur/build"
ktap_test_result "no kernel headers at all: the configure step succeeds, naming linux-headers-$(dpkg --print-architecture)" \
	sh -c "[ $rc = 0 ] && grep -q 'no kernel headers are installed.*linux-headers-$(dpkg --print-architecture) ' '$tmp/postinst'"
ktap_print_msg "exit $rc: $(cat "$tmp/postinst")"
# A kernel whose build fails (a header tree whose make stops with a line of
# its own) fails it, naming that kernel, and the running kernel still gets
# its modules; a kernel the package excludes (mw57-uacce where
# CONFIG_UACCE=m, dkms's exit 77) does not fail it (further down).
fake_tree() { # fake_tree OPTION...: the fake kernel's header tree, with OPTIONs in its .config
	# (dkms takes a tree with an include/ folder for headers)
	mkdir -p "/lib/modules/$fake/build/include"
	printf 'modules:\n\t@echo "mw57 test: this tree cannot build"; exit 1\n' \
		>"/lib/modules/$fake/build/Makefile"
	printf 'CONFIG_%s\n' GENERIC_IRQ_INJECTION=y DEBUG_FS=y USB_GADGET=m \
		NET_UDP_TUNNEL=m IOMMU_API=y "$@" >"/lib/modules/$fake/build/.config"
}
fake_tree
postinst mw57-dkms
# Who reports it depends on dkms: bookworm's 3.0 builds for the running
# and the newest kernel (by /boot/config-*, which the fake lacks), so our
# loop over every kernel does (exit 1, our line); trixie's 3.2 ships
# autoinstall_all_kernels.conf, builds every kernel with headers in
# version order and stops at the first failure with its own exit code (10)
# and message, before our part runs.
if [ -e /etc/dkms/framework.conf.d/autoinstall_all_kernels.conf ]; then
	says="[ $rc = 10 ] && grep -q 'Bad return status for module build on kernel: $fake' '$tmp/postinst' &&
		grep -q '/var/lib/dkms/mw57/$ver/build/make.log' '$tmp/postinst'"
else
	says="[ $rc = 1 ] && grep -q 'build for $fake failed.*make.log' '$tmp/postinst'"
fi
ktap_test_result "a kernel whose build fails fails the configure step, naming it and make.log" \
	sh -c "$(declare -f built_for); mods='$mw57_mods'
		$says &&
		grep -q 'mw57 test: this tree cannot build' /var/lib/dkms/mw57/$ver/build/make.log &&
		built_for $cur"
ktap_print_msg "exit $rc: $(tail -n 3 "$tmp/postinst")"
rm -rf "/lib/modules/$fake" "/var/lib/dkms/mw57/$ver/$fake"
mv "$hidden" "/lib/modules/$other/build"
ktap_print_msg "$(dkms status 2>&1)"
ktap_test_result "modprobe $mods: loaded from updates/dkms, version $ver" \
	sh -c "modprobe -a $mods && for m in $mods; do
		modinfo -F filename \$m | grep -q /updates/dkms/ &&
		[ \"\$(modinfo -F version \$m)\" = $ver ] || exit 1; done"

# the udev rule (dh_installudev) gives /dev/raw-gadget to group rawgadget,
# which starts empty (adding a user is the opt-in: README.md); an empty
# file of the rule's name in /etc/udev/rules.d masks it (root's 0600)
rule=60-mw57-raw-gadget.rules
node_is() { [ "$(stat -c '%U:%G %a' /dev/raw-gadget)" = "$1" ]; }
opens() { # opens USER: USER can open /dev/raw-gadget; EACCES is said in $tmp/open
	setpriv --reuid "$1" --regid "$1" --init-groups \
		python3 -c 'import os; os.open("/dev/raw-gadget", os.O_RDWR)' 2>"$tmp/open"
}
reload_rg() { modprobe -r raw_gadget && udevadm control --reload && modprobe raw_gadget; }
reload_rg
ktap_test_result "udev rule installed in /lib/udev/rules.d: /dev/raw-gadget is root:rawgadget 0660" \
	bash -c "$(declare -f node_is wait_for)
		[ -f /lib/udev/rules.d/$rule ] && wait_for 20 node_is 'root:rawgadget 660'"
ktap_test_result "group rawgadget exists with no member (the opt-in is adding one)" \
	sh -c "getent group rawgadget | grep -qE '^rawgadget:[^:]*:[0-9]+:\$'"
useradd -M -s /bin/sh -G rawgadget mw57in
useradd -M -s /bin/sh mw57out
: >"/etc/udev/rules.d/$rule"
reload_rg
ktap_test_result "masked by an empty /etc/udev/rules.d/$rule: root:root 0600, a member gets EACCES" \
	bash -c "$(declare -f node_is opens wait_for); tmp=$tmp
		wait_for 20 node_is 'root:root 600' && ! opens mw57in && grep -q PermissionError $tmp/open"
rm "/etc/udev/rules.d/$rule"
reload_rg
ktap_test_result "a user outside the group gets EACCES" \
	bash -c "$(declare -f node_is opens wait_for); tmp=$tmp
		wait_for 20 node_is 'root:rawgadget 660' && ! opens mw57out && grep -q PermissionError $tmp/open"
rg_modules num=1
mkfifo "$tmp/keys"
setpriv --reuid mw57in --regid mw57in --init-groups /usr/bin/rg-keyboard \
	<"$tmp/keys" 2>"$tmp/kbd.log" &
kbd=$!
exec 3>"$tmp/keys"
ktap_test_result "a user in group rawgadget runs the packaged rg-keyboard: it enumerates" \
	wait_for 30 usb_dev 1d6b 5701
exec 3>&-
wait_for 20 sh -c "! kill -0 $kbd 2>/dev/null"
kbd=

# mw57-dev: its example builds against its headers and library alone and
# computes a CRC32C on softacc that it checks in software (-v)
dev_example() {
	gcc -o "$tmp/crc" /usr/share/doc/mw57-dev/examples/softacc-crc32c.c \
		-I/usr/include/mw57 -lsoftacc >"$tmp/crc.log" 2>&1 &&
		"$tmp/crc" -v /etc/os-release >>"$tmp/crc.log" 2>&1
}
ktap_test_result "mw57-dev: the packaged example builds against it and checks a CRC32C on softacc" \
	dev_example
ktap_print_msg "$(cat "$tmp/crc.log")"

# a kernel whose headers are (re)installed after the package gets the
# modules automatically (DKMS's header_postinst.d hook: the same
# autoinstall as a kernel install, without unpacking a whole kernel), and
# loses them with the kernel's removal.  Its configuration gets
# CONFIG_UACCE=m between unpack and configure: a kernel that builds its
# own uacce, for which mw57-uacce's BUILD_EXCLUSIVE_CONFIG refuses the
# build and mw57 is built all the same.
hdeb=$(cached_deb "linux-headers-$other")
# what DKMS reads: .config, and include/config/auto.conf where it exists
# (dkms 3.2 prefers it)
kbuild=/lib/modules/$other/build
kconfigs=".config include/config/auto.conf"
set_uacce() { # set_uacce: CONFIG_UACCE=m in the configuration of $other
	local f
	mkdir -p "$tmp/config"
	for f in $kconfigs; do
		[ -f "$kbuild/$f" ] || continue
		cp "$kbuild/$f" "$tmp/config/${f##*/}" &&
			sed -i '/^# CONFIG_UACCE is not set$/d; /^CONFIG_UACCE=/d' "$kbuild/$f" &&
			echo CONFIG_UACCE=m >>"$kbuild/$f" || return 1
	done
}
restore_config() {
	local f
	for f in $kconfigs; do
		[ ! -f "$tmp/config/${f##*/}" ] || cp "$tmp/config/${f##*/}" "$kbuild/$f"
	done
}
reinstall_headers_uacce() {
	local before
	[ -n "$hdeb" ] &&
		pkg_log env DEBIAN_FRONTEND=noninteractive dpkg --unpack "$hdeb" &&
		set_uacce || return 1
	before=$(wc -l <"$pkg_log_file")
	pkg_log env DEBIAN_FRONTEND=noninteractive dpkg --configure "linux-headers-$other" || return 1
	built_for "$other" "$mw57_mods" && none_for "$other" "$uacce_mods" &&
		tail -n +"$before" "$pkg_log_file" | grep -q "mw57-uacce: not built for $other, which builds its own uacce"
}
ktap_test_result "headers of $other reinstalled with CONFIG_UACCE=m: DKMS autoinstall builds $mw57_mods, skips $uacce_mods and says why" \
	reinstall_headers_uacce
exclusive() {
	local out rc
	out=$(dkms build -m mw57-uacce -v "$ver" -k "$other" 2>&1)
	rc=$?
	echo "$out" >>"$pkg_log_file"
	ktap_print_msg "dkms build mw57-uacce for $other: exit $rc: $(echo "$out" | grep -m1 BUILD_EXCLUSIVE)"
	[ "$rc" -eq 77 ] && grep -q 'BUILD_EXCLUSIVE' <<<"$out"
}
ktap_test_result "dkms build mw57-uacce there: exit 77 (not built here), naming BUILD_EXCLUSIVE" exclusive
restore_config
# INITRD=No: the kernel's hooks skip the initramfs (minutes under TCG; the
# guests boot their kernels from the host), DKMS's hook runs as for users
pkg_log env INITRD=No DEBIAN_FRONTEND=noninteractive dpkg -r --force-depends "linux-image-$other"
removed=linux-image-$other
ktap_test_result "removing kernel $other removes its modules" none_for "$other"

# mw57-uacce's configure step where the only kernel with headers, the
# fake, sets CONFIG_UACCE=m: configured, saying so.  Here, where the
# running kernel's modules are no longer needed, so that its headers can
# be hidden too: DKMS's part of the step removes the installed modules
# first, and building them again costs minutes under TCG.
[ ! -e "/lib/modules/$other/build" ] || mv "/lib/modules/$other/build" "$hidden"
mv "/lib/modules/$cur/build" "$hidden_cur"
fake_tree UACCE=m
postinst mw57-uacce-dkms
mv "$hidden_cur" "/lib/modules/$cur/build"
[ ! -L "$hidden" ] || mv "$hidden" "/lib/modules/$other/build"
ktap_test_result "a kernel that excludes mw57-uacce (CONFIG_UACCE=m): configured, saying so" \
	sh -c "[ $rc = 0 ] && grep -q 'not built for $fake: excluded' '$tmp/postinst' &&
		grep -q BUILD_EXCLUSIVE '$tmp/postinst'"
[ "$rc" = 0 ] || ktap_print_msg "exit $rc: $(tail -n 5 "$tmp/postinst")"
rm -rf "/lib/modules/$fake" "/var/lib/dkms/mw57-uacce/$ver/$fake"

# purge leaves nothing behind
dpkg -L mw57-dkms mw57-uacce-dkms mw57-tools mw57-dev 2>/dev/null | sort -u >"$tmp/files"
# shellcheck disable=SC2086 # a list
modprobe -r $mods 2>/dev/null
# dpkg, not apt: the kernel removed above (--force-depends) leaves apt
# with broken dependencies; the package scripts run the same either way
ktap_test_result "dpkg --purge mw57-dkms mw57-uacce-dkms mw57-tools mw57-dev" \
	pkg_log env DEBIAN_FRONTEND=noninteractive dpkg --purge mw57-dev mw57-tools mw57-uacce-dkms mw57-dkms
left=$(while read -r f; do [ -f "$f" ] && echo "$f"; done <"$tmp/files")
ktap_test_result "purge: no packaged file left (of $(wc -l <"$tmp/files") paths)" test -z "$left"
[ -z "$left" ] || ktap_print_msg "left: $left"
ktap_test_result "purge: no module, DKMS tree or source left for any kernel" \
	sh -c "$(declare -f none_for); mods='$mods'; for k in \$(ls /lib/modules); do none_for \$k || exit 1; done &&
		! ls -d /var/lib/dkms/mw57* /usr/src/mw57-* 2>/dev/null"
ktap_test_result "kernel $other reinstalled: apt's dependencies whole again" restore_kernel
[ "$KTAP_FAIL" -eq 0 ] || ktap_print_msg "$(tail -n 40 "$pkg_log_file")"

pkg_restore_harness
ktap_finished
