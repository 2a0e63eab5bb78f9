#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# qemu.sh IMAGEDIR KVER LABEL RUNDIR MINUTES [EXTRA_APPEND [BASE]]
#
# Boot KVER from the cached image directly (-kernel/-initrd) under TCG, on
# a throwaway qcow2 overlay (the cached image is never written; with BASE,
# the overlay sits on that earlier guest's qcow2 overlay), with the run's
# snapshot of the harness (RUNDIR/stage) shared read-only as "mw57",
# RUNDIR shared read-write as "mw57out", and the guest's compiler cache
# for KVER (outside the repo, under MW57_CACHE) as "mw57ccache".
# ttyS0 -> RUNDIR/LABEL/console.log (MW57_SHELL=1: this terminal, for an
# interactive shell), ttyS1 -> RUNDIR/LABEL/results.tap.  A WARN panics
# (panic_on_warn=1) and a panic ends QEMU (panic=-1, -no-reboot); a hang
# ends at the hard timeout (exit 124).  The QEMU monitor listens on
# RUNDIR/LABEL/monitor.sock.
# MW57_KERNEL_DIR, when set, holds vmlinuz-KVER (and no initrd: the debug
# kernel has its boot drivers built in) instead of the image directory.
set -euo pipefail

[ $# -ge 5 ] || { echo "usage: $0 IMAGEDIR KVER LABEL RUNDIR MINUTES [APPEND [BASE]]" >&2; exit 2; }
img=$1 kver=$2 label=$3 run=$4 minutes=$5 extra=${6:-} base=${7:-}
kout=$run/$label
mkdir -p "$kout"

if [ -n "$base" ]; then
	qemu-img create -q -f qcow2 -F qcow2 -b "$base" "$kout/overlay.qcow2"
else
	qemu-img create -q -f qcow2 -F raw -b "$img/root.img" "$kout/overlay.qcow2"
fi

append="root=/dev/vda rw console=ttyS0 init=/sbin/mw57-boot mw57.label=$label"
append+=" panic=-1 panic_on_warn=1 oops=panic softlockup_panic=0 $extra"
# the end-of-run splat check reads dmesg: keep the whole run in the buffer
# (the default 128-256 KiB wrapped after about 20 minutes of suites)
append+=" log_buf_len=16M"
# no_timer_check: the boot's IO-APIC timer test waits a TSC delay and
# expects timer ticks meanwhile; a TCG vCPU starved by a busy host misses
# them and the 6.1 guest panicked "IO-APIC + timer doesn't work!" (five
# guests on two cores).  Virtual machines skip the test (virtme-ng too).
append+=" no_timer_check"
# a guest that hangs before its harness prints anything gets an NMI from
# the host (tests/run-vm.sh, through the monitor socket): it panics and
# prints every task's stack and every CPU's backtrace to the console
append+=" unknown_nmi_panic=1 panic_print=0x41"

kdir=${MW57_KERNEL_DIR:-$img}
initrd=()
[ ! -f "$kdir/initrd.img-$kver" ] || initrd=(-initrd "$kdir/initrd.img-$kver")

ccache_dir=${MW57_CACHE:-/var/cache/mw57}/guest-ccache/$kver
mkdir -p "$ccache_dir"

# (a unix socket's path has room for 107 bytes: a deeper RUNDIR goes
# without, and its hangs without the dump)
monitor=none
[ ${#kout} -gt 90 ] || monitor="unix:$kout/monitor.sock,server=on,wait=off"

console=(-serial "file:$kout/console.log")
[ "${MW57_SHELL:-0}" != 1 ] || console=(-serial mon:stdio)

# Single-threaded TCG: a 6.12 guest died of "Oops: int3" in
# __netif_receive_skb_core while another vCPU enabled a static key (a
# text_poke), the sign of a cross-vCPU self-modifying-code race in
# multi-threaded TCG; one thread runs the vCPUs in turn and sees every
# patch at once.  Side by side, the same 25 tests took 756 s against 763 s
# with thread=multi (two guests per run, two runs on 2 cores).
# -cpu max: the guests see SMAP/SMEP and the other features real machines
# give the kernel (a stray user access from a module faults).  Measured
# side by side against QEMU's default model (qemu64) on every 6.12 suite:
# 559 s against 541 s, 3%; the suites have no TCG hot spot that max makes
# slow.
# la57=off: with 5-level paging (Debian's kernels use it when the CPU
# has it) QEMU's TCG still reports 48 virtual address bits, so the
# guest's copy_from_kernel_nofault() refuses every direct-map address:
# d_path() then prints each mount point as its last name in "x"s
# ("/sys" as "xxx") and mountpoint(1) and mount(8) misread the table.
# The 6.x guests had that table; the debug kernel (4-level) did not.
# svm=off: with SVM in the CPUID, udev loads kvm_amd in the 6.12 and 7.x
# guests, and once (1 of 14 boots that loaded it) a spurious single-step
# #DB hit while svm_init() ran and panic_on_warn took the guest down
# (WARNING in exc_debug_kernel).  No suite needs a hypervisor in the guest.
rc=0
timeout --foreground -k 10 "${minutes}m" qemu-system-x86_64 \
	-nodefaults -nographic -no-reboot -monitor "$monitor" \
	-machine q35 -cpu "${MW57_QEMU_CPU:-max,svm=off,la57=off}" -accel "tcg,thread=${MW57_QEMU_THREAD:-single}" -smp 2 -m 2048 \
	-kernel "$kdir/vmlinuz-$kver" "${initrd[@]}" \
	-append "$append" \
	-drive "file=$kout/overlay.qcow2,if=virtio,format=qcow2,cache=unsafe" \
	-virtfs "local,path=$run/stage,mount_tag=mw57,security_model=none,readonly=on" \
	-virtfs "local,path=$run,mount_tag=mw57out,security_model=none" \
	-virtfs "local,path=$ccache_dir,mount_tag=mw57ccache,security_model=none" \
	-device virtio-rng-pci \
	"${console[@]}" \
	-serial "file:$kout/results.tap" || rc=$?
echo "$rc" >"$kout/qemu.rc"
exit "$rc"
