#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# irq injection parity: upstream's interface is "trigger" written to
# /sys/kernel/debug/irq/irqs/<N> (GENERIC_IRQ_DEBUGFS, which Debian's
# kernels lack: that is why irq_inject exists).  On a kernel that has it
# (the debug kernel), irq_inject and the debugfs trigger must give the
# same result, irq class by irq class: the same errno and the same
# /proc/interrupts delta.  On Debian's kernels the test checks that the
# debugfs trigger is indeed absent and irq_inject is the only way.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/irq_inject.sh
. ../lib/irq_inject.sh

irqinj_prelude

IRQDBG=/sys/kernel/debug/irq/irqs
if [ ! -d "$IRQDBG" ]; then
	ktap_set_plan 2
	cfg=$(grep -s '^CONFIG_GENERIC_IRQ_DEBUGFS' "/boot/config-$(uname -r)")
	ktap_print_msg "/boot/config-$(uname -r): ${cfg:-no CONFIG_GENERIC_IRQ_DEBUGFS line}"
	ktap_test_result "no debugfs irq trigger on this kernel (GENERIC_IRQ_DEBUGFS off)" \
		test "$cfg" != "CONFIG_GENERIC_IRQ_DEBUGFS=y"
	vcfg=$(irq_by_action 'virtio[0-9]+-config')
	before=$(irq_count "$vcfg")
	got=$(raw_write "$INJECT" "$vcfg")
	ktap_test_result "irq_inject injects instead (virtio config irq $vcfg: $got, delta $(($(irq_count "$vcfg") - before)))" \
		test "$got" = OK -a "$(irq_count "$vcfg")" -eq $((before + 1))
	ktap_finished
fi

# inject_by HOW IRQ: one injection through irq_inject or the debugfs
# trigger; prints "ERRNO DELTA" (OK for success), waiting (bounded) for a
# successful injection to be delivered
inject_by() {
	local file=$INJECT data=$2 before got
	if [ "$1" = trigger ]; then file=$IRQDBG/$2 data=trigger; fi
	before=$(irq_count "$2")
	got=$(raw_write "$file" "$data")
	[ "$got" != OK ] || wait_for 5 count_above "$2" "$before"
	echo "$got $(($(irq_count "$2") - before))"
}
# count_above IRQ N: IRQ's count is above N now (read at each poll)
count_above() { [ "$(irq_count "$1")" -gt "$2" ]; }

# the classes of spec section 3, found by action name on this guest
classes=()
add_class() { # add_class DESC IRQ
	[ -n "$2" ] && classes+=("$1=$2")
}
add_class "MSI edge (virtio config)" "$(irq_by_action 'virtio[0-9]+-config')"
add_class "IO-APIC edge (i8042)" "$(irq_by_action i8042)"
add_class "IO-APIC edge (rtc0)" "$(irq_by_action rtc0)"
add_class "IO-APIC level (acpi)" "$(irq_by_action acpi)"
unreq=
for d in /sys/kernel/irq/*; do
	[ -n "$(tr -d '\n' <"$d/actions")" ] && continue
	unreq=$(basename "$d")
	break
done
add_class "unrequested" "$unreq"

ktap_set_plan $((${#classes[@]} + 1))
ktap_test_result "at least the virtio, i8042, acpi and unrequested classes exist" \
	test "${#classes[@]}" -ge 4
for c in "${classes[@]}"; do
	desc=${c%=*} irq=${c##*=}
	ours=$(inject_by irq_inject "$irq")
	theirs=$(inject_by trigger "$irq")
	ktap_print_msg "$desc, irq $irq: irq_inject '$ours', debugfs trigger '$theirs'"
	ktap_test_result "$desc: irq_inject matches the debugfs trigger ($ours)" \
		test "$ours" = "$theirs"
done

ktap_finished
