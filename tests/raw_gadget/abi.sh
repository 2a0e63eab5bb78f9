#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The errno contract of /dev/raw-gadget and our extensions (rg_abi.c), on
# dummy_hcd num=2: dummy_udc.0 enumerates a vendor device, dummy_udc.1 is
# left unanswered until its event queue overflows.  The module's dynamic
# debug is on while it runs: rg_abi checks that failures say why.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

DDC=/proc/dynamic_debug/control
[ "$(id -u)" -eq 0 ] || { ktap_print_header; ktap_skip_all "needs root"; }
rg_modules num=2 || { ktap_print_header; ktap_exit_fail_msg "cannot load dummy_hcd num=2 and raw_gadget"; }
command -v rg_abi >/dev/null || { ktap_print_header; ktap_exit_fail_msg "rg_abi not built"; }
trap 'echo "module raw_gadget -p" >$DDC' EXIT
echo "module raw_gadget +p" >$DDC ||
	{ ktap_print_header; ktap_exit_fail_msg "cannot turn on raw_gadget's dynamic debug"; }
rg_abi dummy_udc.0 dummy_udc.1
