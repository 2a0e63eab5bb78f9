#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# rg-loopback: bytes written to bulk OUT come back on bulk IN (usb_bench
# loop through libusb, sizes that end in a short packet), also after a port
# reset.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

rg_suite_start loopback num=2

lb=
cleanup() {
	[ -n "$lb" ] && kill "$lb" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

round_trips() { # round_trips SIZE: 2 s of round trips, all compared
	local n
	n=$(usb_bench 1d6b:5703 loop "$1" 2000) || return 1
	ktap_print_msg "$1 bytes: $n round trips"
	[ "$n" -gt 0 ]
}

ktap_set_plan 5
rg-loopback -v -d dummy_udc.0 2>"$tmp/log" &
lb=$!
ktap_test_result "rg-loopback enumerates" wait_for 30 usb_dev 1d6b 5703
ktap_test_result "1 byte round trips" round_trips 1
ktap_test_result "65535 byte round trips (127 packets and a short one)" round_trips 65535
usb_reset "$(usb_dev 1d6b 5703)"
ktap_test_result "port reset: RESET seen, enumerated again" \
	wait_for 20 grep -q 'event RESET' "$tmp/log"
ktap_test_result "1000 byte round trips after the reset" \
	wait_for 20 round_trips 1000
ktap_finished
