/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The mw57 authors. */
/*
 * TAP 13 for C test programs, with kselftest's exit codes; the C twin of
 * tests/lib/ktap.sh.
 */
#ifndef MW57_KTAP_H
#define MW57_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int ktap_n, ktap_fail, ktap_skip, ktap_plan = -1;

static inline void ktap_header(int plan)
{
	ktap_plan = plan;
	printf("TAP version 13\n1..%d\n", plan);
	fflush(stdout);
}

static inline void ktap_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
}

/* ktap_result(ok, "desc", ...): one "ok"/"not ok" line. */
static inline int ktap_result(int ok, const char *fmt, ...)
{
	va_list ap;

	ktap_n++;
	if (!ok)
		ktap_fail++;
	printf("%sok %d ", ok ? "" : "not ", ktap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return ok;
}

static inline void ktap_skipped(const char *desc, const char *why)
{
	ktap_n++;
	ktap_skip++;
	printf("ok %d %s # SKIP %s\n", ktap_n, desc, why);
	fflush(stdout);
}

static inline int ktap_finish(void)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       ktap_n - ktap_fail - ktap_skip, ktap_fail, ktap_skip);
	/* a test that stopped short of its plan failed */
	if (ktap_plan >= 0 && ktap_n != ktap_plan) {
		printf("# planned %d tests but ran %d\n", ktap_plan, ktap_n);
		return 1;
	}
	if (ktap_fail)
		return 1;
	return ktap_skip && ktap_skip == ktap_n ? 4 : 0;
}

static inline void ktap_bail(const char *why)
{
	printf("Bail out! %s\n", why);
	exit(1);
}

#endif /* MW57_KTAP_H */
