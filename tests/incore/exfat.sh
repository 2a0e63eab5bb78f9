#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The staging exFAT removal (5.7): the filesystem is fs/exfat, there is no
# staging driver, and fs/exfat works: an image made by mkfs.exfat
# (exfatprogs) mounts, takes a write that survives a remount, and
# fsck.exfat -n finds it clean afterwards.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root
for t in mkfs.exfat fsck.exfat losetup; do
	command -v "$t" >/dev/null || ktap_exit_fail_msg "$t missing from the guest image"
done

tmp=$(mktemp -d /tmp/mw57-exfat.XXXXXX)
loop=
cleanup() {
	# (not mountpoint(1): see configfs_up in tests/lib/raw_gadget.sh)
	umount "$tmp/mnt" 2>/dev/null
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_set_plan 7

mods=/lib/modules/$(uname -r)
path=$(modinfo -n exfat 2>/dev/null)
ktap_print_msg "modinfo -n exfat: ${path:-none}"
ktap_test_result "exfat is fs/exfat ($path)" \
	test "${path#"$mods"/kernel/fs/exfat/}" != "$path"
staging=$(find "$mods" -path '*staging*' -name '*exfat*' 2>/dev/null)
ktap_test_result "no staging exFAT module${staging:+ ($staging)}" test -z "$staging"

# loop is a module on Debian: without it, no /dev/loop-control
modprobe loop 2>/dev/null
truncate -s 64M "$tmp/img"
mkdir "$tmp/mnt"
loop=$(losetup --find --show "$tmp/img" 2>&1) || {
	ktap_print_msg "losetup: $loop"
	loop=
}
ktap_test_result "mkfs.exfat makes a filesystem" \
	sh -c "[ -n '$loop' ] && mkfs.exfat -L MW57 '$loop' >'$tmp/mkfs.log' 2>&1"

mounted=0
if mount -t exfat "$loop" "$tmp/mnt" 2>"$tmp/mount.err"; then
	mounted=1
	ktap_test_pass "mount -t exfat"
else
	ktap_print_msg "mount: $(cat "$tmp/mount.err")"
	ktap_test_fail "mount -t exfat"
fi

ok=0
if [ "$mounted" = 1 ]; then
	head -c 300000 /dev/urandom >"$tmp/data"
	mkdir "$tmp/mnt/dir" && cp "$tmp/data" "$tmp/mnt/dir/file.bin" &&
		umount "$tmp/mnt" && mount -t exfat "$loop" "$tmp/mnt" &&
		cmp -s "$tmp/data" "$tmp/mnt/dir/file.bin" && ok=1
	umount "$tmp/mnt" 2>/dev/null
fi
ktap_test_result "a write survives umount and mount" test "$ok" = 1

rc=0
[ -n "$loop" ] && fsck.exfat -n "$loop" >"$tmp/fsck.log" 2>&1 || rc=$?
[ -n "$loop" ] || rc=1
ktap_print_msg "$(cat "$tmp/fsck.log" 2>/dev/null)"
ktap_test_result "fsck.exfat -n: clean after the write (exit $rc)" test "$rc" = 0
ktap_test_result "the exfat module is loaded" grep -q '^exfat ' /proc/modules

ktap_finished
