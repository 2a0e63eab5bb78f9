#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Asynchronous raw gadget requests (SUBMIT, REAP, CANCEL) against usbfs on
# dummy_hcd (rg_async.c): several in flight both ways, cancel, the limits,
# and everything in flight ended by EP_DISABLE, a port reset, close() and
# an unbind of the UDC.  On the debug kernel KASAN, lockdep and kmemleak
# watch the request lifetimes.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/raw_gadget.sh
. ../lib/raw_gadget.sh

rg_prog_start rg_async
exec rg_async
