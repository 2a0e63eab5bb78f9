#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# The UDC goes away (sysfs unbind of dummy_udc.0, then modprobe -r
# dummy_hcd) while EP_READ, EP_WRITE, EP_ENABLE/EP_DISABLE and ep0
# transfers are in flight (rg_inflight.c), and comes back.  Meant for the
# debug kernel above all, where KASAN, lockdep and kmemleak watch it.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

rg_prog_start rg_inflight
exec rg_inflight
