#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Host unit test of irq-inject's parsing of /sys/kernel/irq (a fake tree;
# nothing is injected and no module is involved).
set -u
. "$(dirname "$0")/../../tests/lib/ktap.sh"

fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
mkirq() { # mkirq N TYPE CHIP ACTIONS COUNTS
	mkdir -p "$fake/$1"
	echo "$2" >"$fake/$1/type"
	echo "$3" >"$fake/$1/chip_name"
	echo "$4" >"$fake/$1/actions"
	echo "$5" >"$fake/$1/per_cpu_count"
}
mkirq 0 edge IO-APIC timer 7,0
mkirq 1 edge IO-APIC i8042 3,4
mkirq 9 level IO-APIC acpi 0,0
mkirq 10 edge IO-APIC "" 0,0
mkirq 24 edge PCI-MSIX-0000:00:02.0 virtio1-config,other 5,6
export IRQ_INJECT_SYSFS=$fake
tool=$BIN/irq-inject

ktap_print_header
ktap_set_plan 8
out=$("$tool" --list)
ktap_print_msg "$out"
ktap_test_result "list: sorted by irq" test "$(awk 'NR > 1 { print $1 }' <<<"$out" | xargs)" = "0 1 9 10 24"
ktap_test_result "list: edge with action is injectable" grep -qE '^ +24 +edge .* yes +virtio1-config,other' <<<"$out"
ktap_test_result "list: level is not" grep -qE '^ +9 +level .* no +acpi +# level-triggered' <<<"$out"
ktap_test_result "list: the timer (irq 0) is not" grep -qE '^ +0 +edge .* no +timer +# the timer' <<<"$out"
ktap_test_result "list: unrequested is not" grep -qE '^ +10 .* no +- +# not requested' <<<"$out"
unknown() { "$tool" no-such-name 2>&1 | grep -q "no interrupt named 'no-such-name'"; }
ktap_test_result "unknown name is reported" unknown
badcount() { "$tool" -n 0 1 2>/dev/null; [ $? -eq 2 ] && "$tool" -n 10001 1 2>/dev/null; [ $? -eq 2 ]; }
ktap_test_result "COUNT out of range is a usage error" badcount
ktap_test_result "--version prints the bundle version" bash -c "'$tool' --version | grep -q 'mw57'"
ktap_finished
