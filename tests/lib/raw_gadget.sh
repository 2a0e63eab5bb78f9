# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# Helpers of the raw_gadget suite: module setup, host-side device lookup,
# bounded polling, an evdev key reader.

# rg_modules [DUMMY_HCD_ARGS...]: (re)load dummy_hcd with the arguments,
# then raw_gadget.  Fails when a gadget is still bound to dummy_hcd.
rg_modules() {
	if grep -q '^dummy_hcd ' /proc/modules; then
		modprobe -r dummy_hcd || return 1
	fi
	modprobe dummy_hcd "$@" && modprobe raw_gadget &&
		modprobe usbhid && modprobe evdev && [ -c /dev/raw-gadget ]
}

# shellcheck source=../lib/wait.sh
. ../lib/wait.sh

# rg_suite_start NAME [DUMMY_HCD_ARGS...]: TAP header, root check, modules
# loaded, and a scratch directory in $tmp (the caller's trap removes it).
rg_suite_start() {
	local name=$1
	shift
	ktap_print_header
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "needs root"
	rg_modules "$@" || ktap_exit_fail_msg "cannot load dummy_hcd $* and raw_gadget"
	# shellcheck disable=SC2034 # for the caller
	tmp=$(mktemp -d "/tmp/rg-$name.XXXXXX")
}

# rg_prog_start PROG [DUMMY_HCD_ARGS...]: for a test whose TAP the C
# program PROG prints: root, the modules loaded, PROG built.  A failure
# prints the TAP header and ends the test.
rg_prog_start() {
	local prog=$1
	shift
	[ "$(id -u)" -eq 0 ] || { ktap_print_header; ktap_skip_all "needs root"; }
	rg_modules "$@" ||
		{ ktap_print_header; ktap_exit_fail_msg "cannot load dummy_hcd${*:+ $*} and raw_gadget"; }
	command -v "$prog" >/dev/null || { ktap_print_header; ktap_exit_fail_msg "$prog not built"; }
}

# rg_dyndbg QUERY WHAT: turn on the pr_debug()s that the dynamic debug
# QUERY selects, until the test exits (its EXIT trap); WHAT names them in
# the failure message
rg_dyndbg() {
	rg_ddq=$1
	trap 'echo "$rg_ddq -p" >/proc/dynamic_debug/control' EXIT
	echo "$rg_ddq +p" >/proc/dynamic_debug/control ||
		{ ktap_print_header; ktap_exit_fail_msg "cannot turn on $2"; }
}

# configfs_up MODULE...: load the gadget function modules (libcomposite
# pulls in configfs) and have configfs mounted.  The file system type of
# the directory decides (statfs), not the mount table, which a guest can
# misprint (CI stop 27: the la57 note in vm/qemu.sh).
configfs_up() {
	local m
	for m in "$@"; do
		modprobe "$m" || { echo "# cannot load $m"; return 1; }
	done
	configfs_mounted || mount -t configfs configfs /sys/kernel/config
	configfs_mounted || { echo "# cannot mount configfs"; return 1; }
}
configfs_mounted() { [ "$(stat -f -c %T /sys/kernel/config 2>/dev/null)" = configfs ]; }

# configfs_gadget_down G FUNC: unbind configfs gadget directory G from
# its UDC and remove it, with its one function FUNC (e.g. SourceSink.0)
configfs_gadget_down() {
	local g=$1 f=$2
	[ -d "$g" ] || return 0
	echo "" >"$g/UDC" 2>/dev/null
	rm -f "$g/configs/c.1/$f"
	rmdir "$g/configs/c.1/strings/0x409" "$g/configs/c.1" \
		"$g/functions/$f" "$g/strings/0x409" "$g" 2>/dev/null
}

# usb_dev VID PID: the sysfs name (e.g. 3-1) of the host-side device.
usb_dev() {
	local d
	for d in /sys/bus/usb/devices/*; do
		[ -f "$d/idVendor" ] || continue
		if [ "$(cat "$d/idVendor"):$(cat "$d/idProduct")" = "$1:$2" ]; then
			basename "$d"
			return 0
		fi
	done
	return 1
}

# usb_node DEV: /dev/bus/usb/BBB/DDD of sysfs device DEV.
usb_node() {
	printf '/dev/bus/usb/%03d/%03d\n' "$(cat "/sys/bus/usb/devices/$1/busnum")" \
		"$(cat "/sys/bus/usb/devices/$1/devnum")"
}

# usb_reset DEV: USBDEVFS_RESET (a port reset) on the device.
usb_reset() {
	python3 -c 'import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
fcntl.ioctl(fd, 0x5514)' "$(usb_node "$1")"
}

# event_node INTF: /dev/input/eventN of the input device under interface INTF.
event_node() {
	local e
	for e in /sys/bus/usb/devices/"$1"/*/input/input*/event*; do
		[ -e "$e" ] && { echo "/dev/input/$(basename "$e")"; return 0; }
	done
	return 1
}

# read_keys NODE COUNT SECONDS READY: print the key codes of the first
# COUNT key presses (value 1) on evdev NODE, space separated; fails on
# timeout.  It creates file READY once NODE is open: only then may keys be
# typed.  (That anyone holds NODE says nothing: udev's input_id opens every
# new event node for a moment.)
read_keys() {
	python3 - "$@" <<'PY'
import os, select, struct, sys, time
node, count, limit, ready = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
fmt = "llHHi"
size = struct.calcsize(fmt)
fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
open(ready, "w").close()
keys, end, buf = [], time.monotonic() + limit, b""
while len(keys) < count:
    left = end - time.monotonic()
    if left <= 0 or not select.select([fd], [], [], left)[0]:
        break
    buf += os.read(fd, size * 64)
    while len(buf) >= size:
        _, _, typ, code, value = struct.unpack(fmt, buf[:size])
        buf = buf[size:]
        if typ == 1 and value == 1:
            keys.append(code)
print(" ".join(map(str, keys[:count])))
sys.exit(0 if len(keys) >= count else 1)
PY
}
