#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Our bareudp against the reference bareudp of the debug kernel: the
# kernel's selftest and our behaviour tests, once with each.
set -u
cd "$(dirname "$0")" || exit 1
# shellcheck source=../lib/ktap.sh
. ../lib/ktap.sh
# shellcheck source=../lib/reference.sh
. ../lib/reference.sh

ktap_begin root
ref_compare bareudp bareudp selftest.sh config.sh traffic.sh mpls.sh ecn.sh mtu.sh interop.sh ovs.sh
