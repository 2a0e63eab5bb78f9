#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Guest-side runner (kselftest runner.sh contract).  Runs inside the QEMU
# guest only, as root:
#
#   run.sh LABEL BUNDLE MANIFEST
#
# BUNDLE holds the staged DKMS trees, one per package (the /usr/src
# layout: mw57-<ver>, mw57-uacce-<ver>).  MANIFEST is
# what the host planned for this guest (tests/run-vm.sh), run exactly as
# written, one test a line:
#
#   main|final SUITE TEST TIMEOUT
#
# ("final" tests run last: they change the kernel for the rest of the boot).
# Prints one TAP 13 stream: the DKMS steps (add, build, install of each
# package), one line
# per module (modprobe from updates/dkms with the package version), one
# line per test (run under `timeout`, output prefixed with "# ", failed
# when the kernel logged a splat while it ran), then the kernel checks
# (taint, log) and the sentinel "# vmtest: done".
set -u

label=$1 bundle=$2 manifest=$3
top=$(cd "$(dirname "$0")/.." && pwd)
out=${MW57_OUT:-/tmp}
kver=$(uname -r)
# shellcheck source=lib/dkms.sh
. "$top/tests/lib/dkms.sh"
pkgs=() mods=() ver=
for tree in "$bundle"/*/; do
	tree=${tree%/}
	pkgs+=("$(dkms_conf "$tree" PACKAGE_NAME)")
	ver=$(dkms_conf "$tree" PACKAGE_VERSION)
	mapfile -t -O "${#mods[@]}" mods < <(dkms_conf "$tree" 'BUILT_MODULE_NAME\[[0-9]*\]')
done
mapfile -t plan < <(grep -E '^(main|final) ' "$manifest")

export MW57_TOP=$top MW57_KVER=$kver MW57_LABEL=$label MW57_OUT=$out
export MW57_BIN=$top/build/userspace/bin
export PATH=$MW57_BIN:$PATH
# DKMS compiles through ccache when the host shares a cache (vmtest-init
# mounts it): warm runs only rebuild what changed.  Debian's header
# packages have a knob for it (DEBIAN_KERNEL_USE_CCACHE); headers from
# `make bindeb-pkg` (the debug kernel) call plain gcc, found in PATH.
nocache=
# (mounted: another device than its parent's.  Not statfs: a 9p2000.L
# share reports the host's file system type, ext2/ext3 here.)
[ "$(stat -c %d /mnt/ccache 2>/dev/null)" != "$(stat -c %d /mnt)" ] ||
	nocache="not used: nothing is mounted on /mnt/ccache"
command -v ccache >/dev/null || nocache="not used: no ccache in the guest"
if [ -z "$nocache" ]; then
	export CCACHE_DIR=/mnt/ccache DEBIAN_KERNEL_USE_CCACHE=1 CCACHE=ccache
	# ccache's temporary files and its inode cache (on by default in
	# trixie's ccache 4.11, off in bookworm's 4.7) on the guest's own
	# disk: on the 9p share every call created the memory-mapped inode
	# cache there, failed to mmap it and went on without it, 0.6 s a
	# call under TCG
	export CCACHE_TEMPDIR=/var/tmp/mw57-ccache
	[ -f "/lib/modules/$kver/build/.kernelvariables" ] ||
		export PATH=/usr/lib/ccache:$PATH
	ccache -M 2G >/dev/null 2>&1
fi

n=0
failed=0

result() { # result RC DESC [DIRECTIVE]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $label: $2${3:+ # $3}"
	elif [ "$1" -eq 4 ]; then
		echo "ok $n $label: $2 # SKIP ${3:-the test reported a skip}"
	else
		failed=1
		echo "not ok $n $label: $2${3:+ # $3}"
	fi
}

# prefixed [--keep FILE] CMD...: run a command, its output as TAP
# diagnostics (and, with --keep, unprefixed into FILE as well)
prefixed() {
	local keep=/dev/null
	[ "$1" != --keep ] || { keep=$2; shift 2; }
	"$@" 2>&1 | tee "$keep" | sed -u 's/^/# /'
	return "${PIPESTATUS[0]}"
}

# --- the kernel log -------------------------------------------------------
# Every line the kernel logs from here on goes to kmsg.txt (a /dev/kmsg
# reader has its own position: nothing a test does to the log buffer hides
# a line from it).  Each test is framed by two marker lines, so that a
# splat counts against the test that was running.
# shellcheck source=lib/splat.sh
. "$top/tests/lib/splat.sh"
kmsg=$out/kmsg.txt
# the markers must not be rate-limited away (printk_devkmsg=ratelimit
# drops writes past a burst of ten)
echo on >/proc/sys/kernel/printk_devkmsg
cat /dev/kmsg >"$kmsg" 2>/dev/null &
kmsg_pid=$!
# the record's text, without the "prio,seq,time,flags;" prefix
kmsg_text() { sed -e '/^ /d' -e 's/^[^;]*;//' "$kmsg"; }
kmsg_marker() { # kmsg_marker TEXT: log TEXT and wait until kmsg.txt has it
	echo "$1" >/dev/kmsg
	local i
	for ((i = 0; i < 100; i++)); do
		grep -qF ";$1" "$kmsg" && return 0
		sleep 0.1
	done
	echo "# the kernel log reader did not see: $1"
	return 1
}
# kmsg_window ID: the log lines between the markers of test ID
kmsg_window() {
	kmsg_text | awk -v b="mw57: begin $1" -v e="mw57: end $1" '
		$0 == b { on = 1 } on { print } $0 == e { exit }'
}

# --- plan -----------------------------------------------------------------
# a boot on the disk of an earlier one (its own kernel command line) reuses
# that boot's DKMS install
reuse=0
[ -f "$out/reuse-install" ] && reuse=1
# a second guest of the kernel (tests/run-vm.sh, guest=) takes the DKMS
# install of the kernel's main guest, which leaves it in the run
# directory, instead of building the same modules again
from=
[ ! -f "$out/dkms-from" ] || from=$(cat "$out/dkms-from")
# kmemleak (the debug kernel): forget what boot left behind; the final
# checks scan for what this run leaked
kmemleak=/sys/kernel/debug/kmemleak
leakcheck=0
if [ -w "$kmemleak" ]; then
	leakcheck=1
	echo clear >"$kmemleak"
fi
echo "TAP version 13"
steps=$((3 * ${#pkgs[@]}))
[ "$reuse" = 0 ] || steps=0
[ -z "$from" ] || steps=1
echo "1..$((steps + ${#mods[@]} + ${#plan[@]} + 2 + leakcheck))"
echo "# ${pkgs[*]} $ver on $kver ($label), ${#plan[@]} tests"

# --- DKMS -----------------------------------------------------------------
dkms_log() { # dkms_log PACKAGE
	local log=/var/lib/dkms/$1/$ver/build/make.log
	if [ -f "$log" ]; then
		cp "$log" "$out/dkms-make-$1.log"
		echo "# make.log (copied to dkms-make-$1.log):"
		tail -n 40 "$log" | sed 's/^/#   /'
	fi
}
dkms_status() { # every package's line of dkms status for this kernel
	local p
	for p in "${pkgs[@]}"; do
		dkms status "$p/$ver" -k "$kver" 2>&1
	done | xargs
}

if [ "$reuse" = 1 ]; then
	echo "# DKMS install reused: $(dkms_status)"
elif [ -n "$from" ]; then
	shared=$(dirname "$out")/$from
	t0=$SECONDS
	# the main guest builds meanwhile (minutes under TCG, more on the
	# debug kernel); it leaves dkms.tar, or dkms.failed
	for ((i = 0; i < 18000; i++)); do
		[ -f "$shared/dkms.tar" ] || [ -f "$shared/dkms.failed" ] && break
		sleep 0.1
	done
	rc=1
	if [ -f "$shared/dkms.tar" ] && tar -C / -xf "$shared/dkms.tar" && depmod "$kver"; then
		rc=0
	fi
	echo "# took $((SECONDS - t0)) s, waiting for guest $from: $(dkms_status)"
	result $rc "dkms: install of guest $from for $kver"
else
	# the DKMS trees and the installed modules, for the kernel's other
	# guests (without the build folders)
	files=("lib/modules/$kver/updates/dkms") skip=() ok=1
	for pkg in "${pkgs[@]}"; do
		rm -rf "/usr/src/$pkg-$ver"
		cp -a "$bundle/$pkg-$ver" "/usr/src/$pkg-$ver"
		prefixed dkms add -m "$pkg" -v "$ver"
		rc=$?
		result $rc "dkms: add $pkg/$ver"
		t0=$SECONDS
		prefixed dkms build -m "$pkg" -v "$ver" -k "$kver"
		rc=$?
		echo "# took $((SECONDS - t0)) s"
		echo "# ccache: ${nocache:-$(ccache -s 2>/dev/null | grep -iE 'hits|misses' | xargs)}"
		[ $rc -eq 0 ] || dkms_log "$pkg"
		[ $rc -ne 77 ] || rc=1	# excluded: this kernel must be supported
		result $rc "dkms: build $pkg for $kver"
		prefixed dkms install -m "$pkg" -v "$ver" -k "$kver"
		rc=$?
		[ $rc -eq 0 ] || { dkms_log "$pkg"; ok=0; }
		result $rc "dkms: install $pkg for $kver"
		files+=("var/lib/dkms/$pkg" "usr/src/$pkg-$ver")
		skip+=(--exclude="var/lib/dkms/$pkg/$ver/build")
	done
	if [ $ok = 1 ] && tar -C / -cf "$out/dkms.tar.tmp" "${skip[@]}" "${files[@]}"; then
		mv "$out/dkms.tar.tmp" "$out/dkms.tar"
	else
		: >"$out/dkms.failed"
	fi
fi

# --- modules --------------------------------------------------------------
for m in "${mods[@]}"; do
	rc=0
	prefixed modprobe "$m" || rc=1
	path=$(modinfo -n "$m" 2>/dev/null)
	mver=$(modinfo -F version "$m" 2>/dev/null)
	echo "# $m: $path version $mver"
	case $path in */updates/dkms/*) ;; *) rc=1 ;; esac
	[ "$mver" = "$ver" ] || rc=1
	grep -q "^$m " /proc/modules || rc=1
	result $rc "module: $m loads from updates/dkms, version $ver"
done

# --- tests ----------------------------------------------------------------
# leak_check: two kmemleak scans (an object is reported once it looked
# unreferenced twice); a scan that cannot run is a failure, not a pass
leak_check() {
	local leaks why=
	rm -f "$out/kmemleak.txt"
	{ echo scan >"$kmemleak" && echo scan >"$kmemleak" &&
		cat "$kmemleak" >"$out/kmemleak.txt"; } 2>&1 | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] || why="scan failed"
	leaks=$(grep -c '^unreferenced object' "$out/kmemleak.txt" 2>/dev/null)
	echo "# kmemleak: ${leaks:-no} unreferenced objects (kmemleak.txt)"
	head -n 40 "$out/kmemleak.txt" 2>/dev/null | sed 's/^/#   /'
	[ -z "$why" ] && [ "${leaks:-0}" -eq 0 ]
	result $? "kernel: kmemleak reports no leak" "$why"
}

run_test() { # run_test SUITE TEST TIMEOUT
	local id=$1/$2 tmo=$3 rc why='' log
	echo "# selftests: $1: $2"
	kmsg_marker "mw57: begin $id" || why="no kernel log"
	# no --foreground: on expiry timeout signals the test's whole process
	# group, so a child left behind cannot hold the output pipe open
	t0=$SECONDS
	# the raw output is kept for later suites (tests/reference compares
	# it with the reference module's run of the same test)
	mkdir -p "$out/tap/$1"
	(cd "$top/tests/$1" && prefixed --keep "$out/tap/$1/$2" \
		timeout -k 10 "$tmo" "./$2" </dev/null)
	rc=$?
	echo "# took $((SECONDS - t0)) s"
	kmsg_marker "mw57: end $id" || why="no kernel log"
	log=$(kmsg_window "$id" | grep -E "$MW57_SPLAT")
	if [ -n "$log" ]; then
		echo "# the kernel logged while $id ran:"
		head -n 20 <<<"$log" | sed 's/^/#   /'
		why="kernel splat"
	fi
	case $rc in
	0 | 4) [ -z "$why" ] || rc=1 ;;
	124 | 137) rc=1 why="TIMEOUT $tmo seconds${why:+, $why}" ;;
	*) why="exit=$rc${why:+, $why}" rc=1 ;;
	esac
	result $rc "$1: $2" "$why"
}
for phase in main final; do
	# every other test is done (modules unloaded by their last tests);
	# before the final tests, which lock debugfs away
	[ "$phase" = main ] || [ "$leakcheck" = 0 ] || leak_check
	for line in "${plan[@]}"; do
		read -r p s t tmo <<<"$line"
		[ "$p" = "$phase" ] && run_test "$s" "$t" "$tmo"
	done
done

# --- kernel checks --------------------------------------------------------
taint=$(cat /proc/sys/kernel/tainted)
allowed=$(((1 << 12) | (1 << 13)))	# O (out-of-tree), E (unsigned)
echo "# tainted=$taint (allowed mask $allowed)"
result $((taint & ~allowed ? 1 : 0)) "kernel: taint only O/E"

kmsg_marker "mw57: checks" >/dev/null
kill "$kmsg_pid" 2>/dev/null
# the whole log of this boot: what the boot itself logged before the
# reader started, and every line since
dmesg >"$out/dmesg.txt" 2>&1
if { cat "$out/dmesg.txt"; kmsg_text; } | grep -E "$MW57_SPLAT" >"$out/splats.txt"; then
	sed 's/^/# /' "$out/splats.txt" | head -n 40
	result 1 "kernel: log has no splat"
else
	result 0 "kernel: log has no splat"
fi

echo "# vmtest: done"
exit $failed
