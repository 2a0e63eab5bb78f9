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

rg_prog_start rg_abi num=2
rg_dyndbg "module raw_gadget" "raw_gadget's dynamic debug"
rg_abi dummy_udc.0 dummy_udc.1
