#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The main job: build or reuse the guest images, boot each Debian kernel in
# QEMU (TCG), `dkms install` the bundle inside, load the modules, run the
# tests, and print a summary ending in "N passed, N failed, N skipped".
# The kernels (vm/images.list): 6.1 and 6.12 boot bookworm's image,
# trixie-6.12 and trixie-7.3 (trixie-backports) trixie's; "debug" is the
# patched 6.1 debug kernel (KASAN, lockdep, kmemleak, UBSAN;
# kbuild/debug-kernel.sh builds or reuses it) on bookworm's image.
#
#   tests/run-vm.sh [--kernel all|KERNEL[,KERNEL...]]
#                   [--suite NAME]...
#                   [--test SUITE/TEST]... [--smoke] [--list] [--shell KERNEL]
#                   [--keep] [--out DIR] [--timeout MINUTES] [--append ARGS]
#                   [--jobs N]
#
# Coverage follows the code, not the kernel: kernels whose feature probes
# (kbuild/probes.sh) give the same outcomes build the same code.  The first
# kernel of each outcome set, in the order debug 6.12 6.1, runs every test;
# a later kernel with a covered set runs its DKMS build, install and loads,
# the suites' smoke tests, the suites about the kernel itself
# (coverage=kernel) and the suites that name it (kernels=).  --smoke runs
# only smoke tests.  Each guest runs a manifest (its tests, one a line)
# against a snapshot of the harness staged in the run directory.
#
# Logs (console.log, results.tap, kmsg.txt, dkms-make.log) land in one
# folder per guest under the run directory named in the summary.  Nothing
# is ever loaded into the host's kernel.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
run_start=$(date +%s)
export MW57_TESTS=$top/tests
# shellcheck source=lib/settings.sh
. "$top/tests/lib/settings.sh"

kernel=all
suites=()
only=()
smoke=0
list=0
shell=
keep=0
out=
minutes=${MW57_VM_TIMEOUT:-60}
append=
jobs=${MW57_VM_JOBS:-2}
cache=${MW57_CACHE:-/var/cache/mw57}

usage() {
	sed -n '13,17p' "$0" | sed 's/^# *//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--suite) suites+=("$2"); shift ;;
	--test) only+=("$2"); suites+=("${2%%/*}"); shift ;;
	--smoke) smoke=1 ;;
	--list) list=1 ;;
	--shell) shell=1 kernel=$2; shift ;;
	--keep) keep=1 ;;
	--out) out=$2; shift ;;
	--timeout) minutes=$2; shift ;;
	--append) append=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	*) usage ;;
	esac
	shift
done

known=(6.1 6.12 debug trixie-6.12 trixie-7.3)
if [ "$kernel" = all ]; then
	labels=("${known[@]}")
else
	# one kernel or a comma-separated list of them
	IFS=, read -ra labels <<<"$kernel"
	for l in "${labels[@]}"; do
		[[ " ${known[*]} " == *" $l "* ]] || usage
	done
fi
# coverage priority: the debug kernel runs every test anyway
coverage=()
for l in debug 6.12 6.1 trixie-6.12 trixie-7.3; do
	[[ " ${labels[*]} " == *" $l "* ]] && coverage+=("$l")
done
# launch order, longest first: the debug kernel's guests (1647 and
# 1451 s in 4b3e8ae's parent's run), then the two single guests that run
# the packaging suite (6.1 1298 s, trixie-6.12 1167 s), then the pairs of
# 6.12 and trixie-7.3 (about 570 + 400 s, 440 + 350 s).  A second guest
# waits in the queue for its main guest's DKMS install, so while debug
# builds, 6.1 runs.  Launched last, 6.1 ran alone for the last 865 s of
# that run (vmtest 4338 s).
order=()
for l in debug 6.1 trixie-6.12 6.12 trixie-7.3; do
	[[ " ${labels[*]} " == *" $l "* ]] && order+=("$l")
done

all_suites=()
for d in "$top"/tests/*/settings; do
	s=$(basename "$(dirname "$d")")
	# benchmarks run only when named
	[ "$(setting "$s" bench)" = yes ] || all_suites+=("$s")
done
asked=("${suites[@]}")
if [ ${#suites[@]} -eq 0 ]; then
	suites=("${all_suites[@]}")
else
	mapfile -t suites < <(printf '%s\n' "${suites[@]}" | awk '!seen[$0]++')
fi

# suite_tests SUITE PHASE: the suite's tests of PHASE (main or final)
suite_tests() {
	if [ "$2" = main ]; then setting "$1" tests; else setting "$1" final; fi
}

# --list: every suite with its tests, kernels and smoke tests
if [ "$list" = 1 ]; then
	for s in "${all_suites[@]}"; do
		printf '%-16s %s%s\n' "$s" "$(setting "$s" tests) $(setting "$s" final)" \
			"$(k=$(setting "$s" kernels); [ -z "$k" ] || echo " [kernels: $k]")$(
			b=$(setting "$s" boot); [ -z "$b" ] || echo " [boot: $b]")$(
			m=$(setting "$s" smoke); [ -z "$m" ] || echo " [smoke: $m]")$(
			c=$(setting "$s" coverage); [ -z "$c" ] || echo " [coverage: $c]")"
	done
	exit 0
fi

# What was asked for must run: a suite, a test, a suite on a kernel.
for s in "${suites[@]}"; do
	setting "$s" tests >/dev/null || exit 2
done
for s in "${asked[@]}"; do
	k=$(setting "$s" kernels)
	if [ -n "$k" ] && [ -z "$(for l in "${labels[@]}"; do [[ " $k " == *" $l "* ]] && echo "$l"; done)" ]; then
		echo "run-vm: suite $s runs only on kernel $k, not on ${labels[*]}" >&2
		exit 2
	fi
done
for t in "${only[@]}"; do
	[[ " $(suite_tests "${t%%/*}" main) $(suite_tests "${t%%/*}" final) " == *" ${t#*/} "* ]] ||
		{ echo "run-vm: no test $t (tests/${t%%/*}/settings)" >&2; exit 2; }
done

for tool in qemu-system-x86_64 qemu-img debootstrap mkfs.ext4 gcc; do
	command -v "$tool" >/dev/null || { make -C "$top" deps; break; }
done

# Ctrl-C or a kill stops every child (the guests, the debug kernel build);
# their locks go with them
pids=()
kill_tree() { # kill_tree PID: the process and everything below it
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill -TERM "$1" 2>/dev/null || true
}
stop() {
	local c
	trap - INT TERM
	echo "run-vm: stopping every guest and build" >&2
	for c in $(pgrep -P $$); do kill_tree "$c"; done
	wait
	exit 130
}
trap stop INT TERM

# A cold debug kernel build (about 15 min) overlaps the image build and
# the first stock guest; the debug guest's job calls the script again,
# which waits on its lock and then finds the result cached.
if [[ " ${labels[*]} " == *" debug "* ]]; then
	"$top/kbuild/debug-kernel.sh" >/dev/null &
fi

# shellcheck source=../vm/images.sh
. "$top/vm/images.sh"
# release_of LABEL: the Debian release whose image boots LABEL
# (vm/images.list; the debug kernel boots on bookworm's)
release_of() {
	local l=${1%%[@+]*}
	case $l in debug | debug-install) l=debug ;; esac
	[ "$l" != debug ] || { echo bookworm; return; }
	images_release_of "$l"
}
# the image of each release the run needs, built or reused up front
declare -A imgs
for l in "${labels[@]}"; do
	r=$(release_of "$l")
	[ -n "$r" ] || { echo "run-vm: no image boots $l (vm/images.list)" >&2; exit 2; }
	[ -n "${imgs[$r]:-}" ] || imgs[$r]=$("$top/vm/image.sh" "$r")
done
img_of() { echo "${imgs[$(release_of "$1")]}"; }
run=${out:-$top/build/vmtest/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$run"
run=$(cd "$run" && pwd)

make -s -C "$top" userspace >"$run/userspace-build.log" 2>&1 ||
	{ tail -n 30 "$run/userspace-build.log" >&2; exit 1; }
# The DKMS trees (one per package), which the guest copies to /usr/src.
rm -rf "$run/bundle" "$run/bundle.tmp"
make -s -C "$top" dkms-install DESTDIR="$run/bundle.tmp"
mv "$run/bundle.tmp/usr/src" "$run/bundle"
rm -rf "$run/bundle.tmp"

# The guests run a snapshot of the harness, not the live tree: editing
# files during a run changes nothing.  Shared with them as "mw57".
mkdir -p "$run/stage/vm" "$run/stage/build/userspace"
cp -a "$top/tests" "$run/stage/"
cp -a "$top/vm/guest" "$run/stage/vm/"
cp -a "$top/build/userspace/bin" "$run/stage/build/userspace/"

# Suites that install our Debian packages get them in the run directory.
need_debs=0
for s in "${suites[@]}"; do
	[ "$(setting "$s" debs)" != yes ] || need_debs=1
done
if [ "$need_debs" = 1 ]; then
	make -s -C "$top" deb >"$run/deb-build.log" 2>&1 ||
		{ tail -n 30 "$run/deb-build.log" >&2; exit 1; }
	mkdir -p "$run/debs"
	cp "$top"/build/deb/mw57-*dkms_*.deb "$top"/build/deb/mw57-tools_*.deb \
		"$top"/build/deb/mw57-dev_*.deb "$top"/build/deb/mw57_*.dsc \
		"$top"/build/deb/mw57_*.tar.* "$run/debs/"
fi

# --- the plan --------------------------------------------------------------

# debug_kernel: build or reuse the debug kernel (waiting for a build in
# progress) and print its directory
debug_kernel() {
	if ! flock -n "$cache/debug-kernel.lock" true 2>/dev/null; then
		echo "run-vm: waiting for the debug kernel build ($cache/debug-kernel.lock," \
			"log $cache/debug-build.log)" >&2
	fi
	"$top/kbuild/debug-kernel.sh"
}

# kver_of LABEL: the kernel release a label boots
kver_of() {
	if [ "$1" = debug ]; then
		cat "$(debug_kernel)/kernelrelease"
	else
		awk -v l="$1" '$1 == l { print $2 }' "$(img_of "$1")/kernels"
	fi
}

# host_abi LABEL: the kernel release the host builds for LABEL: for
# bookworm's kernels, the host's header package of the series (what `make`
# and `make sparse` build against, from the header metapackages of
# kbuild/host-packages.list); for another release's, the ABI of the series
# in that release's compile-matrix chroot (make matrix)
host_abi() {
	local rel series d
	rel=$(release_of "$1")
	series=${1#"$rel"-}
	if [ "$rel" = bookworm ]; then
		# shellcheck disable=SC2016 # a dpkg-query format
		sed -e 's/#.*//' "$top/kbuild/host-packages.list" | grep -oE '^linux-headers-[^ ]+' |
			xargs dpkg-query -W -f='${Depends}\n' 2>/dev/null |
			grep -oE 'linux-headers-[0-9][^ ,]*' | sed 's/^linux-headers-//'
	else
		# (a glob: lib is a symlink in a merged-/usr chroot)
		for d in "$cache/matrix/$rel"-*/lib/modules/*/; do
			[ -d "$d" ] && basename "$d"
		done
	fi | awk -v s="$series" 'index($0, s ".") == 1 && substr($0, length(s) + 2) ~ /^[0-9]+[-+]/'
}

# headers_root KVER: "" when the host has KVER's header tree, else the
# compile-matrix chroot that has it (make matrix)
headers_root() {
	local r
	[ ! -d "/lib/modules/$1/build" ] || return 0
	for r in "$cache"/matrix/*/; do
		[ -d "$r/lib/modules/$1/build" ] && { echo "${r%/}"; return 0; }
	done
	echo "run-vm: no header tree for $1 on the host or in $cache/matrix (make matrix)" >&2
	return 1
}

# probes_of LABEL: the kernel's probe outcomes on one line; the debug
# kernel's from the headers in its .deb (extracted once, kept with it)
probes_of() {
	local kver dk fd out r
	if [ "$1" = debug ]; then
		dk=$(debug_kernel) || return 1
		# (kept per version of the probes: a new probe computes anew)
		out=$dk/probes-$(cat "$top"/kbuild/probes.mk "$top"/kbuild/probes-print.mk |
			sha256sum | cut -c1-16)
		exec {fd}>"$dk/probes.lock"
		flock "$fd"
		if [ ! -s "$out" ]; then
			rm -rf "$dk/headers"
			mkdir -p "$dk/headers"
			dpkg-deb --fsys-tarfile "$dk"/linux-headers-*.deb |
				tar -x -C "$dk/headers" --wildcards './usr/src/*/include' \
					'./usr/src/*/Makefile' || return 1
			"$top/kbuild/probes.sh" "$(echo "$dk"/headers/usr/src/linux-headers-*)" \
				>"$out.tmp" || return 1
			mv "$out.tmp" "$out"
			rm -rf "$dk/headers"
		fi
		exec {fd}>&-
		grep -E '^[A-Z0-9_]+=[yn]$' "$out" | xargs
	else
		kver=$(kver_of "$1")
		r=$(headers_root "$kver") || return 1
		"$top/kbuild/probes.sh" ${r:+--root "$r"} "/lib/modules/$kver/build" | xargs
	fi
}

# plan LABEL: write the manifests of LABEL's guests: $run/LABEL/manifest
# (the main boot), $run/LABEL@NAME/manifest (the second guest) and
# $run/LABEL@NAME+boot/manifest (the suites with their own kernel command
# line, one boot with all of their arguments, on that guest's disk).  A
# kernel whose probe set a kernel before it (in coverage order) has gets
# the reduced plan described at the top.
plan() {
	local label=$1 set mode=full by l s k b g f d n phase t list dir
	set=$(probes_of "$label") || { echo "run-vm: $label: no probe outcomes" >&2; return 1; }
	# the host's headers and the guest's kernel, side by side (summarize.sh
	# fails the kernel when they differ)
	k=$(kver_of "$label")
	if [ "$label" = debug ]; then b=$k; else b=$(host_abi "$label"); fi
	echo "${b:-none} $k" >"$run/$label/versions"
	if [ "$smoke" = 1 ]; then
		mode=smoke
	else
		# (the debug kernel's set waits for its build)
		for l in "${coverage[@]}"; do
			[ "$l" != "$label" ] || break
			[ "$(probes_of "$l")" != "$set" ] || { by=$l; break; }
		done
		[ -z "${by:-}" ] || mode="smoke (code path covered by $by)"
	fi
	echo "run-vm: $label: probes $set: ${mode}"
	echo "${mode%% *}" >"$run/$label/mode"
	# --shell: the bundle installed and loaded, no test
	[ -z "$shell" ] || suites=()
	for s in "${suites[@]}"; do
		k=$(setting "$s" kernels)
		[ -z "$k" ] || [[ " $k " == *" $label "* ]] || continue
		b=$(setting "$s" boot)
		# the guest: a full plan spreads the suites over the kernel's
		# guests (guest=); a boot suite boots on that guest's disk
		g=$label
		[ "$mode" != full ] || [ -z "$(setting "$s" guest)" ] || g=$label@$(setting "$s" guest)
		dir=$run/$g${b:++boot}
		n=0
		for phase in main final; do
			list=$(suite_tests "$s" "$phase")
			# the reduced plan: the smoke tests of a suite about our code
			# (--smoke: of every suite)
			if [ "$smoke" = 1 ] || { [ "$mode" != full ] && [ -z "$k" ] &&
				[ "$(setting "$s" coverage)" != kernel ]; }; then
				[ "$phase" = main ] && list=$(setting "$s" smoke) || list=
			fi
			for t in $list; do
				# --test: only the named tests of their suites
				[[ " ${only[*]} " != *" $s/"* ]] || [[ " ${only[*]} " == *" $s/$t "* ]] || continue
				# a test that follows another suite runs in its guest
				f=$(setting "$s" follow | tr ' ' '\n' | sed -n "s/^$t=//p")
				d=$dir
				if [ -z "$b" ] && [ "$mode" = full ] && [ -n "$f" ] &&
					[ -n "$(setting "$f" guest)" ]; then
					d=$run/$label@$(setting "$f" guest)
				fi
				mkdir -p "$d"
				echo "$phase $s $t $(setting "$s" timeout)" >>"$d/manifest"
				n=$((n + 1))
			done
		done
		# the boot's command line has the arguments of the suites it runs
		[ -z "$b" ] || [ "$n" = 0 ] || echo "$b" >>"$dir/boot"
	done
	touch "$run/$label/manifest"
}

# The kernel's own bareudp selftest (and the helpers it sources), extracted
# from the packaged linux-source tarballs (never committed), one per kernel
# series of the run: the host's (bookworm's 6.1 and 6.12, make deps), else the
# linux-source .deb of the label's release, downloaded from the archive.
# Cached outside the repo by tarball size and date (a tar scan takes a
# minute).  (tests/reference runs it too, with both modules)
# selftest_tarball SERIES RELEASE: print the linux-source tarball's path
selftest_tarball() {
	local t=/usr/src/linux-source-$1.tar.xz d=$cache/selftests/source-$1
	[ ! -f "$t" ] || { echo "$t"; return 0; }
	if [ ! -f "$d/usr/src/linux-source-$1.tar.xz" ]; then
		rm -rf "$d" && mkdir -p "$d"
		(cd "$d" && archive_apt "$2" apt-get -q download "linux-source-$1") >"$d/download.log" 2>&1 &&
			dpkg-deb --fsys-tarfile "$d"/linux-source-"$1"_*.deb |
			tar -x -C "$d" "./usr/src/linux-source-$1.tar.xz" || return 1
		rm -f "$d"/*.deb
	fi
	echo "$d/usr/src/linux-source-$1.tar.xz"
}
if [[ " ${suites[*]} " == *" bareudp "* || " ${suites[*]} " == *" reference "* ]]; then
	# shellcheck source=../kbuild/archive.sh
	. "$top/kbuild/archive.sh"
	for l in "${labels[@]}"; do
		if [ "$l" = debug ]; then series=6.1; else series=$(kver_of "$l" | cut -d. -f1-2); fi
		[ ! -s "$run/selftests/$series/bareudp.sh" ] || continue
		tarball=$(selftest_tarball "$series" "$(release_of "$l")") ||
			{ echo "run-vm: no linux-source-$series tarball (host or archive)" >&2; exit 1; }
		cached=$cache/selftests/$series-$(stat -c %s-%Y "$tarball")
		# bareudp.sh with the helpers newer ones source (7.x: ./lib.sh,
		# which sources lib/sh/*.sh): every shell script of net/
		if [ ! -s "$cached/net/bareudp.sh" ]; then
			rm -rf "$cached" && mkdir -p "$cached/tmp"
			if ! tar -xJf "$tarball" -C "$cached/tmp" --wildcards --strip-components=4 \
				"linux-source-$series/tools/testing/selftests/net/*.sh" ||
				[ ! -s "$cached/tmp/net/bareudp.sh" ]; then
				echo "run-vm: cannot extract the net selftests from $tarball" >&2
				exit 1
			fi
			mv "$cached/tmp/net" "$cached/net" && rmdir "$cached/tmp"
		fi
		mkdir -p "$run/selftests/$series"
		# (lib[.]sh: a glob, which nullglob drops where there is none)
		(cd "$cached/net" && shopt -s nullglob && f=(bareudp.sh lib[.]sh lib/sh/*.sh) &&
			cp --parents "${f[@]}" "$run/selftests/$series/")
	done
fi

# --- the guests ------------------------------------------------------------

# guest_nice LABEL: the debug kernel's build and guest are the critical
# path of a run with all kernels: the other guests yield the CPU to them
guest_nice() {
	if [[ " ${labels[*]} " == *" debug "* ]] && [[ $1 != debug* ]]; then
		echo 10
	else
		echo 0
	fi
}

# progress LABEL: one line per finished test of the guest's TAP stream
# (stdin), as it happens, with a running count
progress() {
	awk -v l="$1" '
		/^# took [0-9]+ s/ { took = " " $3 " s" }
		/^(ok|not ok) [0-9]+ / {
			st = ($1 == "ok") ? (($0 ~ /# SKIP/) ? "SKIP" : "ok") : "FAIL"
			name = substr($0, index($0, l ": ") + length(l) + 2)
			sub(/ # .*/, "", name)
			sub(/: /, "/", name)
			n++; c[st]++
			printf "[%s] %s %s%s (%d ok, %d failed)\n", l, name, st, took, c["ok"], c["FAIL"]
			fflush()
			took = ""
		}'
}

# A guest's harness prints its TAP plan within a minute of the boot (two
# guests on two busy cores); one that printed nothing after this many
# seconds hangs before any test ran (the kernel's boot, udev, a 9p mount)
boot_limit=${MW57_BOOT_LIMIT:-300}
# a guest that printed may be silent for as long as its longest test may
# run (each test is under its own timeout), or a DKMS build (make's output
# goes to make.log: minutes without a line; 20 are allowed), and five
# minutes more; MW57_HANG_LIMIT sets the seconds instead
hang_limit() {
	if [ -n "${MW57_HANG_LIMIT:-}" ]; then
		echo "$MW57_HANG_LIMIT"
	else
		awk 'BEGIN { m = 1200 } /^(main|final) / && $4 > m { m = $4 }
			END { print m + 300 }' "$run/$1/manifest"
	fi
}

# monitor LABEL CMD: a command to the guest's QEMU monitor
monitor() {
	[ -S "$run/$1/monitor.sock" ] &&
		echo "$2" | socat -t 5 - "UNIX-CONNECT:$run/$1/monitor.sock" >/dev/null 2>&1
}

# watch LABEL PID: when the guest's harness has printed nothing and its
# console nothing new for boot_limit s (a busy host slows a boot tenfold,
# and it still prints as it goes), write LABEL/stalled, send an NMI (the
# guest panics with every task's stack on its console, vm/qemu.sh) and
# end QEMU.  Once the harness printed, the same for a guest whose TAP is
# silent for longer than hang_limit allows: a hung kernel, LABEL/hung.
watch() {
	local label=$1 q=$2 t0=$SECONDS size=0 con=0 now c limit=$boot_limit what=stalled
	while kill -0 "$q" 2>/dev/null; do
		now=$(stat -c %s "$run/$label/results.tap" 2>/dev/null || echo 0)
		c=$(stat -c %s "$run/$label/console.log" 2>/dev/null || echo 0)
		if [ "$now" = 0 ] && [ "$c" != "$con" ]; then
			con=$c t0=$SECONDS
		elif [ "$now" != "$size" ]; then
			[ "$size" != 0 ] || { what=hung limit=$(hang_limit "$label"); }
			size=$now t0=$SECONDS
		elif [ $((SECONDS - t0)) -ge "$limit" ]; then
			echo "$limit" >"$run/$label/$what"
			monitor "$label" nmi
			t0=$SECONDS
			while kill -0 "$q" 2>/dev/null && [ $((SECONDS - t0)) -lt 60 ]; do
				sleep 1
			done
			monitor "$label" quit
			return 0
		fi
		sleep 2
	done
}

# expects_tap APPEND: a guest with this command line runs the harness (not
# the debug kernel's install-only boot, not --shell's guest)
expects_tap() {
	[ -z "$shell" ] && [[ " $1 " != *" mw57.install_only=1 "* ]]
}

# ended_silent LABEL APPEND: a guest that ended without TAP and without the
# watch's stall record (its boot panicked) gets one, 0 s: "it ended"
ended_silent() {
	! expects_tap "$2" || [ -f "$run/$1/stalled" ] || [ -s "$run/$1/results.tap" ] ||
		echo 0 >"$run/$1/stalled"
}

# qemu_run LABEL KVER APPEND [BASE]: one QEMU run of $run/LABEL/manifest,
# on a new layer over BASE (a qcow2 disk) or over the image; its exit code
qemu_run() {
	local label=$1 kver=$2 start rc=0 q w=
	echo "run-vm: $label: booting $kver (timeout ${minutes} min), $(wc -l <"$run/$label/manifest") tests${3:+, append: $3}"
	start=$(date +%s)
	: >"$run/$label/results.tap"
	nice -n "$(guest_nice "$label")" "$top/vm/qemu.sh" "$(img_of "$label")" "$kver" "$label" \
		"$run" "$minutes" "$3" "${4:-}" <&0 &
	q=$!
	if [ -n "$shell" ]; then
		wait "$q" || rc=$?
	else
		if expects_tap "$3"; then
			watch "$label" "$q" &
			w=$!
		fi
		tail -n +1 -F --pid="$q" "$run/$label/results.tap" 2>/dev/null | progress "$label" &
		wait "$q" || rc=$?
		wait $! 2>/dev/null || true
		[ -z "$w" ] || wait "$w" 2>/dev/null || true
	fi
	echo "run-vm: $label: qemu exit $rc after $(($(date +%s) - start)) s"
	return "$rc"
}

# guest LABEL KVER APPEND [BASE]: run the guest; a boot that stalled
# before the harness started runs once more (no test had run, so nothing
# is repeated), its console kept as console.stalled.log for the summary
guest() {
	local label=$1 start
	mkdir -p "$run/$label"
	[ -f "$run/$label/manifest" ] || : >"$run/$label/manifest"
	rm -f "$run/$label/stalled" "$run/$label/hung"
	start=$(date +%s)
	qemu_run "$@" || true
	# (a guest that ended before its harness printed, the kernel's boot
	# panicked: the same)
	ended_silent "$label" "$3"
	if [ -f "$run/$label/stalled" ]; then
		mv "$run/$label/console.log" "$run/$label/console.stalled.log"
		mv "$run/$label/stalled" "$run/$label/stalled-once"
		echo "run-vm: $label: no TAP, the boot stalled or ended" \
			"(console.stalled.log); booting again"
		qemu_run "$@" || true
		ended_silent "$label" "$3"
		[ ! -f "$run/$label/stalled" ] ||
			echo "run-vm: $label: the second boot stalled or ended as well"
	fi
	# for the summary's timeline: seconds from the run's start, duration
	echo "$((start - run_start)) $(($(date +%s) - start))" >"$run/$label/time"
}

# debug_disk KVER: a qcow2 layer over the image with the debug kernel's
# .debs installed (minutes under TCG), made by a boot that does only that;
# print its path.  Cached in the image's directory (a new image drops it),
# named by the kernel's cache key and the time its .deb was built (a
# rebuilt kernel gets a new layer).
debug_disk() {
	local layer fd
	layer=$(img_of debug)/disk-$(basename "$MW57_KERNEL_DIR")-$(stat -c %Y "$MW57_KERNEL_DIR"/linux-image-*.deb).qcow2
	exec {fd}>"$layer.lock"
	flock -n "$fd" || { echo "run-vm: waiting for $layer.lock (another run)" >&2; flock "$fd"; }
	if [ ! -s "$layer" ]; then
		guest debug-install "$1" "$append mw57.install_only=1" >&2
		[ -f "$run/debug-install/installed" ] || {
			echo "run-vm: debug-install: the .debs did not install, see" \
				"$run/debug-install/console.log and kernel-debs.log" >&2
			exec {fd}>&-
			return 1
		}
		mv "$run/debug-install/overlay.qcow2" "$layer"
	fi
	exec {fd}>&-
	echo "$layer"
}

# stage_new_kernel LABEL: when a suite of LABEL's plan installs a new
# kernel (newkernel=debug), the debug kernel's .debs in RUNDIR/new-kernel
stage_new_kernel() {
	local s dk
	while read -r s <&3; do
		[ "$(setting "$s" newkernel)" = debug ] || continue
		dk=$(debug_kernel) || return 1
		mkdir -p "$run/new-kernel"
		cp "$dk"/linux-image-*.deb "$dk"/linux-headers-*.deb "$run/new-kernel/" || return 1
		break
	done 3< <(cat "$run/$1/manifest" "$run/$1"@*/manifest "$run/$1+boot/manifest" \
		2>/dev/null | awk '{ print $2 }' | sort -u)
}

# prepare LABEL: the kernel's release, the debug kernel's files and
# disk, the plan; kept in RUNDIR/LABEL (kver, base, kdir) for its guests
prepare() {
	local label=$1 kver base=
	if [ "$label" = debug ]; then
		MW57_KERNEL_DIR=$(debug_kernel) || {
			echo "run-vm: debug: the debug kernel did not build (see $cache/debug-build.log)" >&2
			echo "debug kernel build failed: $cache/debug-build.log" >"$run/$label/prepare-failed"
			return 1
		}
		export MW57_KERNEL_DIR
		echo "$MW57_KERNEL_DIR" >"$run/$label/kdir"
		mkdir -p "$run/kernel-debs"
		cp "$MW57_KERNEL_DIR"/*.deb "$run/kernel-debs/"
		kver=$(cat "$MW57_KERNEL_DIR/kernelrelease")
	else
		kver=$(kver_of "$label")
	fi
	echo "$kver" >"$run/$label/kver"
	# (before the debug kernel's install boot: the later kernels' plans
	# wait for this one)
	plan "$label" || {
		echo "no probe outcomes for $kver" >"$run/$label/prepare-failed"
		return 1
	}
	stage_new_kernel "$label" || {
		echo "the debug kernel did not build (a suite installs it as a new kernel): $cache/debug-build.log" \
			>"$run/$label/prepare-failed"
		return 1
	}
	if [ "$label" = debug ]; then
		base=$(debug_disk "$kver") || {
			echo "the debug kernel's .debs did not install: $run/debug-install" >"$run/$label/prepare-failed"
			return 1
		}
	fi
	echo "$base" >"$run/$label/base"
}

# boot GUEST: one guest of a kernel (LABEL or LABEL@NAME) and then the
# boot suites on its disk; the kernel's own job prepares it first, the
# other guests of the kernel wait for that
boot() {
	local g=$1 label=${1%@*} kver base d
	if [ "$g" = "$label" ]; then
		prepare "$label" || return 1
	else
		until [ -f "$run/$label/base" ] || [ -f "$run/$label/prepare-failed" ]; do
			sleep 2
		done
		[ -f "$run/$label/base" ] || return 1
		[ -s "$run/$g/manifest" ] || return 0
		# its DKMS install is the main guest's
		echo "$label" >"$run/$g/dkms-from"
	fi
	kver=$(cat "$run/$label/kver")
	base=$(cat "$run/$label/base")
	if [ -f "$run/$label/kdir" ]; then
		MW57_KERNEL_DIR=$(cat "$run/$label/kdir")
		export MW57_KERNEL_DIR
	fi
	if [ -n "$shell" ]; then
		MW57_SHELL=1 guest "$g" "$kver" "$append mw57.shell=1" "$base"
		return
	fi
	guest "$g" "$kver" "$append" "$base"
	# a main guest that died before its DKMS install ended must not
	# leave the kernel's other guests waiting for it (tests/run.sh)
	[ "$g" != "$label" ] || [ -f "$run/$g/dkms.tar" ] || : >"$run/$g/dkms.failed"
	# the boot suites on this guest's disk, reusing its DKMS install
	d=$g+boot
	if [ -s "$run/$d/manifest" ]; then
		: >"$run/$d/reuse-install"
		guest "$d" "$kver" "$append $(xargs <"$run/$d/boot")" "$run/$g/overlay.qcow2"
		[ "$keep" = 1 ] || rm -f "$run/$d/overlay.qcow2"
	fi
	[ "$keep" = 1 ] || rm -f "$run/$g/overlay.qcow2"
}

for r in "${!imgs[@]}"; do echo "run-vm: image $r ${imgs[$r]}"; done
echo "run-vm: run directory $run"
# (a reused --out directory: nothing of an earlier run may count)
for l in "${order[@]}"; do
	rm -rf "${run:?}/$l" "$run/$l"@* "$run/$l"+* "$run/$l-install"
	mkdir -p "$run/$l"
done
# The guests run side by side (--jobs, default 2): much of a test waits on
# the guest's timers (enumeration, fuzz duration, ping), so two guests
# share the two host cores better than one after the other.  A kernel's
# plan needs the probe sets of the kernels before it in coverage order:
# its job computes them (the debug kernel's after its build).
# the guests of a kernel: the main one, then one per guest= name
shards=$(for x in "${suites[@]}"; do setting "$x" guest; done | sort -u | xargs)
queue=()
for label in "${order[@]}"; do
	for g in "$label" $([ -n "$shell" ] || for n in $shards; do echo "$label@$n"; done); do
		queue+=("$g")
	done
done
# ready GUEST: a kernel's main guest may start at once; its other guests
# take its DKMS install, so they start when that is there (or when its
# preparation failed, or dkms.failed says the install will not come,
# which boot() also writes for a main guest that ended without it): until
# then a guest would only wait, and its job slot runs the next guest in
# the queue meanwhile
ready() {
	local l=${1%@*}
	[ "$1" = "$l" ] || [ -f "$run/$l/dkms.tar" ] || [ -f "$run/$l/dkms.failed" ] ||
		[ -f "$run/$l/prepare-failed" ]
}
while [ ${#queue[@]} -gt 0 ]; do
	while [ "$(for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && echo "$p"; done | wc -l)" -ge "$jobs" ]; do
		wait -n 2>/dev/null || true
	done
	next=
	for i in "${!queue[@]}"; do
		ready "${queue[$i]}" && { next=$i; break; }
	done
	if [ -z "$next" ]; then
		sleep 2
		continue
	fi
	# (an explicit stdin: a background job's is /dev/null, and
	# --shell's guest reads this terminal)
	boot "${queue[$next]}" <&0 &
	pids+=($!)
	unset "queue[$next]"
	queue=("${queue[@]}")
done
for p in "${pids[@]}"; do wait "$p" || true; done
[ -n "$shell" ] && exit 0

# a suite that was asked for and planned nowhere fails the run
for s in "${asked[@]}"; do
	cat "$run"/*/manifest 2>/dev/null | awk -v s="$s" '$2 == s { f = 1 } END { exit !f }' ||
		echo "suite $s was asked for and has no test to run on ${labels[*]}$([ "$smoke" = 0 ] || echo " with --smoke")" >>"$run/not-run"
done

# every guest that was planned, main boots first
mapfile -t done_labels < <(cd "$run" && for l in "${labels[@]}"; do
	echo "$l"; for d in "$l"@* "$l"+*; do [ -s "$d/manifest" ] && echo "$d"; done; done)
# the last run, for kbuild/support-table.sh
[ -n "$out" ] || ln -sfn "$(basename "$run")" "$top/build/vmtest/last"
exec "$top/tests/summarize.sh" "$run" "${done_labels[@]}"
