# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# Two network namespaces, named by the caller in $A and $B.

a() { ip netns exec "$A" "$@"; }
b() { ip netns exec "$B" "$@"; }

# ns_both CMD: the shell command CMD (sh -e) in $A, then in $B, with
# me=1 peer=2 p=a o=b set in $A and me=2 peer=1 p=b o=a in $B (the
# addresses and device letters of each side); exported variables reach it
ns_both() {
	a env me=1 peer=2 p=a o=b sh -e -c "$1" &&
		b env me=2 peer=1 p=b o=a sh -e -c "$1"
}
