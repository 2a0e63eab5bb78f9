#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Mass storage at high speed through dummy_hcd: rg-storage (on raw
# gadget's asynchronous requests, 4 in flight) as Bulk-Only (rg, under
# usb-storage) and as UAS (rgu, under uas) against the kernel's own
# f_mass_storage (fms, configfs, Bulk-Only), all present at once on
# dummy_hcd num=3, each backed by its own 80 MiB file in the same file
# system.  Sequential write and read of 64 MiB with dd oflag=direct /
# iflag=direct, 1 MiB blocks, rounds interleaved; per round the ratios
# rg/fms and rgu/fms, and their median and range over the rounds.
# Target: >= 0.8 both ways.  Output: TAP diagnostics and
# $MW57_OUT/bench-rg-storage.txt.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

ROUNDS=${BENCH_ROUNDS:-5}
CFG=/sys/kernel/config/usb_gadget
G=$CFG/mw57fms

ktap_begin root
tmp=$(mktemp -d /var/tmp/rg-storage-bench.XXXXXX)
pids=()
cleanup() {
	local p
	configfs_gadget_down "$G" mass_storage.0
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

rg_modules num=3 || ktap_exit_fail_msg "cannot load dummy_hcd num=3 and raw_gadget"
configfs_up libcomposite usb_f_mass_storage || ktap_exit_fail_msg "no configfs gadget support"
for m in usb-storage uas sd_mod; do
	modprobe "$m" || ktap_exit_fail_msg "cannot load $m"
done
ktap_set_plan 1

# the block device sd made of the host-side VID:PID, as /dev/NAME
disk_of() {
	local d b
	d=$(usb_dev "$1" "$2") || return 1
	for b in /sys/bus/usb/devices/"$d"/"$d":1.0/host*/target*/*/block/*; do
		[ -e "$b" ] && [ -b "/dev/${b##*/}" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

truncate -s 80M "$tmp/rg.img" "$tmp/rgu.img" "$tmp/fms.img"
rg-storage -d dummy_udc.0 -q 4 "$tmp/rg.img" 2>"$tmp/rg.log" &
pids+=($!)
rg-storage -d dummy_udc.2 -q 4 -u -p 0525:a4a7 "$tmp/rgu.img" 2>"$tmp/rgu.log" &
pids+=($!)
if ! { mkdir -p "$G/strings/0x409" "$G/configs/c.1/strings/0x409" \
	"$G/functions/mass_storage.0" &&
	echo 0x0525 >"$G/idVendor" && echo 0xa4a6 >"$G/idProduct" &&
	echo "$tmp/fms.img" >"$G/functions/mass_storage.0/lun.0/file" &&
	ln -s "$G/functions/mass_storage.0" "$G/configs/c.1/" &&
	echo dummy_udc.1 >"$G/UDC"; }; then
	ktap_exit_fail_msg "f_mass_storage setup failed"
fi
wait_for 60 disk_of 0525 a4a5 >/dev/null || ktap_exit_fail_msg "rg-storage: no disk ($(cat "$tmp/rg.log"))"
wait_for 60 disk_of 0525 a4a6 >/dev/null || ktap_exit_fail_msg "f_mass_storage: no disk"
wait_for 60 disk_of 0525 a4a7 >/dev/null || ktap_exit_fail_msg "rg-storage -u: no disk ($(cat "$tmp/rgu.log"))"
declare -A dev=([rg]=$(disk_of 0525 a4a5) [rgu]=$(disk_of 0525 a4a7) [fms]=$(disk_of 0525 a4a6))

# MB/s of one dd of 64 MiB: DIR write|read, DEV
rate() {
	local t0 t1
	t0=$(date +%s%N)
	if [ "$1" = write ]; then
		dd if=/dev/zero of="$2" bs=1M count=64 oflag=direct status=none || return 1
	else
		dd if="$2" of=/dev/null bs=1M count=64 iflag=direct status=none || return 1
	fi
	t1=$(date +%s%N)
	python3 -c "print(f'{64 * 1048576 * 1000 / ($t1 - $t0):.2f}')"
}

for r in $(seq "$ROUNDS"); do
	for dir in write read; do
		for d in rg rgu fms; do
			mbs=$(rate $dir "${dev[$d]}") || ktap_exit_fail_msg "dd $dir on $d failed"
			echo "$d $dir $r $mbs" >>"$tmp/samples"
		done
	done
done

python3 - "$tmp/samples" >"$tmp/table" <<'PY'
import statistics, sys
s = {}
for line in open(sys.argv[1]):
    d, dr, r, mbs = line.split()
    s[(d, dr, int(r))] = float(mbs)
rounds = sorted({k[2] for k in s})
print("dir     rg MB/s  rgu MB/s  fms MB/s  rg/fms (per-round range)  rgu/fms (range)    target >=0.8")
for dr in ("write", "read"):
    mbs = {d: statistics.median(s[(d, dr, r)] for r in rounds) for d in ("rg", "rgu", "fms")}
    out = f"{dr:6} {mbs['rg']:9.2f} {mbs['rgu']:9.2f} {mbs['fms']:9.2f}"
    verdict = []
    for d in ("rg", "rgu"):
        ratios = [s[(d, dr, r)] / s[("fms", dr, r)] for r in rounds]
        med = statistics.median(ratios)
        out += f"  {med:5.2f} ({min(ratios):.2f}-{max(ratios):.2f})     "
        verdict.append(f"{d} {'met' if med >= 0.8 else 'MISSED'}")
    print(out + ", ".join(verdict))
PY
ktap_print_msg "rounds $ROUNDS, 64 MiB each, medians:"
ktap_print_msg "$(cat "$tmp/table")"
cp "$tmp/table" "${MW57_OUT:-/tmp}/bench-rg-storage.txt"
ktap_test_pass "benchmark ran: $(wc -l <"$tmp/samples") samples"
ktap_finished
