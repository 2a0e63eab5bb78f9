#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Our raw_gadget against the reference raw_gadget of the debug kernel: our
# behaviour tests, once with each.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/reference.sh
. ../lib/reference.sh

ktap_begin root
ref_compare raw_gadget raw_gadget abi.sh keyboard.sh usbtest.sh multi.sh loopback.sh
