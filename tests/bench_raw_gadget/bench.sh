#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Bulk IN and OUT throughput through dummy_hcd, one libusb reader/writer
# (usb_bench), for transfer sizes 512 B .. 64 KiB, against three source/sink
# devices present at once on dummy_hcd num=3, all with 64 KiB device-side
# transfers and no data checking (pattern 2):
#
#   raw   rg-zero on raw_gadget                 0525:a4b0  dummy_udc.0
#   ffs   ffs_sourcesink on FunctionFS (configfs)  0525:a4c0  dummy_udc.1
#   ss    configfs SourceSink, in-kernel (ceiling) 0525:a4d0  dummy_udc.2
#
# Runs are interleaved (round, size, direction, device) and summarised as
# medians; the table prints raw/ffs and raw/ss ratios.  Absolute numbers
# mean little under TCG; the ratios are the result.  Output: TAP
# diagnostics and $MW57_OUT/bench-raw-gadget.txt.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

ROUNDS=${BENCH_ROUNDS:-5}
MS=${BENCH_MS:-1000}
SIZES="512 1024 2048 4096 8192 16384 32768 65536"
BUF=65536
CFG=/sys/kernel/config/usb_gadget
FFS=/dev/ffs-mw57bench

ktap_begin root
tmp=$(mktemp -d /tmp/rg-bench.XXXXXX)
pids=()
cleanup() {
	local g
	for g in "$CFG/mw57ffs" "$CFG/mw57ss"; do
		[ -d "$g" ] || continue
		echo "" >"$g/UDC" 2>/dev/null
		rm -f "$g"/configs/c.1/*.*
		rmdir "$g/configs/c.1/strings/0x409" "$g/configs/c.1" \
			"$g"/functions/* "$g/strings/0x409" "$g" 2>/dev/null
	done
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	umount "$FFS" 2>/dev/null
	rmdir "$FFS" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

modprobe -r usbtest 2>/dev/null
rg_modules num=3 || ktap_exit_fail_msg "cannot load dummy_hcd num=3 and raw_gadget"
configfs_up libcomposite usb_f_ss_lb usb_f_fs || ktap_exit_fail_msg "no configfs gadget support"

gadget() { # gadget NAME PID FUNCTION: configfs gadget, function not linked
	local g=$CFG/mw57$1
	mkdir -p "$g/strings/0x409" "$g/configs/c.1/strings/0x409" "$g/functions/$3" &&
		echo 0x0525 >"$g/idVendor" && echo "0x$2" >"$g/idProduct" &&
		echo "mw57 bench $1" >"$g/strings/0x409/product"
}

link_bind() { # link_bind NAME FUNCTION UDC (function attributes are fixed now)
	ln -s "$CFG/mw57$1/functions/$2" "$CFG/mw57$1/configs/c.1/" &&
		echo "$3" >"$CFG/mw57$1/UDC"
}

ktap_set_plan 1
rg-zero -P 2 -b $BUF -d dummy_udc.0 -p 0525:a4b0 2>"$tmp/zero.log" &
pids+=($!)
if ! gadget ffs a4c0 ffs.mw57bench || ! mkdir -p "$FFS" ||
	! mount -t functionfs mw57bench "$FFS"; then
	ktap_exit_fail_msg "FunctionFS setup failed"
fi
ffs_sourcesink "$FFS" $BUF >"$tmp/ffs.out" 2>&1 &
pids+=($!)
wait_for 30 grep -q ready "$tmp/ffs.out" || ktap_exit_fail_msg "ffs_sourcesink: $(cat "$tmp/ffs.out")"
link_bind ffs ffs.mw57bench dummy_udc.1 || ktap_exit_fail_msg "FunctionFS bind failed"
if ! gadget ss a4d0 SourceSink.0 ||
	! echo 2 >"$CFG/mw57ss/functions/SourceSink.0/pattern" ||
	! echo $BUF >"$CFG/mw57ss/functions/SourceSink.0/bulk_buflen" ||
	! link_bind ss SourceSink.0 dummy_udc.2; then
	ktap_exit_fail_msg "SourceSink setup failed"
fi
for p in a4b0 a4c0 a4d0; do
	wait_for 30 usb_dev 0525 $p >/dev/null || ktap_exit_fail_msg "0525:$p did not enumerate"
done

declare -A pid_of=([raw]=a4b0 [ffs]=a4c0 [ss]=a4d0)
for r in $(seq "$ROUNDS"); do
	for s in $SIZES; do
		for dir in in out; do
			for dev in raw ffs ss; do
				bps=$(usb_bench "0525:${pid_of[$dev]}" $dir "$s" "$MS") ||
					ktap_exit_fail_msg "usb_bench $dev $dir $s failed"
				echo "$dev $dir $s $r $bps" >>"$tmp/samples"
			done
		done
	done
done

python3 - "$tmp/samples" >"$tmp/table" <<'PY'
import statistics, sys
med = {}
for line in open(sys.argv[1]):
    dev, d, size, _, bps = line.split()
    med.setdefault((dev, d, int(size)), []).append(float(bps))
med = {k: statistics.median(v) for k, v in med.items()}
print("dir  size   raw MB/s  ffs MB/s   ss MB/s  raw/ffs  raw/ss  target(raw/ffs>=0.9 from 4 KiB)")
for d in ("in", "out"):
    for size in sorted({k[2] for k in med}):
        r, f, s = (med[(x, d, size)] / 1e6 for x in ("raw", "ffs", "ss"))
        target = "-" if size < 4096 else ("met" if r / f >= 0.9 else "MISSED")
        print(f"{d:4} {size:5}  {r:9.2f} {f:9.2f} {s:9.2f}  {r / f:7.2f} {r / s:7.2f}  {target}")
PY
ktap_print_msg "rounds $ROUNDS x ${MS} ms per sample, medians:"
ktap_print_msg "$(cat "$tmp/table")"
cp "$tmp/table" "${MW57_OUT:-/tmp}/bench-raw-gadget.txt"
cp "$tmp/samples" "${MW57_OUT:-/tmp}/bench-raw-gadget.samples"
ktap_test_pass "benchmark ran: $(wc -l <"$tmp/samples") samples"
ktap_finished
