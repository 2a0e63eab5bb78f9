#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# One UDC, two users: a configfs SourceSink at SuperSpeed configures its
# bulk endpoints with companion descriptors, then goes (its descriptors
# are freed), then raw gadget enables the same endpoints (rg_reuse.c).
# EP_ENABLE must not leave the function's comp_desc, maxburst and mult in
# the UDC's endpoint: dummy_hcd reads comp_desc when it enables one, freed
# memory by then (KASAN reports it on the debug kernel; the runner fails
# the test on that report).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

VID=1d6b
PID=5706
G=/sys/kernel/config/usb_gadget/mw57reuse

gadget_down() {
	configfs_gadget_down "$G" SourceSink.0
}
cleanup() {
	gadget_down
	rm -rf "$tmp"
}
tmp=
trap cleanup EXIT

rg_suite_start udc_reuse is_super_speed=1
ktap_set_plan 5
configfs_up libcomposite usb_f_ss_lb || ktap_exit_fail_msg "no configfs gadget support"

gadget_up() {
	mkdir -p "$G/strings/0x409" "$G/configs/c.1/strings/0x409" \
		"$G/functions/SourceSink.0" || return 1
	echo 0x$VID >"$G/idVendor"
	echo 0x$PID >"$G/idProduct"
	echo "mw57 udc reuse" >"$G/strings/0x409/product"
	echo "source/sink" >"$G/configs/c.1/strings/0x409/configuration"
	ln -s "$G/functions/SourceSink.0" "$G/configs/c.1/" &&
		echo dummy_udc.0 >"$G/UDC"
}

# configured_at_ss: the host runs the SourceSink device at 5 Gb/s in its
# configuration 1 (so the function has enabled its bulk endpoints)
configured_at_ss() {
	local d
	d=$(usb_dev "$VID" "$PID") &&
		[ "$(cat "/sys/bus/usb/devices/$d/speed")" = 5000 ] &&
		[ "$(cat "/sys/bus/usb/devices/$d/bConfigurationValue")" = 1 ]
}

gadget_up || ktap_exit_fail_msg "cannot set up the configfs SourceSink gadget"
ktap_test_result "configfs SourceSink is configured at SuperSpeed" \
	wait_for 30 configured_at_ss
gadget_down
ktap_test_result "SourceSink unbound and removed (its descriptors freed)" \
	wait_for 30 sh -c "[ ! -d $G ] && ! grep -qsx $PID /sys/bus/usb/devices/*/idProduct"

out=$(timeout 120 rg_reuse dummy_udc.0) || ktap_print_msg "rg_reuse failed"
ktap_print_msg "rg_reuse: $(echo "$out" | tr '\n' ' ')"
ktap_test_result "raw gadget on the same UDC runs at SuperSpeed (speed 5)" \
	grep -qx 'speed 5' <<<"$out"
ktap_test_result "EP_ENABLE of ep1in-bulk, SourceSink's IN endpoint, succeeds" \
	grep -qx 'in [0-9]*' <<<"$out"
ktap_test_result "EP_ENABLE of ep2out-bulk, SourceSink's OUT endpoint, succeeds" \
	grep -qx 'out [0-9]*' <<<"$out"
ktap_finished
