#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The kernel's usbtest host driver against rg-zero (raw_gadget) and against
# the in-kernel configfs SourceSink function (the baseline; Debian has no
# g_zero), both 0525:a4a0 with pattern 1 on dummy_hcd.  Every case must
# give the baseline's result; where the baseline says EOPNOTSUPP, our 0
# passes too.  The baseline itself must pass (0) or give the result listed
# for the case below, so that both failing the same way is no pass.  ISO
# cases 15, 16, 22, 23 are not run: dummy_hcd has no iso.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

CASES="1 2 3 4 5 6 7 8 9 10 11 12 13 14 17 18 19 20 21 24 25 26"
# The baseline results other than 0 that a case may have, and why:
#   25, 26 (interrupt OUT/IN): usbtest answers EOPNOTSUPP when the device
#   has no interrupt endpoint; SourceSink and rg-zero are bulk-only
declare -A BASELINE=([25]=EOPNOTSUPP [26]=EOPNOTSUPP)
VID=0525 PID=a4a0
G=/sys/kernel/config/usb_gadget/mw57zero

rg_suite_start usbtest num=2
modprobe -r usbtest 2>/dev/null
modprobe usbtest pattern=1 || ktap_exit_fail_msg "cannot load usbtest pattern=1"
configfs_up libcomposite usb_f_ss_lb || ktap_exit_fail_msg "no configfs gadget support"
[ -d /sys/kernel/config/usb_gadget ] || ktap_exit_fail_msg "no usb_gadget in configfs"

zero=
baseline_down() {
	configfs_gadget_down "$G" SourceSink.0
}
cleanup() {
	[ -n "$zero" ] && kill "$zero" 2>/dev/null
	wait 2>/dev/null
	baseline_down
	rm -rf "$tmp"
}
trap cleanup EXIT

baseline_up() {
	mkdir -p "$G/strings/0x409" "$G/configs/c.1/strings/0x409" \
		"$G/functions/SourceSink.0" || return 1
	echo 0x$VID >"$G/idVendor"
	echo 0x$PID >"$G/idProduct"
	echo mw57 >"$G/strings/0x409/manufacturer"
	echo "SourceSink baseline" >"$G/strings/0x409/product"
	echo "source/sink" >"$G/configs/c.1/strings/0x409/configuration"
	echo 1 >"$G/functions/SourceSink.0/pattern"
	ln -s "$G/functions/SourceSink.0" "$G/configs/c.1/" &&
		echo dummy_udc.0 >"$G/UDC"
}

usbtest_bound() { # usbtest_bound: VID:PID enumerated and usbtest drives it
	local d
	d=$(usb_dev "$VID" "$PID") && [ -e "/sys/bus/usb/drivers/usbtest/$d:1.0" ]
}

run_cases() { # run_cases SIDE: one "SIDE CASE RESULT" line per case
	local node c r
	node=$(usb_node "$(usb_dev "$VID" "$PID")")
	for c in $CASES; do
		r=$(timeout 120 usbtest_case "$node" "$c" 8 1024 512 32) || r="$c TIMEOUT"
		echo "$1 $r" >>"$tmp/results"
	done
}

n_cases=$(wc -w <<<"$CASES")
ktap_set_plan $((n_cases + 5))

baseline_up
ktap_test_result "baseline: configfs SourceSink enumerates, usbtest binds" \
	wait_for 30 usbtest_bound
run_cases sourcesink
baseline_down
ktap_test_result "baseline: gadget removed from the host" \
	wait_for 30 sh -c "! grep -qsx $PID /sys/bus/usb/devices/*/idProduct"

rg-zero -v -P 1 2>"$tmp/zero.log" &
zero=$!
ktap_test_result "rg-zero enumerates, usbtest binds" wait_for 30 usbtest_bound
run_cases raw_gadget

# the comparison, as a table and one result per case
ktap_print_msg "$(printf '%-5s %-12s %-12s\n' case raw_gadget SourceSink)"
for c in $CASES; do
	ours=$(awk -v c="$c" '$1 == "raw_gadget" && $2 == c { print $3 }' "$tmp/results")
	base=$(awk -v c="$c" '$1 == "sourcesink" && $2 == c { print $3 }' "$tmp/results")
	ktap_print_msg "$(printf '%-5s %-12s %-12s\n' "$c" "${ours:-none}" "${base:-none}")"
	if [ "$base" != 0 ] && [ "$base" != "${BASELINE[$c]:-0}" ]; then
		ktap_test_fail "usbtest case $c: SourceSink ${base:-none}, not an accepted baseline (raw_gadget ${ours:-none})"
	elif [ -n "$ours" ] && { [ "$ours" = "$base" ] ||
		{ [ "$base" = EOPNOTSUPP ] && [ "$ours" = 0 ]; }; }; then
		ktap_test_pass "usbtest case $c: raw_gadget $ours, SourceSink $base"
	else
		ktap_test_fail "usbtest case $c: raw_gadget ${ours:-none}, SourceSink ${base:-none}"
	fi
done
after_reset() { # RESET seen, usbtest bound again, case 1 passes
	wait_for 20 grep -q 'event RESET' "$tmp/zero.log" &&
		wait_for 30 usbtest_bound &&
		[ "$(usbtest_case "$(usb_node "$(usb_dev "$VID" "$PID")")" 1 8 1024 512 32)" = "1 0" ]
}
usb_reset "$(usb_dev "$VID" "$PID")"
ktap_test_result "port reset: rg-zero re-enumerates, usbtest binds, case 1 passes" \
	after_reset
kill "$zero" 2>/dev/null
wait "$zero" 2>/dev/null
zero=
ktap_test_result "rg-zero saw no bad OUT data" \
	sh -c "! grep -q 'bad' '$tmp/zero.log'"
ktap_finished
