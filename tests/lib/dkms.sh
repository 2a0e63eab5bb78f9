# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
# shellcheck shell=bash
#
# The one reader of the staged DKMS trees' dkms.conf in the guest
# (tests/run.sh, tests/packaging): the run directory's bundle/ holds one
# tree per DKMS package, <name>-<version>, written by kbuild/dkms-install.sh.

# dkms_conf TREE NAME: the value(s) of NAME in TREE's dkms.conf, one a
# line (NAME may be a pattern: 'BUILT_MODULE_NAME\[[0-9]*\]')
dkms_conf() {
	sed -n "s/^$2=\"\(.*\)\"$/\1/p" "$1/dkms.conf"
}
