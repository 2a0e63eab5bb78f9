/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * Force-included into every mw57 module (kbuild/Kbuild.include).  Each
 * block covers one kernel API difference between Debian's 6.1 and 6.12
 * trees, selected by a MW57_HAVE_* feature probe from kbuild/probes.mk.
 * Module sources contain no version checks of their own.
 */
#ifndef _MW57_COMPAT_H
#define _MW57_COMPAT_H

#include "../version.h"

#endif /* _MW57_COMPAT_H */
