#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Copyright (C) 2026 The mw57 authors.
#
# Print the bundle's version: MW57_VERSION of kbuild/version.h, its one
# source.  Every Makefile and script reads it through this file.
sed -n 's/^#define MW57_VERSION "\(.*\)"$/\1/p' "$(dirname "$0")/version.h"
