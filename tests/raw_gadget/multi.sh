#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Two raw_gadget instances at once on dummy_hcd num=2 (two rg-keyboards
# with different product ids), each typing to its own evdev node; then a
# host-side disconnect (port power off through the hub's port "disable"
# attribute) of one: it sees DISCONNECT, the other keeps working, and after
# power on it enumerates again.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

rg_suite_start multi num=2

pids=()
cleanup() {
	exec 3>&- 4>&- 2>/dev/null
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

VID=1d6b
KEYS="50 17 6 8 28"

typed() { # typed DEV FD: "mw57" written to FD arrives on DEV's evdev node
	local node reader out
	wait_for 20 event_node "$1:1.0" >/dev/null || return 1
	node=$(event_node "$1:1.0")
	rm -f "$tmp/ready.$1"
	read_keys "$node" 5 20 "$tmp/ready.$1" >"$tmp/keys.$1" &
	reader=$!
	wait_for 60 test -e "$tmp/ready.$1" || { kill "$reader"; return 1; }
	echo mw57 >&"$2"
	wait "$reader"
	out=$(cat "$tmp/keys.$1")
	ktap_print_msg "$1 ($node): $out"
	[ "$out" = "$KEYS" ]
}

mkfifo "$tmp/a" "$tmp/b"
rg-keyboard -v -d dummy_udc.0 -p $VID:5711 <"$tmp/a" 2>"$tmp/log.a" &
pids+=($!)
rg-keyboard -v -d dummy_udc.1 -p $VID:5712 <"$tmp/b" 2>"$tmp/log.b" &
pids+=($!)
exec 3>"$tmp/a" 4>"$tmp/b"

ktap_set_plan 7
a='' b=''
wait_for 30 usb_dev $VID 5711 >/dev/null && a=$(usb_dev $VID 5711)
wait_for 30 usb_dev $VID 5712 >/dev/null && b=$(usb_dev $VID 5712)
ktap_test_result "both instances enumerate (${a:-none} and ${b:-none}, different buses)" \
	sh -c "[ -n '$a' ] && [ -n '$b' ] && [ '${a%%-*}' != '${b%%-*}' ]"
ktap_test_result "keys of instance 0 arrive on its node" typed "${a:-none}" 3
ktap_test_result "keys of instance 1 arrive on its node" typed "${b:-none}" 4

port=$(ls -d /sys/bus/usb/devices/"${b%%-*}"-0:1.0/usb"${b%%-*}"-port"${b#*-}" 2>/dev/null)
echo 1 >"$port/disable"
ktap_test_result "port power off: instance 1 sees DISCONNECT" \
	wait_for 20 grep -q 'event DISCONNECT' "$tmp/log.b"
ktap_test_result "instance 0 keeps working meanwhile" typed "${a:-none}" 3
echo 0 >"$port/disable"
ktap_test_result "port power on: instance 1 enumerates again" \
	wait_for 30 usb_dev $VID 5712
b=$(usb_dev $VID 5712)
ktap_test_result "keys of instance 1 arrive again" typed "${b:-none}" 4
ktap_finished
