#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Bulk IN and OUT throughput through dummy_hcd, one libusb reader/writer
# (usb_bench), for transfer sizes 512 B .. 64 KiB, against five source/sink
# devices present at once on dummy_hcd num=5, all with 64 KiB device-side
# transfers and no data checking (pattern 2):
#
#   raw   rg-zero on raw_gadget, blocking          0525:a4b0  dummy_udc.0
#   ffs   ffs_sourcesink on FunctionFS (configfs)  0525:a4c0  dummy_udc.1
#   ss    configfs SourceSink, in-kernel (ceiling) 0525:a4d0  dummy_udc.2
#   rga   rg-zero -q 4: 4 async requests in flight 0525:a4b1  dummy_udc.3
#   rgm   rg-zero -q 4 -M: the same in the mmap()ed
#         transfer area, no copies                 0525:a4b3  dummy_udc.4
#
# Runs are interleaved (round, size, direction, device) and summarised as
# medians; the table prints raw/ffs, rga/ss and rgm/ss ratios, with the
# targets raw/ffs >= 0.9 from 4 KiB and async/ss >= 0.9 at every size and
# the per-round range of the ratios.  Then the same for rga, rgm and ss at
# SuperSpeed (dummy_hcd is_super_speed=1 num=3).  Absolute numbers
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
# at SuperSpeed a read shorter than a 1024-byte packet overflows
SS_SIZES="1024 2048 4096 8192 16384 32768 65536"
BUF=65536
CFG=/sys/kernel/config/usb_gadget
FFS=/dev/ffs-mw57bench

ktap_begin root
tmp=$(mktemp -d /tmp/rg-bench.XXXXXX)
pids=()
# every gadget and gadget program down (before dummy_hcd can be reloaded)
teardown() {
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
	pids=()
	umount "$FFS" 2>/dev/null
	rmdir "$FFS" 2>/dev/null
}
trap 'teardown; rm -rf "$tmp"' EXIT

modprobe -r usbtest 2>/dev/null
rg_modules num=5 || ktap_exit_fail_msg "cannot load dummy_hcd num=5 and raw_gadget"
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

# sourcesink NAME PID UDC: the configfs SourceSink, pattern 2, BUF-byte
# transfers, bound to UDC
sourcesink() {
	gadget "$1" "$2" SourceSink.0 &&
		echo 2 >"$CFG/mw57$1/functions/SourceSink.0/pattern" &&
		echo $BUF >"$CFG/mw57$1/functions/SourceSink.0/bulk_buflen" &&
		link_bind "$1" SourceSink.0 "$3"
}

# measure SPEED SIZES DEV=PID...: the interleaved rounds over the devices
measure() {
	local speed=$1 sizes=$2 r s dir d bps
	shift 2
	for d in "$@"; do
		wait_for 30 usb_dev 0525 "${d#*=}" >/dev/null ||
			ktap_exit_fail_msg "0525:${d#*=} did not enumerate"
	done
	for r in $(seq "$ROUNDS"); do
		for s in $sizes; do
			for dir in in out; do
				for d in "$@"; do
					bps=$(usb_bench "0525:${d#*=}" $dir "$s" "$MS") ||
						ktap_exit_fail_msg "usb_bench ${d%=*} $dir $s failed"
					echo "$speed ${d%=*} $dir $s $r $bps" >>"$tmp/samples"
				done
			done
		done
	done
}

# high speed: dummy_hcd num=5
rg-zero -P 2 -b $BUF -d dummy_udc.0 -p 0525:a4b0 2>"$tmp/zero.log" &
pids+=($!)
rg-zero -P 2 -b $BUF -q 4 -d dummy_udc.3 -p 0525:a4b1 2>"$tmp/zero-async.log" &
pids+=($!)
rg-zero -P 2 -b $BUF -q 4 -M -d dummy_udc.4 -p 0525:a4b3 2>"$tmp/zero-mapped.log" &
pids+=($!)
if ! gadget ffs a4c0 ffs.mw57bench || ! mkdir -p "$FFS" ||
	! mount -t functionfs mw57bench "$FFS"; then
	ktap_exit_fail_msg "FunctionFS setup failed"
fi
ffs_sourcesink "$FFS" $BUF >"$tmp/ffs.out" 2>&1 &
pids+=($!)
wait_for 30 grep -q ready "$tmp/ffs.out" || ktap_exit_fail_msg "ffs_sourcesink: $(cat "$tmp/ffs.out")"
link_bind ffs ffs.mw57bench dummy_udc.1 || ktap_exit_fail_msg "FunctionFS bind failed"
sourcesink ss a4d0 dummy_udc.2 || ktap_exit_fail_msg "SourceSink setup failed"
measure high "$SIZES" raw=a4b0 rga=a4b1 rgm=a4b3 ffs=a4c0 ss=a4d0
teardown

# SuperSpeed: dummy_hcd is_super_speed=1 num=3, async raw gadget (copied
# and mapped) and SourceSink only
rg_modules is_super_speed=1 num=3 ||
	ktap_exit_fail_msg "cannot load dummy_hcd is_super_speed=1 num=3"
rg-zero -P 2 -b $BUF -q 4 -s 5 -d dummy_udc.0 -p 0525:a4b2 2>"$tmp/zero-ss.log" &
pids+=($!)
rg-zero -P 2 -b $BUF -q 4 -M -s 5 -d dummy_udc.2 -p 0525:a4b4 2>"$tmp/zero-ss-mapped.log" &
pids+=($!)
sourcesink ss a4d2 dummy_udc.1 || ktap_exit_fail_msg "SourceSink setup at SuperSpeed failed"
measure super "$SS_SIZES" rga=a4b2 rgm=a4b4 ss=a4d2

python3 - "$tmp/samples" >"$tmp/table" <<'PY'
import statistics, sys
samples = {}
for line in open(sys.argv[1]):
    speed, dev, d, size, rnd, bps = line.split()
    samples[(speed, dev, d, int(size), int(rnd))] = float(bps)
rounds = sorted({k[4] for k in samples})


def med(speed, dev, d, size):
    return statistics.median(samples[(speed, dev, d, size, r)] for r in rounds) / 1e6


def ratio(speed, a, b, d, size):
    # the ratio measured in each round, side by side: median and range
    rs = [samples[(speed, a, d, size, r)] / samples[(speed, b, d, size, r)] for r in rounds]
    return statistics.median(rs), f"({min(rs):.2f}-{max(rs):.2f})"


def met(x, size, least=0):
    return "-" if size < least else ("met" if x >= 0.9 else "MISSED")


sizes = sorted({k[3] for k in samples if k[0] == "high"})
print("high speed (MB/s; ratios: median of the per-round ratios, range)")
print("dir  size      raw      rga      rgm      ffs       ss  raw/ffs (range)     "
      "rga/ss (range)      rgm/ss (range)     raw/ffs>=0.9 from 4K  rga/ss>=0.9  rgm/ss>=0.9")
for d in ("in", "out"):
    for size in sizes:
        r, a, m, f, s = (med("high", x, d, size) for x in ("raw", "rga", "rgm", "ffs", "ss"))
        rf, rfr = ratio("high", "raw", "ffs", d, size)
        aS, asr = ratio("high", "rga", "ss", d, size)
        mS, msr = ratio("high", "rgm", "ss", d, size)
        print(f"{d:4} {size:5} {r:8.2f} {a:8.2f} {m:8.2f} {f:8.2f} {s:8.2f}  {rf:7.2f} {rfr:11}  "
              f"{aS:7.2f} {asr:11}  {mS:7.2f} {msr:11}  {met(rf, size, 4096):20}  "
              f"{met(aS, size):11}  {met(mS, size)}")
print("SuperSpeed (from 1024 B: a shorter read overflows a 1024-byte packet)")
print("dir  size      rga      rgm       ss  rga/ss (range)      rgm/ss (range)     "
      "rga/ss>=0.9  rgm/ss>=0.9")
for d in ("in", "out"):
    for size in sorted({k[3] for k in samples if k[0] == "super"}):
        a, m, s = (med("super", x, d, size) for x in ("rga", "rgm", "ss"))
        aS, asr = ratio("super", "rga", "ss", d, size)
        mS, msr = ratio("super", "rgm", "ss", d, size)
        print(f"{d:4} {size:5} {a:8.2f} {m:8.2f} {s:8.2f}  {aS:7.2f} {asr:11}  "
              f"{mS:7.2f} {msr:11}  {met(aS, size):11}  {met(mS, size)}")
PY
ktap_print_msg "rounds $ROUNDS x ${MS} ms per sample, medians:"
ktap_print_msg "$(cat "$tmp/table")"
cp "$tmp/table" "${MW57_OUT:-/tmp}/bench-raw-gadget.txt"
cp "$tmp/samples" "${MW57_OUT:-/tmp}/bench-raw-gadget.samples"
ktap_test_pass "benchmark ran: $(wc -l <"$tmp/samples") samples"
ktap_finished
