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

rg_prog_start rg_ss is_super_speed=1
# (the quotes are for the control file's parser)
rg_dyndbg 'module dummy_hcd format "maxpacket %d stream"' "dummy_hcd's enable message"
rg_ss
