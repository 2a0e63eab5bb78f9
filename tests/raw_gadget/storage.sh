#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# rg-storage, a mass-storage device on raw gadget's asynchronous requests,
# backed by a 64 MiB file on dummy_hcd, twice: Bulk-Only (usb-storage
# binds), then with UAS offered as alternate setting 1 (uas binds and
# keeps several commands in flight).  Each time sd makes a disk of the
# file's size, and ext4 on it takes mkfs, a mount, 24 MiB written, read
# back intact after a fresh mount, and fsck; the backing file holds it.
# rg-storage's data requests are in raw gadget's transfer area (mmap).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

rg_suite_start storage
pid=
stop_device() {
	umount "$tmp/mnt" 2>/dev/null
	[ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
	pid=
	wait_for 30 sh -c '! grep -qs a4a5 /sys/bus/usb/devices/*/idProduct'
}
trap 'stop_device; rm -rf "$tmp"' EXIT
ktap_set_plan 18
command -v rg-storage >/dev/null || ktap_exit_fail_msg "rg-storage not built"
for m in usb-storage uas sd_mod ext4; do
	modprobe "$m" || ktap_exit_fail_msg "cannot load $m"
done

# the block device sd made of the host-side 0525:a4a5, as /dev/NAME
disk_of() {
	local d b
	d=$(usb_dev 0525 a4a5) || return 1
	for b in /sys/bus/usb/devices/"$d"/"$d":1.0/host*/target*/*/block/*; do
		[ -e "$b" ] && [ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

# one_disk DRIVER RG_STORAGE_ARGS...: the file system round trip, 8 tests
one_disk() {
	local driver=$1 dev bound
	shift
	rm -f "$tmp/disk"
	truncate -s 64M "$tmp/disk"
	rg-storage -d dummy_udc.0 -q 4 "$@" "$tmp/disk" 2>"$tmp/log" &
	pid=$!
	wait_for 60 disk_of >/dev/null || ktap_exit_fail_msg "$driver: no disk appeared: $(cat "$tmp/log")"
	dev=$(disk_of)
	bound=$(basename "$(readlink "/sys/bus/usb/devices/$(usb_dev 0525 a4a5)/$(usb_dev 0525 a4a5):1.0/driver")")
	ktap_test_result "$driver: the host binds $driver, sd makes $dev (bound: $bound)" \
		test "$bound" = "$driver"
	ktap_test_result "$driver: rg-storage's data buffers are its transfer area (a /dev/raw-gadget mapping)" \
		grep -q ' /dev/raw-gadget$' "/proc/$pid/maps"
	ktap_test_result "$driver: the disk has the file's 131072 blocks of 512 bytes" \
		test "$(blockdev --getsz "$dev")" = 131072
	ktap_test_result "$driver: mkfs.ext4" mkfs.ext4 -q -F "$dev"
	ktap_test_result "$driver: mount, write 24 MiB, sync, umount" \
		sh -c "mount '$dev' '$tmp/mnt' && cp '$tmp/data' '$tmp/mnt/data' && sync && umount '$tmp/mnt'"
	# the page cache must not answer the read: drop it, mount again
	blockdev --flushbufs "$dev"
	echo 3 >/proc/sys/vm/drop_caches
	ktap_test_result "$driver: mount again, the 24 MiB read back intact" \
		sh -c "mount -o ro '$dev' '$tmp/mnt' && cmp '$tmp/data' '$tmp/mnt/data'; r=\$?; umount '$tmp/mnt'; exit \$r"
	ktap_test_result "$driver: fsck.ext4 -fn finds the file system clean" fsck.ext4 -fn "$dev"
	ktap_test_result "$driver: the backing file holds the file system (ext4 magic at 1080)" \
		test "$(od -An -tx2 -j1080 -N2 "$tmp/disk" | tr -d ' ')" = ef53
}

mkdir "$tmp/mnt"
head -c 24M /dev/urandom >"$tmp/data"
one_disk usb-storage
stop_device
ktap_test_result "the device leaves the host when rg-storage ends" \
	sh -c '! grep -qs a4a5 /sys/bus/usb/devices/*/idProduct'
one_disk uas -u
ktap_test_result "uas: commands queued behind the one at hand ($(grep -c 'queued behind' "$tmp/log") reports)" \
	grep -q "queued behind" "$tmp/log"
ktap_finished
