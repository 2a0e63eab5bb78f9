#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# checkreqprot on a guest booted with "security=selinux checkreqprot=1".
#
# What it decides, with a policy loaded (execmem.cil: "process execmem"
# never allowed, everything else allowed) and enforcing on: a PROT_READ
# anonymous mapping of a READ_IMPLIES_EXEC process, which the kernel maps
# executable, is checked as requested (PROT_READ: allowed) on Debian 6.1,
# and as applied (PROT_EXEC: execmem, refused) where checkreqprot is gone.
# PROT_READ alone must map and PROT_READ|PROT_EXEC be refused everywhere,
# or the policy proves nothing.  Then the interface:
#
#   Debian 6.1 (deprecated, still effective): the boot parameter is logged
#     as deprecated and takes effect (reads 1); a write of 1 sleeps 5 s,
#     is logged and takes effect.
#   Debian 6.12 and the patched 6.1 (removed): logged as no longer
#     supported and ignored: reads 0, a write of 1 returns at once and the
#     value stays 0; the Kconfig option is gone.
#
# Never asserts that a write of 1 fails: no upstream release refuses it.
# A write of 0 must succeed everywhere (distributions write it at boot).
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh

ktap_begin root

fs=/sys/fs/selinux
kver=$(uname -r)
case $kver in
6.1.*-amd64) mode=effective ;;	# Debian's own 6.1
*) mode=inert ;;		# Debian 6.12, the patched 6.1 (-mw57debug)
esac
ktap_print_msg "$kver: checkreqprot expected $mode"
grep -qw checkreqprot=1 /proc/cmdline || ktap_exit_fail_msg "booted without checkreqprot=1"
grep -qw selinux /sys/kernel/security/lsm ||
	ktap_exit_fail_msg "SELinux is not active (lsm: $(cat /sys/kernel/security/lsm))"
# (the directory's type, not mountpoint(1): see tests/lib/raw_gadget.sh)
[ "$(stat -f -c %T "$fs")" = selinux ] || mount -t selinuxfs selinuxfs "$fs" ||
	ktap_exit_fail_msg "cannot mount selinuxfs"

ktap_set_plan 11

# write_crp VALUE: write VALUE to checkreqprot; sets wrc (0 or errno text)
# and wsecs (whole seconds the write took)
write_crp() {
	local t0=$SECONDS
	if out=$(python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.write(fd, sys.argv[2].encode())' "$fs/checkreqprot" "$1" 2>&1); then
		wrc=0
	else
		wrc=$(tail -n1 <<<"$out")
	fi
	wsecs=$((SECONDS - t0))
}

if [ $mode = effective ]; then
	boot_pat='checkreqprot set to 1 via kernel parameter.  This is deprecated'
	want_boot=1 want_after=1
	write_pat='set checkreqprot to 1\. This is deprecated'
else
	boot_pat='checkreqprot set to 1 via kernel parameter.  This is no longer supported'
	want_boot=0 want_after=0
	write_pat='(set checkreqprot to 1|wrote to checkreqprot)\. This is no longer supported'
fi

ktap_test_result "boot parameter logged: '$boot_pat'" \
	sh -c "dmesg | grep -qF '$boot_pat'"
got=$(cat "$fs/checkreqprot")
ktap_test_result "reads $want_boot after boot with checkreqprot=1 (got $got)" \
	test "$got" = "$want_boot"

# the mappings, while checkreqprot still has its boot value
enforce() { echo "$1" >"$fs/enforce"; }
trap 'enforce 0 2>/dev/null' EXIT
cat "$MW57_BIN/execmem.pol" >"$fs/load" || ktap_exit_fail_msg "cannot load execmem.pol"
enforce 1 || ktap_exit_fail_msg "cannot switch to enforcing"
r=$(crp_mmap r) rx=$(crp_mmap rx) rie=$(crp_mmap rie)
enforce 0
ktap_print_msg "enforcing: PROT_READ: $r; PROT_READ|PROT_EXEC: $rx; PROT_READ with READ_IMPLIES_EXEC: $rie"
ktap_test_result "policy: PROT_READ maps ($r)" test "$r" = "ok r--p"
ktap_test_result "policy: PROT_READ|PROT_EXEC is refused, execmem ($rx)" test "$rx" = EACCES
if [ $mode = effective ]; then
	ktap_test_result "READ_IMPLIES_EXEC: PROT_READ checked as requested, mapped executable ($rie)" \
		test "$rie" = "ok r-xp"
else
	ktap_test_result "READ_IMPLIES_EXEC: PROT_READ checked as PROT_EXEC, refused ($rie)" \
		test "$rie" = EACCES
fi
rie=$(crp_mmap rie)
ktap_test_result "READ_IMPLIES_EXEC maps PROT_READ executable when permissive ($rie)" \
	test "$rie" = "ok r-xp"

write_crp 0
got=$(cat "$fs/checkreqprot")
ktap_test_result "a write of 0 succeeds and reads 0 ($wrc, got $got)" \
	test "$wrc" = 0 -a "$got" = 0

write_crp 1
got=$(cat "$fs/checkreqprot")
ktap_print_msg "write of 1: result $wrc after ${wsecs} s, reads $got"
ktap_test_result "a write of 1 is accepted, value now $want_after (got $got)" \
	test "$wrc" = 0 -a "$got" = "$want_after"
if [ $mode = effective ]; then
	ktap_test_result "the write of 1 sleeps 5 s (took ${wsecs} s)" test "$wsecs" -ge 5
else
	ktap_test_result "the write of 1 does not sleep (took ${wsecs} s)" test "$wsecs" -lt 5
fi
ktap_test_result "the write of 1 is logged: '$write_pat'" \
	sh -c "dmesg | grep -qE '$write_pat'"

cfg=$(grep -s 'SECURITY_SELINUX_CHECKREQPROT_VALUE' "/boot/config-$kver")
ktap_print_msg "/boot/config-$kver: ${cfg:-no SECURITY_SELINUX_CHECKREQPROT_VALUE}"
if [ $mode = effective ]; then
	ktap_test_result "Kconfig still has SECURITY_SELINUX_CHECKREQPROT_VALUE" test -n "$cfg"
else
	ktap_test_result "Kconfig option SECURITY_SELINUX_CHECKREQPROT_VALUE is gone" test -z "$cfg"
fi
write_crp 0

ktap_finished
