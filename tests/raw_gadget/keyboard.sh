#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# rg-keyboard (librawgadget, HID boot keyboard) on dummy_hcd: it must
# enumerate at high and full speed, bind usbhid, deliver the typed keys on
# its /dev/input/eventN, and survive a port reset and deauthorize/authorize
# (RESET seen, re-enumerated, keys arrive again).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/kmsg.sh
. ../lib/kmsg.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

rg_suite_start keyboard num=2

kbd=
cleanup() {
	exec 3>&- 2>/dev/null
	# a failed check: the keyboard's own view of the bus
	[ "$KTAP_FAIL" -eq 0 ] || for f in "$tmp"/log.*; do
		[ -f "$f" ] && ktap_print_msg "${f##*/}:" "$(tail -n 40 "$f")"
	done
	[ -n "$kbd" ] && kill "$kbd" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

VID=1d6b PID=5701
# "mw57\n" -> KEY_M KEY_W KEY_5 KEY_7 KEY_ENTER
KEYS="50 17 6 8 28"

ktap_set_plan 12

start_kbd() { # start_kbd SPEED
	mkfifo "$tmp/in.$1"
	rg-keyboard -v -s "$1" <"$tmp/in.$1" 2>"$tmp/log.$1" &
	kbd=$!
	exec 3>"$tmp/in.$1"
}

stop_kbd() {
	exec 3>&-	# EOF: the keyboard exits by itself
	wait_for 20 sh -c "! kill -0 $kbd 2>/dev/null"
	local rc=$?
	[ $rc -eq 0 ] || kill "$kbd" 2>/dev/null
	wait "$kbd" 2>/dev/null || rc=1
	kbd=
	return $rc
}

bound() { # bound DEV: usbhid drives interface DEV:1.0 and it has an evdev node
	[ -e "/sys/bus/usb/drivers/usbhid/$1:1.0" ] && event_node "$1:1.0" >/dev/null
}

# rebound_typed DEV: usbhid binds again and typed keys arrive
rebound_typed() {
	wait_for 20 bound "$1" && type_and_check "$1"
}

# type_and_check DEV: type "mw57" and read it back from evdev
type_and_check() {
	local node out
	node=$(event_node "$1:1.0") || return 1
	rm -f "$tmp/ready"
	read_keys "$node" 5 20 "$tmp/ready" >"$tmp/keys" &
	local reader=$!
	# the reader must hold the node before anything is typed (python's
	# first start in the guest is slow)
	wait_for 60 test -e "$tmp/ready" ||
		{ ktap_print_msg "reader did not open $node"; kill "$reader"; return 1; }
	echo mw57 >&3
	wait "$reader"
	out=$(cat "$tmp/keys")
	ktap_print_msg "keys from $node: $out (want $KEYS)"
	[ "$out" = "$KEYS" ]
}

# enumeration_logged: the kernel log since $mark shows the new device
enumeration_logged() {
	local log
	log=$(kmsg_since "$mark")
	grep -q "new high-speed USB device number .* using dummy_hcd" <<<"$log" &&
		grep -q "input: mw57 mw57 keyboard" <<<"$log"
}

mark=$(kmsg_mark)
start_kbd 3
dev=
wait_for 30 usb_dev $VID $PID >/dev/null && dev=$(usb_dev $VID $PID)
ktap_test_result "high speed: $VID:$PID enumerates on dummy_hcd" test -n "$dev"
ktap_test_result "dmesg: new high-speed USB device using dummy_hcd, input: line" \
	enumeration_logged
ktap_test_result "usbhid binds ${dev:-?}:1.0 and an evdev node appears" \
	wait_for 20 bound "${dev:-none}"
ktap_test_result "typed keys arrive on evdev" type_and_check "${dev:-none}"

usb_reset "${dev:-none}" 2>"$tmp/reset.err"
ktap_test_result "port reset: the device sees RESET" \
	wait_for 20 grep -q 'event RESET' "$tmp/log.3"
ktap_test_result "port reset: re-enumerated, keys arrive again" \
	rebound_typed "${dev:-none}"

echo 0 >"/sys/bus/usb/devices/${dev:-none}/authorized"
ktap_test_result "deauthorize: usbhid lets go" \
	wait_for 20 sh -c "[ ! -e /sys/bus/usb/drivers/usbhid/${dev:-none}:1.0 ]"
echo 1 >"/sys/bus/usb/devices/${dev:-none}/authorized"
ktap_test_result "authorize again: usbhid binds, keys arrive" \
	rebound_typed "${dev:-none}"
ktap_test_result "EOF on stdin: the keyboard exits 0" stop_kbd
ktap_test_result "the device is gone from the host" \
	wait_for 20 sh -c "! ls /sys/bus/usb/devices/${dev:-none}/idVendor 2>/dev/null"
ktap_print_msg "$(grep -c 'event ' "$tmp/log.3") events, last: $(grep 'event ' "$tmp/log.3" | tail -n 3 | tr '\n' ' ')"

# full speed
start_kbd 2
dev=
wait_for 30 usb_dev $VID $PID >/dev/null && dev=$(usb_dev $VID $PID)
ktap_test_result "full speed: enumerates as a 12 Mb/s device" \
	sh -c "[ -n '$dev' ] && [ \"\$(cat /sys/bus/usb/devices/$dev/speed)\" = 12 ]"
ktap_test_result "full speed: usbhid binds, keys arrive" \
	rebound_typed "${dev:-none}"
stop_kbd
ktap_finished
