// SPDX-License-Identifier: GPL-2.0
/*
 * Copyright (C) 2026 The mw57 authors.
 *
 * crp_mmap r|rx|rie: one private anonymous mapping, and the permissions
 * the kernel gave it.
 *   r    PROT_READ
 *   rx   PROT_READ | PROT_EXEC
 *   rie  PROT_READ after personality(READ_IMPLIES_EXEC): the kernel
 *        applies PROT_READ | PROT_EXEC (the case checkreqprot=1 checked
 *        as requested)
 * Prints "ok <perms from /proc/self/maps>" or the errno name of the
 * refusal; exits 0 on either, 2 on a usage or system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>

/* the permission string of the /proc/self/maps line that starts at addr */
static int map_perms(void *addr, char *perms)
{
	unsigned long start;
	char line[512];
	FILE *f;
	int found = 0;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx-%*x %4s", &start, perms) == 2 &&
			start == (unsigned long)addr;
	fclose(f);
	return found ? 0 : -1;
}

int main(int argc, char **argv)
{
	int prot = PROT_READ;
	char perms[5];
	void *p;

	if (argc != 2)
		goto usage;
	if (!strcmp(argv[1], "rx")) {
		prot |= PROT_EXEC;
	} else if (!strcmp(argv[1], "rie")) {
		if (personality(PER_LINUX | READ_IMPLIES_EXEC) < 0) {
			perror("personality");
			return 2;
		}
	} else if (strcmp(argv[1], "r")) {
		goto usage;
	}
	p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		printf("%s\n", strerrorname_np(errno));
		return 0;
	}
	if (map_perms(p, perms)) {
		fprintf(stderr, "no /proc/self/maps line at %p\n", p);
		return 2;
	}
	printf("ok %s\n", perms);
	return 0;
usage:
	fprintf(stderr, "usage: crp_mmap r|rx|rie\n");
	return 2;
}
