#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# A SuperSpeed device through raw gadget on dummy_hcd is_super_speed=1
# (rg_ss.c): EP_ENABLE_SS with endpoint companions, the INFO ioctl's
# max_speed, data both ways at 5 Gb/s.  dummy_hcd's log line for an
# enabled endpoint is turned on while it runs: it says whether the UDC
# got the companion's streams.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

DDC=/proc/dynamic_debug/control
# shellcheck disable=SC2089 # the quotes are for the control file's parser
LINE='module dummy_hcd format "maxpacket %d stream"'
[ "$(id -u)" -eq 0 ] || { ktap_print_header; ktap_skip_all "needs root"; }
rg_modules is_super_speed=1 || { ktap_print_header; ktap_exit_fail_msg "cannot load dummy_hcd is_super_speed=1 and raw_gadget"; }
command -v rg_ss >/dev/null || { ktap_print_header; ktap_exit_fail_msg "rg_ss not built"; }
# shellcheck disable=SC2090 # as above
trap 'echo "$LINE -p" >$DDC' EXIT
echo "$LINE +p" >$DDC ||
	{ ktap_print_header; ktap_exit_fail_msg "cannot turn on dummy_hcd's enable message"; }
rg_ss
