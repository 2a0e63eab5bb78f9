// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The mw57 authors. */
/*
 * irq-inject - inject interrupts through the irq_inject module.
 *
 *   irq-inject [-n COUNT] IRQ|NAME
 *   irq-inject --list
 *
 * NAME is an action name as shown by /proc/interrupts (virtio1-config,
 * i8042, rtc0, ...).  Interrupt facts come from /sys/kernel/irq/<N>/.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../kbuild/version.h"

#define INJECT_FILE	"/sys/kernel/debug/irq_inject/inject"
#define SYSIRQ		"/sys/kernel/irq"
#define MAX_COUNT	10000	/* IRQINJ_MAX_COUNT in the module */

struct irq_facts {
	unsigned int irq;
	char type[32];		/* "edge", "level" */
	char chip[64];
	char actions[256];	/* comma separated, "" when not requested */
};

static const char *sysdir = SYSIRQ;

/* Read one line of DIR/IRQ/FILE into BUF without the newline; "" if absent. */
static int read_attr(unsigned int irq, const char *file, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%u/%s", sysdir, irq, file);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int get_facts(unsigned int irq, struct irq_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->irq = irq;
	if (read_attr(irq, "type", f->type, sizeof(f->type)))
		return -1;
	read_attr(irq, "chip_name", f->chip, sizeof(f->chip));
	read_attr(irq, "actions", f->actions, sizeof(f->actions));
	return 0;
}

/* What /proc/interrupts shows for IRQ: the sum of its per-CPU counts. */
static long long irq_count(unsigned int irq)
{
	char buf[4096], *p, *end;
	long long sum = 0;

	if (read_attr(irq, "per_cpu_count", buf, sizeof(buf)))
		return -1;
	for (p = buf; *p; p = end) {
		sum += strtoll(p, &end, 10);
		if (end == p)
			break;
		if (*end == ',')
			end++;
	}
	return sum;
}

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int has_action(const char *actions, const char *name)
{
	char copy[256], *tok, *save;

	snprintf(copy, sizeof(copy), "%s", actions);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, name))
			return 1;
	return 0;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/* All irq numbers under /sys/kernel/irq, sorted; returns the count. */
static int list_irqs(unsigned int **out)
{
	unsigned int *irqs = NULL, *grown;
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(sysdir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!is_number(de->d_name))
			continue;
		grown = realloc(irqs, (n + 1) * sizeof(*irqs));
		if (!grown) {
			free(irqs);
			closedir(d);
			return -1;
		}
		irqs = grown;
		irqs[n++] = strtoul(de->d_name, NULL, 10);
	}
	closedir(d);
	qsort(irqs, n, sizeof(*irqs), cmp_uint);
	*out = irqs;
	return n;
}

/* Why injection into F cannot work, or NULL when it should. */
static const char *obstacle(const struct irq_facts *f)
{
	if (!f->irq)
		return "the timer interrupt (irq 0) is never injected";
	if (!f->actions[0])
		return "not requested by any driver";
	if (strcmp(f->type, "edge"))
		return "level-triggered: only edge interrupts can be replayed";
	return NULL;
}

static int do_list(void)
{
	struct irq_facts f;
	unsigned int *irqs;
	int i, n;

	n = list_irqs(&irqs);
	if (n < 0) {
		fprintf(stderr, "irq-inject: cannot read %s: %s\n", sysdir, strerror(errno));
		return 1;
	}
	printf("%5s  %-6s %-16s %-10s %s\n", "IRQ", "TYPE", "CHIP", "INJECT", "ACTIONS");
	for (i = 0; i < n; i++) {
		const char *why;

		if (get_facts(irqs[i], &f))
			continue;
		why = obstacle(&f);
		printf("%5u  %-6s %-16s %-10s %s%s%s\n", f.irq, f.type, f.chip,
		       why ? "no" : "yes", f.actions[0] ? f.actions : "-",
		       why ? "  # " : "", why ? why : "");
	}
	free(irqs);
	return 0;
}

/* IRQ number for ARG: a number, or the irq whose actions include ARG. */
static int resolve(const char *arg, unsigned int *irq)
{
	struct irq_facts f;
	unsigned int *irqs;
	int i, n, found = -1;

	if (is_number(arg)) {
		errno = 0;
		unsigned long v = strtoul(arg, NULL, 10);

		if (errno || v > 0xffffffffUL)
			return -1;
		*irq = v;
		return 0;
	}
	n = list_irqs(&irqs);
	if (n < 0)
		return -1;
	for (i = 0; i < n && found < 0; i++)
		if (!get_facts(irqs[i], &f) && has_action(f.actions, arg))
			found = irqs[i];
	free(irqs);
	if (found < 0)
		return -1;
	*irq = found;
	return 0;
}

static int locked_down(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strstr(buf, "[none]") && strchr(buf, '[');
}

/* Whether this process has CAP_SYS_ADMIN (bit 21 of CapEff). */
static int cap_sys_admin(void)
{
	unsigned long long eff = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return !!(eff & (1ULL << 21));
}

/* One sentence for the errno the module returned for IRQ. */
static void explain(int err, unsigned int irq)
{
	struct irq_facts f;
	const char *why;

	fprintf(stderr, "irq-inject: irq %u: ", irq);
	switch (err) {
	case ENOENT:
		fprintf(stderr, "%s is missing: load the module (modprobe irq_inject) and mount debugfs.\n",
			INJECT_FILE);
		break;
	case EACCES:
	case EPERM:
		if (locked_down())
			fprintf(stderr, "refused: the kernel is locked down (see /sys/kernel/security/lockdown).\n");
		else if (err == EPERM && cap_sys_admin())
			fprintf(stderr, "refused: timer interrupts (irq 0, IRQF_TIMER) are never injected.\n");
		else
			fprintf(stderr, "refused: injecting interrupts needs root with CAP_SYS_ADMIN.\n");
		break;
	case EINVAL:
		if (get_facts(irq, &f))
			fprintf(stderr, "no such interrupt.\n");
		else if ((why = obstacle(&f)))
			fprintf(stderr, "cannot be injected: %s.\n", why);
		else
			fprintf(stderr, "cannot be injected: the kernel refused it (NMI, or not activated).\n");
		break;
	case EBUSY:
		fprintf(stderr, "busy: a previous injection was still being replayed.\n");
		break;
	case ETIMEDOUT:
		fprintf(stderr, "injected, but not delivered within 100 ms, or its handler still ran after 1 s (is it disabled?).\n");
		break;
	case EINTR:
		fprintf(stderr, "interrupted by a signal; the burst stopped early.\n");
		break;
	default:
		fprintf(stderr, "%s.\n", strerror(err));
	}
}

static int do_inject(unsigned int irq, unsigned int count, const char *label)
{
	long long before, after;
	char cmd[64];
	int fd, len, err = 0;

	before = irq_count(irq);
	fd = open(INJECT_FILE, O_WRONLY);
	if (fd < 0) {
		explain(errno, irq);
		return 1;
	}
	len = snprintf(cmd, sizeof(cmd), "%u %u\n", irq, count);
	if (write(fd, cmd, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	after = irq_count(irq);
	if (err) {
		explain(err, irq);
		if (before >= 0 && after >= 0)
			fprintf(stderr, "irq-inject: /proc/interrupts delta for irq %u: +%lld\n",
				irq, after - before);
		return 1;
	}
	printf("irq %u%s%s%s: injected %u, /proc/interrupts +%lld\n", irq,
	       label ? " (" : "", label ? label : "", label ? ")" : "", count,
	       before >= 0 && after >= 0 ? after - before : -1LL);
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: irq-inject [-n COUNT] IRQ|NAME\n"
		"       irq-inject --list\n"
		"       irq-inject --version\n"
		"Inject COUNT (1..%d, default 1) interrupts into IRQ, or into the\n"
		"interrupt whose action NAME /proc/interrupts shows (e.g. virtio1-config).\n",
		MAX_COUNT);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'n' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long count = 1;
	unsigned int irq;
	int c;

	if (getenv("IRQ_INJECT_SYSFS"))		/* for the unit tests */
		sysdir = getenv("IRQ_INJECT_SYSFS");
	while ((c = getopt_long(argc, argv, "n:lhV", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!is_number(optarg) || (count = strtoul(optarg, NULL, 10)) < 1 ||
			    count > MAX_COUNT) {
				fprintf(stderr, "irq-inject: COUNT must be 1..%d\n", MAX_COUNT);
				return 2;
			}
			break;
		case 'l':
			return do_list();
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("irq-inject (mw57) %s\n", MW57_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	if (resolve(argv[optind], &irq)) {
		fprintf(stderr, "irq-inject: no interrupt named '%s' (see irq-inject --list)\n",
			argv[optind]);
		return 1;
	}
	return do_inject(irq, count, is_number(argv[optind]) ? NULL : argv[optind]);
}
