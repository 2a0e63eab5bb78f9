#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# rg-storage, a mass-storage device on raw gadget's asynchronous requests,
# backed by a 64 MiB file on dummy_hcd, three times: Bulk-Only at high
# speed (usb-storage binds), then with UAS offered as alternate setting 1
# (uas binds and keeps several commands in flight), then the same at
# SuperSpeed, where UAS moves each command's data and status on bulk
# streams.  Each time sd makes a disk of the file's size, and ext4 on it
# takes mkfs, a mount, 24 MiB written, read back intact after a fresh
# mount, and fsck; the backing file holds it.  rg-storage's data requests
# are in raw gadget's transfer area (mmap).
#
# uas takes a SuperSpeed device only from a host controller that says it
# has streams.  Debian's dummy_hcd implements them but does not say so;
# the debug kernel's does (kbuild/debug/0002).  So on Debian's kernels
# usb-storage takes the SuperSpeed device's alternate setting 0, and the
# kernel log must say that uas refused it for want of streams.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh
# shellcheck source=../lib/kmsg.sh
. ../lib/kmsg.sh

rg_suite_start storage
pid=
stop_device() {
	umount "$tmp/mnt" 2>/dev/null
	[ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
	pid=
	wait_for 30 sh -c '! grep -qs a4a5 /sys/bus/usb/devices/*/idProduct'
}
# dd_enable +p|-p: dummy_hcd's log line for each enabled endpoint (it
# names its streams) on or off; the quotes are for the control file
dd_enable() {
	echo "module dummy_hcd format \"maxpacket %d stream\" $1" >/proc/dynamic_debug/control
}
trap 'stop_device; dd_enable -p 2>/dev/null; rm -rf "$tmp"' EXIT
ktap_set_plan 28
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

# one_disk LABEL DRIVER RG_STORAGE_ARGS...: the file system round trip
# with DRIVER on the host, 8 tests named after LABEL
one_disk() {
	local l=$1 driver=$2 dev bound
	shift 2
	rm -f "$tmp/disk"
	truncate -s 64M "$tmp/disk"
	rg-storage -d dummy_udc.0 -q 4 "$@" "$tmp/disk" 2>"$tmp/log" &
	pid=$!
	wait_for 60 disk_of >/dev/null || ktap_exit_fail_msg "$l: no disk appeared: $(cat "$tmp/log")"
	dev=$(disk_of)
	bound=$(basename "$(readlink "/sys/bus/usb/devices/$(usb_dev 0525 a4a5)/$(usb_dev 0525 a4a5):1.0/driver")")
	ktap_test_result "$l: the host binds $driver, sd makes $dev (bound: $bound)" \
		test "$bound" = "$driver"
	ktap_test_result "$l: rg-storage's data buffers are its transfer area (a /dev/raw-gadget mapping)" \
		grep -q ' /dev/raw-gadget$' "/proc/$pid/maps"
	ktap_test_result "$l: the disk has the file's 131072 blocks of 512 bytes" \
		test "$(blockdev --getsz "$dev")" = 131072
	ktap_test_result "$l: mkfs.ext4" mkfs.ext4 -q -F "$dev"
	ktap_test_result "$l: mount, write 24 MiB, sync, umount" \
		sh -c "mount '$dev' '$tmp/mnt' && cp '$tmp/data' '$tmp/mnt/data' && sync && umount '$tmp/mnt'"
	# the page cache must not answer the read: drop it, mount again
	blockdev --flushbufs "$dev"
	echo 3 >/proc/sys/vm/drop_caches
	ktap_test_result "$l: mount again, the 24 MiB read back intact" \
		sh -c "mount -o ro '$dev' '$tmp/mnt' && cmp '$tmp/data' '$tmp/mnt/data'; r=\$?; umount '$tmp/mnt'; exit \$r"
	ktap_test_result "$l: fsck.ext4 -fn finds the file system clean" fsck.ext4 -fn "$dev"
	ktap_test_result "$l: the backing file holds the file system (ext4 magic at 1080)" \
		test "$(od -An -tx2 -j1080 -N2 "$tmp/disk" | tr -d ' ')" = ef53
}

mkdir "$tmp/mnt"
head -c 24M /dev/urandom >"$tmp/data"
one_disk usb-storage usb-storage
stop_device
ktap_test_result "the device leaves the host when rg-storage ends" \
	sh -c '! grep -qs a4a5 /sys/bus/usb/devices/*/idProduct'
one_disk uas uas -u
ktap_test_result "uas: commands queued behind the one at hand ($(grep -c 'queued behind' "$tmp/log") reports)" \
	grep -q "queued behind" "$tmp/log"
stop_device

# SuperSpeed
rg_modules is_super_speed=1 || ktap_exit_fail_msg "cannot load dummy_hcd is_super_speed=1"
dd_enable +p ||
	ktap_exit_fail_msg "cannot turn on dummy_hcd's enable message"
case $(uname -r) in
*-mw57debug) ss_driver=uas ;;
*) ss_driver=usb-storage ;;
esac
mark=$(kmsg_mark) || ktap_exit_fail_msg "cannot write to /dev/kmsg"
one_disk "SuperSpeed $ss_driver" "$ss_driver" -u -s 5
ktap_test_result "SuperSpeed: the host sees 5000 Mb/s" \
	test "$(cat "/sys/bus/usb/devices/$(usb_dev 0525 a4a5)/speed")" = 5000
if [ "$ss_driver" = uas ]; then
	# status, data in, data out: three endpoints with 16 streams each
	n=$(kmsg_since "$mark" | grep -c 'maxpacket 1024 stream enabled$')
	ktap_test_result "SuperSpeed uas: 3 endpoints enabled with streams ($n), commands queued behind the one at hand" \
		sh -c "[ '$n' -ge 3 ] && grep -q 'queued behind' '$tmp/log'"
else
	ktap_test_result "SuperSpeed: uas refused the device for the host controller's want of streams" \
		kmsg_grep "$mark" 'does not support streams, which are required by the UAS driver'
fi
ktap_finished
