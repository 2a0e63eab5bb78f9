#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The source package's autopkgtest, run the way Debian's CI runs it: the
# tests of the .dsc (make deb's), their packages from an apt source (here
# a local one of make deb's .debs: the guest is offline, so apt has no
# other source meanwhile), on this guest with the null runner and
# --ignore-restrictions for breaks-testbed and isolation-machine (the
# guest is a machine of its own, thrown away after the run).  The tests:
# autodep8's dkms-autopkgtest (debian/control's Testsuite:
# autopkgtest-pkg-dkms: purge, install, then dkms build and install of
# mw57-dkms and mw57-uacce-dkms for each kernel with headers), then ours,
# debian/tests/modules (each module loaded and used once), in a second
# autopkgtest run so that it finds the modules dkms-autopkgtest built
# (in one run autopkgtest orders ours first).  Only the running kernel
# keeps its headers meanwhile (one build per package).  The log is kept
# in the run directory (autopkgtest.log).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
# shellcheck source=../lib/packaging.sh
. ../lib/packaging.sh
repo=$tmp/repo
added=/etc/apt/sources.list.d/autopkgtest-add-apt-sources.list
cleanup() {
	pkg_unhide_headers
	rm -f "$added"
	[ ! -d "$tmp/apt" ] || cp -a "$tmp/apt/." /etc/apt/
	rm -rf "$tmp"
}
trap cleanup EXIT
command -v autopkgtest >/dev/null || ktap_exit_fail_msg "no autopkgtest in the guest image"
dsc=$(echo "$debs"/mw57_*.dsc)
[ -f "$dsc" ] || ktap_exit_fail_msg "no source package in $debs"

ktap_set_plan 4
pkg_clear_harness
pkg_hide_headers "$cur"
mkdir -p "$tmp/apt/sources.list.d"
mv /etc/apt/sources.list "$tmp/apt/" 2>/dev/null
mv /etc/apt/sources.list.d/* "$tmp/apt/sources.list.d/" 2>/dev/null

mkdir -p "$repo"
cp "$debs"/mw57-*.deb "$repo/"
(cd "$repo" && apt-ftparchive packages . >Packages && apt-ftparchive release . >Release) ||
	ktap_exit_fail_msg "apt-ftparchive failed"

# the harness's compiler cache (tests/run.sh), for the tests' DKMS builds
# too (a test's shell reads /etc/profile, which sets PATH anew)
cache_env=()
for v in CCACHE_DIR CCACHE_TEMPDIR DEBIAN_KERNEL_USE_CCACHE CCACHE PATH; do
	[ -z "${!v:-}" ] || cache_env+=("--env=$v=${!v}")
done

# run TEST: autopkgtest of the .dsc for that test alone; its exit code in
# $rc, its summary line ("<test> PASS|FAIL|SKIP ...") in $sum
run() {
	rc=0
	autopkgtest -B --test-name="$1" --summary-file="$tmp/summary" "${cache_env[@]}" \
		--add-apt-source="deb [trusted=yes] file://$repo /" \
		--ignore-restrictions=breaks-testbed,isolation-machine \
		"$dsc" -- null >>"$pkg_log_file" 2>&1 || rc=$?
	sum=$(grep -E "^$1 " "$tmp/summary" 2>/dev/null | xargs)
	ktap_print_msg "autopkgtest --test-name=$1: exit $rc, summary: ${sum:-none}"
}
# passed TEST EXIT SUMMARY: the last run exited EXIT and summed TEST up
# as SUMMARY
passed() { [ "$rc" = "$2" ] && [ "$sum" = "$1 $3" ]; }
: >"$pkg_log_file"
run dkms-autopkgtest
# (a superficial test's pass is neutral: a run of nothing else exits 8)
ktap_test_result "dkms-autopkgtest (Testsuite: autopkgtest-pkg-dkms): PASS (superficial), exit 8" \
	passed dkms-autopkgtest 8 "PASS (superficial)"
# it says "I: PASS <kernel>" per package it built (bookworm's dkms 3.0),
# "I: PASS <package>/<version> <kernel>" (trixie's 3.2)
built_both() {
	local p
	[ "$(grep -cx "I: PASS $cur" "$pkg_log_file")" -eq 2 ] && return 0
	for p in $pkgs; do
		grep -qx "I: PASS $p/$ver $cur" "$pkg_log_file" || return 1
	done
}
ktap_test_result "dkms-autopkgtest built and installed both DKMS packages for $cur" built_both
# it installs each package with /etc/dkms/no-autoinstall, so that its own
# "dkms build" does the build: the configure step must build nothing
# (else that build finds the module built and skips)
no_build_at_install() {
	! sed -n '/^I: Installing binary package/,/^I: Checking for missing dkms dependency/p' "$pkg_log_file" |
		grep -qE '^Building module'
}
ktap_test_result "the packages' configure step honours /etc/dkms/no-autoinstall: no build at install" \
	no_build_at_install
run modules
ktap_test_result "debian/tests/modules: exit 0, PASS (each module loaded and used)" \
	passed modules 0 PASS
sed -n '/test modules: \[---/,/test modules: ---/p' "$pkg_log_file" | grep -E '^(ok|FAIL|skip): ' |
	while read -r l; do ktap_print_msg "$l"; done
[ "$KTAP_FAIL" -eq 0 ] || ktap_print_msg "$(tail -n 40 "$pkg_log_file")"

# shellcheck disable=SC2086 # a list
modprobe -r $mods 2>/dev/null
pkg_log env DEBIAN_FRONTEND=noninteractive dpkg --purge mw57-dev mw57-tools mw57-uacce-dkms mw57-dkms ||
	ktap_print_msg "the purge after autopkgtest failed"
pkg_restore_harness
ktap_finished
