# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash disable=SC2034 # the variables are for the tests
#
# What the packaging suite's tests share, sourced after ../lib/ktap.sh:
# the packages and modules of the staged bundle, the running and the
# other kernel, and the harness's own DKMS install of the running kernel,
# which a test takes away (pkg_clear_harness) so that only the packages
# install modules, and puts back at the end (pkg_restore_harness).
#
#   $debs $bundle       the run directory's .debs (and source package) and
#                       DKMS trees
#   $pkgs $mods $ver    the DKMS packages, all their modules, the version
#   $mw57_mods $uacce_mods  the modules of mw57 and of mw57-uacce
#   $cur $other         the running kernel and another installed one
#   $tmp                a scratch folder (each test's cleanup trap removes it)
#   $pkg_log_file       the test's log (pkg_log)

# shellcheck source=../lib/dkms.sh
. ../lib/dkms.sh

debs=$(dirname "${MW57_OUT:-/mnt/out/x}")/debs
bundle=$(dirname "${MW57_OUT:-/mnt/out/x}")/bundle
pkgs='' mods='' ver=''
for tree in "$bundle"/*/; do
	pkgs="$pkgs $(dkms_conf "$tree" PACKAGE_NAME)"
	mods="$mods $(dkms_conf "$tree" 'BUILT_MODULE_NAME\[[0-9]*\]' | xargs)"
	ver=$(dkms_conf "$tree" PACKAGE_VERSION)
done
mw57_mods=$(dkms_conf "$bundle/mw57-$ver" 'BUILT_MODULE_NAME\[[0-9]*\]' | xargs)
uacce_mods=$(dkms_conf "$bundle/mw57-uacce-$ver" 'BUILT_MODULE_NAME\[[0-9]*\]' | xargs)
pkgs=$(echo "$pkgs" | xargs)
# dependents first, for modprobe -r
mods=$(echo "$mods" | xargs -n1 | tac | xargs)
cur=$(uname -r)
other=
for k in /lib/modules/*; do
	[ "${k##*/}" != "$cur" ] && [ -z "$other" ] && other=${k##*/}
done
[ -f "$(echo "$debs"/mw57-dkms_*.deb)" ] || ktap_exit_fail_msg "no .debs in $debs"
[ -n "$other" ] || ktap_exit_fail_msg "only one kernel installed"
tmp=$(mktemp -d /tmp/mw57-pkg.XXXXXX)
# the test's log in the run directory: packaging.sh's is packaging.log
pkg_log_file=${MW57_OUT:-$tmp}/$(basename "$0" .sh).log

# pkg_log CMD...: run CMD into the test's log ($pkg_log_file), after a
# line with the seconds since this library was sourced
pkg_t0=$SECONDS
pkg_log() {
	echo "+ [$((SECONDS - pkg_t0)) s] $*" >>"$pkg_log_file"
	"$@" >>"$pkg_log_file" 2>&1
}

# built_for KVER [MODULES]: every module file in updates/dkms
built_for() {
	local m
	for m in ${2:-$mods}; do
		ls "/lib/modules/$1/updates/dkms/$m.ko"* >/dev/null 2>&1 || return 1
	done
}

# pkg_hide_headers KVER: every kernel's header tree (its build link)
# out of DKMS's sight but KVER's (none kept for ""); pkg_unhide_headers
# puts them back (a test's cleanup trap calls it)
pkg_hidden=()
pkg_hide_headers() {
	local b
	for b in /lib/modules/*/build; do
		[ "$b" != "/lib/modules/$1/build" ] || continue
		mv "$b" "$b.mw57-hidden" && pkg_hidden+=("$b.mw57-hidden")
	done
}
pkg_unhide_headers() {
	local h
	for h in "${pkg_hidden[@]}"; do mv "$h" "${h%.mw57-hidden}"; done
	pkg_hidden=()
}

# none_for KVER [MODULES]: no module file of ours
none_for() {
	local m
	for m in ${2:-$mods}; do
		! ls "/lib/modules/$1/updates/dkms/$m.ko"* >/dev/null 2>&1 || return 1
	done
}

# pkg_clear_harness: nothing loaded, no DKMS registration of ours, no
# module file of ours for any kernel; the running kernel's modules saved
# for pkg_restore_harness.  The registration goes by hand: what "dkms
# remove --all" deletes (its tree, its source, its installed modules),
# without the 20-odd seconds per package that dkms spends under TCG.
# Fails the test when something of ours is still there.
pkg_clear_harness() {
	local p m
	# shellcheck disable=SC2086 # a list
	modprobe -r $mods 2>/dev/null
	mkdir -p "$tmp/saved"
	cp -a "/lib/modules/$cur/updates/dkms/." "$tmp/saved/"
	for p in $pkgs; do
		rm -rf "/var/lib/dkms/$p" "/usr/src/$p-$ver"
	done
	for m in $mods; do
		rm -f /lib/modules/*/updates/dkms/"$m".ko*
	done
	depmod "$cur"
	if ! none_for "$cur" || ! none_for "$other" || compgen -G "/var/lib/dkms/mw57*" >/dev/null; then
		ktap_exit_fail_msg "the harness's DKMS install is still there: $(dkms status 2>&1)"
	fi
}

# pkg_restore_harness: the saved modules back in place and loaded (no
# rebuild), for the suites that follow
pkg_restore_harness() {
	mkdir -p "/lib/modules/$cur/updates/dkms"
	# shellcheck disable=SC2086 # a list
	if ! cp -a "$tmp/saved/." "/lib/modules/$cur/updates/dkms/" || ! depmod "$cur" ||
		! modprobe -a $mods; then
		ktap_print_msg "restoring the harness modules failed"
	fi
}
