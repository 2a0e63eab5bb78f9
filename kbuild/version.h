/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * The one version source of the bundle.  dkms.conf's PACKAGE_VERSION, every
 * MODULE_VERSION() and the userspace tools are derived from this line;
 * `make check-version` fails when any of them differs.
 */
#ifndef _MW57_VERSION_H
#define _MW57_VERSION_H

#define MW57_VERSION "0.1.0"

#endif /* _MW57_VERSION_H */
