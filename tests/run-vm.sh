#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The main job: build or reuse the guest image, boot each Debian kernel in
# QEMU (TCG), `dkms install` the bundle inside, load the modules, run the
# suites, and print a summary ending in "N passed, N failed, N skipped".
# The third kernel, "debug", is the patched 6.1 debug kernel (KASAN,
# lockdep, kmemleak, UBSAN; kbuild/debug-kernel.sh builds or reuses it):
# the guest installs its .debs, then proceeds as for Debian's kernels.
#
#   tests/run-vm.sh [--kernel 6.1|6.12|debug|all] [--suite NAME]... [--keep]
#                   [--out DIR] [--timeout MINUTES] [--append ARGS] [--jobs N]
#
# Logs (console.log, results.tap, dmesg.txt, dkms-make.log) land in one
# folder per kernel under the run directory named in the summary.  Nothing
# is ever loaded into the host's kernel.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=all
suites=()
keep=0
out=
minutes=${MW57_VM_TIMEOUT:-60}
append=
jobs=${MW57_VM_JOBS:-2}

usage() {
	sed -n '12,13p' "$0" | sed 's/^# *//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--suite) suites+=("$2"); shift ;;
	--keep) keep=1 ;;
	--out) out=$2; shift ;;
	--timeout) minutes=$2; shift ;;
	--append) append=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	-h | --help) usage ;;
	*) usage ;;
	esac
	shift
done

case $kernel in
all) labels=(6.1 6.12 debug) ;;
6.1 | 6.12 | debug) labels=("$kernel") ;;
*) usage ;;
esac

if [ ${#suites[@]} -eq 0 ]; then
	for d in "$top"/tests/*/settings; do
		# benchmarks run only when named
		grep -q '^bench=yes' "$d" && continue
		suites+=("$(basename "$(dirname "$d")")")
	done
fi
for s in "${suites[@]}"; do
	[ -f "$top/tests/$s/settings" ] || { echo "run-vm: no suite $s" >&2; exit 2; }
done

for tool in qemu-system-x86_64 qemu-img debootstrap mkfs.ext4 gcc; do
	command -v "$tool" >/dev/null || { make -C "$top" deps; break; }
done

# A cold debug kernel build (about 20 min) overlaps the image build and
# the bundle preparation; the debug guest's job below calls the script
# again, which waits on its lock and then finds the result cached.  Not a
# job of this shell: the guest slots below count jobs, and the stock guests
# (at nice 10) are to run beside the build, not after it.
if [[ " ${labels[*]} " == *" debug "* ]]; then
	("$top/kbuild/debug-kernel.sh" >/dev/null &)
fi

img=$("$top/vm/image.sh")
run=${out:-$top/build/vmtest/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$run"
run=$(cd "$run" && pwd)

make -s -C "$top" userspace >"$run/userspace-build.log" 2>&1 ||
	{ tail -n 30 "$run/userspace-build.log" >&2; exit 1; }
make -s -C "$top" dkms-install DESTDIR="$run/bundle"
# The guest copies this tree to /usr/src; keep only the versioned folder.
mv "$run"/bundle/usr/src/mw57-* "$run/bundle.tmp"
rm -rf "$run/bundle"
mv "$run/bundle.tmp" "$run/bundle"

# Suites that install our Debian packages get them in the run directory.
need_debs=0
for s in "${suites[@]}"; do
	grep -qx 'debs=yes' "$top/tests/$s/settings" && need_debs=1
done
if [ "$need_debs" = 1 ]; then
	make -s -C "$top" deb >"$run/deb-build.log" 2>&1 ||
		{ tail -n 30 "$run/deb-build.log" >&2; exit 1; }
	mkdir -p "$run/debs"
	cp "$top"/build/deb/mw57-dkms_*.deb "$top"/build/deb/mw57-tools_*.deb "$run/debs/"
fi

# The kernel's own bareudp selftest, extracted from the packaged
# linux-source tarballs (never committed), one per kernel series; cached
# outside the repo by tarball size and date (a tar scan takes a minute).
# (tests/reference runs it too, with both modules)
if [[ " ${suites[*]} " == *" bareudp "* || " ${suites[*]} " == *" reference "* ]]; then
	for series in 6.1 6.12; do
		tarball=/usr/src/linux-source-$series.tar.xz
		cached=${MW57_CACHE:-/var/cache/mw57}/selftests/$series-$(stat -c %s-%Y "$tarball")
		if [ ! -s "$cached/bareudp.sh" ]; then
			mkdir -p "$cached"
			if ! tar -xJOf "$tarball" \
				"linux-source-$series/tools/testing/selftests/net/bareudp.sh" \
				>"$cached/bareudp.sh.tmp"; then
				echo "run-vm: cannot extract bareudp.sh from $tarball" >&2
				exit 1
			fi
			mv "$cached/bareudp.sh.tmp" "$cached/bareudp.sh"
		fi
		mkdir -p "$run/selftests/$series"
		cp "$cached/bareudp.sh" "$run/selftests/$series/bareudp.sh"
	done
fi

# setting SUITE KEY: a value from tests/SUITE/settings
setting() {
	(
		# shellcheck disable=SC2034 # read by the eval below
		kernels='' boot=''
		# shellcheck disable=SC1090,SC1091
		. "$top/tests/$1/settings"
		eval "echo \"\${$2}\""
	)
}

# suites_for LABEL [boot]: the suites of the main boot of this kernel (a
# suite's settings may name its kernels, e.g. kernels="6.1", when one is
# enough); with "boot", those that need their own kernel command line
# (boot="ipv6.disable=1"), each booted afterwards on the main boot's disk
suites_for() {
	local s k b
	for s in "${suites[@]}"; do
		k=$(setting "$s" kernels)
		[ -z "$k" ] || [[ " $k " == *" $1 "* ]] || continue
		b=$(setting "$s" boot)
		if [ "${2:-}" = boot ]; then [ -n "$b" ]; else [ -z "$b" ]; fi && echo "$s"
	done
}

# guest_nice LABEL: the debug kernel's build and guest are the critical
# path of a run with all kernels (the longest job, starting last): the
# other guests yield the CPU to them and take what is left
guest_nice() {
	if [[ " ${labels[*]} " == *" debug "* ]] && [[ $1 != debug* ]]; then
		echo 10
	else
		echo 0
	fi
}

# guest LABEL KVER SUITES APPEND [BASE]: one QEMU run, on a new layer
# over BASE (a qcow2 disk) or over the image
guest() {
	local label=$1 kver=$2 start rc=0
	mkdir -p "$run/$label"
	echo "$3" >"$run/$label/suites"
	echo "run-vm: $label: booting $kver (timeout ${minutes} min), suites: $3${4:+, append: $4}"
	start=$(date +%s)
	nice -n "$(guest_nice "$label")" "$top/vm/qemu.sh" "$img" "$kver" "$label" \
		"$run" "$minutes" "$4" "${5:-}" || rc=$?
	echo "run-vm: $label: qemu exit $rc after $(($(date +%s) - start)) s"
}

# debug_kernel: build or reuse the debug kernel, hand its .debs to the
# guest (vmtest-init installs them) and print its directory
debug_kernel() {
	local dk
	dk=$("$top/kbuild/debug-kernel.sh") || return 1
	mkdir -p "$run/kernel-debs"
	cp "$dk"/*.deb "$run/kernel-debs/"
	echo "$dk"
}

# debug_disk KVER: a qcow2 layer over the image with the debug kernel's
# .debs installed (minutes under TCG), made by a boot that does only that;
# print its path.  Cached in the image's directory (a new image drops it),
# named by the kernel's cache key and the time its .deb was built (a
# rebuilt kernel gets a new layer).
debug_disk() {
	local layer fd
	layer=$img/disk-$(basename "$MW57_KERNEL_DIR")-$(stat -c %Y "$MW57_KERNEL_DIR"/linux-image-*.deb).qcow2
	exec {fd}>"$layer.lock"
	flock "$fd"
	if [ ! -s "$layer" ]; then
		guest debug-install "$1" "" "$append mw57.install_only=1" >&2
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

boot() { # boot LABEL: the main guest of a kernel, then its boot suites
	local label=$1 kver s base=
	if [ "$label" = debug ]; then
		# in this job, so that a cold build overlaps the other guests
		MW57_KERNEL_DIR=$(debug_kernel) ||
			{ echo "run-vm: debug: no debug kernel" >&2; return 1; }
		export MW57_KERNEL_DIR
		kver=$(cat "$MW57_KERNEL_DIR/kernelrelease")
		base=$(debug_disk "$kver") || return 1
	else
		kver=$(awk -v l="$label" '$1 == l { print $2 }' "$img/kernels")
	fi
	guest "$label" "$kver" "$(suites_for "$label" | xargs echo)" "$append" "$base"
	# each boot suite on the main boot's disk, reusing its DKMS install
	for s in $(suites_for "$label" boot); do
		mkdir -p "$run/$label+$s"
		: >"$run/$label+$s/reuse-install"
		guest "$label+$s" "$kver" "$s" "$append $(setting "$s" boot)" \
			"$run/$label/overlay.qcow2"
		[ "$keep" = 1 ] || rm -f "$run/$label+$s/overlay.qcow2"
	done
	[ "$keep" = 1 ] || rm -f "$run/$label/overlay.qcow2"
}

echo "run-vm: image $img"
echo "run-vm: run directory $run"
# The guests run side by side (--jobs, default 2): much of a suite waits on
# the guest's timers (enumeration, fuzz duration, ping), so two guests
# share the two host cores better than one after the other.
# The debug kernel's guest is the slowest (and may first build its
# kernel): it starts first.
launch=()
for label in debug 6.1 6.12; do
	[[ " ${labels[*]} " == *" $label "* ]] && launch+=("$label")
done
pids=()
for label in "${launch[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	boot "$label" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done

# every guest that ran, main boots first
mapfile -t done_labels < <(cd "$run" && for l in "${labels[@]}"; do
	echo "$l"; for d in "$l"+*; do [ -d "$d" ] && echo "$d"; done; done)
exec "$top/tests/summarize.sh" "$run" "${done_labels[@]}"
